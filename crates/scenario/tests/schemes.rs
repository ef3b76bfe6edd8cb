//! Every scheme through the whole engine: it runs S1 without breaking an invariant, is
//! deterministic, appears in the resolved config (which reproduces the run) and acts.

use crate::common;
use common::*;
use incastsim_scenario::config::scheme::{SCHEMES, SchemeConfig};
use incastsim_scenario::{Config, from_yaml_checked};

/// Debug strings compare every field, NaN ones included (NaN != NaN under ==).
fn same(r: &incastsim_scenario::RunResult) -> String {
    format!("{r:?}")
}

fn with_scheme(n: u32, rto_min: &str, scheme: &[&str]) -> Config {
    let mut o = vec![
        format!("senders={n}"),
        format!("tcp.rto_min={rto_min}"),
        "workload.blocks=5".to_string(),
    ];
    o.extend(scheme.iter().map(|s| s.to_string()));
    let o: Vec<&str> = o.iter().map(|s| s.as_str()).collect();
    shipped("incast-classic.yaml", &o)
}

/// Scheme settings that run on S1 (TCPRand's adaptive rMin needs CUBIC; PLATO its switch).
fn every_scheme() -> Vec<Vec<&'static str>> {
    SCHEMES
        .iter()
        .map(|(name, _)| match *name {
            "none" => vec!["scheme.name=none"],
            "rto_static" => vec!["scheme.name=rto_static"],
            "tda" => vec!["scheme.name=tda"],
            "maa" => vec!["scheme.name=maa"],
            "fsa" => vec!["scheme.name=fsa"],
            "fine_rto" => vec!["scheme.name=fine_rto"],
            "tcprand" => vec!["scheme.name=tcprand", "tcp.congestion_control=cubic"],
            "prob_retx" => vec!["scheme.name=prob_retx"],
            "dsr" => vec!["scheme.name=dsr", "scheme.compressed_header=4B"],
            "plato" => vec![
                "scheme.name=plato",
                "topology.switch_queue.kind=threshold_admit",
                "topology.switch_queue.threshold=22400B",
            ],
            "ictcp" => vec!["scheme.name=ictcp"],
            other => panic!("add {other} to this test"),
        })
        .collect()
}

#[test]
fn every_scheme_runs_deterministically_and_round_trips() {
    for s in every_scheme() {
        let cfg = with_scheme(32, "10ms", &s);
        let a = run(&cfg, 3);
        assert_eq!(same(&a), same(&run(&cfg, 3)), "{s:?} is not deterministic");
        assert_eq!(a.run.scheme, cfg.scheme.name());
        assert_eq!(a.run.blocks_completed, 5, "{s:?}");
        // The resolved config names every parameter and reproduces the run.
        let yaml = cfg.to_yaml();
        assert!(
            yaml.contains(&format!("name: {}", cfg.scheme.name())),
            "{yaml}"
        );
        let again = from_yaml_checked(&yaml, &[]).unwrap();
        assert_eq!(again, cfg);
        assert_eq!(same(&run(&again, 3)), same(&a));
    }
}

#[test]
fn short_form_and_defaults() {
    let a = with_scheme(4, "10ms", &["scheme=tda"]);
    let b = with_scheme(
        4,
        "10ms",
        &["scheme.name=tda", "scheme.delta=1ms", "scheme.omega=2"],
    );
    assert_eq!(a.scheme, b.scheme);
    assert_eq!(SchemeConfig::defaults("tda"), Some(a.scheme));
    assert!(SchemeConfig::defaults("bogus").is_none());
}

#[test]
fn scheme_none_is_the_baseline() {
    let base = s1(16, "10ms");
    let none = with_scheme(16, "10ms", &["scheme=none", "workload.blocks=100"]);
    assert_eq!(same(&run(&base, 5)), same(&run(&none, 5)));
}

#[test]
fn schemes_act() {
    // RTO randomization changes the timeout waits but not the first blocks' packets before any
    // timeout; with a scheme the run differs from plain TCP at 64 senders.
    let plain = run(&with_scheme(64, "10ms", &[]), 1);
    assert!(plain.run.rto_count > 0);
    for s in [["scheme=tda"], ["scheme=maa"], ["scheme=rto_static"]] {
        let r = run(&with_scheme(64, "10ms", &s), 1);
        assert_ne!(r.run.timeout_wait_s, plain.run.timeout_wait_s, "{s:?}");
    }
    // TCPRand: payloads below the MSS → more segments for the same bytes.
    let cubic = with_scheme(8, "10ms", &["tcp.congestion_control=cubic"]);
    let static_rand = with_scheme(8, "10ms", &["scheme.name=tcprand", "scheme.r_min=200B"]);
    let (a, b) = (run(&cubic, 1), run(&static_rand, 1));
    assert_eq!(a.run.app_bytes, b.run.app_bytes);
    assert!(b.run.data_segments_sent as f64 > 1.4 * a.run.data_segments_sent as f64);
    // DSR with 50 B segments and a 4 B header: more, smaller packets than plain TCP.
    let dsr = run(&with_scheme(4, "10ms", &["scheme=dsr"]), 1);
    let base = run(&with_scheme(4, "10ms", &[]), 1);
    assert!(dsr.run.data_segments_sent > base.run.data_segments_sent);
    // ICTCP limits the advertised windows: fewer drops than plain TCP at 32 senders.
    let ictcp = run(&with_scheme(32, "200ms", &["scheme=ictcp"]), 1);
    let plain32 = run(&with_scheme(32, "200ms", &[]), 1);
    assert!(ictcp.run.drops_total < plain32.run.drops_total);
    // Probabilistic retransmission sends marked retransmissions.
    let pr = run(
        &with_scheme(32, "200ms", &["scheme.name=prob_retx", "scheme.p=0.01"]),
        1,
    );
    let plain = run(&with_scheme(32, "200ms", &[]), 1);
    assert!(pr.run.retransmitted_segments > plain.run.retransmitted_segments);
}

#[test]
fn fast_retransmit_bound_in_runs_csv() {
    // Ge et al. Eq. 3 on S1: B = 32 000 B, C = 125 MB/s, T = 50 µs (two 25 µs links),
    // L = 1040 B: (32000 + 12500) / 5200 = 8.557...
    let r = run(&s1(4, "10ms"), 1);
    assert!((r.run.fast_retransmit_bound - 44_500.0 / 5200.0).abs() < 1e-9);
}
