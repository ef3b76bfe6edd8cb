//! A queue pair's parameters, as plain values with the defaults of the sources they model.
//!
//! No parsing here: the config crate maps its keys onto these fields. Every default names the
//! source it comes from.

use incastsim_core::{BitsPerSec, Duration};

/// RoCEv2 header and trailer bytes of a data packet (a RDMA WRITE/SEND "middle" or "only"
/// packet without RETH/immediate data), on the wire beside the payload:
///
/// | header | bytes | source |
/// |---|---|---|
/// | Ethernet II header | 14 | IEEE 802.3 §3.1.1 (destination, source, EtherType) |
/// | IPv4 header, no options | 20 | RFC 791 §3.1 |
/// | UDP header (destination port 4791) | 8 | RFC 768; port 4791: IBTA RoCEv2 Annex A17 |
/// | InfiniBand Base Transport Header (BTH) | 12 | IBTA vol. 1 §9.2 |
/// | Invariant CRC (ICRC) | 4 | IBTA vol. 1 §7.8 (ICRC); kept in RoCEv2 by Annex A17 |
/// | Ethernet FCS | 4 | IEEE 802.3 §3.1.1 |
///
/// 14 + 20 + 8 + 12 + 4 + 4 = 62. The preamble, start delimiter and inter-frame gap (20 B) are
/// not counted: the simulator's links serialize a packet's header and payload bytes only.
pub const ROCEV2_DATA_HEADER_BYTES: u16 = 14 + 20 + 8 + 12 + 4 + 4;

/// Wire bytes of a RoCEv2 ACK or NAK: the data packet's headers ([`ROCEV2_DATA_HEADER_BYTES`])
/// plus the 4-byte ACK Extended Transport Header (AETH, IBTA vol. 1 §9.3: syndrome and MSN),
/// no payload: 62 + 4 = 66.
pub const ROCEV2_ACK_BYTES: u16 = ROCEV2_DATA_HEADER_BYTES + 4;

/// Wire bytes of a RoCEv2 CNP (IBTA Annex A17.9.2: BTH opcode 0x81 followed by 16 reserved
/// bytes): the data packet's headers plus 16, no payload: 62 + 16 = 78.
pub const ROCEV2_CNP_BYTES: u16 = ROCEV2_DATA_HEADER_BYTES + 16;

/// DCQCN's CNP interval N at the notification point: at most one CNP per queue pair per 50 µs
/// (Zhu et al., SIGCOMM 2015, §3.2: "N = 50 µs", the interval ConnectX NICs implement).
pub const DCQCN_CNP_INTERVAL: Duration = Duration::from_us(50);

/// Bytes of HPCC's INT header on a data packet and its ACK: five hop records of 8 bytes and
/// a 2-byte hop count (the HPCC fork's `IntHeader::GetStaticSize` in `int-header.cc`:
/// `sizeof(hop) * maxHop + sizeof(nhop)` = 8 × 5 + 2).
pub const HPCC_INT_HEADER_BYTES: u16 = 8 * 5 + 2;

/// Payload bytes per packet in the HPCC authors' simulator (`PACKET_PAYLOAD_SIZE 1000` in
/// alibaba-edu/High-Precision-Congestion-Control `simulation/run.py`; `packet_payload_size =
/// 1000` in `simulation/scratch/third.cc`, which sets `RdmaHw`'s `Mtu` attribute, itself 1000
/// by default in `rdma-hw.cc`). InfiniBand path MTUs are powers of two from 256 to 4096 B;
/// set [`RoceConfig::mtu`] to 4096 for a ConnectX with a 4 KiB path MTU.
pub const HPCC_FORK_MTU: u32 = 1000;

/// The granule of the InfiniBand Local ACK Timeout: the requester's transport timer is
/// 4.096 µs × 2^`timeout` for a 5-bit `timeout` (IBTA vol. 1 §9.7.6.1.3; Linux documents the
/// same unit for `rdma_set_ack_timeout`, `include/rdma/rdma_cm.h`: "4.096 * 2^(timeout)
/// usec").
pub const IB_ACK_TIMEOUT_UNIT: Duration = Duration::from_ns(4096);

/// The Local ACK Timeout exponent used when nothing sets one: perftest's `DEF_QP_TIME` (14), the
/// value the standard RDMA benchmarks (`ib_write_bw` and the rest) give ConnectX QPs:
/// 4.096 µs × 2^14 ≈ 67.1 ms.
pub const DEFAULT_IB_TIMEOUT_EXPONENT: u32 = 14;

/// IRN's low retransmission timeout, used while fewer than [`IRN_RTO_LOW_PACKETS`] packets are
/// in flight (Mittal et al., "Revisiting Network Support for RDMA", SIGCOMM 2018, §3.1
/// "timeouts" and §4.1's default parameters: RTO_low = 100 µs).
pub const IRN_RTO_LOW: Duration = Duration::from_us(100);
/// IRN's high retransmission timeout (same source: RTO_high = 320 µs, an estimate of the
/// worst-case RTT of their topology).
pub const IRN_RTO_HIGH: Duration = Duration::from_us(320);
/// IRN's N: RTO_low applies while fewer than N packets are in flight (same source: N = 3),
/// where too few packets remain to trigger a NACK after a tail loss.
pub const IRN_RTO_LOW_PACKETS: u32 = 3;

/// The HPCC fork's NACK generation interval (`RdmaHw` attribute "NACK Generation Interval",
/// 500 µs in `rdma-hw.cc`): its receiver sends another NACK for the same expected PSN once this
/// long has passed (`ReceiverCheckSeq`: `Now() >= m_nackTimer || m_lastNACK != expected`).
pub const HPCC_FORK_NACK_INTERVAL: Duration = Duration::from_us(500);

/// How lost packets are recovered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Recovery {
    /// Go-back-N, as Mellanox ConnectX NICs do (IBTA vol. 1 §9.7.5.2.4, sequence-error NAK):
    /// the responder discards out-of-sequence packets and NAKs the PSN it expects, once per gap;
    /// the requester resends everything from that PSN.
    #[default]
    GoBackN,
    /// Selective repeat as IRN does (Mittal et al. SIGCOMM 2018 §3.1): the receiver keeps
    /// out-of-order packets and NACKs each one with the cumulative and the triggering PSN; the
    /// sender retransmits only the packets the receiver lacks, then new ones.
    SelectiveRepeat,
}

/// The retransmission timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RtoConfig {
    /// One fixed value, as the InfiniBand transport timer (no backoff: IBTA vol. 1 §9.7.6.1.3
    /// restarts the same Local ACK Timeout after each retry).
    Fixed(Duration),
    /// IRN's two values (SIGCOMM 2018 §3.1): `low` while fewer than `low_below_packets` packets
    /// are in flight (not yet acknowledged nor selectively acknowledged), `high` otherwise.
    Irn {
        /// RTO_low.
        low: Duration,
        /// RTO_high.
        high: Duration,
        /// N.
        low_below_packets: u32,
    },
}

impl RtoConfig {
    /// The InfiniBand Local ACK Timeout for exponent `exponent` (0..=31):
    /// 4.096 µs × 2^`exponent` ([`IB_ACK_TIMEOUT_UNIT`]).
    pub const fn ib_local_ack_timeout(exponent: u32) -> RtoConfig {
        assert!(exponent < 32, "the IB timeout field has 5 bits");
        RtoConfig::Fixed(Duration::from_ps(IB_ACK_TIMEOUT_UNIT.0 << exponent))
    }

    /// IRN's timeouts with the paper's values ([`IRN_RTO_LOW`], [`IRN_RTO_HIGH`],
    /// [`IRN_RTO_LOW_PACKETS`]).
    pub const fn irn() -> RtoConfig {
        RtoConfig::Irn {
            low: IRN_RTO_LOW,
            high: IRN_RTO_HIGH,
            low_below_packets: IRN_RTO_LOW_PACKETS,
        }
    }

    /// The timeout to arm with `in_flight` packets outstanding.
    #[inline]
    pub fn value(&self, in_flight: u64) -> Duration {
        match *self {
            RtoConfig::Fixed(d) => d,
            RtoConfig::Irn {
                low,
                high,
                low_below_packets,
            } => {
                if in_flight < u64::from(low_below_packets) {
                    low
                } else {
                    high
                }
            }
        }
    }
}

impl Default for RtoConfig {
    /// The ConnectX-style fixed timer with perftest's exponent: 4.096 µs × 2^14.
    fn default() -> Self {
        RtoConfig::ib_local_ack_timeout(DEFAULT_IB_TIMEOUT_EXPONENT)
    }
}

/// A queue pair's parameters: both ends read the same value, so a flow's sender and receiver
/// agree on the recovery mode and the packet size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RoceConfig {
    /// Payload bytes per packet (the path MTU in IB terms). Default [`HPCC_FORK_MTU`] (1000).
    pub mtu: u32,
    /// Header and trailer bytes of a data packet. Default [`ROCEV2_DATA_HEADER_BYTES`] (62).
    pub header_bytes: u16,
    /// Wire bytes of an ACK or NACK. Default [`ROCEV2_ACK_BYTES`] (66).
    pub ack_bytes: u16,
    /// The receiver acknowledges every `ack_every` in-order packets (and always the last packet
    /// of a message, which carries the BTH AckReq bit; see
    /// [`crate::RoceReceiver::on_data`]). Default 1: the HPCC fork's `L2_ACK_INTERVAL 1`
    /// (`simulation/run.py`; its `ReceiverCheckSeq` then ACKs every in-order packet).
    pub ack_every: u32,
    /// The responder's ACK coalescing timer: an in-order packet not yet acknowledged is
    /// acknowledged at the latest this long after it arrived (the role of TCP's delayed-ACK
    /// timer, RFC 1122 §4.2.3.2). `None` (default): none, as the HPCC fork's receiver, which
    /// ACKs on its count alone. With `ack_every` > 1 a window that an ACK shrinks, or a
    /// message cut short, can leave fewer than `ack_every` packets in flight and nothing more
    /// to send; only this timer then acknowledges them before the retransmission timeout (no
    /// source gives ConnectX's value: the config key has no default and is required then).
    pub ack_timeout: Option<Duration>,
    /// Go-back-N or selective repeat. Default go-back-N (ConnectX).
    pub recovery: Recovery,
    /// The retransmission timeout. Default 4.096 µs × 2^14 ([`RtoConfig::default`]).
    pub rto: RtoConfig,
    /// Go-back-N receiver only: send another NAK for the same expected PSN when an
    /// out-of-sequence packet arrives this long after the last one. `None` (the default): one NAK
    /// per gap until the expected PSN arrives (IBTA vol. 1 §9.7.5.2.4, ConnectX); the HPCC fork
    /// uses [`HPCC_FORK_NACK_INTERVAL`].
    pub nack_reissue: Option<Duration>,
    /// At most this many bytes sent and not cumulatively acknowledged (snd_nxt − snd_una, in
    /// bytes) before a new packet goes: the HPCC fork's window (`HAS_WIN 1`; `m_win`, bytes,
    /// `RdmaQueuePair::IsWinBound`). `None` (default): no window. A rate controller may change
    /// it per ACK.
    pub window_bytes: Option<u64>,
    /// IRN's BDP flow control (SIGCOMM 2018 §3.2): at most this many packets sent and not
    /// cumulatively acknowledged (PSNs snd_nxt − snd_una) before a new packet goes; IRN sets it
    /// to the path's BDP / MTU. `None` (default): off. It depends on the topology, so the
    /// planner computes it.
    pub bdp_cap_packets: Option<u32>,
    /// The sending rate before any controller sets one. `None` (default): the NIC's line rate,
    /// as the HPCC fork's `AddQueuePair` starts every QP (`qp->m_rate = m_bps`).
    pub initial_rate: Option<BitsPerSec>,
    /// DCQCN's notification point: answer CE-marked arrivals with at most one CNP per this
    /// interval ([`DCQCN_CNP_INTERVAL`] with DCQCN). `None` (default): no CNPs.
    pub cnp_interval: Option<Duration>,
    /// Wire bytes of a CNP. Default [`ROCEV2_CNP_BYTES`] (78).
    pub cnp_bytes: u16,
    /// Data packets carry an INT header that every switch egress stamps, and ACKs echo it
    /// (HPCC). Its bytes are in `header_bytes` and `ack_bytes`. Default off.
    pub int_telemetry: bool,
}

impl Default for RoceConfig {
    fn default() -> Self {
        RoceConfig {
            mtu: HPCC_FORK_MTU,
            header_bytes: ROCEV2_DATA_HEADER_BYTES,
            ack_bytes: ROCEV2_ACK_BYTES,
            ack_every: 1,
            ack_timeout: None,
            recovery: Recovery::GoBackN,
            rto: RtoConfig::default(),
            nack_reissue: None,
            window_bytes: None,
            bdp_cap_packets: None,
            initial_rate: None,
            cnp_interval: None,
            cnp_bytes: ROCEV2_CNP_BYTES,
            int_telemetry: false,
        }
    }
}

impl RoceConfig {
    /// IRN as the paper configures it: selective repeat with RTO_low/RTO_high. The BDP cap is
    /// left off ([`RoceConfig::bdp_cap_packets`]: it depends on the path).
    pub fn irn() -> RoceConfig {
        RoceConfig {
            recovery: Recovery::SelectiveRepeat,
            rto: RtoConfig::irn(),
            ..RoceConfig::default()
        }
    }

    /// Wire bytes of a data packet carrying `payload` bytes.
    #[inline]
    pub fn wire_bytes(&self, payload: u32) -> u64 {
        u64::from(payload) + u64::from(self.header_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_sums_are_the_rocev2_stack() {
        assert_eq!(ROCEV2_DATA_HEADER_BYTES, 62);
        assert_eq!(ROCEV2_ACK_BYTES, 66);
    }

    /// 4.096 µs × 2^k exactly, in picoseconds; 2^14 is perftest's default (≈ 67.1 ms).
    #[test]
    fn ib_timeout_is_exact() {
        assert_eq!(
            RtoConfig::ib_local_ack_timeout(0),
            RtoConfig::Fixed(Duration::from_ns(4096))
        );
        assert_eq!(
            RtoConfig::default(),
            RtoConfig::Fixed(Duration::from_ns(67_108_864))
        );
        assert_eq!(
            RtoConfig::ib_local_ack_timeout(31).value(0),
            Duration::from_ns(4096 << 31)
        );
    }

    #[test]
    fn irn_rto_switches_at_n_packets() {
        let r = RtoConfig::irn();
        assert_eq!(r.value(0), Duration::from_us(100));
        assert_eq!(r.value(2), Duration::from_us(100));
        assert_eq!(r.value(3), Duration::from_us(320));
        assert_eq!(RoceConfig::irn().recovery, Recovery::SelectiveRepeat);
    }
}
