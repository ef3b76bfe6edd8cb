//! Constant-bit-rate UDP background sources (`background: udp_cbr`).

use crate::engine::event::{Event, Events};
use crate::plan::UdpPlan;
use incastsim_core::{FlowId, HostId, Packet, PacketKind, Time};

/// A constant-bit-rate UDP source (background traffic that does not back off).
pub struct UdpSource {
    plan: UdpPlan,
    /// Datagrams sent.
    pub sent: u64,
    /// Datagrams that reached the destination host.
    pub delivered: u64,
}

impl UdpSource {
    /// The source the plan describes, before its first datagram.
    pub fn new(plan: UdpPlan) -> UdpSource {
        UdpSource {
            plan,
            sent: 0,
            delivered: 0,
        }
    }

    /// The source's plan (hosts, rate, DSCP).
    pub fn plan(&self) -> &UdpPlan {
        &self.plan
    }

    /// When the first datagram leaves.
    pub fn start(&self) -> Time {
        Time::ZERO + self.plan.start
    }

    /// Source i emits one datagram (returned with its host) and schedules the next; nothing
    /// once it has stopped.
    pub fn send(
        &mut self,
        now: Time,
        i: usize,
        header_bytes: u16,
        events: &mut Events,
    ) -> Option<(HostId, Packet)> {
        let u = &self.plan;
        if u.stop.is_some_and(|stop| now >= stop) {
            return None;
        }
        let header = (header_bytes as u32).min(u.wire_bytes);
        let mut packet = Packet::new(
            PacketKind::Udp,
            i as FlowId,
            u.dst,
            u.wire_bytes - header,
            header as u16,
        );
        packet.seq = self.sent;
        packet.timestamp_ps = now.as_ps();
        packet.dscp = u.dscp;
        self.sent += 1;
        events.schedule(now + u.interval, Event::UdpSend { source: i as u32 }.into());
        Some((u.src, packet))
    }
}
