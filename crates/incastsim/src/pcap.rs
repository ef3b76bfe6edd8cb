//! pcap traces: the packets a run captured (`pcap:` in the config) as nanosecond-resolution
//! pcap files that Wireshark and tshark read, one per capture point.
//!
//! Each simulated packet becomes a real Ethernet II / IPv4 / TCP (or UDP) frame, laid out by
//! `etherparse` and written by `pcap-file`:
//! - addresses: host h is IPv4 10.a.b.c with a.b.c = h + 1, MAC 02:00:hh:hh:hh:hh;
//! - ports: the data sender listens on [`SERVER_PORT`]; flow f's receiver uses port
//!   [`client_port`]`(f)`, so every flow is its own TCP stream;
//! - TCP: sequence numbers are the simulator's byte offsets modulo 2^32 (the sender's initial
//!   sequence number is 0, the receiver's is 0 and it sends no data, so data segments carry
//!   ACK 0); ACKs carry the cumulative acknowledgement, ECE, and up to three SACK blocks (RFC
//!   2018 §3, after two NOPs as Linux sends them); data segments carry CWR; the IP ECN field is
//!   the packet's codepoint (RFC 3168 §5: ECT(0) on new data of ECN flows, CE once marked); the
//!   DSCP is the packet's class;
//! - windows: the receiver's advertised window, scaled by the shift a stack would have
//!   negotiated for its configured window (RFC 7323 §2.3: the smallest that fits 16 bits). The
//!   trace has no handshake (the model has none), so tell Wireshark the shift: Preferences →
//!   Protocols → TCP → "Scaling factor to use when not available from capture"
//!   (`-o tcp.default_window_scaling:S` for tshark);
//! - lengths: IPv4 total length and the frame length count the real headers plus the
//!   simulated payload; the payload is zeros and only `snaplen` bytes of each frame are kept;
//! - requests (the client's "send me your part" message) and UDP background datagrams are UDP
//!   datagrams of their simulated payload size.
//!
//! Timestamps are the simulated time, in nanoseconds (truncated from picoseconds), from the
//! Unix epoch (time 0 of the run is 1970-01-01 00:00:00).

use crate::output_error::OutputError;
use etherparse::{
    EtherType, Ethernet2Header, IpDscp, IpEcn, IpNumber, Ipv4Header, TcpHeader, TcpOptionElement,
    UdpHeader,
};
use incastsim_core::{Ecn, HostId, Packet, PacketKind, packet::flags};
use incastsim_scenario::engine::capture::{CapturePoint, CaptureResult, CapturedPacket};
use incastsim_scenario::{RunResult, config::PCAP_MAX_SNAPLEN};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// The TCP port of every data sender (the "server").
pub const SERVER_PORT: u16 = 5001;
/// The UDP port background datagrams are sent to (discard).
pub const UDP_SINK_PORT: u16 = 9;
const TTL: u8 = 64;
/// A PFC frame as captured: the 64-byte minimum Ethernet frame less its 4-byte FCS.
const PFC_FRAME_CAPTURED: usize = 60;

/// The TCP port of flow `f`'s receiver (the "client"): one per flow, in Linux's ephemeral range
/// (32768-60999), so flows between the same two hosts are distinct streams (up to 28232 flows).
pub fn client_port(f: u32) -> u16 {
    32768 + (f % 28232) as u16
}

/// The UDP source port of background source `i`.
fn udp_source_port(i: u32) -> u16 {
    20000 + (i % 10000) as u16
}

/// Host h's IPv4 address: 10.0.0.1 is host 0.
pub fn host_ip(h: HostId) -> [u8; 4] {
    let a = h + 1;
    [10, (a >> 16) as u8, (a >> 8) as u8, a as u8]
}

fn host_mac(h: HostId) -> [u8; 6] {
    let b = h.to_be_bytes();
    [0x02, 0x00, b[0], b[1], b[2], b[3]]
}

/// The window-scale shift for a receive window of `bytes` (RFC 7323 §2.3: at most 14).
pub fn window_shift(bytes: u32) -> u8 {
    let mut s = 0;
    while s < 14 && (bytes >> s) > u16::MAX as u32 {
        s += 1;
    }
    s
}

/// The file name of a capture point: `flow-3.pcap`, `port-switch0-host16.pcap`.
pub fn file_name(point: &CapturePoint) -> String {
    match point {
        CapturePoint::Flow(f) => format!("flow-{f}.pcap"),
        CapturePoint::Port(name) => {
            let plain: String = name
                .replace("->", "-")
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            format!("port-{plain}.pcap")
        }
    }
}

/// Builds frames from captured packets (reusing its buffers).
struct FrameBuilder<'a> {
    capture: &'a CaptureResult,
    zeros: Vec<u8>,
    frame: Vec<u8>,
}

impl FrameBuilder<'_> {
    /// The frame of `c` (at most `snaplen` bytes of it) and its full length.
    fn build(&mut self, c: &CapturedPacket) -> Result<(&[u8], u32), String> {
        let p = &c.packet;
        if p.kind == PacketKind::Pause {
            return Ok(self.pfc_frame(p));
        }
        let payload = p.payload_bytes as usize;
        if self.zeros.len() < payload {
            self.zeros.resize(payload, 0);
        }
        let payload_bytes = &self.zeros[..payload];
        let (src, dst, mut transport) = self.transport(p)?;
        let ip_payload_len = transport.len() + payload;
        let mut ip = Ipv4Header::new(
            u16::try_from(ip_payload_len).map_err(|_| too_big(p))?,
            TTL,
            if matches!(p.kind, PacketKind::Data | PacketKind::Ack) {
                IpNumber::TCP
            } else {
                IpNumber::UDP
            },
            host_ip(src),
            host_ip(dst),
        )
        .map_err(|_| too_big(p))?;
        ip.dscp = IpDscp::try_new(p.dscp.min(63)).expect("6 bits");
        ip.ecn = match p.ecn {
            Ecn::NotEct => IpEcn::NotEct,
            Ecn::Ect0 => IpEcn::Ect0,
            Ecn::Ect1 => IpEcn::Ect1,
            Ecn::Ce => IpEcn::CongestionExperienced,
        };
        let transport = transport.checksummed(&ip, payload_bytes)?;
        let eth = Ethernet2Header {
            source: host_mac(src),
            destination: host_mac(dst),
            ether_type: EtherType::IPV4,
        };
        self.frame.clear();
        self.frame.extend_from_slice(&eth.to_bytes());
        ip.write(&mut self.frame).map_err(|e| e.to_string())?;
        self.frame.extend_from_slice(&transport);
        let full = self.frame.len() + payload;
        let keep = full.min(self.capture.snaplen as usize);
        if keep > self.frame.len() {
            self.frame.resize(keep, 0);
        }
        self.frame.truncate(keep);
        Ok((&self.frame, full as u32))
    }

    /// A PFC frame (IEEE 802.1Qbb Annex 36B; Wireshark: "MAC Control", opcode "Class Based
    /// Flow Control"): to the MAC control multicast address, EtherType 0x8808, opcode 0x0101,
    /// the class-enable vector, eight pause times (the paused class's is the quanta), padded
    /// to the 60-byte minimum (the FCS is not captured). Its source is the sending port's
    /// locally administered MAC (02:00:… with the port's index).
    fn pfc_frame(&mut self, p: &Packet) -> (&[u8], u32) {
        let class = (p.dscp & 7) as usize;
        let port = p.flow.to_be_bytes();
        self.frame.clear();
        self.frame
            .extend_from_slice(&[0x01, 0x80, 0xc2, 0x00, 0x00, 0x01]);
        self.frame
            .extend_from_slice(&[0x02, 0x00, port[0], port[1], port[2], port[3]]);
        self.frame.extend_from_slice(&[0x88, 0x08, 0x01, 0x01]);
        self.frame.extend_from_slice(&(1u16 << class).to_be_bytes());
        for c in 0..8 {
            let time = if c == class { p.seq as u16 } else { 0 };
            self.frame.extend_from_slice(&time.to_be_bytes());
        }
        self.frame.resize(PFC_FRAME_CAPTURED, 0);
        let keep = PFC_FRAME_CAPTURED.min(self.capture.snaplen as usize);
        self.frame.truncate(keep);
        (&self.frame, PFC_FRAME_CAPTURED as u32)
    }

    /// Source and destination hosts and the transport header (checksum 0 for now).
    fn transport(&self, p: &Packet) -> Result<(HostId, HostId, Transport), String> {
        let f = p.flow;
        match p.kind {
            PacketKind::Data | PacketKind::Ack => {
                let flow = self.capture.flows[f as usize];
                let shift = window_shift(flow.window_bytes);
                let data = p.kind == PacketKind::Data;
                let (src, dst, sport, dport) = if data {
                    (flow.src, flow.dst, SERVER_PORT, client_port(f))
                } else {
                    (flow.dst, flow.src, client_port(f), SERVER_PORT)
                };
                // A data segment advertises the sender's own receive window (configured alike).
                let window = if data {
                    flow.window_bytes
                } else {
                    p.window_bytes
                };
                let mut tcp = TcpHeader::new(
                    sport,
                    dport,
                    if data { p.seq as u32 } else { 0 },
                    (window >> shift).min(u16::MAX as u32) as u16,
                );
                tcp.ack = true;
                tcp.acknowledgment_number = if data { 0 } else { p.ack() as u32 };
                tcp.ece = p.has_flag(flags::ECE);
                tcp.cwr = p.has_flag(flags::CWR);
                if !data && p.sack_count > 0 {
                    let block = |i: usize| {
                        let b = p.sack[i];
                        let start = p.ack().wrapping_add(b.start_offset as u64);
                        (start as u32, start.wrapping_add(b.len as u64) as u32)
                    };
                    let n = p.sack_count as usize;
                    let more = [1, 2].map(|i| (i < n).then(|| block(i)));
                    tcp.set_options(&[
                        TcpOptionElement::Noop,
                        TcpOptionElement::Noop,
                        TcpOptionElement::SelectiveAcknowledgement(
                            block(0),
                            [more[0], more[1], None],
                        ),
                    ])
                    .map_err(|e| e.to_string())?;
                }
                Ok((src, dst, Transport::Tcp(tcp)))
            }
            PacketKind::Request => {
                // The client of flow f asks its server: the reverse of the flow's data.
                let flow = self.capture.flows[f as usize];
                let udp = UdpHeader::without_ipv4_checksum(
                    client_port(f),
                    SERVER_PORT,
                    p.payload_bytes as usize,
                )
                .map_err(|_| too_big(p))?;
                Ok((flow.dst, flow.src, Transport::Udp(udp)))
            }
            PacketKind::Pause => Err("a PFC frame has no transport header".into()),
            PacketKind::Udp => {
                let (src, dst) = self.capture.udp[f as usize];
                let udp = UdpHeader::without_ipv4_checksum(
                    udp_source_port(f),
                    UDP_SINK_PORT,
                    p.payload_bytes as usize,
                )
                .map_err(|_| too_big(p))?;
                Ok((src, dst, Transport::Udp(udp)))
            }
        }
    }
}

/// A frame's transport header.
enum Transport {
    Tcp(TcpHeader),
    Udp(UdpHeader),
}

impl Transport {
    fn len(&self) -> usize {
        match self {
            Transport::Tcp(t) => t.header_len(),
            Transport::Udp(_) => UdpHeader::LEN,
        }
    }

    /// The header's bytes with its checksum over the IPv4 pseudo-header and the payload.
    fn checksummed(&mut self, ip: &Ipv4Header, payload: &[u8]) -> Result<Vec<u8>, String> {
        let big = |_| "a packet does not fit an IPv4 packet".to_string();
        Ok(match self {
            Transport::Tcp(t) => {
                t.checksum = t.calc_checksum_ipv4(ip, payload).map_err(big)?;
                t.to_bytes().to_vec()
            }
            Transport::Udp(u) => {
                u.checksum = u.calc_checksum_ipv4(ip, payload).map_err(big)?;
                u.to_bytes().to_vec()
            }
        })
    }
}

fn too_big(p: &Packet) -> String {
    format!(
        "a packet with {} payload bytes does not fit an IPv4 packet",
        p.payload_bytes
    )
}

/// The pcap writer's error as an output error: its I/O error says only "Error reading bytes"
/// (even when writing, e.g. on a full disk), so the operating system's error, its source, is
/// what is reported.
fn pcap_error(path: &Path, e: pcap_file::PcapError) -> OutputError {
    let source = match e {
        pcap_file::PcapError::IoError(source) => source,
        other => std::io::Error::other(other.to_string()),
    };
    OutputError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Writes one pcap file per capture point of `result` into `dir` (created if needed); returns
/// the files written. Nothing is written for a run without `pcap:`.
pub fn write_pcaps(dir: &Path, result: &RunResult) -> Result<Vec<PathBuf>, OutputError> {
    let Some(capture) = &result.capture else {
        return Ok(Vec::new());
    };
    let err = |path: &Path, message: String| OutputError::Io {
        path: path.display().to_string(),
        source: std::io::Error::other(message),
    };
    let pcap_err = pcap_error;
    std::fs::create_dir_all(dir).map_err(|e| err(dir, e.to_string()))?;
    let header = PcapHeader {
        snaplen: capture.snaplen.clamp(1, PCAP_MAX_SNAPLEN as u32),
        datalink: DataLink::ETHERNET,
        ts_resolution: TsResolution::NanoSecond,
        endianness: Endianness::Little,
        ..PcapHeader::default()
    };
    let paths: Vec<PathBuf> = capture
        .points
        .iter()
        .map(|p| dir.join(file_name(p)))
        .collect();
    let mut writers = Vec::with_capacity(paths.len());
    for path in &paths {
        let file = File::create(path).map_err(|e| err(path, e.to_string()))?;
        writers.push(
            PcapWriter::with_header(BufWriter::new(file), header).map_err(|e| pcap_err(path, e))?,
        );
    }
    let mut frames = FrameBuilder {
        capture,
        zeros: Vec::new(),
        frame: Vec::new(),
    };
    // In time order (a PFC frame that acts `pfc.response_time` after it arrives is recorded
    // then, with its arrival time).
    let mut order: Vec<&CapturedPacket> = capture.packets.iter().collect();
    if !capture.packets.is_sorted_by_key(|c| c.time) {
        order.sort_by_key(|c| c.time);
    }
    for c in order {
        let i = c.point as usize;
        let (frame, full_len) = frames.build(c).map_err(|m| err(&paths[i], m))?;
        let ts = std::time::Duration::from_nanos(c.time.as_ps() / 1000);
        writers[i]
            .write_packet(&PcapPacket::new(ts, full_len, frame))
            .map_err(|e| pcap_err(&paths[i], e))?;
    }
    for (w, path) in writers.into_iter().zip(&paths) {
        use std::io::Write;
        w.into_writer()
            .flush()
            .map_err(|e| err(path, e.to_string()))?;
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 38, item 20: a full disk while writing a trace reports the OS error, not the pcap
    /// library's "Error reading bytes: Error reading bytes".
    #[test]
    fn a_write_error_names_the_os_error() {
        let full = std::io::Error::from_raw_os_error(28); // ENOSPC
        let e = pcap_error(
            Path::new("pcap/flow-0.pcap"),
            pcap_file::PcapError::IoError(full),
        );
        let text = e.to_string();
        assert!(
            text.starts_with("cannot write pcap/flow-0.pcap: No space left on device"),
            "{text}"
        );
        assert!(!text.contains("Error reading bytes"), "{text}");
    }

    /// A PFC frame's bytes as 802.1Qbb lays them out (checked against Wireshark's decoding
    /// by hand: "Class Based Flow Control", C3 enabled, C3 time 65535).
    #[test]
    fn a_pfc_frame_is_a_mac_control_frame() {
        let capture = CaptureResult {
            snaplen: 128,
            ..CaptureResult::default()
        };
        let mut b = FrameBuilder {
            capture: &capture,
            zeros: Vec::new(),
            frame: Vec::new(),
        };
        let mut p = Packet::new(PacketKind::Pause, 0x0102_0304, 0, 0, 64);
        p.dscp = 3;
        p.seq = 65535;
        let (frame, full) = b.pfc_frame(&p);
        assert_eq!(full, 60);
        assert_eq!(&frame[..6], &[0x01, 0x80, 0xc2, 0, 0, 1]);
        assert_eq!(&frame[6..12], &[0x02, 0, 1, 2, 3, 4]);
        assert_eq!(
            &frame[12..16],
            &[0x88, 0x08, 0x01, 0x01],
            "EtherType, opcode"
        );
        assert_eq!(&frame[16..18], &[0, 0b1000], "class-enable vector: C3");
        assert_eq!(&frame[18 + 6..18 + 8], &[0xff, 0xff], "C3's pause time");
        assert!(frame[18..18 + 6].iter().all(|&x| x == 0));
        assert_eq!(frame.len(), 60);
    }
}
