//! Composable traffic: Poisson arrivals at a target load, long-lived and staggered flows, FCT,
//! slowdown and fairness over a chosen set.

use crate::common;

use common::run;
use incastsim_scenario::{Config, from_yaml_checked, load_checked};

/// A star of `senders` hosts + one receiver, 1 Gbps, 25 us links, 1460 B MSS, no delayed ACK.
fn star(senders: u32, extra: &str) -> Config {
    let yaml = format!(
        r#"
name: traffic-test
senders: {senders}
topology: {{kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 100KB}}
tcp: {{mss: 1460B, header: 40B, initial_cwnd: 2, rto_min: 10ms, delayed_ack: {{enabled: false}}}}
{extra}
"#
    );
    from_yaml_checked(&yaml, &[]).unwrap_or_else(|e| panic!("{e}\n{yaml}"))
}

#[test]
fn idle_network_fct_equals_the_analytic_value() {
    // One 20-segment flow alone (rate so low that flows never overlap in 0.5 s). Closed form
    // on the 2-hop star (T = 12 us per 1500 B packet, T_ack = 0.32 us, 25 us links):
    // RTT = 2*12 + 2*0.32 + 4*25 = 124.64 us; rounds of 2, 4, 8 segments each wait one RTT
    // (8 * 12 us < RTT), the last 6 go back to back:
    // FCT = 3*RTT + 6*12 + 12 + 2*25 = 507.92 us.
    let cfg = star(
        4,
        r#"
workload: {kind: traffic, duration: 0.5s}
traffic:
  - {kind: poisson, load: 0.002, sizes: {kind: fixed, size: 29200B}, sources: senders, destinations: receiver}
"#,
    );
    let r = run(&cfg, 3);
    assert!(r.run.completed);
    let flows: Vec<_> = r.flows.iter().filter(|f| f.kind == "poisson").collect();
    assert!(flows.len() >= 2, "{} flows", flows.len());
    for f in &flows {
        let fct = f.fct_ms.expect("completed");
        assert!((fct - 0.50792).abs() < 1e-9, "flow {} fct {fct} ms", f.flow);
        assert_eq!(f.ideal_fct_ms, Some(fct));
        assert_eq!(f.slowdown, Some(1.0));
    }
    assert_eq!(r.run.flows_finite, flows.len() as u64);
    assert_eq!(r.run.flows_completed, flows.len() as u64);
    assert_eq!(r.run.fct_small_count, flows.len() as u64);
    assert_eq!(r.run.fct_mid_count, 0);
    assert!(r.run.fct_mid_mean_ms.is_nan());
    assert!((r.run.slowdown_mean - 1.0).abs() < 1e-12);
}

#[test]
fn idle_fct_matches_across_rate_changes_and_sizes() {
    // 10 Gbps hosts into a 1 Gbps bottleneck (dumbbell), sizes from 1 B to 3 MB: every flow
    // alone on the network finishes exactly at its ideal FCT (slowdown 1).
    let yaml = r#"
senders: 2
topology: {kind: dumbbell, link_rate: 10Gbps, bottleneck_rate: 1Gbps, link_delay: 10us, switch_buffer: 10MB}
tcp: {mss: 1460B, header: 40B, initial_cwnd: 10, rto_min: 10ms, delayed_ack: {enabled: false}}
workload: {kind: traffic, duration: 2s}
traffic:
  - {kind: poisson, load: 0.003, sizes: {kind: uniform, min: 1B, max: 3MB}, sources: senders, destinations: receiver}
"#;
    let cfg = from_yaml_checked(yaml, &[]).unwrap();
    let r = run(&cfg, 1);
    let flows: Vec<_> = r.flows.iter().filter(|f| f.kind == "poisson").collect();
    assert!(flows.len() >= 2);
    // Keep the flows that ran alone (no overlap with the previous or next flow).
    let mut alone = 0;
    for (i, f) in flows.iter().enumerate() {
        let end = f.start_s + f.fct_ms.unwrap() / 1e3;
        let prev_end = i
            .checked_sub(1)
            .map_or(0.0, |p| flows[p].start_s + flows[p].fct_ms.unwrap() / 1e3);
        let next_start = flows.get(i + 1).map_or(f64::INFINITY, |n| n.start_s);
        if prev_end < f.start_s && end < next_start {
            alone += 1;
            let s = f.slowdown.unwrap();
            assert!((s - 1.0).abs() < 1e-12, "flow {} slowdown {s}", f.flow);
        }
    }
    assert!(alone >= 2, "{alone} flows ran alone");
}

#[test]
fn poisson_arrivals_reach_the_requested_load() {
    // 50% of the receiver's 1 Gbps link with U[10 KB, 50 KB] flows for 10 s: ~20,800 flows.
    let cfg = star(
        8,
        r#"
workload: {kind: traffic, duration: 10s}
traffic:
  - {kind: poisson, load: 0.5, sizes: {kind: uniform, min: 10KB, max: 50KB}, sources: senders, destinations: receiver}
"#,
    );
    let r = run(&cfg, 1);
    assert!(r.run.completed);
    let offered: u64 = r.flows.iter().filter_map(|f| f.size_bytes).sum();
    let load = offered as f64 * 8.0 / 10.0 / 1e9;
    assert!((load - 0.5).abs() < 0.01, "offered load {load}");
    // Every flow completed (drain), and the receiver got exactly the offered bytes.
    assert_eq!(r.run.flows_completed, r.run.flows_finite);
    let delivered: u64 = r.flows.iter().map(|f| f.bytes_delivered).sum();
    assert_eq!(delivered, offered);
    // Arrivals spread evenly over the senders.
    for s in 0..8 {
        let n = r.flows.iter().filter(|f| f.src_host == s).count() as f64;
        let expected = r.flows.len() as f64 / 8.0;
        assert!(
            (n - expected).abs() < 0.1 * expected,
            "sender {s}: {n} flows"
        );
    }
    // All flows are below 100 KB: the small group holds them all.
    assert_eq!(r.run.fct_small_count, r.run.flows_completed);
    assert!(r.run.slowdown_mean >= 1.0 && r.run.slowdown_p99 >= r.run.slowdown_mean);
}

#[test]
fn random_pairs_never_send_to_themselves_and_use_every_host() {
    let yaml = r#"
senders: 15
topology: {kind: fat_tree, k: 4, link_rate: 1Gbps, link_delay: 5us, switch_buffer: 100pkts}
workload: {kind: traffic, duration: 0.5s}
traffic:
  - {kind: poisson, load: 0.3, sizes: {kind: cdf, file: websearch}}
"#;
    let cfg = from_yaml_checked(yaml, &[]).unwrap();
    let r = run(&cfg, 2);
    assert!(r.flows.len() > 100, "{} flows", r.flows.len());
    let mut srcs = std::collections::BTreeSet::new();
    for f in &r.flows {
        assert_ne!(f.src_host, f.dst_host);
        srcs.insert(f.src_host);
    }
    assert_eq!(srcs.len(), 16);
    assert!(r.run.completed && r.run.flows_completed == r.run.flows_finite);
}

#[test]
fn long_lived_and_staggered_flows_compose_with_synchronized_reads() {
    // 4 servers answer blocks while 2 long-lived flows and 2 staggered ones share the link.
    let cfg = star(
        6,
        r#"
workload: {kind: synchronized_reads, sru: 64KB, blocks: 20}
traffic:
  - {kind: long_lived, from: ["sender:4", "sender:5"], to: receiver}
  - {kind: staggered, from: "sender:0-1", to: receiver, start: 1ms, interval: 10ms, duration: 30ms}
"#,
    );
    let r = run(&cfg, 1);
    assert!(r.run.completed);
    assert_eq!(r.flows.len(), 6 + 2 + 2);
    let kinds: Vec<&str> = r.flows.iter().map(|f| f.kind.as_ref()).collect();
    assert_eq!(
        kinds,
        [
            "workload",
            "workload",
            "workload",
            "workload",
            "workload",
            "workload",
            "long_lived",
            "long_lived",
            "staggered",
            "staggered"
        ]
    );
    let st: Vec<_> = r.flows.iter().filter(|f| f.kind == "staggered").collect();
    assert_eq!(st[0].start_s, 0.001);
    assert_eq!(st[1].start_s, 0.011);
    for f in r.flows.iter().filter(|f| f.kind != "workload") {
        assert!(f.bytes_delivered > 0 && f.goodput_mbps > 0.0, "{f:?}");
    }
    // Goodput of the run counts the workload's flows only; total counts all.
    assert!(r.run.total_goodput_mbps > r.run.goodput_mbps);
}

#[test]
fn fairness_over_a_chosen_set_per_sender() {
    let base = r#"
workload: {kind: bulk, duration: 0.2s}
traffic:
  - {kind: long_lived, from: ["sender:0", "sender:0", "sender:1"], to: receiver}
"#;
    let cfg = star(2, base);
    let all = run(&cfg, 1);
    let mut per_sender = cfg.clone();
    per_sender.metrics.fairness.flows = "traffic".into();
    per_sender.metrics.fairness.per = incastsim_scenario::config::FairnessPer::Sender;
    per_sender.validate().unwrap();
    incastsim_scenario::check_buildable(&per_sender, &incastsim_scenario::Extensions::builtin())
        .unwrap();
    let r = run(&per_sender, 1);
    // sender:0 listed twice is one host: two long-lived flows, one per host.
    assert_eq!(r.flows.len(), 4);
    let g: Vec<f64> = r.flows[2..].iter().map(|f| f.goodput_mbps).collect();
    let expected = incastsim_scenario::results::metrics::jain_fairness(&g);
    assert!((r.run.jain_fairness - expected).abs() < 1e-12);
    assert_eq!(all.run.goodput_mbps, r.run.goodput_mbps);
}

#[test]
fn traffic_runs_are_deterministic() {
    let cfg = star(
        4,
        r#"
workload: {kind: traffic, duration: 0.2s}
traffic:
  - {kind: poisson, load: 0.7, sizes: {kind: cdf, file: websearch}, sources: senders, destinations: receiver}
  - {kind: long_lived, from: "sender:0", to: receiver, stop: 0.1s}
"#,
    );
    // Debug strings compare NaN fields too.
    let a = format!("{:?}", run(&cfg, 9));
    let b = format!("{:?}", run(&cfg, 9));
    assert_eq!(a, b);
    let c = format!("{:?}", run(&cfg, 10));
    assert_ne!(a, c);
}

#[test]
fn bad_traffic_configs_are_refused_with_the_key() {
    let cases = [
        (
            "traffic: [{kind: poisson, load: 0, sizes: {kind: fixed, size: 1KB}}]",
            "traffic[0].load",
        ),
        (
            "traffic: [{kind: poisson, load: 0.5, sizes: {kind: cdf, file: nosuch}}]",
            "traffic[0].sizes.file",
        ),
        (
            "traffic: [{kind: poisson, load: 0.5, sizes: {kind: uniform, min: 50KB, max: 10KB}}]",
            "traffic[0].sizes.min/max",
        ),
        (
            "traffic: [{kind: long_lived, from: \"sender:9\", to: receiver}]",
            "traffic[0].from",
        ),
        (
            "traffic: [{kind: poisson, load: 0.5, sizes: {kind: fixed, size: 1KB}, load_link: \"a->b\"}]",
            "traffic[0].load_link",
        ),
        (
            "traffic: [{kind: poisson, load: 0.5, sizes: {kind: fixed, size: 1KB}, sources: receiver, destinations: receiver}]",
            "traffic[0].destinations",
        ),
        ("metrics: {fct_bins: [10MB, 100KB]}", "metrics.fct_bins"),
        (
            "metrics: {fairness: {flows: \"traffic[3]\"}}",
            "metrics.fairness.flows",
        ),
    ];
    for (extra, key) in cases {
        let yaml = format!(
            "senders: 2\ntopology: {{kind: star}}\nworkload: {{kind: traffic, duration: 1s}}\n{extra}\n"
        );
        let yaml = if extra.starts_with("metrics") {
            format!("{yaml}traffic: [{{kind: long_lived, from: senders, to: receiver}}]\n")
        } else {
            yaml
        };
        let err = from_yaml_checked(&yaml, &[]).expect_err(extra).to_string();
        assert!(err.contains(key), "{extra}: {err}");
    }
    // Poisson with synchronized reads needs an explicit end of arrivals.
    let err = from_yaml_checked(
        "senders: 2\ntopology: {kind: star}\nworkload: {kind: synchronized_reads, sru: 1KB}\ntraffic: [{kind: poisson, load: 0.5, sizes: {kind: fixed, size: 1KB}}]\n",
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("traffic[0].stop"), "{err}");
}

#[test]
fn list_entries_can_be_overridden_by_index() {
    let yaml = "senders: 2\ntopology: {kind: star}\nworkload: {kind: traffic, duration: 1s}\ntraffic: [{kind: poisson, load: 0.5, sizes: {kind: fixed, size: 1KB}}]\n";
    let cfg = from_yaml_checked(yaml, &["traffic[0].load=0.25".into()]).unwrap();
    match &cfg.traffic[0] {
        incastsim_scenario::plan::traffic::TrafficConfig::Poisson { load, .. } => {
            assert_eq!(*load, 0.25)
        }
        other => panic!("{other:?}"),
    }
    let err = from_yaml_checked(yaml, &["traffic[3].load=0.25".into()])
        .unwrap_err()
        .to_string();
    assert!(err.contains("has 1 entries"), "{err}");
    let err = from_yaml_checked(yaml, &["tcp[0].mss=1".into()])
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a list"), "{err}");
}

#[test]
fn a_sweep_config_runs_its_base_point_with_sweep_unset() {
    let path = common::config_path("rto-nonincast.yaml");
    let err = load_checked(&path, &[]).unwrap_err().to_string();
    assert!(err.contains("--set sweep=null"), "{err}");
    let cfg = load_checked(
        &path,
        &["sweep=null".into(), "workload.duration=0.05s".into()],
    )
    .unwrap();
    let r = run(&cfg, 1);
    assert!(r.run.completed && r.run.flows_completed == r.run.flows_finite);
    assert!(r.run.flows_finite > 0);
}

/// The flows a `permutation` generator draws on `hosts` hosts (no topology built).
fn permutation_flows(
    hosts: u32,
    generator: &str,
    seed: u64,
) -> Result<Vec<incastsim_scenario::plan::traffic::GeneratedFlow>, String> {
    use incastsim_scenario::plan::traffic::{Placement, generate};
    let yaml = format!(
        "senders: 1\ntopology: {{kind: star}}\nworkload: {{kind: traffic, duration: 1s}}\ntraffic: [{generator}]\n"
    );
    let cfg = Config::from_yaml(&yaml, &[]).map_err(|e| e.to_string())?;
    let place = Placement {
        host_count: hosts,
        servers: &[],
        clients: &[],
        racks: &[],
    };
    generate(&cfg, seed, &place, &|_, _| Some(1e9), &[])
        .map(|drawn| drawn.flows)
        .map_err(|e| e.to_string())
}

/// Each host sends at most one flow and receives at most one, never to itself; `n` flows, of
/// `size` bytes, in start order.
fn assert_permutation(
    flows: &[incastsim_scenario::plan::traffic::GeneratedFlow],
    n: usize,
    size: u64,
) {
    use std::collections::BTreeSet;
    assert_eq!(flows.len(), n);
    let srcs: BTreeSet<u32> = flows.iter().map(|f| f.src).collect();
    let dsts: BTreeSet<u32> = flows.iter().map(|f| f.dst).collect();
    assert_eq!(srcs.len(), n, "a host sends two flows");
    assert_eq!(dsts.len(), n, "a host receives two flows");
    for f in flows {
        assert_ne!(f.src, f.dst, "{f:?}");
        assert_eq!(f.size, Some(size));
        assert_eq!(f.stop, None);
    }
    assert!(flows.windows(2).all(|w| w[0].start <= w[1].start));
}

#[test]
fn permutation_pairs_distinct_hosts_with_jittered_starts() {
    use incastsim_core::{Duration, Time};
    let lo = Time::ZERO + Duration::from_us(100);
    let hi = lo + Duration::from_us(10);
    let mut earliest = hi;
    let mut latest = lo;
    for seed in 1..=50 {
        // Half the hosts send, as in S5.
        let flows = permutation_flows(
            64,
            "{kind: permutation, flows: 32, size: 1MB, start: 100us, start_jitter: 10us}",
            seed,
        )
        .unwrap();
        assert_permutation(&flows, 32, 1_000_000);
        for f in &flows {
            assert!(f.start >= lo && f.start <= hi, "start {:?}", f.start);
            earliest = earliest.min(f.start);
            latest = latest.max(f.start);
        }
        // Every host sends and receives: a derangement.
        let flows = permutation_flows(8, "{kind: permutation, flows: 8, size: 1KB}", seed).unwrap();
        assert_permutation(&flows, 8, 1000);
        assert!(flows.iter().all(|f| f.start == Time::ZERO));
        // Overlapping source and destination sets: only hosts 5-9 can be both.
        let flows = permutation_flows(
            20,
            "{kind: permutation, flows: 10, size: 1KB, sources: \"host:0-9\", destinations: \"host:5-14\"}",
            seed,
        )
        .unwrap();
        assert_permutation(&flows, 10, 1000);
        assert!(
            flows
                .iter()
                .all(|f| f.src <= 9 && (5..=14).contains(&f.dst))
        );
        // Two hosts that are both sources and destinations: they swap.
        let flows = permutation_flows(
            2,
            "{kind: permutation, flows: 2, size: 1KB, sources: all, destinations: all}",
            seed,
        )
        .unwrap();
        assert_eq!(flows[0].dst, 1 - flows[0].src);
        assert_permutation(&flows, 2, 1000);
    }
    // The jitter spreads starts over the window.
    assert!(earliest.since(lo) < Duration::from_us(1) && hi.since(latest) < Duration::from_us(1));
}

#[test]
fn permutation_draws_every_set_of_pairs_equally_often() {
    // 4 hosts, 2 flows: 42 valid sets of pairs (84 ordered draws: source 4 x destination 3 x
    // second source 3 x second destination 3 if it may take the first source, else 2, i.e.
    // 4 * 3 * (1 * 3 + 2 * 2)). Each must come up 1/42 of the time, the 2-cycles {a->b, b->a}
    // as often as the chains {a->b, c->d}: a draw that fixes collisions greedily would not.
    let mut count = std::collections::BTreeMap::<Vec<(u32, u32)>, u32>::new();
    let draws = 42_000;
    for seed in 0..draws {
        let flows = permutation_flows(4, "{kind: permutation, flows: 2, size: 1KB}", seed).unwrap();
        let mut pairs: Vec<(u32, u32)> = flows.iter().map(|f| (f.src, f.dst)).collect();
        pairs.sort();
        *count.entry(pairs).or_default() += 1;
    }
    assert_eq!(count.len(), 42);
    for (pairs, &c) in &count {
        // Binomial(42000, 1/42): mean 1000, sd 31.
        assert!((c as i64 - 1000).abs() < 150, "{pairs:?}: {c}");
    }
}

#[test]
fn permutation_is_deterministic_per_seed() {
    let g = "{kind: permutation, flows: 100, size: 1MB, start_jitter: 10us}";
    let a = permutation_flows(256, g, 7).unwrap();
    assert_eq!(a, permutation_flows(256, g, 7).unwrap());
    assert_ne!(a, permutation_flows(256, g, 8).unwrap());
    // Its own stream: a generator added after it does not change its flows.
    let two = permutation_flows(256, &format!("{g}, {g}"), 7).unwrap();
    assert_eq!(two[..100], a[..]);
    assert_ne!(
        two[100..]
            .iter()
            .map(|f| (f.src, f.dst))
            .collect::<Vec<_>>(),
        a.iter().map(|f| (f.src, f.dst)).collect::<Vec<_>>()
    );
}

#[test]
fn permutation_runs_to_completion_on_a_fat_tree() {
    let cfg = common::shipped(
        "fattree-k32-cubic.yaml",
        &[
            "topology.k=4",
            "senders=15",
            "traffic[0].flows=8",
            "traffic[0].size=100KB",
        ],
    );
    let r = run(&cfg, 1);
    assert!(r.run.completed);
    assert_eq!(r.flows.len(), 8);
    assert_eq!(r.run.flows_completed, 8);
    let mut srcs = std::collections::BTreeSet::new();
    let mut dsts = std::collections::BTreeSet::new();
    for f in &r.flows {
        assert_eq!(f.kind, "permutation");
        assert_eq!(f.size_bytes, Some(100_000));
        assert_eq!(f.bytes_delivered, 100_000);
        assert!(f.start_s <= 10e-6);
        assert!(srcs.insert(f.src_host) && dsts.insert(f.dst_host));
        assert_ne!(f.src_host, f.dst_host);
    }
}

#[test]
fn impossible_permutations_are_refused_with_the_key() {
    let cases = [
        (
            "{kind: permutation, flows: 0, size: 1MB}",
            "traffic[0].flows = 0: 1 to 16 flows",
        ),
        (
            "{kind: permutation, flows: 17, size: 1MB}",
            "traffic[0].flows = 17: 1 to 16 flows (each of the 16 sources sends at most one, each of the 16 destinations receives at most one)",
        ),
        (
            "{kind: permutation, flows: 3, size: 1MB, sources: \"host:0-1\"}",
            "traffic[0].flows = 3: 1 to 2 flows (each of the 2 sources",
        ),
        (
            "{kind: permutation, flows: 3, size: 1MB, destinations: [\"host:4\", \"host:9\"]}",
            "traffic[0].flows = 3: 1 to 2 flows (each of the 16 sources sends at most one, each of the 2 destinations",
        ),
        (
            "{kind: permutation, flows: 1, size: 1MB, sources: \"host:3\", destinations: \"host:3\"}",
            "traffic[0].destinations = 3: a host other than the only source",
        ),
        (
            "{kind: permutation, flows: 1, size: 0B}",
            "traffic[0].size = 0: at least 1 byte",
        ),
        (
            "{kind: permutation, flows: 1, size: 1MB, sources: \"host:16\"}",
            "traffic[0].sources = host:16",
        ),
    ];
    for (generator, expected) in cases {
        let err = permutation_flows(16, generator, 1).unwrap_err();
        assert!(err.starts_with(expected), "{generator}: {err}");
    }
    // Possible edge cases: one source into one other host, or a single shared host plus another.
    permutation_flows(
        16,
        "{kind: permutation, flows: 1, size: 1MB, sources: \"host:3\", destinations: \"host:4\"}",
        1,
    )
    .unwrap();
    permutation_flows(
        16,
        "{kind: permutation, flows: 1, size: 1MB, sources: \"host:3\", destinations: \"host:3-4\"}",
        1,
    )
    .unwrap();
    // Through the full check (as `incastsim check` runs it), on a real topology.
    let err = from_yaml_checked(
        "senders: 3\ntopology: {kind: star}\nworkload: {kind: traffic, duration: 1s}\ntraffic: [{kind: permutation, flows: 5, size: 1MB}]\n",
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with("traffic[0].flows = 5: 1 to 4 flows"),
        "{err}"
    );
}

/// `yaml` is refused (within 10 s: a generator that cannot finish must be refused, not hang)
/// with an error that starts with `key`.
fn refused_quickly(yaml: &'static str, key: &str) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(from_yaml_checked(yaml, &[]).map(|_| ()));
    });
    let result = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the config check must not hang");
    let err = result.expect_err("refused").to_string();
    assert!(err.starts_with(key), "{err}");
}

#[test]
fn poisson_with_a_source_that_has_no_other_destination_is_refused_not_drawn_forever() {
    // `sources: all` includes the receiver, whose only destination would be itself: drawing a
    // destination for it used to loop forever.
    refused_quickly(
        "senders: 4
topology: {kind: star}
workload: {kind: traffic, duration: 0.1s}
traffic:
  - {kind: poisson, load: 0.5, sizes: {kind: fixed, size: 10KB}, sources: all, destinations: receiver}
",
        "traffic[0].destinations = receiver: a host other than each source: host4",
    );
}

#[test]
fn long_lived_flow_cap_is_checked_before_the_flows_exist() {
    // 1,000 sources x 10,000 flows each = 10 M flows: refused before any is made.
    refused_quickly(
        "senders: 1000
topology: {kind: star}
workload: {kind: traffic, duration: 0.1s}
traffic:
  - {kind: long_lived, from: senders, to: receiver, count: 10000}
",
        "traffic = 10000000: at most 2000000 flows in all",
    );
}

#[test]
fn background_flows_on_extra_hosts_and_a_warmup() {
    // Hafeez et al.'s background flows done right (issue 16): two long-lived flows from two
    // hosts of their own (the star's extra hosts 5 and 6, after the 4 senders and the receiver
    // 4), running 20 ms before the task's first request; goodput is measured from then.
    let yaml = r#"
senders: 4
topology: {kind: star, switch_buffer: 100KB, extra_hosts: 2}
tcp: {mss: 1460B, header: 40B, rto_min: 10ms, delayed_ack: {enabled: false}}
workload: {kind: synchronized_reads, sru: 64KB, blocks: 1, warmup: 20ms}
traffic:
  - {kind: long_lived, from: "other:0-1", to: receiver}
"#;
    let cfg = from_yaml_checked(yaml, &[]).unwrap();
    let r = run(&cfg, 1);
    assert!(r.run.completed);
    let bg: Vec<_> = r.flows.iter().filter(|f| f.kind == "long_lived").collect();
    assert_eq!(
        bg.iter()
            .map(|f| (f.src_host, f.dst_host))
            .collect::<Vec<_>>(),
        [(5, 4), (6, 4)]
    );
    let task: Vec<_> = r.flows.iter().filter(|f| f.kind == "workload").collect();
    assert!(task.iter().all(|f| f.src_host < 4));
    // The block starts at 20 ms and its goodput is over [20 ms, end].
    assert!(r.run.sim_time_s > 0.02);
    let expected = r.run.app_bytes as f64 * 8.0 / (r.run.sim_time_s - 0.02) / 1e6;
    assert!((r.run.goodput_mbps - expected).abs() < 1e-9 * expected);
    assert!((r.run.bct_mean_ms / 1e3 - (r.run.sim_time_s - 0.02)).abs() < 1e-6);
    // A host list naming more extra hosts than exist is refused with the key.
    let yaml = r#"
senders: 4
topology: {kind: star, extra_hosts: 1}
workload: {kind: synchronized_reads, sru: 64KB}
traffic:
  - {kind: long_lived, from: "other:0-1", to: receiver}
"#;
    let err = match from_yaml_checked(yaml, &[]) {
        Err(e) => e.to_string(),
        Ok(c) => incastsim_scenario::Simulation::new(&c, 1)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default(),
    };
    assert!(err.contains("other:0-1"), "{err}");
}

#[test]
fn a_lone_segment_is_acknowledged_by_the_delayed_ack_timer() {
    // One-segment flows with ACKs delayed to every second segment: only the receiver's
    // delayed-ACK timer (40 ms) acknowledges them, long before the sender's RTO (1 s) would
    // resend. Guards the engine keeping that timer in step after each data segment.
    let yaml = r#"
name: delayed-ack-test
senders: 4
topology: {kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 100KB}
tcp: {mss: 1460B, header: 40B, rto_min: 1s, delayed_ack: {enabled: true, count: 2, timeout: 40ms}}
workload: {kind: traffic, duration: 0.5s, drain: true}
traffic:
  - {kind: poisson, load: 0.0001, sizes: {kind: fixed, size: 1460B}, sources: senders, destinations: receiver}
"#;
    let cfg = from_yaml_checked(yaml, &[]).unwrap_or_else(|e| panic!("{e}"));
    let r = run(&cfg, 1);
    assert!(r.run.completed);
    let flows: Vec<_> = r.flows.iter().filter(|f| f.kind == "poisson").collect();
    assert!(!flows.is_empty());
    assert_eq!(r.run.flows_completed, flows.len() as u64);
    assert_eq!(r.run.rto_count, 0, "the delayed ACK never came");
    for f in &flows {
        // The one RTT sample is the timer's 40 ms plus the path's 124.64 us (2 x 12 us of
        // data serialization, 2 x 0.32 us of ACK, 4 x 25 us of links). No ACK: no sample.
        assert!(
            (f.srtt_us - 40_124.64).abs() < 1e-6,
            "flow {} srtt {} us",
            f.flow,
            f.srtt_us
        );
    }
}

/// `incast` (HPCC#36's background): Poisson events of `fan_in` distinct senders to one
/// receiver, none sending to itself, each `size` bytes, at load × capacity: with 1 Gbps of
/// reference capacity (what the test's placement gives), load 1.28 and 10 senders × 500 KB,
/// λ = 1.28 × 1e9 / (8 × 5 MB) = 32 events/s, so 1 s draws 32 events on average (the mean of
/// 20 seeds has a standard deviation of 1.3); flows in start order; a fan-in larger than the
/// hosts is refused naming the key.
#[test]
fn incast_events_are_groups_of_distinct_senders_at_the_requested_load() {
    use std::collections::BTreeMap;
    let generator = "{kind: incast, load: 1.28, fan_in: 10, size: 500KB}";
    let mut events = 0usize;
    for seed in 1..=20 {
        let flows = permutation_flows(64, generator, seed).unwrap();
        assert!(flows.windows(2).all(|w| w[0].start <= w[1].start));
        let mut by_event: BTreeMap<_, Vec<_>> = BTreeMap::new();
        for f in &flows {
            assert_eq!(f.size, Some(500_000));
            assert_ne!(f.src, f.dst);
            by_event.entry((f.start, f.dst)).or_default().push(f.src);
        }
        for (_, mut senders) in by_event {
            assert_eq!(senders.len(), 10);
            senders.sort_unstable();
            senders.dedup();
            assert_eq!(senders.len(), 10, "distinct senders");
        }
        events += flows.len() / 10;
    }
    let mean = events as f64 / 20.0;
    assert!((28.0..36.0).contains(&mean), "{mean} events per second");
    let err =
        permutation_flows(8, "{kind: incast, load: 0.02, fan_in: 8, size: 1KB}", 1).unwrap_err();
    assert!(err.contains("traffic[0].fan_in"), "{err}");
}
