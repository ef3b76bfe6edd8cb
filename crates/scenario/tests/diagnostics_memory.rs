//! The drop-run state grows with what the run carries (ports, pairs of ports that carry
//! packets, what drops), not with ports²; and its pair lookup (first input, first output,
//! radix table) keeps exactly the per-(output, input) counts of a plain map.

use crate::common;
use common::*;
use incastsim_core::{Duration, NodeId, NodeKind, PacketKind, Time};
use incastsim_scenario::Simulation;
use incastsim_scenario::engine::diagnostics::{
    DROP_RUN_BINS, Diagnostics, LOCAL_INPUT, RunHistogram,
};
use std::collections::BTreeMap;

/// A star: hosts 0..hosts, switch node `hosts`; port 2h = host h → switch, 2h+1 = switch → h.
fn star(hosts: u32) -> (Vec<NodeKind>, Vec<NodeId>, Vec<NodeId>) {
    let mut nodes: Vec<NodeKind> = (0..hosts).map(NodeKind::Host).collect();
    nodes.push(NodeKind::Switch(0));
    let (mut from, mut to) = (Vec::new(), Vec::new());
    for h in 0..hosts {
        from.extend([h, hosts]);
        to.extend([hosts, h]);
    }
    (nodes, from, to)
}

fn diagnostics(hosts: u32, flows: usize) -> Diagnostics {
    let (nodes, from, to) = star(hosts);
    Diagnostics::new(&nodes, &from, &to, flows, flows, vec![Duration(1); flows])
}

/// Budget per port of the star: 36 B of per-port state, ≤ 1.5 pairs per port at 20 B, a
/// dropping pair (88 B) and a flow (12 B + 80 B of drops) per two ports, 8 B of base RTT per
/// two ports, the growable ones ×2 for vector growth: ≈ 290 B. Before, every switch port kept
/// one ~96 B pair per input, (hosts)² pairs in all: 9.6 GB for 10,000 senders.
const BYTES_PER_PORT: usize = 320;

/// An incast on a star of `n` senders and a client (host n): every server's data enters on its
/// uplink and leaves on the client's port (one packet in four dropped), the client's ACKs
/// enter on its uplink and leave on each server's port.
fn incast(n: u32) -> Diagnostics {
    let mut d = diagnostics(n + 1, n as usize);
    let client_port = 2 * n + 1;
    for s in 0..n {
        for k in 0..4 {
            d.on_admitted(2 * s, LOCAL_INPUT, s, PacketKind::Data);
            if k == 3 {
                d.on_dropped(Time(k), client_port, 2 * s, s, PacketKind::Data, None);
            } else {
                d.on_admitted(client_port, 2 * s, s, PacketKind::Data);
            }
            d.on_admitted(2 * n, LOCAL_INPUT, s, PacketKind::Ack);
            d.on_admitted(2 * s + 1, 2 * n, s, PacketKind::Ack);
        }
    }
    d.close();
    d
}

#[test]
fn memory_grows_with_ports_not_ports_squared() {
    let n = 10_000u32;
    let ports = 2 * (n as usize + 1);
    let built = diagnostics(n + 1, n as usize).heap_bytes();
    assert!(
        built <= 100 * ports,
        "built for {n} senders: {built} B > 100 B per port"
    );
    let d = incast(n);
    // The host NICs, the servers' data into the client's port and the ACKs into theirs.
    assert_eq!(d.pairs(), 3 * n as usize + 1);
    let after = d.heap_bytes();
    assert!(
        after <= BYTES_PER_PORT * ports,
        "{n}-sender incast: {after} B > {BYTES_PER_PORT} B per port"
    );
    // Linear: twice the senders, about twice the bytes (ports² would be four times).
    let half = incast(n / 2).heap_bytes();
    assert!(
        after <= 5 * half / 2,
        "{half} B at {}, {after} B at {n}",
        n / 2
    );
    let runs = d.port_runs(2 * n as usize + 1).bins;
    assert_eq!(runs[0], n as u64, "one single-drop run per server");
}

#[test]
fn s1_with_2000_senders_keeps_kilobytes_per_sender() {
    let n = 2000u32;
    let cfg = shipped(
        "incast-classic.yaml",
        &[
            &format!("senders={n}"),
            "workload.blocks=1",
            "workload.sru=2KB",
        ],
    );
    let mut sim = Simulation::new(&cfg, 1).unwrap();
    sim.run();
    assert!(sim.packets_dropped() > 0, "the incast drops");
    let d = sim.diagnostics();
    // Pairs: the hosts' NICs, each server into the client's port, the client into each
    // server's port (requests and ACKs). Before: (n + 1)² + n + 1 = 4.0 M pairs, ≈ 385 MB.
    assert!(d.pairs() <= 3 * n as usize + 1, "{} pairs", d.pairs());
    let ports = 2 * (n as usize + 1);
    let bytes = d.heap_bytes();
    assert!(
        bytes <= BYTES_PER_PORT * ports,
        "{bytes} B > {BYTES_PER_PORT} B × {ports} ports"
    );
}

/// A plain map of the per-(output, input) runs, the definition `Diagnostics` implements.
#[derive(Default)]
struct Reference {
    pairs: BTreeMap<(u32, u32), (u64, u64, u32, RunHistogram)>,
    ports: BTreeMap<u32, RunHistogram>,
    port_offered: BTreeMap<u32, u64>,
}

fn record(h: &mut RunHistogram, len: u32) {
    h.bins[(len as usize).clamp(1, DROP_RUN_BINS) - 1] += 1;
    h.max = h.max.max(len);
}

impl Reference {
    fn offer(&mut self, port: u32, input: u32, dropped: bool) {
        *self.port_offered.entry(port).or_default() += 1;
        let p = self.pairs.entry((port, input)).or_default();
        p.0 += 1;
        if dropped {
            p.1 += 1;
            p.2 += 1;
        } else if p.2 != 0 {
            record(&mut p.3, p.2);
            record(self.ports.entry(port).or_default(), p.2);
            p.2 = 0;
        }
    }
    fn close(&mut self) {
        for (&(port, _), p) in &mut self.pairs {
            if p.2 != 0 {
                record(&mut p.3, p.2);
                record(self.ports.entry(port).or_default(), p.2);
                p.2 = 0;
            }
        }
    }
}

/// Random offers at one switch of `hosts` ports (radix tables of 1, 2 and 3 levels) and at
/// the hosts' NICs, with random flows dropping at several ports (their runs share the ports'
/// open-run counts).
fn matches_a_plain_map(hosts: u32, seed: u64) {
    let mut x = seed;
    let mut rnd = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    let pick = |rnd: &mut dyn FnMut(u64) -> u64, k: u64| -> Vec<u32> {
        (0..k).map(|_| rnd(hosts as u64) as u32).collect()
    };
    let outs = pick(&mut rnd, 40);
    let ins = pick(&mut rnd, 200);
    let flows = 64u32;
    let mut d = diagnostics(hosts, flows as usize);
    let mut r = Reference::default();
    for t in 0..60_000u64 {
        let flow = rnd(flows as u64) as u32;
        let kind = if rnd(3) == 0 {
            PacketKind::Ack
        } else {
            PacketKind::Data
        };
        let (port, input) = if rnd(10) == 0 {
            (2 * ins[rnd(ins.len() as u64) as usize], LOCAL_INPUT)
        } else {
            // Bursts: a few outputs get most packets, so runs form.
            let hot = rnd(2) == 0;
            let o = outs[rnd(if hot { 4 } else { 40 }) as usize];
            (2 * o + 1, 2 * ins[rnd(ins.len() as u64) as usize])
        };
        let dropped = rnd(3) == 0;
        if dropped {
            d.on_dropped(Time(t), port, input, flow, kind, Some(Duration(1)));
        } else {
            d.on_admitted(port, input, flow, kind);
        }
        r.offer(port, input, dropped);
    }
    d.close();
    r.close();
    let port_offered: Vec<u64> = (0..2 * hosts)
        .map(|p| r.port_offered.get(&p).copied().unwrap_or(0))
        .collect();
    let rows = d.drop_run_records("t", 1, hosts, &port_offered, |p| p.to_string());
    let expected: Vec<_> = r
        .pairs
        .iter()
        .map(|(&(port, input), p)| {
            let offered = if input == LOCAL_INPUT {
                port_offered[port as usize]
            } else {
                p.0
            };
            (port, input, offered, p.1, p.3)
        })
        .collect();
    let got: Vec<_> = rows
        .iter()
        .map(|row| {
            let bins = [
                row.drop_run_1,
                row.drop_run_2,
                row.drop_run_3,
                row.drop_run_4,
                row.drop_run_5,
                row.drop_run_6,
                row.drop_run_7,
                row.drop_run_8plus,
            ];
            let h = RunHistogram {
                bins,
                max: row.max_drop_run,
            };
            (
                row.port,
                row.input_port.unwrap_or(LOCAL_INPUT),
                row.packets_offered,
                row.drops,
                h,
            )
        })
        .collect();
    assert_eq!(got, expected, "{hosts} hosts");
    for p in 0..2 * hosts {
        let want = r.ports.get(&p).copied().unwrap_or_default();
        assert_eq!(d.port_runs(p as usize), want, "port {p} of {hosts} hosts");
    }
    // Every host's own pair, and one per (output, input) that carried a packet.
    let switch_pairs = r.pairs.keys().filter(|k| k.1 != LOCAL_INPUT).count();
    assert_eq!(d.pairs(), hosts as usize + switch_pairs);
}

#[test]
fn pair_lookup_matches_a_plain_map() {
    for (hosts, seed) in [(40, 1), (300, 2), (5_000, 3), (5_000, 4)] {
        matches_a_plain_map(hosts, seed);
    }
}
