//! `tcp.transport`: which transport carries a `tcp` section's flows. `tcp` (the default) is
//! the TCP the rest of the section configures; `roce` is a RoCEv2 reliable-connection queue
//! pair per flow (`incastsim_roce`): paced at its rate, PSNs, ACKs every `ack_every` packets,
//! NAK on a gap, go-back-N as ConnectX NICs or IRN's selective repeat, and a retransmission
//! timer. A `roce` section's flows use its `dscp` (the priority, e.g. a PFC lossless one); its
//! TCP keys do not apply to them.

use crate::rdma_cc::RdmaCcConfig;
use crate::units::{Bytes, Dur};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// `tcp.transport`.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum TransportConfig {
    /// TCP as the section configures it.
    #[default]
    Tcp,
    /// RoCEv2 queue pairs.
    Roce(Box<RoceTransportConfig>),
}

impl TransportConfig {
    /// The largest packet on the wire of these flows, given the section's TCP MSS and header
    /// (RoCE: its MTU and header, `incastsim_roce`'s defaults where not set).
    pub fn largest_packet_bytes(&self, tcp_mss: u64, tcp_header: u64) -> u64 {
        match self {
            TransportConfig::Tcp => tcp_mss + tcp_header,
            TransportConfig::Roce(r) => {
                let d = incastsim_roce::RoceConfig::default();
                r.mtu.map_or(u64::from(d.mtu), |b| b.0)
                    + r.header.map_or(u64::from(d.header_bytes), |b| b.0)
                    + r.int_header_bytes()
            }
        }
    }

    /// The default (TCP): not printed in resolved configs, so they stay as before.
    pub fn is_tcp(&self) -> bool {
        matches!(self, TransportConfig::Tcp)
    }

    /// `tcp` or `roce`.
    pub fn name(&self) -> &'static str {
        match self {
            TransportConfig::Tcp => "tcp",
            TransportConfig::Roce(_) => "roce",
        }
    }
}

/// How a RoCE queue pair recovers lost packets (`tcp.transport.recovery`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoceRecovery {
    /// Go-back-N as ConnectX NICs (IBTA vol. 1 §9.7.5.2.4): resend everything from the NAK's PSN.
    #[default]
    GoBackN,
    /// IRN's selective repeat (Mittal et al., SIGCOMM 2018 §3.1), with its RTO_low/RTO_high.
    Irn,
}

/// `tcp.transport: {kind: roce, ...}`; absent keys take the defaults of `incastsim_roce`
/// (`RoceConfig::default`, each with its source there).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RoceTransportConfig {
    /// Go-back-N (default) or IRN's selective repeat.
    pub recovery: RoceRecovery,
    /// Payload bytes per packet (default 1000 B, the HPCC fork's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mtu: Option<Bytes>,
    /// Header and trailer bytes of a data packet (default 62 B: Ethernet, IPv4, UDP, BTH,
    /// ICRC, FCS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<Bytes>,
    /// ACK every this many in-order packets, and always the last of a message (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ack_every: Option<u32>,
    /// The receiver's ACK coalescing timer: a packet held back by `ack_every` is acknowledged
    /// at the latest this long after it arrived (no default). Only with `ack_every` > 1, below
    /// the retransmission timeout; required then with a window (`hpcc`, a registered
    /// controller, `window`, `bdp_cap_packets`): an ACK that shrinks the window leaves the
    /// packets the count holds back waiting for the timeout otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ack_timeout: Option<Dur>,
    /// The retransmission timeout. Go-back-N: one fixed value (default 4.096 µs × 2^14 ≈
    /// 67 ms, the IB Local ACK Timeout perftest sets); IRN: RTO_low (default 100 µs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rto: Option<Dur>,
    /// IRN only: RTO_high, used with `rto_low_below` or more packets in flight (default 320 µs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rto_high: Option<Dur>,
    /// IRN only: RTO_low applies below this many packets in flight (default 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rto_low_below: Option<u32>,
    /// At most this many bytes sent and not acknowledged (the HPCC fork's window; default
    /// none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<Bytes>,
    /// IRN's BDP flow control: at most this many packets in flight (default none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bdp_cap_packets: Option<u32>,
    /// Go-back-N: NAK again for the same gap after this long (the HPCC fork: 500 µs; default
    /// never, as ConnectX).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nack_reissue: Option<Dur>,
    /// The rate a queue pair starts at (default: its NIC's line rate, as the HPCC fork's
    /// `AddQueuePair`); a controller moves it from there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_rate: Option<crate::units::Rate>,
    /// The rate controller (default `none`: the line rate throughout).
    #[serde(skip_serializing_if = "RdmaCcConfig::is_none")]
    pub congestion_control: RdmaCcConfig,
    /// The class (DSCP) of the receiver's CNPs (default 48, ConnectX's `cnp_dscp`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cnp_dscp: Option<u8>,
    /// Data packets carry an INT header every switch stamps, and ACKs echo it (default: with
    /// `hpcc`; a registered controller that reads `AckSample::int` sets it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub int_telemetry: Option<bool>,
    /// Bytes the INT header adds to a data packet and its ACK (default 42, the HPCC fork's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub int_header: Option<Bytes>,
}

impl RoceTransportConfig {
    /// Bytes the INT header adds to each data packet and ACK (0 without INT).
    pub fn int_header_bytes(&self) -> u64 {
        if self.int_on() {
            self.int_header
                .map_or(u64::from(incastsim_roce::HPCC_INT_HEADER_BYTES), |b| b.0)
        } else {
            0
        }
    }

    /// Whether the data packets carry an INT header.
    pub fn int_on(&self) -> bool {
        self.int_telemetry
            .unwrap_or_else(|| self.congestion_control.wants_int())
    }
}

impl Serialize for TransportConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Tagged<'a> {
            kind: &'static str,
            #[serde(flatten)]
            roce: &'a RoceTransportConfig,
        }
        match self {
            TransportConfig::Tcp => s.serialize_str("tcp"),
            TransportConfig::Roce(r) => Tagged {
                kind: "roce",
                roce: r,
            }
            .serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for TransportConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        const ALLOWED: &str = "tcp, or roce ({kind: roce, recovery: go_back_n | irn, ...})";
        let (kind, params) = match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(kind) => (kind, serde_json::Map::new()),
            serde_json::Value::Object(mut m) => match m.remove("kind") {
                Some(serde_json::Value::String(kind)) => (kind, m),
                _ => return Err(D::Error::custom(format!("missing `kind`: {ALLOWED}"))),
            },
            other => {
                return Err(D::Error::custom(format!(
                    "invalid transport {other}: {ALLOWED}"
                )));
            }
        };
        match kind.as_str() {
            "tcp" if params.is_empty() => Ok(TransportConfig::Tcp),
            "tcp" => Err(D::Error::custom(
                "the tcp transport takes no keys here: set them in the tcp section",
            )),
            "roce" => RoceTransportConfig::deserialize(serde_json::Value::Object(params))
                .map(|r| TransportConfig::Roce(Box::new(r)))
                .map_err(D::Error::custom),
            other => Err(D::Error::custom(format!(
                "unknown transport {other:?}: {ALLOWED}"
            ))),
        }
    }
}
