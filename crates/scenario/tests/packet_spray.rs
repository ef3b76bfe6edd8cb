//! Random packet spraying (`topology.routing: packet_spray`, issue 15) on a k = 4 fat-tree:
//! packets of one flow spread over every equal-cost path, arrive out of order, and TCP's
//! duplicate-ACK threshold decides whether that reordering costs spurious retransmissions.

use crate::common;
use common::{run, shipped};

fn fat_tree(routing: &str, dupack_threshold: u32) -> incastsim_scenario::Config {
    shipped(
        "fattree-k32-cubic.yaml",
        &[
            "topology.k=4",
            "senders=15",
            "traffic[0].flows=8",
            &format!("topology.routing={routing}"),
            &format!("tcp.dupack_threshold={dupack_threshold}"),
        ],
    )
}

fn ports_used(r: &incastsim_scenario::RunResult) -> usize {
    r.ports.iter().filter(|p| p.packets_enqueued > 0).count()
}

#[test]
fn spraying_uses_more_paths_and_reordering_is_absorbed_by_the_dupack_threshold() {
    let ecmp = run(&fat_tree("ecmp", 3), 1);
    let sprayed = run(&fat_tree("packet_spray", 3), 1);
    let patient = run(&fat_tree("packet_spray", 10), 1);
    for r in [&ecmp, &sprayed, &patient] {
        assert!(r.run.completed);
    }
    assert!(
        ports_used(&sprayed) > ports_used(&ecmp),
        "sprayed {} ports, ECMP {}",
        ports_used(&sprayed),
        ports_used(&ecmp)
    );
    // Reordering without loss: spurious fast retransmits with 3 duplicate ACKs ...
    assert_eq!(sprayed.run.drops_total, 0);
    assert!(sprayed.run.fast_retransmits > 0);
    // ... none with a threshold above the reordering depth, and shorter flows.
    assert_eq!(patient.run.retransmitted_segments, 0);
    assert!(patient.run.fct_mean_ms < sprayed.run.fct_mean_ms);
    // Seeded per switch: the same seed sprays the same way; another seed differently.
    // (Debug strings: the records hold NaNs, which are never == themselves.)
    let again = run(&fat_tree("packet_spray", 3), 1);
    assert_eq!(format!("{:?}", again.run), format!("{:?}", sprayed.run));
    let other = run(&fat_tree("packet_spray", 3), 2);
    assert_ne!(other.run.events, sprayed.run.events);
}
