//! What a controller may see of every ACK ([`AckSample`]) and what it may ask of the sender
//! besides the window ([`CcControl`]: a pacing rate, a timer of its own), and the delivery-rate
//! estimator behind [`AckSample::delivery_rate_bps`].
//!
//! These are the hooks delay- and rate-based controllers need (Vegas, BBR, Swift, TIMELY,
//! DCQCN, HPCC). A controller asks for them by the bits of [`CongestionControl::cc_hooks`]
//! (read once, when the sender is built), so the built-ins, which ask for none, pay one flag
//! test per ACK and per segment sent.
//!
//! [`CongestionControl::cc_hooks`]: super::CongestionControl::cc_hooks

use incastsim_core::{BitsPerSec, Duration, Time};
use std::collections::VecDeque;

/// The bits of [`super::CongestionControl::cc_hooks`].
pub mod cc_hooks {
    /// Call [`on_ack_sample`](crate::CongestionControl::on_ack_sample) on every ACK, whatever
    /// `tcp.ecn` is and during loss recovery too.
    pub const ACK_SAMPLE: u8 = 1;
    /// Estimate the delivery rate (per-segment send records; the
    /// [`AckSample::delivery_rate_bps`](super::AckSample::delivery_rate_bps) field is `None`
    /// without this bit).
    pub const DELIVERY_RATE: u8 = 2;
}

/// One ACK as a controller sees it, after TCP has processed it (loss detection, recovery, the
/// RTT estimator), handed to [`on_ack_sample`](crate::CongestionControl::on_ack_sample).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckSample {
    /// When the ACK arrived.
    pub now: Time,
    /// This ACK's RTT sample, if it gives one: with timestamps (`tcp.rtt_sampling:
    /// timestamps`, RFC 7323 §4.1) every ACK of new data does; with `once_per_rtt` only the
    /// ACK of the timed segment, and none after a retransmission of it (Karn's rule, RFC 6298
    /// §3). `None` on duplicate ACKs.
    pub rtt: Option<Duration>,
    /// The smoothed RTT (RFC 6298 SRTT) after this ACK's sample, if any sample was taken yet.
    pub srtt: Option<Duration>,
    /// The smallest RTT sample of the connection so far (Vegas's BaseRTT, BBR's min_rtt
    /// without its expiry).
    pub min_rtt: Option<Duration>,
    /// Bytes this ACK newly acknowledged cumulatively.
    pub acked_bytes: u64,
    /// Bytes this ACK newly SACKed (0 without SACK).
    pub sacked_bytes: u64,
    /// RFC 5681 FlightSize after this ACK: bytes sent and not cumulatively acknowledged
    /// (snd_nxt − snd_una).
    pub flight_size: u64,
    /// The cumulative ACK (snd_una after this ACK).
    pub snd_una: u64,
    /// The next byte the sender will send.
    pub snd_nxt: u64,
    /// Bytes delivered to the receiver so far (cumulatively acknowledged or SACKed, each once).
    pub delivered_bytes: u64,
    /// The delivery rate of this ACK's sample, bits per second, per the delivery-rate
    /// estimation BBR uses (draft-cheng-iccrg-delivery-rate-estimation §3): bytes delivered
    /// between the sending of the newest segment this ACK acknowledges and this ACK, over the
    /// longer of its send and ACK intervals. Only with [`cc_hooks::DELIVERY_RATE`]; `None`
    /// when the ACK acknowledges no whole segment cumulatively. Reading: a SACKed segment is
    /// sampled when it is cumulatively acknowledged (its bytes count as delivered when
    /// SACKed); application-limited periods are not marked.
    pub delivery_rate_bps: Option<f64>,
    /// The ACK's ECN-Echo bit, as it arrived (even with `tcp.ecn` off).
    pub ece: bool,
    /// The sender is in fast recovery or (with RACK) in RTO recovery after this ACK.
    pub in_recovery: bool,
    /// This ACK was a duplicate (it acknowledged nothing new cumulatively).
    pub duplicate: bool,
}

/// What a controller may ask of the sender besides the window: the sender reads it after each
/// controller hook that receives it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CcControl {
    /// Pace sending at this rate (`None`: send as the window allows, back to back). The
    /// sender then spaces its segments by their wire size (payload and headers) at this rate:
    /// a segment goes at the earliest when the one before it would have finished serializing
    /// at the pacing rate. Paced are the sending loops (new data, go-back-N, SACK and RACK
    /// recovery); single retransmissions (fast retransmit, RTO, loss probe) go at once and
    /// count against the pacing budget.
    pub pacing_rate: Option<BitsPerSec>,
    /// Call [`on_cc_timer`](crate::CongestionControl::on_cc_timer) at this time (`None`: no
    /// timer). It runs only while the connection has data outstanding or to send, so a
    /// periodic timer does not keep a finished flow alive.
    pub timer: Option<Time>,
}

/// One segment's send record (draft-cheng-iccrg-delivery-rate-estimation §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SendRecord {
    /// One past the segment's last byte.
    end: u64,
    /// C.delivered when it was (last) sent.
    delivered: u64,
    /// C.delivered_time when it was sent.
    delivered_time: Time,
    /// C.first_sent_time when it was sent.
    first_sent_time: Time,
    /// When it was (last) sent.
    sent_time: Time,
}

/// The connection's delivery-rate estimator (draft-cheng-iccrg-delivery-rate-estimation §3):
/// C.delivered, C.delivered_time, C.first_sent_time and one record per segment in flight.
/// Records are kept in sequence order and reused (no allocation per segment once the window
/// has been reached).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct DeliveryRate {
    records: VecDeque<SendRecord>,
    delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
}

impl DeliveryRate {
    /// Bytes delivered so far (C.delivered).
    #[cfg(test)]
    pub(crate) fn delivered(&self) -> u64 {
        self.delivered
    }

    /// §3.2 "Transmitting or retransmitting a data packet": `flight_empty` is SND.NXT ==
    /// SND.UNA before this send.
    pub(crate) fn on_send(&mut self, now: Time, seq: u64, len: u32, flight_empty: bool) {
        if flight_empty {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let record = SendRecord {
            end: seq + len as u64,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            sent_time: now,
        };
        // A retransmission updates the record of the segment it resends (its send state is
        // that of the retransmission, §3.2); new data is appended.
        let i = self.records.partition_point(|r| r.end < record.end);
        match self.records.get_mut(i) {
            Some(r) if r.end == record.end => *r = record,
            Some(_) => self.records.insert(i, record),
            None => self.records.push_back(record),
        }
    }

    /// §3.3 "Upon receiving ACK": `newly_delivered` bytes were cumulatively acknowledged or
    /// SACKed for the first time by the ACK at `now`, which acknowledges up to `snd_una`.
    /// Returns the rate sample (bits per second) of the newest segment it cumulatively
    /// acknowledges, if any.
    pub(crate) fn on_ack(&mut self, now: Time, newly_delivered: u64, snd_una: u64) -> Option<f64> {
        self.delivered += newly_delivered;
        if newly_delivered > 0 {
            self.delivered_time = now;
        }
        // The packet P: the most recently sent among those acknowledged now.
        let mut newest: Option<SendRecord> = None;
        while let Some(r) = self.records.front().copied().filter(|r| r.end <= snd_una) {
            self.records.pop_front();
            if newest.is_none_or(|n| r.sent_time >= n.sent_time) {
                newest = Some(r);
            }
        }
        let p = newest?;
        self.first_sent_time = p.sent_time;
        let send_elapsed = p.sent_time.since(p.first_sent_time);
        let ack_elapsed = self.delivered_time.since(p.delivered_time);
        // §3.3: the interval is the longer of the two, so that ACK compression does not
        // overstate the rate.
        let interval = send_elapsed.max(ack_elapsed);
        if interval == Duration::ZERO {
            return None;
        }
        let bytes = self.delivered - p.delivered;
        Some(bytes as f64 * 8.0 / interval.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand trace: 10 segments of 1000 B sent back to back 1 µs apart from an empty flight,
    /// each ACKed 100 µs after its send: every sample after the first is 1000 B per 1 µs.
    #[test]
    fn a_steady_flow_samples_its_sending_rate() {
        let mut d = DeliveryRate::default();
        for i in 0..10u64 {
            d.on_send(Time(i * 1_000_000), i * 1000, 1000, i == 0);
        }
        // The first ACK: P was sent at 0 with delivered 0 at time 0: 1000 B over
        // max(0, 100 µs) = 80 Mb/s.
        let first = d.on_ack(Time(100_000_000), 1000, 1000).unwrap();
        assert!((first - 80e6).abs() < 1.0, "{first}");
        // The sixth: P (seq 5000) sent at 5 µs having seen delivered 0 (no ACK yet) at
        // delivered_time 0 → 6000 B over max(5 µs − 0, 105 µs − 0).
        for i in 1..5u64 {
            d.on_ack(Time(100_000_000 + i * 1_000_000), 1000, (i + 1) * 1000);
        }
        let sixth = d.on_ack(Time(105_000_000), 1000, 6000).unwrap();
        assert!((sixth - 6000.0 * 8.0 / 105e-6).abs() < 1.0, "{sixth}");
        assert_eq!(d.delivered(), 6000);
    }

    /// A retransmission replaces its segment's record; an ACK of nothing whole gives no sample.
    #[test]
    fn a_retransmission_renews_its_record() {
        let mut d = DeliveryRate::default();
        d.on_send(Time(0), 0, 1000, true);
        d.on_send(Time(1_000_000), 1000, 1000, false);
        d.on_send(Time(50_000_000), 0, 1000, false); // the first segment again
        assert_eq!(d.records.len(), 2);
        assert_eq!(d.records[0].sent_time, Time(50_000_000));
        assert_eq!(d.on_ack(Time(60_000_000), 500, 500), None);
        let r = d.on_ack(Time(70_000_000), 500, 1000).unwrap();
        // 1000 B delivered since the retransmission's record (delivered 0 at time 0) over
        // max(50 µs − 0, 70 µs − 0).
        assert!((r - 1000.0 * 8.0 / 70e-6).abs() < 1.0, "{r}");
    }
}
