//! A host NIC's transmit arbitration among its RoCE queue pairs.
//!
//! A RoCE NIC pulls: when its link can take a packet, it picks a queue pair of a priority that
//! is not paused and whose pacing allows, and sends that QP's next packet (the HPCC fork's
//! `QbbNetDevice::DequeueAndTransmit` asks its `RdmaEgressQueue::GetNextQindex` for a QP only
//! when the link is free, skipping paused priorities, round robin). A QP therefore never
//! builds a queue in its own NIC: what it has not sent stays in the QP (PSNs, not packets),
//! and a PAUSE holds it back there, so after the RESUME it continues at its paced rate, not
//! as a burst of what a push model would have queued meanwhile.
//!
//! Here the host port is a port that decides at dequeue, and a QP may hand its next packet to
//! it only while no packet of its class waits for the transmitter (one packet stands ready,
//! as the NIC's next pick; the one on the wire is not waiting). A QP due while one waits joins
//! its (host port, class) line, first come first served; each time that class's last waiting
//! packet gets the transmitter, the first in line sends (`Simulation::wake_roce_nic`). Nothing
//! here is read across a link: the QP and its NIC are one node.

use std::collections::VecDeque;

/// No line: the port is not a host's.
const NOT_A_HOST_PORT: u32 = u32::MAX;

/// The queue pairs waiting for their host's NIC, per (host port, class).
#[derive(Default)]
pub struct NicLines {
    /// By port: the index of its class 0's line in `lines` (`NOT_A_HOST_PORT` for a switch
    /// port), its classes following.
    first_line: Vec<u32>,
    /// By port: its classes (0 for a switch port).
    classes: Vec<u8>,
    /// The waiting flows, in the order they came.
    lines: Vec<VecDeque<u32>>,
    /// By port: flows waiting in its lines (a transmission end at a port without any looks
    /// no further; empty in a run without RoCE flows).
    waiting: Vec<u32>,
}

impl NicLines {
    /// Lines for the host ports among `ports` (`host_ports`), each port's with its `classes`.
    pub fn new(ports: usize, host_ports: impl Iterator<Item = (u32, usize)>) -> NicLines {
        let mut n = NicLines {
            first_line: vec![NOT_A_HOST_PORT; ports],
            classes: vec![0; ports],
            lines: Vec::new(),
            waiting: vec![0; ports],
        };
        for (port, classes) in host_ports {
            n.first_line[port as usize] = n.lines.len() as u32;
            n.classes[port as usize] = classes as u8;
            n.lines
                .extend(std::iter::repeat_with(VecDeque::new).take(classes));
        }
        n
    }

    /// Whether a flow waits at `port` (one test per transmission end; a run without RoCE
    /// flows has no ports here).
    #[inline(always)]
    pub fn waiting_at(&self, port: u32) -> bool {
        self.waiting.get(port as usize).is_some_and(|&n| n > 0)
    }

    /// Flow `flow` waits at `port` for a packet of `class` to go.
    pub fn wait(&mut self, port: u32, class: usize, flow: u32) {
        let first = self.first_line[port as usize];
        debug_assert_ne!(
            first, NOT_A_HOST_PORT,
            "a queue pair waits at a switch port"
        );
        self.lines[first as usize + class].push_back(flow);
        self.waiting[port as usize] += 1;
    }

    /// The classes of `port` (0 at a switch port: no lines).
    #[inline]
    pub fn classes(&self, port: u32) -> usize {
        self.classes[port as usize] as usize
    }

    /// Whether no flow waits at `port` for `class`.
    pub fn line_is_empty(&self, port: u32, class: usize) -> bool {
        let first = self.first_line[port as usize];
        first == NOT_A_HOST_PORT || self.lines[first as usize + class].is_empty()
    }

    /// The first flow in line at `port` for `class`, taken out of the line.
    pub fn next(&mut self, port: u32, class: usize) -> Option<u32> {
        let first = self.first_line[port as usize];
        debug_assert_ne!(first, NOT_A_HOST_PORT, "no lines at a switch port");
        let flow = self.lines[first as usize + class].pop_front()?;
        self.waiting[port as usize] -= 1;
        Some(flow)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flows_leave_each_line_in_the_order_they_came() {
        // Ports 0 and 2 are hosts' (two classes and one), port 1 a switch's.
        let mut n = NicLines::new(3, [(0, 2), (2, 1)].into_iter());
        assert!(!n.waiting_at(0) && !n.waiting_at(9));
        assert_eq!((n.classes(0), n.classes(1), n.classes(2)), (2, 0, 1));
        n.wait(0, 1, 7);
        n.wait(0, 1, 3);
        n.wait(2, 0, 9);
        assert!(n.waiting_at(0) && !n.waiting_at(1) && n.waiting_at(2));
        assert_eq!(n.next(0, 0), None);
        assert_eq!(n.next(0, 1), Some(7));
        assert_eq!(n.next(0, 1), Some(3));
        assert_eq!(n.next(0, 1), None);
        assert_eq!(n.next(2, 0), Some(9));
        assert!(!n.waiting_at(0) && !n.waiting_at(2));
    }
}
