//! The responder side of a reliable-connection queue pair: in-order delivery, coalesced ACKs,
//! sequence-error NAKs, and (selective repeat) the out-of-order buffer.
//!
//! Protocol logic only: [`RoceReceiver::on_data`] takes an arriving data packet and returns
//! what to deliver and the ACK or NACK to send back, if any.

use crate::config::{Recovery, RoceConfig};
use crate::packet::{AckKind, AckPacket, DataPacket};
use incastsim_core::{Duration, TELEMETRY_WORDS, Time};
use std::collections::VecDeque;

/// What became of an arriving data packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arrival {
    /// It was the expected PSN: delivered (with any buffered packets it made contiguous).
    InOrder,
    /// Selective repeat: above the expected PSN, kept until the gap fills.
    Buffered,
    /// Go-back-N: above the expected PSN, dropped (it will be resent).
    Discarded,
    /// Below the expected PSN (or, selective repeat, already buffered): received before.
    Duplicate,
}

/// The result of one arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxOutcome {
    /// Payload bytes newly delivered in order to the application (count these for completion).
    pub delivered_bytes: u64,
    /// The ACK or NACK to send back now, if any.
    pub ack: Option<AckPacket>,
    /// The packet arrived CE-marked: the hook for DCQCN's notification point, which answers CE
    /// arrivals with CNPs to the sender (rate-limited per QP; DCQCN itself is not built here).
    /// Reported for every arrival, discarded and duplicate ones included, since the mark tells
    /// of the queue the packet crossed whatever became of it.
    pub ce_marked: bool,
    /// Send a CNP to the sender now: DCQCN's notification point answered this CE-marked
    /// arrival (at most one per [`RoceConfig::cnp_interval`]).
    pub cnp: bool,
    /// What became of it.
    pub arrival: Arrival,
}

/// The receiver's counters, for outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Data packets that arrived.
    pub packets: u64,
    /// Packets delivered in order (on arrival or from the buffer).
    pub packets_delivered: u64,
    /// Payload bytes delivered in order.
    pub bytes_delivered: u64,
    /// Out-of-order packets buffered (selective repeat).
    pub buffered: u64,
    /// Out-of-order packets discarded (go-back-N).
    pub discarded: u64,
    /// Duplicates.
    pub duplicates: u64,
    /// ACKs sent.
    pub acks_sent: u64,
    /// NACKs sent.
    pub nacks_sent: u64,
    /// Arrivals marked CE.
    pub ce_marked: u64,
    /// CNPs the notification point sent.
    pub cnps_sent: u64,
}

/// A RoCE responder (one QP, one flow).
#[derive(Clone, Debug)]
pub struct RoceReceiver {
    recovery: Recovery,
    ack_every: u32,
    /// The ACK coalescing timer ([`RoceConfig::ack_timeout`]).
    ack_timeout: Option<Duration>,
    /// When the coalescing timer acknowledges the packets since the last ACK (`None`: none
    /// wait, or no timer).
    ack_due: Option<Time>,
    /// The newest in-order packet not yet acknowledged and its telemetry: what a timer's ACK
    /// echoes.
    unacked: Option<(DataPacket, [u64; TELEMETRY_WORDS])>,
    nack_reissue: Option<Duration>,
    /// DCQCN's notification point: at most one CNP per this interval (`None`: no CNPs).
    cnp_interval: Option<Duration>,
    /// When the last CNP went (`None`: none yet).
    last_cnp: Option<Time>,
    /// The next PSN expected in order.
    epsn: u64,
    /// In-order packets since the last ACK or NACK.
    since_ack: u32,
    /// A packet since the last ACK or NACK arrived CE-marked.
    ce_since_ack: bool,
    /// Go-back-N: the NAK of the current gap (the expected PSN it named, when it was sent).
    nak: Option<(u64, Time)>,
    /// Selective repeat: entry i is the payload of PSN `epsn + i` if it arrived, 0 if not
    /// (entry 0 is always 0: `epsn` is missing by definition). A ring reused across gaps.
    ooo: VecDeque<u32>,
    stats: ReceiverStats,
}

impl RoceReceiver {
    /// A responder for a QP of config `cfg` (its `recovery`, `ack_every` and `nack_reissue`).
    /// Panics if `ack_every` is 0.
    pub fn new(cfg: &RoceConfig) -> RoceReceiver {
        assert!(cfg.ack_every > 0, "ack_every must be positive");
        RoceReceiver {
            recovery: cfg.recovery,
            ack_every: cfg.ack_every,
            ack_timeout: cfg.ack_timeout,
            ack_due: None,
            unacked: None,
            nack_reissue: cfg.nack_reissue,
            cnp_interval: cfg.cnp_interval,
            last_cnp: None,
            epsn: 0,
            since_ack: 0,
            ce_since_ack: false,
            nak: None,
            ooo: VecDeque::new(),
            stats: ReceiverStats::default(),
        }
    }

    /// DCQCN's notification point (Zhu et al., SIGCOMM 2015, §3.2 "CNP generation"): "if a
    /// marked packet arrives for a flow, and no CNP has been sent for the flow in the last N
    /// microseconds, a CNP is sent immediately"; so at most one CNP per N per queue pair.
    /// Counted even for a discarded or duplicate arrival: the mark tells of the queue it
    /// crossed.
    fn notify(&mut self, now: Time) -> bool {
        let Some(interval) = self.cnp_interval else {
            return false;
        };
        if self.last_cnp.is_some_and(|t| now < t + interval) {
            return false;
        }
        self.last_cnp = Some(now);
        self.stats.cnps_sent += 1;
        true
    }

    /// A data packet arrived at `now`, CE-marked or not, carrying `telemetry` (echoed in the
    /// ACK it triggers).
    ///
    /// The ACK rule: an in-order packet is acknowledged when `ack_every` in-order packets have
    /// arrived since the last ACK or NACK, when it carries AckReq (the last packet of a message:
    /// IBTA vol. 1 §9.2, the requester asks for an acknowledgement so the message completes
    /// whatever the coalescing), or when it closes a gap (it delivers buffered packets, or
    /// go-back-N's NAKed PSN arrived: the sender learns of the repair at once, as TCP's receiver
    /// ACKs a segment that fills a gap at once, RFC 5681 §4.2). A duplicate is acknowledged at
    /// once with the cumulative PSN, so a sender whose ACK was lost completes after its
    /// timeout.
    ///
    /// Out of order: go-back-N discards the packet and NAKs the expected PSN once per gap (IBTA
    /// vol. 1 §9.7.5.2.4: no further NAK until the expected PSN arrives; ConnectX does so),
    /// again only after `nack_reissue` (the HPCC fork's NACK interval). Selective repeat keeps
    /// it and NACKs every out-of-order arrival with the cumulative PSN and its own (IRN §3.1).
    pub fn on_data(
        &mut self,
        now: Time,
        pkt: &DataPacket,
        ce: bool,
        telemetry: [u64; TELEMETRY_WORDS],
    ) -> RxOutcome {
        self.stats.packets += 1;
        self.stats.ce_marked += u64::from(ce);
        let mut out = RxOutcome {
            delivered_bytes: 0,
            ack: None,
            ce_marked: ce,
            cnp: ce && self.notify(now),
            arrival: Arrival::InOrder,
        };
        let psn = pkt.psn;
        if psn < self.epsn {
            self.stats.duplicates += 1;
            out.arrival = Arrival::Duplicate;
            out.ack = Some(self.reply(AckKind::Ack, None, pkt, ce, telemetry));
        } else if psn == self.epsn {
            let closes_gap = match self.recovery {
                Recovery::GoBackN => self.nak.take().is_some(),
                Recovery::SelectiveRepeat => self.ooo.len() > 1,
            };
            out.delivered_bytes = self.deliver(pkt.payload);
            if self.recovery == Recovery::SelectiveRepeat {
                self.ooo.pop_front();
                while let Some(&p) = self.ooo.front() {
                    if p == 0 {
                        break;
                    }
                    self.ooo.pop_front();
                    out.delivered_bytes += self.deliver(p);
                }
            }
            self.since_ack += 1;
            self.ce_since_ack |= ce;
            if self.since_ack >= self.ack_every || pkt.ack_req || closes_gap {
                out.ack = Some(self.reply(AckKind::Ack, None, pkt, ce, telemetry));
            } else if self.ack_timeout.is_some() {
                self.hold_back(now, pkt, telemetry);
            }
        } else {
            match self.recovery {
                Recovery::GoBackN => {
                    self.stats.discarded += 1;
                    out.arrival = Arrival::Discarded;
                    let due = match self.nak {
                        Some((e, at)) if e == self.epsn => {
                            self.nack_reissue.is_some_and(|d| now >= at + d)
                        }
                        _ => true,
                    };
                    if due {
                        self.nak = Some((self.epsn, now));
                        out.ack = Some(self.reply(AckKind::Nack, None, pkt, ce, telemetry));
                    }
                }
                Recovery::SelectiveRepeat => {
                    let i = (psn - self.epsn) as usize;
                    if self.ooo.len() <= i {
                        self.ooo.resize(i + 1, 0);
                    }
                    if self.ooo[i] == 0 {
                        debug_assert!(pkt.payload > 0, "0 marks a missing packet");
                        self.ooo[i] = pkt.payload;
                        self.stats.buffered += 1;
                        out.arrival = Arrival::Buffered;
                    } else {
                        self.stats.duplicates += 1;
                        out.arrival = Arrival::Duplicate;
                    }
                    out.ack = Some(self.reply(AckKind::Nack, Some(psn), pkt, ce, telemetry));
                }
            }
        }
        out
    }

    /// Delivers one packet of `payload` bytes in order.
    #[inline]
    fn deliver(&mut self, payload: u32) -> u64 {
        self.epsn += 1;
        self.stats.packets_delivered += 1;
        self.stats.bytes_delivered += u64::from(payload);
        u64::from(payload)
    }

    /// An ACK or NACK of the cumulative PSN, triggered by `pkt`; it covers every packet since
    /// the last one (their CE marks become its ECN echo).
    fn reply(
        &mut self,
        kind: AckKind,
        sack_psn: Option<u64>,
        pkt: &DataPacket,
        ce: bool,
        telemetry: [u64; TELEMETRY_WORDS],
    ) -> AckPacket {
        let ecn_echo = ce || self.ce_since_ack;
        self.since_ack = 0;
        self.ce_since_ack = false;
        if self.ack_due.is_some() {
            self.ack_due = None;
            self.unacked = None;
        }
        match kind {
            AckKind::Ack => self.stats.acks_sent += 1,
            AckKind::Nack => self.stats.nacks_sent += 1,
        }
        AckPacket {
            kind,
            epsn: self.epsn,
            sack_psn,
            echo_sent_at: pkt.sent_at,
            trigger_psn: pkt.psn,
            ecn_echo,
            telemetry,
        }
    }

    /// An in-order packet the count holds back: the coalescing timer runs from the first one
    /// ([`RoceConfig::ack_timeout`]), and the newest is what its ACK echoes.
    #[inline(never)] // off the path of a receiver without the timer
    fn hold_back(&mut self, now: Time, pkt: &DataPacket, telemetry: [u64; TELEMETRY_WORDS]) {
        if let Some(timeout) = self.ack_timeout {
            self.ack_due.get_or_insert(now + timeout);
            self.unacked = Some((*pkt, telemetry));
        }
    }

    /// When the ACK coalescing timer is due (`None`: no packet waits for it).
    #[inline]
    pub fn ack_deadline(&self) -> Option<Time> {
        self.ack_due
    }

    /// The ACK coalescing timer at `now`: if due, the ACK of the packets held back (the
    /// cumulative PSN, echoing the newest one's send time and telemetry, and their CE marks).
    pub fn on_ack_timer(&mut self, now: Time) -> Option<AckPacket> {
        if self.ack_due.is_none_or(|t| t > now) {
            return None;
        }
        let (pkt, telemetry) = self.unacked.expect("a due timer holds a packet back");
        Some(self.reply(AckKind::Ack, None, &pkt, false, telemetry))
    }

    /// The next PSN expected in order.
    pub fn expected_psn(&self) -> u64 {
        self.epsn
    }

    /// Payload bytes delivered in order so far.
    pub fn bytes_delivered(&self) -> u64 {
        self.stats.bytes_delivered
    }

    /// Selective repeat: packets buffered out of order now.
    pub fn buffered_packets(&self) -> usize {
        self.ooo.iter().filter(|&&p| p != 0).count()
    }

    /// Its counters.
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }
}
