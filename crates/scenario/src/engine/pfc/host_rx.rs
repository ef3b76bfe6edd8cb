//! `pfc.host_receive`: each host NIC's receive buffer for the lossless priorities (as
//! ConnectX NICs keep a receive buffer per priority), drained into the host at a fixed rate
//! (PCIe, the host's processing); lossy packets are the host's at once. A lossless packet that
//! reaches its host waits there until the host has taken the packets before it (departures are fixed at arrival, as a FIFO port's: at
//! max(arrival, the previous departure) + its bytes at the rate); the NIC's input counts it
//! per lossless class with the switches' accounting (`IngressCount`, XOFF = the buffer's) and
//! PAUSEs the switch, and resumes it, by the host's own port.

use incastsim_core::{HostId, Packet, SerializationRate, Time};
use std::collections::VecDeque;

/// A packet in a host's receive buffer: when the host takes it, and the port it came by.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    taken_at: Time,
    packet: Packet,
    input: u32,
}

/// Every host's receive buffer.
pub struct HostReceive {
    rate: SerializationRate,
    /// The buffer's XOFF per lossless class, bytes.
    pub xoff: u64,
    queues: Vec<VecDeque<Waiting>>,
    last_taken: Vec<Time>,
}

impl HostReceive {
    /// Buffers for `hosts` hosts, drained at `rate`, pausing at `xoff` bytes.
    pub fn new(hosts: usize, rate: incastsim_core::BitsPerSec, xoff: u64) -> HostReceive {
        HostReceive {
            rate: SerializationRate::new(rate),
            xoff,
            queues: vec![VecDeque::new(); hosts],
            last_taken: vec![Time::ZERO; hosts],
        }
    }

    /// `packet`, which came by `input`, reaches host `host` at `now`: returns when the host
    /// takes it if it is first in line (the caller schedules that).
    pub fn arrive(&mut self, now: Time, host: HostId, input: u32, packet: Packet) -> Option<Time> {
        let h = host as usize;
        let taken_at =
            self.last_taken[h].max(now) + self.rate.time_for(u64::from(packet.wire_bytes()));
        self.last_taken[h] = taken_at;
        let first = self.queues[h].is_empty();
        self.queues[h].push_back(Waiting {
            taken_at,
            packet,
            input,
        });
        first.then_some(taken_at)
    }

    /// Host `host` takes its first packet at `now`: the packet, the port it came by, and when
    /// the next is taken (if one waits).
    pub fn take(&mut self, now: Time, host: HostId) -> Option<(Packet, u32, Option<Time>)> {
        let q = &mut self.queues[host as usize];
        let w = q.pop_front()?;
        debug_assert_eq!(w.taken_at, now, "a host took a packet at the wrong time");
        Some((w.packet, w.input, q.front().map(|n| n.taken_at)))
    }

    /// Packets waiting in host buffers (for conservation checks).
    pub fn waiting(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }
}
