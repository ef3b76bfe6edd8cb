//! The config-only checks: what is refused, under which key.

use crate::Config;

const BASE: &str = "senders: 4
topology: {kind: star}
workload: {kind: synchronized_reads, sru: 64KB}
";

fn err(overrides: &[&str]) -> String {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    Config::from_yaml(BASE, &o).unwrap_err().to_string()
}

#[test]
fn shared_buffer_values_are_refused_with_key_value_and_what_is_allowed() {
    for (set, want) in [
        (
            "{size: 64KB, alpha: 0}",
            "topology.shared_buffer.alpha = 0: a positive number",
        ),
        (
            "{size: 64KB, alpha: -1}",
            "topology.shared_buffer.alpha = -1: a positive number",
        ),
        (
            "{size: 64KB, alpha: '2^7'}",
            "topology.shared_buffer.alpha = 2^7: a positive number, or \"2^k\" with k an integer from -7 to 6",
        ),
        (
            "{size: 64KB, reserved_per_queue: 65KB}",
            "topology.shared_buffer.reserved_per_queue = 65KB: at most the buffer (topology.shared_buffer.size = 64KB)",
        ),
        (
            "{size: 1000B}",
            "topology.shared_buffer.size = 1000B: room for at least one full packet: tcp.mss + tcp.header = 1040 B",
        ),
        (
            "{size: 64KB, switches: []}",
            "topology.shared_buffer.switches = []",
        ),
    ] {
        let e = err(&[&format!("topology.shared_buffer={set}")]);
        assert!(e.starts_with(want), "{set}: {e}");
    }
    let e = err(&["topology.shared_buffer={size: 64KB, alpha: '2^x'}"]);
    assert!(e.contains("invalid alpha \"2^x\""), "{e}");
    // Accepted forms, printed back as given.
    for (alpha, printed) in [("'2^-7'", "2^-7"), ("0.25", "0.25"), ("3", "3")] {
        let o = vec![format!(
            "topology.shared_buffer={{size: 64KB, alpha: {alpha}}}"
        )];
        let cfg = Config::from_yaml(BASE, &o).unwrap();
        let sb = cfg.topology.links().shared_buffer.unwrap();
        assert_eq!(sb.alpha.to_string(), printed);
    }
}

#[test]
fn a_groups_tcp_errors_carry_the_groups_key() {
    for (set, key) in [
        ("mss: 0", "tcp.mss"),
        ("cubic: {beta: 1.5}", "tcp.cubic.beta"),
        ("dupack_threshold: 0", "tcp.dupack_threshold"),
        (
            "delayed_ack: {enabled: true, count: 0}",
            "tcp.delayed_ack.count",
        ),
    ] {
        let top = err(&[&format!("tcp={{{set}}}")]);
        assert!(top.starts_with(&format!("{key} = ")), "{top}");
        let group = err(&[&format!("flow_overrides=[{{flows: [1], tcp: {{{set}}}}}]")]);
        assert!(
            group.starts_with(&format!("flow_overrides[0].{key} = ")),
            "{group}"
        );
    }
}

#[test]
fn a_groups_packets_must_fit_the_buffer_and_the_scheme() {
    // 40000 B segments do not fit the default 32 KB switch buffer.
    let e = err(&["flow_overrides=[{flows: [0], tcp: {mss: 40000}}]"]);
    assert!(e.starts_with("topology.switch_buffer = "), "{e}");
    // DSR's small segments must fit every group's mss.
    let e = err(&[
        "scheme={name: dsr, mss_dsr: 800}",
        "flow_overrides=[{flows: [0], tcp: {mss: 500}}]",
    ]);
    assert!(e.starts_with("scheme.mss_dsr = 800"), "{e}");
    let o = ["scheme={name: dsr, mss_dsr: 800}".to_string()];
    Config::from_yaml(BASE, &o).unwrap();
}

#[test]
fn a_shared_buffer_must_hold_one_packet_of_every_group() {
    // 9000 B jumbo segments of one group against an 8 KB shared buffer (the top-level
    // 1000 B segments fit it; static buffers large enough for both).
    let e = err(&[
        "topology.switch_buffer=64KB",
        "topology.shared_buffer={size: 8KB}",
        "flow_overrides=[{flows: [0], tcp: {mss: 9000}}]",
    ]);
    assert_eq!(
        e,
        "topology.shared_buffer.size = 8000B: room for at least one full packet: \
             flow_overrides[0].tcp.mss + flow_overrides[0].tcp.header = 9040 B (a size in bytes)",
    );
    let o = [
        "topology.switch_buffer=64KB".to_string(),
        "topology.shared_buffer={size: 8KB}".to_string(),
        "flow_overrides=[{flows: [0], tcp: {mss: 4000}}]".to_string(),
    ];
    Config::from_yaml(BASE, &o).unwrap();
}

/// RACK, D-SACK and TLP need SACK (and TLP needs RACK) in every `tcp` section: the top level is
/// refused with the same words as a group (issue 36: only groups were checked).
#[test]
fn recovery_extensions_are_checked_in_every_tcp_section() {
    for (set, key, allowed) in [
        (
            "rack: true, loss_recovery: newreno",
            "rack",
            "false unless {p}loss_recovery = sack (RFC 8985 §5: RACK needs SACK)",
        ),
        (
            "dsack: true, loss_recovery: newreno",
            "dsack",
            "false unless {p}loss_recovery = sack (RFC 2883: D-SACK is a SACK extension)",
        ),
        (
            "tlp: true, rack: false, loss_recovery: sack",
            "tlp",
            "false unless {p}rack = true (RFC 8985 §7.4: the probe's loss is repaired by RACK)",
        ),
    ] {
        for (overrides, p) in [
            (format!("tcp={{{set}}}"), "tcp."),
            (
                format!("flow_overrides=[{{flows: [1], tcp: {{{set}}}}}]"),
                "flow_overrides[0].tcp.",
            ),
        ] {
            let e = err(&[&overrides]);
            let want = format!("{p}{key} = true: {}", allowed.replace("{p}", p));
            assert_eq!(e, want, "{overrides}");
        }
    }
    // With SACK (and RACK for TLP) all three are accepted at the top level.
    let o = ["tcp={rack: true, tlp: true, dsack: true, loss_recovery: sack}".to_string()];
    Config::from_yaml(BASE, &o).unwrap();
}

/// Every `tcp` section is visited once, top level first, with its key.
#[test]
fn tcp_sections_walk_the_top_level_then_each_group() {
    let o = [
        "flow_overrides=[{flows: [0], tcp: {mss: 500}}, {flows: [2], tcp: {dscp: 3}}]".to_string(),
    ];
    let cfg = Config::from_yaml(BASE, &o).unwrap();
    let keys: Vec<String> = cfg.tcp_sections().map(|(k, _)| k.to_string()).collect();
    assert_eq!(
        keys,
        ["tcp", "flow_overrides[0].tcp", "flow_overrides[1].tcp"]
    );
    let mss: Vec<u64> = cfg.tcp_sections().map(|(_, t)| t.mss.0).collect();
    assert_eq!(mss, [1000, 500, 1000]);
    let profiles: Vec<usize> = cfg.tcp_sections().map(|(k, _)| k.profile_index()).collect();
    assert_eq!(profiles, [0, 1, 2]);
}
