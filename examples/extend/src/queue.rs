//! [`MyThreshold`]: a switch-port queue discipline of this crate's own, selected by
//! `topology.switch_queue: {name: my_threshold, threshold: 20 packets, action: drop}`.
//!
//! The rule is the one of RFC 8257 §3.1 (a DCTCP switch): an arrival that finds the
//! instantaneous queue above `threshold` (the arriving packet not counted) is acted on —
//! dropped (`action: drop`), or, if ECN-capable, marked CE (`action: mark`; other packets are
//! admitted as they are). With `action: mark` it is the built-in `ecn_threshold` discipline
//! (`k` = `threshold`); with `action: drop` and a threshold of T packets it admits while the
//! queue holds at most T packets, i.e. a drop-tail buffer of T + 1 packets inside the port's
//! own buffer. The tests check both against the built-ins, run for run.

use incastsim::config::invalid;
use incastsim::config::units::Buffer;
use incastsim::core::{Ecn, Packet, Time};
use incastsim::extend::{QueueContext, QueueDisciplineExtension};
use incastsim::scenario::ConfigError;
use incastsim::switch::{BufferLimit, DropReason, Occupancy, QueueDiscipline, Verdict};
use serde::{Deserialize, Serialize};

/// What `my_threshold` does to an arrival above the threshold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Drop it (counted as an AQM drop).
    #[default]
    Drop,
    /// Mark it CE if it is ECN-capable; admit other packets unmarked.
    Mark,
}

/// `my_threshold`'s parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MyThresholdParams {
    /// The queue length above which arrivals are acted on: bytes or packets.
    #[serde(default = "twenty_packets")]
    pub threshold: Buffer,
    /// `drop` or `mark`.
    #[serde(default)]
    pub action: Action,
}

fn twenty_packets() -> Buffer {
    Buffer::Packets(20)
}

/// The discipline of one switch port.
#[derive(Clone, Debug)]
pub struct MyThreshold {
    threshold: Buffer,
    action: Action,
    limit: BufferLimit,
}

impl QueueDiscipline for MyThreshold {
    fn on_enqueue(&mut self, packet: &mut Packet, occ: Occupancy, _now: Time) -> Verdict {
        let above = match self.threshold {
            Buffer::Bytes(b) => occ.bytes > b,
            Buffer::Packets(p) => occ.packets > p,
            Buffer::Unlimited => false, // refused by `check`
        };
        match self.action {
            _ if !above => Verdict::Admit,
            Action::Drop => Verdict::Drop(DropReason::Aqm),
            // RFC 3168 §5: a router marks only ECN-capable transport packets (ECT or CE).
            Action::Mark if packet.ecn != Ecn::NotEct => Verdict::AdmitMarked,
            Action::Mark => Verdict::Admit,
        }
    }

    fn limit(&self) -> BufferLimit {
        // The port enforces its buffer after the verdict; report it.
        self.limit
    }
}

impl QueueDisciplineExtension for MyThreshold {
    type Params = MyThresholdParams;
    type Discipline = MyThreshold;
    const DESCRIPTION: &'static str =
        "drop (or mark) arrivals that find the queue above a fixed threshold (RFC 8257 §3.1 rule)";

    fn check(p: &MyThresholdParams) -> Result<(), ConfigError> {
        match p.threshold {
            Buffer::Unlimited => Err(invalid(
                "threshold",
                p.threshold,
                "a size in bytes or packets",
            )),
            _ => Ok(()),
        }
    }

    fn new(p: &MyThresholdParams, ctx: &QueueContext) -> MyThreshold {
        MyThreshold {
            threshold: p.threshold,
            action: p.action,
            limit: ctx.limit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use incastsim::core::{BitsPerSec, PacketKind};

    fn discipline(threshold: Buffer, action: Action) -> MyThreshold {
        let ctx = QueueContext::new(
            1,
            0,
            "switch0->host0",
            BitsPerSec::gbps(1),
            BufferLimit::Bytes(32_000),
            1000,
        );
        MyThreshold::new(&MyThresholdParams { threshold, action }, &ctx)
    }

    fn occupancy(packets: u32) -> Occupancy {
        Occupancy {
            bytes: packets as u64 * 1040,
            packets,
        }
    }

    /// By hand: with threshold 2 packets, arrivals finding 0, 1, 2 packets pass; 3 and more
    /// are acted on. Marking touches ECN-capable packets only.
    #[test]
    fn acts_above_the_threshold_only() {
        let mut data = Packet::new(PacketKind::Data, 0, 1, 1000, 40);
        let mut drop = discipline(Buffer::Packets(2), Action::Drop);
        let verdicts: Vec<Verdict> = (0..5)
            .map(|q| drop.on_enqueue(&mut data, occupancy(q), Time::ZERO))
            .collect();
        let aqm = Verdict::Drop(DropReason::Aqm);
        assert_eq!(
            verdicts,
            [Verdict::Admit, Verdict::Admit, Verdict::Admit, aqm, aqm]
        );
        let mut mark = discipline(Buffer::Bytes(2080), Action::Mark);
        assert_eq!(
            mark.on_enqueue(&mut data, occupancy(3), Time::ZERO),
            Verdict::Admit,
            "not ECN-capable"
        );
        data.ecn = Ecn::Ect0;
        assert_eq!(
            mark.on_enqueue(&mut data, occupancy(2), Time::ZERO),
            Verdict::Admit,
            "2080 B is not above 2080 B"
        );
        assert_eq!(
            mark.on_enqueue(&mut data, occupancy(3), Time::ZERO),
            Verdict::AdmitMarked
        );
        assert_eq!(mark.limit(), BufferLimit::Bytes(32_000));
    }
}
