//! Packet capture for pcap traces (`pcap:`): copies of the packets seen at the chosen points,
//! handed out with the results ([`CaptureResult`]); the output layer (`incastsim::pcap`) turns
//! them into Ethernet/IPv4/TCP frames and writes the files. The engine writes nothing.
//!
//! Capture points:
//! - a flow, as its sending host sees the connection (tcpdump on the server): its data segments
//!   when the host hands them to its NIC, its ACKs and the client's requests when they arrive;
//! - an output port, as a tap at the far end of its link: every packet that reaches the next
//!   node, when its last bit arrives (packets dropped at the port or lost on the link are not
//!   on the wire there).
//!
//! Off (no `pcap:` section), the network pays one test of [`Capture::on`] per packet sent and
//! per packet arriving.

use incastsim_core::{HostId, Packet, PacketKind, Time};

/// No capture point.
const NONE: u32 = u32::MAX;

/// One captured packet: when and where it was seen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CapturedPacket {
    /// Simulated time of the capture: the send time at a flow's host, the last bit's arrival at
    /// a port's far end.
    pub time: Time,
    /// Index into [`CaptureResult::points`].
    pub point: u32,
    /// The packet as it was then.
    pub packet: Packet,
}

/// A capture point.
#[derive(Clone, Debug, PartialEq)]
pub enum CapturePoint {
    /// A flow at its sending host.
    Flow(u32),
    /// An output port, by its "from->to" name.
    Port(String),
}

/// A TCP flow's ends, for the addresses and ports of its frames.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CaptureFlow {
    /// The host sending the data.
    pub src: HostId,
    /// The host receiving it (and sending the ACKs).
    pub dst: HostId,
    /// The receive window the receiver is configured to advertise, in bytes (it sets the
    /// window-scale shift of the trace).
    pub window_bytes: u32,
}

/// What a run captured: the packets of every point in time order, and what the frames need.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CaptureResult {
    /// `pcap.snaplen`: bytes kept of each frame.
    pub snaplen: u32,
    /// The capture points (flows and ports), each one pcap file.
    pub points: Vec<CapturePoint>,
    /// Every captured packet, in time order.
    pub packets: Vec<CapturedPacket>,
    /// Every TCP flow (by flow index).
    pub flows: Vec<CaptureFlow>,
    /// Every UDP background source (by source index): (source host, destination host).
    pub udp: Vec<(HostId, HostId)>,
}

/// The engine's capture state (in the network part).
#[derive(Default)]
pub struct Capture {
    /// Whether anything is captured: the one test the packet path pays when it is not.
    pub on: bool,
    /// Per flow: its capture point, or `NONE`.
    flow_point: Vec<u32>,
    /// Per port: its capture point, or `NONE`.
    port_point: Vec<u32>,
    /// Per flow: the host that sends its data.
    flow_src: Vec<HostId>,
    /// What has been captured so far.
    pub result: CaptureResult,
}

impl Capture {
    /// Captures `flows` at their sending hosts and `ports` at the far end of their links (off
    /// if both are empty), keeping `snaplen` bytes per frame. `port_name` names port p
    /// "from->to"; `all_flows` and `udp` describe every TCP flow and UDP source of the run.
    pub fn new(
        flows: &[u32],
        ports: &[u32],
        snaplen: u32,
        all_flows: Vec<CaptureFlow>,
        udp: Vec<(HostId, HostId)>,
        port_count: usize,
        port_name: impl Fn(u32) -> String,
    ) -> Capture {
        if flows.is_empty() && ports.is_empty() {
            return Capture::default();
        }
        let mut points = Vec::new();
        let mut flow_point = vec![NONE; all_flows.len()];
        for &f in flows {
            if flow_point[f as usize] == NONE {
                flow_point[f as usize] = points.len() as u32;
                points.push(CapturePoint::Flow(f));
            }
        }
        let mut port_point = vec![NONE; port_count];
        for &p in ports {
            if port_point[p as usize] == NONE {
                port_point[p as usize] = points.len() as u32;
                points.push(CapturePoint::Port(port_name(p)));
            }
        }
        Capture {
            on: true,
            flow_point,
            port_point,
            flow_src: all_flows.iter().map(|f| f.src).collect(),
            result: CaptureResult {
                snaplen,
                points,
                packets: Vec::new(),
                flows: all_flows,
                udp,
            },
        }
    }

    /// A flow added while the run goes (a reactive generator's): never captured (the capture
    /// points are fixed at plan time), but described in the trace's flow list.
    #[cold]
    pub fn add_flow(&mut self, flow: CaptureFlow) {
        if self.on {
            self.flow_point.push(NONE);
            self.flow_src.push(flow.src);
            self.result.flows.push(flow);
        }
    }

    /// `host` hands `packet` to its NIC: a captured flow's data segment is recorded.
    #[cold]
    #[inline(never)]
    pub fn on_host_send(&mut self, now: Time, host: HostId, packet: &Packet) {
        if packet.kind == PacketKind::Data && self.flow_src[packet.flow as usize] == host {
            self.record(now, self.flow_point[packet.flow as usize], packet);
        }
    }

    /// `packet`, the head of `port`, reached the far end of the link (`at_host`: its
    /// destination host): recorded at the port's point, and at its flow's point if it is an
    /// ACK or a request reaching the flow's sending host.
    #[cold]
    #[inline(never)]
    pub fn on_arrival(&mut self, now: Time, port: u32, packet: &Packet, at_host: bool) {
        self.record(now, self.port_point[port as usize], packet);
        if at_host && matches!(packet.kind, PacketKind::Ack | PacketKind::Request) {
            self.record(now, self.flow_point[packet.flow as usize], packet);
        }
    }

    /// A PFC frame `port` sent reached the far end at `arrived`: recorded at the port's point
    /// (as [`PacketKind::Pause`], class in `dscp`, quanta in `seq`, the sending port in `flow`).
    #[cold]
    pub fn on_pause_frame(&mut self, arrived: Time, port: u32, class: u8, quanta: u16) {
        let Some(&point) = self.port_point.get(port as usize) else {
            return;
        };
        let mut frame = Packet::new(PacketKind::Pause, port, 0, 0, 64);
        frame.dscp = class;
        frame.seq = u64::from(quanta);
        self.record(arrived, point, &frame);
    }

    #[inline]
    fn record(&mut self, time: Time, point: u32, packet: &Packet) {
        if point != NONE {
            self.result.packets.push(CapturedPacket {
                time,
                point,
                packet: *packet,
            });
        }
    }
}
