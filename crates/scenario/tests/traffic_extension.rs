//! A traffic generator registered from outside the crate (`TrafficGeneratorExtension`), chosen
//! by its name as an entry's `kind`: its flows are the hand-computed ones, treated as the
//! built-ins' (FCT, slowdown, flow overrides), drawn from the entry's own stream, and its bad
//! parameters and unknown names get the built-ins' error shape.

use incastsim_core::{Duration, Time};
use incastsim_scenario::config::invalid;
use incastsim_scenario::config::units::{Bytes, Dur};
use incastsim_scenario::extend::{GeneratedFlow, TrafficContext, TrafficGeneratorExtension};
use incastsim_scenario::plan::traffic::HostList;
use incastsim_scenario::{
    Config, ConfigError, Extensions, Plan, RunOptions, check_buildable, run_with,
};
use serde::{Deserialize, Serialize};

/// `round_robin`: flow i goes from the i-th host of `sources` (cycling) to `to`, starting at
/// i × `gap` (plus U[0, jitter] from the entry's stream), `size` bytes each, `flows` flows.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RoundRobinParams {
    #[serde(default = "senders")]
    sources: HostList,
    #[serde(default = "receiver")]
    to: String,
    #[serde(default = "two")]
    flows: u32,
    #[serde(default = "gap")]
    gap: Dur,
    #[serde(default = "size")]
    size: Bytes,
    #[serde(default = "no_jitter")]
    jitter: Dur,
}

fn senders() -> HostList {
    HostList(vec!["senders".into()])
}
fn receiver() -> String {
    "receiver".into()
}
fn two() -> u32 {
    2
}
fn gap() -> Dur {
    Dur(Duration::from_us(100))
}
fn size() -> Bytes {
    Bytes(14_600)
}
fn no_jitter() -> Dur {
    Dur(Duration::ZERO)
}

struct RoundRobin;

impl TrafficGeneratorExtension for RoundRobin {
    type Params = RoundRobinParams;
    const DESCRIPTION: &'static str = "flows from the sources in turn, a fixed gap apart";
    fn check(p: &RoundRobinParams) -> Result<(), ConfigError> {
        if p.gap.0 == Duration::ZERO {
            return Err(invalid("gap", p.gap.0, "a positive duration"));
        }
        Ok(())
    }
    fn generate(
        p: &RoundRobinParams,
        ctx: &mut TrafficContext,
    ) -> Result<Vec<GeneratedFlow>, ConfigError> {
        let srcs = ctx.hosts(&p.sources, "sources")?;
        let dst = ctx.host(&p.to, "to")?;
        Ok((0..p.flows as u64)
            .map(|i| {
                let jitter = ctx.rng().duration_up_to(p.jitter.0);
                let start = Time::ZERO + Duration(p.gap.0.as_ps() * i) + jitter;
                let src = srcs[i as usize % srcs.len()];
                ctx.sized_flow(src, dst, start, p.size.0)
            })
            .collect())
    }
}

fn extensions() -> Extensions {
    Extensions::new().traffic_generator::<RoundRobin>("round_robin")
}

/// A star of 3 senders + the receiver (host 3), 1 Gbps, 25 us links, a traffic workload.
fn star(traffic: &str, extra: &str) -> Result<Config, ConfigError> {
    checked(&star_yaml(traffic, extra))
}

/// `yaml` loaded and checked in full knowing the generator.
fn checked(yaml: &str) -> Result<Config, ConfigError> {
    let ext = extensions();
    let cfg = Config::from_yaml_with(yaml, &[], &ext)?;
    check_buildable(&cfg, &ext)?;
    Ok(cfg)
}

/// `cfg`'s run with the generator registered.
fn run(cfg: &Config, seed: u64) -> incastsim_scenario::RunResult {
    run_with(cfg, seed, &RunOptions::new().extensions(&extensions())).unwrap()
}

fn star_yaml(traffic: &str, extra: &str) -> String {
    format!(
        r#"
name: generator-test
senders: 3
topology: {{kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 100KB}}
tcp: {{mss: 1460B, header: 40B, initial_cwnd: 2, rto_min: 10ms, delayed_ack: {{enabled: false}}}}
workload: {{kind: traffic, duration: 0.1s}}
traffic: {traffic}
{extra}
"#
    )
}

#[test]
fn the_flows_are_the_hand_computed_ones_with_fct_and_slowdown() {
    let cfg = star("[{kind: round_robin, flows: 4, gap: 1ms, size: 2920B}]", "").unwrap();
    let r = run(&cfg, 1);
    assert!(r.run.completed);
    let got: Vec<(u32, u32, f64, Option<u64>)> = r
        .flows
        .iter()
        .map(|f| (f.src_host, f.dst_host, f.start_s, f.size_bytes))
        .collect();
    // Senders are hosts 0, 1, 2, the receiver host 3; flow i at i ms.
    let want = [
        (0, 3, 0.0, Some(2920)),
        (1, 3, 0.001, Some(2920)),
        (2, 3, 0.002, Some(2920)),
        (0, 3, 0.003, Some(2920)),
    ];
    assert_eq!(got, want);
    for f in &r.flows {
        assert_eq!(f.kind, "round_robin");
        assert_eq!(f.generator, Some(0));
        // Each flow is alone on the network (1 ms apart, two segments): its FCT is the ideal
        // one, slowdown 1.
        let slowdown = f.slowdown.expect("a sized flow gets a slowdown");
        assert!((slowdown - 1.0).abs() < 1e-9, "{f:?}");
        assert_eq!(f.bytes_delivered, 2920);
    }
}

#[test]
fn flow_overrides_select_its_flows_as_any_others() {
    let cfg = star(
        "[{kind: round_robin, flows: 3}]",
        "flow_overrides: [{flows: [1], tcp: {congestion_control: cubic}}]",
    )
    .unwrap();
    let r = run(&cfg, 1);
    let cc: Vec<&str> = r
        .flows
        .iter()
        .map(|f| f.congestion_control.as_ref())
        .collect();
    assert_eq!(cc, ["newreno", "cubic", "newreno"]);
}

#[test]
fn its_stream_is_its_own() {
    let poisson = "{kind: poisson, load: 0.3, sizes: {kind: fixed, size: 10KB}, sources: senders, destinations: receiver}";
    let alone = star(&format!("[{poisson}]"), "").unwrap();
    let both = star(
        &format!("[{poisson}, {{kind: round_robin, flows: 5, jitter: 50us}}]"),
        "",
    )
    .unwrap();
    let drawn = |cfg: &Config, seed: u64| {
        Plan::build(cfg, seed, &RunOptions::new().extensions(&extensions()))
            .unwrap()
            .generated
    };
    // Entry 0 draws the same flows with or without the generator beside it.
    let entry = |flows: &[GeneratedFlow], g: u32| -> Vec<GeneratedFlow> {
        flows.iter().filter(|f| f.generator == g).copied().collect()
    };
    let (a, b) = (drawn(&alone, 7), drawn(&both, 7));
    assert!(!entry(&a, 0).is_empty());
    assert_eq!(entry(&a, 0), entry(&b, 0));
    // Its own draws: the same for a seed, different across seeds.
    let mine = entry(&b, 1);
    assert_eq!(mine.len(), 5);
    assert_eq!(mine, entry(&drawn(&both, 7), 1));
    assert_ne!(mine, entry(&drawn(&both, 8), 1));
    // In start order whatever the jitter drew.
    assert!(mine.windows(2).all(|w| w[0].start <= w[1].start));
}

#[test]
fn the_resolved_config_and_the_manifest_list_show_it() {
    let cfg = star("[{kind: round_robin}]", "").unwrap();
    let yaml = cfg.to_yaml();
    assert!(yaml.contains("name: round_robin"), "{yaml}");
    assert!(yaml.contains("gap: 100us"), "defaults filled in: {yaml}");
    let used = extensions().used_by(&cfg);
    assert_eq!(used.len(), 1);
    assert_eq!(used[0].name, "round_robin");
    // The resolved config loads again as it is.
    let again = checked(&yaml).unwrap();
    assert_eq!(again.traffic, cfg.traffic);
}

fn error(traffic: &str) -> String {
    star(traffic, "").unwrap_err().to_string()
}

#[test]
fn bad_input_gets_the_builtin_error_shape() {
    // A parameter its check refuses: the full key, the value, what is allowed.
    assert_eq!(
        error("[{kind: round_robin, gap: 0s}]"),
        "traffic[0].gap = 0s: a positive duration"
    );
    let builtin = error("[{kind: poisson, load: 0, sizes: {kind: fixed, size: 1KB}}]");
    assert!(builtin.starts_with("traffic[0].load = 0: "), "{builtin}");
    // A value of the wrong type, a misspelt key.
    let e = error("[{kind: round_robin, gap: soon}]");
    assert!(e.starts_with("traffic[0].gap: invalid duration"), "{e}");
    let e = error("[{kind: round_robin, gapp: 1ms}]");
    assert!(e.starts_with("traffic[0]") && e.contains("gap"), "{e}");
    // A host selector naming a host that is not there (found when the topology is built).
    let e = error("[{kind: round_robin, sources: \"sender:7\"}]");
    assert!(
        e.starts_with("traffic[0].sources = sender:7: all, senders"),
        "{e}"
    );
    // An unknown kind lists the built-ins and the registered generators.
    let e = error("[{kind: bursty}]");
    assert!(e.starts_with("traffic[0].kind = bursty: one of long_lived, poisson, staggered, incast, permutation, collective, goal, or a registered extension: round_robin"), "{e}");
    // Without the registry, the same entry is unknown.
    let plain = Config::from_yaml(&star_yaml("[{kind: round_robin}]", ""), &[])
        .unwrap_err()
        .to_string();
    assert!(plain.contains("traffic[0].kind = round_robin"), "{plain}");
}

/// Flows a generator draws are checked: two different hosts of the topology.
#[test]
fn a_flow_to_itself_is_refused() {
    let e = error("[{kind: round_robin, sources: receiver}]");
    assert!(
        e.starts_with(
            "traffic[0] = its flow 0 (host3 -> host3): flows between two different hosts"
        ),
        "{e}"
    );
}
