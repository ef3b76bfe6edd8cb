//! Hand-worked traces of a controller's optional hooks ([`crate::cc::cc_hooks`]): every ACK
//! reaches [`CongestionControl::on_ack_sample`] with its own RTT sample, whatever `tcp.ecn`
//! is and during recovery; pacing spaces segments; the controller's timer fires and stops
//! with the flow. SMSS = 1000 B, 40 B of headers.

use crate::cc::{AckSample, CcControl, cc_hooks};
use crate::*;
use incastsim_core::{BitsPerSec, Duration, Time};

/// Records every sample; NewReno's growth otherwise (so the window moves as usual).
#[derive(Clone, Debug, Default)]
struct Recorder {
    reno: NewReno,
    samples: Vec<AckSample>,
    hooks: u8,
    /// Set this pacing rate at the start.
    pace: Option<BitsPerSec>,
    /// Re-arm a timer this often (from the start).
    period: Option<Duration>,
    timer_fired: Vec<Time>,
}

impl CongestionControl for Recorder {
    fn on_ack(&mut self, w: &mut Window, now: Time, acked: u64, srtt: Option<Duration>) {
        self.reno.on_ack(w, now, acked, srtt);
    }
    fn cc_hooks(&self) -> u8 {
        self.hooks
    }
    fn on_cc_start(&mut self, _w: &mut Window, now: Time, ctl: &mut CcControl) {
        ctl.pacing_rate = self.pace;
        ctl.timer = self.period.map(|p| now + p);
    }
    fn on_ack_sample(&mut self, _w: &mut Window, s: &AckSample, _ctl: &mut CcControl) {
        self.samples.push(*s);
    }
    fn on_cc_timer(&mut self, _w: &mut Window, now: Time, ctl: &mut CcControl) {
        self.timer_fired.push(now);
        ctl.timer = self.period.map(|p| now + p);
    }
    fn state(&self, w: &Window) -> CcState {
        CcState::of_window(w)
    }
}

fn config(sack: bool) -> SenderConfig {
    SenderConfig {
        smss: 1000,
        initial_cwnd_segments: 10,
        dupack_threshold: 3,
        limited_transmit: false,
        rto: RtoConfig {
            min: Duration::from_ms(200),
            max: Duration::from_secs(60),
            initial: Duration::from_ms(200),
            granularity: Duration::from_us(1),
        },
        rtt_sampling: RttSampling::Timestamps,
        recovery_exit: RecoveryExit::Ssthresh,
        slow_start_after_idle: false,
        ecn: false,
        sack,
        rack: false,
        tlp: false,
        prr: false,
    }
}

fn sender(rec: Recorder, sack: bool) -> TcpSender {
    let mut s = TcpSender::new(
        0,
        config(sack),
        Cc::Extension(ExtensionCc::new("recorder", rec)),
        StandardTcp,
    );
    s.set_header_bytes(40);
    s
}

/// The sender's controller (the tests box only `Recorder`s).
fn recorder(s: &TcpSender) -> &Recorder {
    let Cc::Extension(e) = s.cc() else {
        unreachable!("an extension's controller")
    };
    e.controller.as_any().downcast_ref().expect("a Recorder")
}

fn us(t: u64) -> Time {
    Time(t * 1_000_000)
}

fn ack_at(s: &mut TcpSender, t: u64, ackno: u64, sent_at: u64, ece: bool) -> Vec<u64> {
    let mut out = Vec::new();
    let mut info = AckInfo::plain(ackno, 1_000_000, us(sent_at).0);
    info.ece = ece;
    s.on_ack(us(t), &info, &mut out);
    out.iter().map(|g| g.seq).collect()
}

#[test]
fn every_ack_reaches_the_sample_hook_without_ecn_and_in_recovery() {
    let rec = Recorder {
        hooks: cc_hooks::ACK_SAMPLE,
        ..Recorder::default()
    };
    let mut s = sender(rec, false);
    s.write(us(0), 20_000, &mut Vec::new());
    // Two ACKs of new data with different RTTs: each sample is its own, not SRTT.
    ack_at(&mut s, 100, 1000, 0, false);
    ack_at(&mut s, 150, 2000, 0, true); // ECE with tcp.ecn off still shows
    // Segment 2 lost: three duplicates start fast recovery; a fourth arrives in recovery.
    for t in [160, 161, 162, 163] {
        ack_at(&mut s, t, 2000, 0, false);
    }
    assert!(s.in_recovery());
    let r = recorder(&s);
    assert_eq!(r.samples.len(), 6, "one sample per ACK");
    assert_eq!(r.samples[0].rtt, Some(Duration::from_us(100)));
    assert_eq!(r.samples[1].rtt, Some(Duration::from_us(150)));
    assert_ne!(
        r.samples[1].srtt, r.samples[1].rtt,
        "SRTT is not the sample"
    );
    assert_eq!(r.samples[1].min_rtt, Some(Duration::from_us(100)));
    assert!(r.samples[1].ece);
    assert_eq!(r.samples[1].acked_bytes, 1000);
    assert!(r.samples[2].duplicate && r.samples[2].rtt.is_none());
    // The third duplicate starts fast recovery: its sample (after processing) is in it.
    assert!(!r.samples[3].in_recovery && r.samples[4].in_recovery && r.samples[5].in_recovery);
    // FlightSize after the second ACK: 14 segments sent (10, then 2 per ACK in slow start:
    // ECE does not stop growth with tcp.ecn off), 2 acknowledged.
    assert_eq!(r.samples[1].flight_size, 12_000);
    assert_eq!(r.samples[5].delivered_bytes, 2000);
    assert_eq!(r.samples[5].delivery_rate_bps, None, "not asked for");
}

#[test]
fn the_delivery_rate_is_estimated_when_asked_for() {
    let rec = Recorder {
        hooks: cc_hooks::ACK_SAMPLE | cc_hooks::DELIVERY_RATE,
        ..Recorder::default()
    };
    let mut s = sender(rec, false);
    s.write(us(0), 20_000, &mut Vec::new()); // 10 segments at t = 0
    ack_at(&mut s, 100, 1000, 0, false);
    ack_at(&mut s, 110, 3000, 0, false);
    let r = recorder(&s);
    // draft-cheng-iccrg-delivery-rate-estimation §3.3: the first ACK: 1000 B over 100 µs; the
    // second: 3000 B since the start (P = segment 2, sent at 0 with delivered 0) over 110 µs.
    let rate = |i: usize| r.samples[i].delivery_rate_bps.unwrap();
    assert!((rate(0) - 80e6).abs() < 1.0);
    assert!((rate(1) - 3000.0 * 8.0 / 110e-6).abs() < 1.0);
}

#[test]
fn pacing_spaces_segments_by_their_wire_size() {
    // 1040 B on the wire at 1.04 Gb/s: one segment per 8 µs.
    let rec = Recorder {
        hooks: cc_hooks::ACK_SAMPLE,
        pace: Some(BitsPerSec(1_040_000_000)),
        ..Recorder::default()
    };
    let mut s = sender(rec, false);
    let mut out = Vec::new();
    s.write(us(0), 5000, &mut out);
    assert_eq!(out.len(), 1, "the window allows 10, pacing one");
    assert_eq!(s.timer_deadline(), Some(us(8)), "woken for the next");
    let mut t = 0;
    let mut sent = vec![(0u64, 0u64)];
    while let Some(d) = s.timer_deadline().filter(|d| *d < us(1000)) {
        out.clear();
        s.on_timer(d, &mut out);
        t = d.as_ps() / 1_000_000;
        sent.extend(out.iter().map(|g| (g.seq, t)));
    }
    assert_eq!(
        sent,
        vec![(0, 0), (1000, 8), (2000, 16), (3000, 24), (4000, 32)]
    );
    assert_eq!(t, 32);
    assert_eq!(
        s.cc_control().unwrap().pacing_rate,
        Some(BitsPerSec(1_040_000_000))
    );
}

#[test]
fn the_controller_timer_runs_only_while_there_is_data() {
    let rec = Recorder {
        hooks: cc_hooks::ACK_SAMPLE,
        period: Some(Duration::from_us(50)),
        ..Recorder::default()
    };
    let mut s = sender(rec, false);
    let mut out = Vec::new();
    s.write(us(0), 2000, &mut out);
    assert_eq!(s.timer_deadline(), Some(us(50)), "before the RTO");
    s.on_timer(us(50), &mut out);
    assert_eq!(recorder(&s).timer_fired, vec![us(50)]);
    assert_eq!(s.timer_deadline(), Some(us(100)));
    ack_at(&mut s, 80, 2000, 0, false);
    assert!(s.all_acked());
    assert_eq!(s.timer_deadline(), None, "a finished flow keeps no timer");
}

#[test]
fn a_controller_without_hooks_gets_no_samples() {
    let mut s = sender(Recorder::default(), false);
    s.write(us(0), 5000, &mut Vec::new());
    ack_at(&mut s, 100, 1000, 0, false);
    assert!(recorder(&s).samples.is_empty());
    assert_eq!(s.cc_control(), None);
}
