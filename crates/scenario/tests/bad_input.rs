//! A wrong config is refused before it runs, with the key, the value and what is allowed.

use incastsim_scenario::{ConfigError, from_yaml_checked};

const BASE: &str = r#"
senders: 4
topology: {kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 32KB}
workload: {kind: synchronized_reads, sru: 256KB, blocks: 2}
"#;

fn err(overrides: &[&str]) -> String {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    match from_yaml_checked(BASE, &o) {
        Ok(_) => panic!("{overrides:?} was accepted"),
        Err(e) => e.to_string(),
    }
}

fn assert_mentions(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "error {msg:?} does not mention {p:?}");
    }
}

#[test]
fn base_config_is_valid() {
    from_yaml_checked(BASE, &[]).unwrap();
}

#[test]
fn unknown_key() {
    let m = err(&["tcp.rto_mni=1ms"]);
    assert_mentions(&m, &["tcp", "rto_mni", "rto_min"]);
    let m = err(&["bogus=1"]);
    assert_mentions(&m, &["bogus", "senders"]);
}

#[test]
fn wrong_unit() {
    let m = err(&["tcp.rto_min=200xs"]);
    assert_mentions(&m, &["tcp.rto_min", "200xs", "ms"]);
    let m = err(&["topology.link_rate=1GBps"]);
    assert_mentions(&m, &["topology", "1GBps", "Gbps"]);
    let m = err(&["tcp.rto_min=200"]);
    assert_mentions(&m, &["tcp.rto_min", "200", "unit"]);
}

#[test]
fn zero_or_negative_rate() {
    let m = err(&["topology.link_rate=0Gbps"]);
    assert_mentions(&m, &["topology.link_rate", "positive"]);
    let m = err(&["topology.link_rate=-1Gbps"]);
    assert_mentions(&m, &["topology", "-1Gbps"]);
}

#[test]
fn mss_larger_than_buffer() {
    let m = err(&["tcp.mss=40000B"]);
    assert_mentions(&m, &["topology.switch_buffer", "32KB", "40040"]);
}

#[test]
fn zero_senders() {
    let m = err(&["senders=0"]);
    assert_mentions(&m, &["senders", "0", "between 1"]);
    let m = err(&["senders=-3"]);
    assert_mentions(&m, &["senders"]);
}

#[test]
fn unknown_scheme_and_kinds() {
    let m = err(&["scheme=tcprandom"]);
    assert_mentions(&m, &["scheme", "tcprandom", "none", "tcprand", "plato"]);
    let m = err(&["scheme.name=tda", "scheme.omega=0.5"]);
    assert_mentions(&m, &["scheme.omega", "0.5", "at least 1"]);
    let m = err(&["scheme.name=tda", "scheme.omgea=2"]);
    assert_mentions(&m, &["scheme", "omgea", "omega"]);
    let m = err(&["scheme.name=tda", "scheme.delta=1xs"]);
    assert_mentions(&m, &["scheme", "delta", "1xs"]);
    let m = err(&["scheme.name=tcprand"]);
    assert_mentions(&m, &["scheme.r_min", "adaptive", "cubic"]);
    let m = err(&["scheme.name=tcprand", "scheme.r_min=2000B"]);
    assert_mentions(&m, &["scheme.r_min", "2000", "tcp.mss"]);
    let m = err(&["scheme.name=prob_retx", "scheme.p=1.5"]);
    assert_mentions(&m, &["scheme.p", "1.5", "probability"]);
    let m = err(&["scheme.name=dsr", "scheme.mss_dsr=0B"]);
    assert_mentions(&m, &["scheme.mss_dsr", "0", "tcp.mss"]);
    let m = err(&["scheme.name=maa", "scheme.sigma=-1"]);
    assert_mentions(&m, &["scheme.sigma", "-1", "positive"]);
    let m = err(&["topology.kind=ring"]);
    assert_mentions(&m, &["topology", "ring", "star", "dumbbell"]);
    let m = err(&["tcp.congestion_control=vegas"]);
    assert_mentions(&m, &["tcp.congestion_control", "vegas", "newreno"]);
}

#[test]
fn inconsistent_workload() {
    let m = err(&["workload.block=1MB"]);
    assert_mentions(&m, &["workload.sru", "workload.block", "exactly one"]);
    let m = err(&["workload.blocks=0"]);
    assert_mentions(&m, &["workload.blocks", "at least 1"]);
    let m = err(&["tcp.rto_max=1ms"]);
    assert_mentions(&m, &["tcp.rto_max", "rto_min"]);
    let m = err(&["topology.link_loss=1.5"]);
    assert_mentions(&m, &["topology.link_loss", "1.5"]);
}

#[test]
fn malformed_yaml_and_overrides() {
    assert!(matches!(
        from_yaml_checked("senders: [1, 2", &[]),
        Err(ConfigError::Syntax(_))
    ));
    assert!(matches!(
        from_yaml_checked("- just a list", &[]),
        Err(ConfigError::Syntax(_))
    ));
    let m = err(&["senders"]);
    assert_mentions(&m, &["senders", "key.path=value"]);
    let m = err(&["senders.x=1"]);
    assert_mentions(&m, &["senders", "not a section"]);
}

mod no_panic {
    use super::*;
    use proptest::prelude::*;

    const KEYS: &[&str] = &[
        "senders",
        "seed",
        "topology.kind",
        "topology.link_rate",
        "topology.link_delay",
        "topology.switch_buffer",
        "topology.host_buffer",
        "topology.link_loss",
        "tcp.mss",
        "tcp.header",
        "tcp.initial_cwnd",
        "tcp.rto_min",
        "tcp.rto_max",
        "tcp.rto_initial",
        "tcp.receive_window_segments",
        "tcp.dupack_threshold",
        "tcp.delayed_ack.count",
        "tcp.delayed_ack.enabled",
        "workload.kind",
        "workload.sru",
        "workload.block",
        "workload.blocks",
        "workload.start_jitter",
        "workload.duration",
        "scheme",
        "run.max_sim_time",
    ];
    const VALUES: &[&str] = &[
        "0",
        "1",
        "-1",
        "1.5",
        "4294967296",
        "18446744073709551616",
        "true",
        "~",
        "[]",
        "{}",
        "1Gbps",
        "0bps",
        "25us",
        "0s",
        "1KB",
        "0B",
        "1 packets",
        "0 packets",
        "unlimited",
        "star",
        "bulk",
        "dumbbell",
        "none",
        "x",
        "1e30s",
        "NaN",
    ];

    proptest! {
        /// Any combination of keys and odd values gives Ok or a clear error, never a panic; and
        /// anything accepted builds a simulation without panicking.
        #[test]
        fn configs_never_panic(picks in proptest::collection::vec((0..KEYS.len(), 0..VALUES.len()), 1..4)) {
            let o: Vec<String> = picks.iter().map(|(k, v)| format!("{}={}", KEYS[*k], VALUES[*v])).collect();
            if let Ok(cfg) = from_yaml_checked(BASE, &o) {
                // `check_buildable` ran every check `Plan::new` runs: a checked config builds.
                let built = incastsim_scenario::Simulation::new(&cfg, cfg.seed);
                prop_assert!(built.is_ok(), "{o:?}: checked, then refused: {:?}", built.err());
            }
        }
    }
}

/// Every shipped scenario config (and the base point of every shipped sweep) is valid. Configs
/// with an `experiment:` section are for `incastsim experiment` and are checked by its tests.
#[test]
fn every_shipped_config_loads() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    let mut checked = 0;
    for dir in [root.clone(), root.join("papers")] {
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
            .collect();
        paths.sort();
        for p in paths {
            let text = std::fs::read_to_string(&p).unwrap();
            if text.lines().any(|l| l.starts_with("experiment:")) {
                continue;
            }
            incastsim_scenario::load_checked(&p, &["sweep=null".into()])
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} configs");
}

/// `name` is the default output folder: a config cannot make the CLI write outside `out/`.
#[test]
fn name_must_be_a_plain_file_name() {
    for bad in ["../escape", "/etc/x", "a/b", "", ".hidden", "two words"] {
        let o = format!("name={bad:?}");
        let msg = err(&[&o]);
        assert_mentions(&msg, &["name", "letters, digits"]);
    }
    for good in ["incast-classic", "S1_n64", "run.2", "a+b"] {
        from_yaml_checked(BASE, &[format!("name={good}")]).unwrap();
    }
}
