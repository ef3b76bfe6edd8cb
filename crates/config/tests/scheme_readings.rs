//! The papers' ambiguous passages as scheme parameters (issue 16): defaults, the older spelling
//! of probabilistic retransmission's segment, round trips through the resolved config, and
//! refused values naming the key.

use incastsim_config::Config;
use incastsim_config::scheme::{
    PlatoParams, PlatoRetxLabelName, PrSegmentName, ProbRetxParams, SchemeConfig, TdaParams,
};

const BASE: &str =
    "senders: 4\ntopology: {kind: star}\nworkload: {kind: synchronized_reads, sru: 64KB}\n";

fn scheme(s: &str) -> Result<SchemeConfig, String> {
    Config::from_yaml(&format!("{BASE}scheme: {s}\n"), &[])
        .map(|c| c.scheme)
        .map_err(|e| e.to_string())
}

fn round_trip(s: &SchemeConfig) {
    let cfg = Config::from_yaml(&format!("{BASE}scheme: prob_retx\n"), &[]).unwrap();
    let mut cfg = cfg;
    cfg.scheme = s.clone();
    let again = Config::from_yaml(&cfg.to_yaml(), &[]).unwrap();
    assert_eq!(&again.scheme, s);
}

#[test]
fn probabilistic_retransmission_readings() {
    let SchemeConfig::ProbRetx(p) = scheme("prob_retx").unwrap() else {
        panic!()
    };
    assert_eq!(p.segment, PrSegmentName::SndUna);
    assert!(p.suspend_in_recovery);
    let s = scheme("{name: prob_retx, segment: last_sent, suspend_in_recovery: false}").unwrap();
    assert!(matches!(
        &s,
        SchemeConfig::ProbRetx(ProbRetxParams {
            segment: PrSegmentName::LastSent,
            suspend_in_recovery: false,
            ..
        })
    ));
    round_trip(&s);
    // The older spelling.
    let SchemeConfig::ProbRetx(p) = scheme("{name: prob_retx, target: highest}").unwrap() else {
        panic!()
    };
    assert_eq!(p.segment, PrSegmentName::LastSent);
    let err = scheme("{name: prob_retx, segment: newest}").unwrap_err();
    assert!(err.contains("segment") && err.contains("snd_una"), "{err}");
}

#[test]
fn tda_readings() {
    let SchemeConfig::Tda(t) = scheme("tda").unwrap() else {
        panic!()
    };
    assert_eq!(
        (t.keep_backoff, t.s_max, t.lower_bound),
        (false, None, None)
    );
    let s = scheme("{name: tda, keep_backoff: true, s_max: 6, lower_bound: 5ms}").unwrap();
    let SchemeConfig::Tda(TdaParams {
        keep_backoff: true,
        s_max: Some(6),
        lower_bound: Some(b),
        ..
    }) = &s
    else {
        panic!("{s:?}")
    };
    assert_eq!(b.0, incastsim_core::Duration::from_ms(5));
    round_trip(&s);
    round_trip(&scheme("tda").unwrap());
    let err = scheme("{name: tda, s_max: 0}").unwrap_err();
    assert!(err.contains("scheme.s_max"), "{err}");
}

#[test]
fn plato_retransmission_label() {
    assert_eq!(
        scheme("plato").unwrap(),
        SchemeConfig::Plato(PlatoParams {
            retransmission_label: PlatoRetxLabelName::Separate
        })
    );
    let s = scheme("{name: plato, retransmission_label: heartbeat}").unwrap();
    round_trip(&s);
    let err = scheme("{name: plato, retransmission_label: both}").unwrap_err();
    assert!(err.contains("retransmission_label"), "{err}");
}
