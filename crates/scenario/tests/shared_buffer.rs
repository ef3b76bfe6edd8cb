//! Shared-buffer switches (issue 15): the incast effect of Dynamic Threshold in a whole run.
//! The closed-form fixed point and the burst arithmetic are unit tests in the switch crate
//! (`crates/switch/src/shared.rs`).

use crate::common;
use common::{run, shipped};

/// With the same 128 KB shared buffer, the incast port absorbs a bigger burst while the other
/// ports of its switch are idle than while two of them are busy (their queues hold their DT
/// share): fewer RTOs and a higher goodput over several seeds (S1's 20 us start jitter on).
#[test]
fn incast_fares_better_when_the_other_ports_are_idle() {
    let point = |start: &str| {
        shipped(
            "shared-buffer-incast.yaml",
            &[
                "sweep=null",
                "senders=8",
                "workload.blocks=5",
                &format!("traffic[0].start={start}"),
                &format!("traffic[1].start={start}"),
            ],
        )
    };
    let (busy, idle) = (point("0s"), point("1000s"));
    let (mut busy_goodput, mut idle_goodput) = (0.0, 0.0);
    let (mut busy_rtos, mut idle_rtos) = (0, 0);
    for seed in 1..=4 {
        let b = run(&busy, seed);
        let i = run(&idle, seed);
        assert!(b.run.completed && i.run.completed);
        busy_rtos += b.run.rto_count;
        idle_rtos += i.run.rto_count;
        busy_goodput += b.run.goodput_mbps;
        idle_goodput += i.run.goodput_mbps;
        // Drops by cause: the shared buffer's are threshold drops, split per queue.
        let incast_port = |r: &incastsim_scenario::RunResult| {
            r.shared_buffers
                .iter()
                .find(|q| q.to_node == "host0")
                .cloned()
                .expect("the incast port is a queue of the shared buffer")
        };
        let q = incast_port(&b);
        assert!(q.drops_threshold > 0);
        assert_eq!(q.switch, "switch1");
        assert!(q.buffer_max_occupancy_bytes <= 128_000);
        // The busy ports fill toward their DT share (α·B / (1 + 2α) ≈ 42 KB without the incast).
        for busy_port in ["host37", "host38"] {
            let p = b
                .shared_buffers
                .iter()
                .find(|q| q.to_node == busy_port)
                .unwrap();
            assert!(
                p.max_queue_bytes > 30_000,
                "{busy_port}: {}",
                p.max_queue_bytes
            );
        }
        assert_eq!(incast_port(&i).buffer_drops_full, 0);
    }
    assert!(
        idle_rtos < busy_rtos,
        "RTOs idle {idle_rtos}, busy {busy_rtos}"
    );
    assert!(
        idle_goodput > 1.5 * busy_goodput,
        "mean goodput idle {:.0} vs busy {:.0} Mbps",
        idle_goodput / 4.0,
        busy_goodput / 4.0
    );
}

/// The aggregation switch (not listed in `switches`) keeps its static per-port buffers, and a
/// run without `shared_buffer` has no shared buffer rows.
#[test]
fn only_the_listed_switches_share_their_buffer() {
    let r = run(
        &shipped(
            "shared-buffer-incast.yaml",
            &["sweep=null", "senders=4", "workload.blocks=1"],
        ),
        1,
    );
    assert!(r.shared_buffers.iter().all(|q| q.switch == "switch1"));
    assert_eq!(r.shared_buffers.len(), 40, "39 hosts + the uplink");
    let plain = run(
        &shipped(
            "shared-buffer-incast.yaml",
            &[
                "sweep=null",
                "senders=4",
                "workload.blocks=1",
                "topology.shared_buffer=null",
            ],
        ),
        1,
    );
    assert!(plain.shared_buffers.is_empty());
}
