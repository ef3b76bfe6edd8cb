//! A host NIC's transmit arbitration among its RoCE queue pairs.
//!
//! A RoCE NIC pulls: when its link can take a packet, it picks a queue pair of a priority that
//! is not paused and whose pacing allows, and sends that QP's next packet (the HPCC fork's
//! `QbbNetDevice::DequeueAndTransmit` asks its `RdmaEgressQueue::GetNextQindex` for a QP only
//! when the link is free, skipping paused priorities, round robin). A QP therefore never
//! builds a queue in its own NIC: what it has not sent stays in the QP (PSNs, not packets),
//! and a PAUSE holds it back there, so after the RESUME it continues at its paced rate, not
//! as a burst of what a push model would have queued meanwhile; and a packet is stamped and
//! counted (its send time, DCQCN's byte counter, the retransmission timer) when it goes on
//! the wire.
//!
//! Here the host port decides at dequeue, and a QP hands it a packet only when the port would
//! start it at once ([`incastsim_switch::OutputPort::takes_class_now`]: the transmitter free,
//! its class not paused, nothing waiting that the pick would serve before or beside it) and no
//! QP is ahead of it in its class's line. A QP due otherwise joins its (host port, class)
//! line, first come first served. The port then keeps a
//! `TxDone` event due when that class can next take a packet (its transmitter free, its pause
//! over; a RESUME brings it forward): at each, before the port picks, the first in line of each
//! class, highest class first, hands over a packet (`Simulation::wake_roce_nic`), so a queue
//! pair competes with what waits there by strict priority. A QP that sent and is due again by
//! the time its class can next take a packet goes to the back of the line at once (round robin
//! among backlogged queue pairs, with no pacing event of their own).
//!
//! The lines are the NIC's state, in the network beside the host ports they serve; nothing
//! here is read across a link. While a class is paused, the flows in its line are charged the
//! paused time as a waiting packet would be, each from when it was due (`engine/pfc/flows.rs`).
//! Under DWRR the lines are served highest class first all the same: the weights share the
//! link between what waits in the port.

use incastsim_core::Time;
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
    /// The waiting flows with the time each is due to send, in the order they came.
    lines: Vec<VecDeque<(u32, Time)>>,
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

    /// The classes of `port` (0 at a switch port: no lines).
    #[inline]
    pub fn classes(&self, port: u32) -> usize {
        self.classes.get(port as usize).map_or(0, |&c| c as usize)
    }

    /// Flow `flow` waits at `port` for `class`, due to send from `due` on.
    pub fn wait(&mut self, port: u32, class: usize, flow: u32, due: Time) {
        let first = self.first_line[port as usize];
        debug_assert_ne!(
            first, NOT_A_HOST_PORT,
            "a queue pair waits at a switch port"
        );
        self.lines[first as usize + class].push_back((flow, due));
        self.waiting[port as usize] += 1;
    }

    /// Whether no flow waits at `port` for `class`.
    pub fn line_is_empty(&self, port: u32, class: usize) -> bool {
        self.line(port, class).next().is_none()
    }

    /// The flows waiting at `port` for `class`, with the time each is due to send (none at a
    /// switch port or in a run without RoCE flows).
    pub fn line(&self, port: u32, class: usize) -> impl Iterator<Item = (u32, Time)> + '_ {
        let line = match self.first_line.get(port as usize) {
            Some(&first) if first != NOT_A_HOST_PORT => self.lines.get(first as usize + class),
            _ => None,
        };
        line.into_iter().flatten().copied()
    }

    /// The first flow in line at `port` for `class`, taken out of the line.
    pub fn next(&mut self, port: u32, class: usize) -> Option<u32> {
        let first = self.first_line[port as usize];
        debug_assert_ne!(first, NOT_A_HOST_PORT, "no lines at a switch port");
        let (flow, _) = self.lines[first as usize + class].pop_front()?;
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
        n.wait(0, 1, 7, Time(5));
        n.wait(0, 1, 3, Time(6));
        n.wait(2, 0, 9, Time(7));
        assert!(n.waiting_at(0) && !n.waiting_at(1) && n.waiting_at(2));
        assert!(n.line_is_empty(0, 0) && !n.line_is_empty(0, 1) && n.line_is_empty(1, 0));
        assert_eq!(
            n.line(0, 1).collect::<Vec<_>>(),
            [(7, Time(5)), (3, Time(6))]
        );
        assert_eq!(n.next(0, 0), None);
        assert_eq!(n.next(0, 1), Some(7));
        assert_eq!(n.next(0, 1), Some(3));
        assert_eq!(n.next(0, 1), None);
        assert_eq!(n.next(2, 0), Some(9));
        assert!(!n.waiting_at(0) && !n.waiting_at(2));
    }
}
