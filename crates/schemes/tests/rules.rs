//! Each scheme's rules, on a TCP sender (and receiver) driven by hand at explicit times.
//! SMSS = 1000 B, RTO_min = 10 ms, sequence numbers are byte offsets.

use incastsim_core::packet::flags;
use incastsim_core::rng::Stream;
use incastsim_core::{Duration, SimRng, Time};
use incastsim_schemes::*;
use incastsim_tcp::policy::{AckInfo, ReceiverPolicy, SenderPolicy};
use incastsim_tcp::*;

fn config(initial_cwnd: u32) -> SenderConfig {
    SenderConfig {
        smss: 1000,
        initial_cwnd_segments: initial_cwnd,
        dupack_threshold: 3,
        limited_transmit: false,
        rto: RtoConfig {
            min: Duration::from_ms(10),
            max: Duration::from_secs(60),
            initial: Duration::from_ms(10),
            granularity: Duration::from_us(1),
        },
        rtt_sampling: RttSampling::Timestamps,
        recovery_exit: RecoveryExit::Ssthresh,
        slow_start_after_idle: false,
        ecn: false,
        sack: false,
        rack: false,
        tlp: false,
        prr: false,
    }
}

fn sender<P: SenderPolicy>(initial_cwnd: u32, policy: P) -> TcpSender<P> {
    TcpSender::new(
        0,
        config(initial_cwnd),
        Cc::NewReno(NewReno::default()),
        policy,
    )
}

fn us(t: u64) -> Time {
    Time(t * 1_000_000)
}

fn rng(i: u64) -> SimRng {
    SimRng::for_stream(7, Stream::Scheme, i)
}

/// Fires the RTO at its deadline `times` times; returns the armed RTO after each (ms).
fn timeouts<P: SenderPolicy>(s: &mut TcpSender<P>, times: usize) -> Vec<f64> {
    let mut out = Vec::new();
    let mut armed = Vec::new();
    for _ in 0..times {
        let at = s.rto_deadline().expect("timer running");
        s.on_timeout(at, &mut out);
        armed.push(s.armed_rto().as_ms_f64());
    }
    armed
}

#[test]
fn tda_interval_after_three_successive_timeouts() {
    // Δ = 1 ms, ω = 2: before any timeout U(10 ± 0.5) ms; after the s-th successive timeout
    // U(10 ± 2^s/2) ms (Eq. 8), with no ×2^b doubling on top.
    let (mut lo, mut hi) = ([f64::MAX; 4], [f64::MIN; 4]);
    for seed in 0..400 {
        let mode = tda(None, false, None);
        let mut s = sender(2, RtoRandomization::new(mode, rng(seed)));
        s.write(us(0), 10_000, &mut Vec::new());
        let mut armed = vec![s.armed_rto().as_ms_f64()];
        armed.extend(timeouts(&mut s, 3));
        for (k, a) in armed.into_iter().enumerate() {
            lo[k] = lo[k].min(a);
            hi[k] = hi[k].max(a);
        }
    }
    for s in 0..4 {
        let half = 2f64.powi(s as i32) / 2.0;
        assert!(
            lo[s] >= 10.0 - half && hi[s] <= 10.0 + half,
            "s={s}: [{}, {}]",
            lo[s],
            hi[s]
        );
        // 400 draws fill the interval.
        assert!(
            lo[s] < 10.0 - 0.9 * half && hi[s] > 10.0 + 0.9 * half,
            "s={s}"
        );
    }
    // s = 3: the interval is 2³ Δ = 8 ms: [6, 14] ms.
    assert!(lo[3] >= 6.0 && hi[3] <= 14.0 && hi[3] - lo[3] > 7.0);
}

/// TDA with Δ = 1 ms, ω = 2 and the given readings.
fn tda(s_max: Option<u32>, keep_backoff: bool, lower_bound: Option<Duration>) -> RtoRandMode {
    RtoRandMode::Tda {
        delta: Duration::from_ms(1),
        omega: 2.0,
        keep_backoff,
        s_max,
        lower_bound,
    }
}

/// The RTO armed after `n` successive timeouts, over 300 seeds: (min, max) in ms.
fn tda_range(mode: RtoRandMode, n: usize) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::MAX, f64::MIN);
    for seed in 0..300 {
        let mut s = sender(2, RtoRandomization::new(mode, rng(seed)));
        s.write(us(0), 10_000, &mut Vec::new());
        let a = *timeouts(&mut s, n).last().unwrap();
        lo = lo.min(a);
        hi = hi.max(a);
    }
    (lo, hi)
}

#[test]
fn tda_readings_backoff_cap_and_lower_bound() {
    // keep_backoff: after 2 timeouts U(10 ± 2) ms × 2² = [32, 48] ms.
    let (lo, hi) = tda_range(tda(None, true, None), 2);
    assert!(lo >= 32.0 && hi <= 48.0 && hi - lo > 14.0, "[{lo}, {hi}]");
    // s_max = 1: after 3 timeouts still U(10 ± 1) ms.
    let (lo, hi) = tda_range(tda(Some(1), false, None), 3);
    assert!(lo >= 9.0 && hi <= 11.0 && hi - lo > 1.8, "[{lo}, {hi}]");
    // Without a cap, 5 timeouts: U(10 ± 16) ms, clamped below at the 1 µs granularity.
    let (lo, hi) = tda_range(tda(None, false, None), 5);
    assert!(
        (0.001..1.0).contains(&lo) && hi > 24.0 && hi <= 26.0,
        "[{lo}, {hi}]"
    );
    // lower_bound = 5 ms: draws from [5, 26] ms.
    let (lo, hi) = tda_range(tda(None, false, Some(Duration::from_ms(5))), 5);
    assert!(
        (5.0..5.5).contains(&lo) && hi > 24.0 && hi <= 26.0,
        "[{lo}, {hi}]"
    );
}

#[test]
fn static_interval_keeps_eq2_backoff_and_mean() {
    let mut sum = 0.0;
    for seed in 0..2000 {
        let mode = RtoRandMode::Static {
            delta: Duration::from_ms(4),
        };
        let mut s = sender(2, RtoRandomization::new(mode, rng(seed)));
        s.write(us(0), 10_000, &mut Vec::new());
        let first = s.armed_rto().as_ms_f64();
        assert!((8.0..=12.0).contains(&first), "{first}");
        sum += first;
        // Two successive timeouts: U(8, 12) × 2² (Eq. 2).
        let t = timeouts(&mut s, 2);
        assert!((32.0..=48.0).contains(&t[1]), "{t:?}");
    }
    // Eq. 3's mean is RTO_min whatever Δ.
    assert!((sum / 2000.0 - 10.0).abs() < 0.1);
}

#[test]
fn maa_interval_from_active_senders() {
    // f(N, σ) = ⌊N / (σ log₂ N)⌋: σ = 2 → N = 4: ⌊4/4⌋ = 1; 16: ⌊16/8⌋ = 2; 64: ⌊64/12⌋ = 5;
    // 256: ⌊256/16⌋ = 16; N = 1: 0 (log 1 = 0 is guarded).
    use incastsim_schemes::rto::maa_interval_units;
    assert_eq!(maa_interval_units(1, 2.0), 0);
    assert_eq!(maa_interval_units(4, 2.0), 1);
    assert_eq!(maa_interval_units(16, 2.0), 2);
    assert_eq!(maa_interval_units(64, 2.0), 5);
    assert_eq!(maa_interval_units(256, 2.0), 16);
    let mode = RtoRandMode::Maa {
        sigma: 2.0,
        unit: Duration::from_ms(1),
    };
    let mut s = sender(2, RtoRandomization::new(mode, rng(1)));
    assert!(s.policy.wants_active_senders());
    s.set_active_senders(256);
    s.write(us(0), 10_000, &mut Vec::new());
    let a = s.armed_rto().as_ms_f64();
    assert!((2.0..=18.0).contains(&a) && a != 10.0, "{a}");
    // One sender left: no randomization.
    s.set_active_senders(1);
    let mut out = Vec::new();
    s.on_ack(us(100), &AckInfo::plain(1000, 1 << 30, 0), &mut out);
    assert_eq!(s.armed_rto(), Duration::from_ms(10));
}

#[test]
fn fsa_picks_omega_by_bytes_sent() {
    let mode = RtoRandMode::Fsa {
        delta: Duration::from_ms(1),
        omega_long: 4.0,
        omega_short: 3.0,
        long_after: 5_000,
    };
    let r = RtoRandomization::new(mode, rng(1));
    let mut s = sender(2, r.clone());
    s.write(us(0), 100_000, &mut Vec::new());
    timeouts(&mut s, 2);
    // 2 segments sent (< 5000 B): short, interval 3² ms.
    assert_eq!(s.policy.interval(&s.view(us(0))).0, 9e9);
    let mut long = sender(10, r);
    long.write(us(0), 100_000, &mut Vec::new());
    timeouts(&mut long, 2);
    // 10 000 B sent: long, 4² ms.
    assert_eq!(long.policy.interval(&long.view(us(0))).0, 16e9);
}

#[test]
fn fine_grained_rto_randomized_backoff() {
    let mut s = sender(2, FineGrainedRto::new(0.5, rng(3)));
    s.write(us(0), 10_000, &mut Vec::new());
    let first = s.armed_rto().as_ms_f64();
    assert!((10.0..=15.0).contains(&first), "{first}");
    let t = timeouts(&mut s, 3);
    // RTO × 2³ × (1 + U(0, 0.5)).
    assert!((80.0..=120.0).contains(&t[2]), "{t:?}");
}

#[test]
fn tcprand_static_payloads_are_uniform_in_rmin_mss() {
    let mut s = sender(1000, TcpRand::new(RMin::Static(200), rng(5)));
    let mut out = Vec::new();
    s.write(us(0), 1_000_000, &mut out);
    assert!(out.len() > 100);
    let lens: Vec<u32> = out.iter().map(|g| g.len).collect();
    assert!(lens.iter().all(|&l| (200..=1000).contains(&l)));
    let mean = lens.iter().sum::<u32>() as f64 / lens.len() as f64;
    assert!((mean - 600.0).abs() < 40.0, "{mean}");
    // Contiguous byte stream.
    for w in out.windows(2) {
        assert_eq!(w[0].seq + w[0].len as u64, w[1].seq);
    }
}

#[test]
fn tcprand_adaptive_is_full_size_before_the_first_loss() {
    let a = AdaptiveRMin {
        mu: 1.0,
        sigma2: 1.0,
        nu_tau: 1.0,
        nu_omega: 1.0,
        theta: 200,
    };
    let mut s = TcpSender::new(
        0,
        config(10),
        Cc::Cubic(Cubic::new(CubicConfig::default())),
        TcpRand::new(RMin::Adaptive(a), rng(5)),
    );
    let mut out = Vec::new();
    s.write(us(0), 100_000, &mut out);
    assert!(out.iter().all(|g| g.len == 1000));
}

/// Connects a sender and a receiver by hand: delivers `segs` (dropping those whose seq is in
/// `lost`), feeds the ACKs back, returns what the sender sent in response.
fn deliver<S: SenderPolicy, R: ReceiverPolicy>(
    s: &mut TcpSender<S>,
    r: &mut TcpReceiver<R>,
    t: Time,
    segs: &[Segment],
    lost: &[u64],
) -> Vec<Segment> {
    let mut acks = Vec::new();
    for g in segs.iter().filter(|g| !lost.contains(&g.seq)) {
        r.on_segment(t, g.seq, g.len, t.0, g.flags, false, &mut acks);
    }
    let mut out = Vec::new();
    for a in acks {
        let mut info = AckInfo::plain(a.ack, a.window as u64, a.ts_echo_ps);
        info.flags = a.flags;
        s.on_ack(t + Duration::from_us(50), &info, &mut out);
    }
    out
}

fn receiver<R: ReceiverPolicy>(policy: R) -> TcpReceiver<R> {
    TcpReceiver::new(
        ReceiverConfig {
            window_bytes: 1 << 30,
            delayed_ack: None,
            ecn: EcnFeedback::Off,
            sack: false,
            dsack: false,
        },
        policy,
    )
}

#[test]
fn probabilistic_retransmission_triggers_fast_retransmit() {
    // Four segments; 1000 and the tail 3000 are lost. The receiver gets 0 and 2000: one
    // duplicate ACK, not enough for fast retransmit; without the scheme only the RTO helps.
    let pr = ProbRetxSender::new(Duration::from_us(20), 1.0, PrTarget::LastSent, true, rng(1));
    let mut s = sender(4, pr);
    let mut r = receiver(ProbRetxReceiver);
    let mut first = Vec::new();
    s.write(us(0), 4000, &mut first);
    assert_eq!(first.len(), 4);
    let sent = deliver(&mut s, &mut r, us(50), &first, &[1000, 3000]);
    assert!(sent.is_empty());
    assert_eq!(s.dupacks(), 1);
    // Alg. 1: the thread fires (p = 1) and resends the highest outstanding segment, marked.
    let mut marked = Vec::new();
    s.on_scheme_timer(us(120), &mut marked);
    assert_eq!(marked.len(), 1);
    assert_eq!((marked[0].seq, marked[0].cause), (3000, SendCause::Scheme));
    assert_ne!(marked[0].flags & flags::MARK, 0);
    // Alg. 2: 3000 was never seen → its ACK plus three more: four duplicate ACKs for 1000.
    // Alg. 3: the third fast-retransmits 1000 and suspends the thread.
    let sent = deliver(&mut s, &mut r, us(170), &marked, &[]);
    assert_eq!(r.stats().acks_sent, 2 + 4);
    assert_eq!(sent[0].seq, 1000);
    assert_eq!(sent[0].cause, SendCause::FastRetransmit);
    assert!(s.policy.suspended);
    let mut none = Vec::new();
    s.on_scheme_timer(us(200), &mut none);
    assert!(none.is_empty(), "suspended during fast recovery");
    // The retransmission completes the data; the full ACK ends recovery and resumes the thread.
    deliver(&mut s, &mut r, us(250), &sent[..1], &[]);
    assert_eq!(s.snd_una(), 4000);
    assert!(!s.policy.suspended);
    // A marked duplicate gets only the normal ACK.
    let before = r.stats().acks_sent;
    let dup = Segment {
        seq: 0,
        len: 1000,
        cause: SendCause::Scheme,
        flags: flags::MARK | flags::RETX,
        ect: false,
    };
    let mut acks = Vec::new();
    r.on_segment(us(300), 0, 1000, 0, dup.flags, false, &mut acks);
    assert_eq!(r.stats().acks_sent, before + 1);
}

#[test]
fn probabilistic_retransmission_at_snd_una_fills_the_hole() {
    // The same losses (1000 and the tail 3000), reading `segment: snd_una`: the thread resends
    // 1000, the receiver has not seen it, answers with the new cumulative ACK (3000) and three
    // duplicates of it, and the sender fast-retransmits 3000.
    let pr = ProbRetxSender::new(Duration::from_us(20), 1.0, PrTarget::SndUna, true, rng(1));
    let mut s = sender(4, pr);
    let mut r = receiver(ProbRetxReceiver);
    let mut first = Vec::new();
    s.write(us(0), 4000, &mut first);
    let sent = deliver(&mut s, &mut r, us(50), &first, &[1000, 3000]);
    assert!(sent.is_empty());
    let mut marked = Vec::new();
    s.on_scheme_timer(us(120), &mut marked);
    assert_eq!(marked.len(), 1);
    assert_eq!((marked[0].seq, marked[0].cause), (1000, SendCause::Scheme));
    assert_ne!(marked[0].flags & flags::MARK, 0);
    let sent = deliver(&mut s, &mut r, us(170), &marked, &[]);
    assert_eq!(s.snd_una(), 3000);
    assert_eq!(sent[0].seq, 3000);
    assert_eq!(sent[0].cause, SendCause::FastRetransmit);
    assert!(s.policy.suspended);
}

#[test]
fn probabilistic_retransmission_without_suspension_keeps_running_in_recovery() {
    let pr = ProbRetxSender::new(
        Duration::from_us(20),
        1.0,
        PrTarget::LastSent,
        false,
        rng(1),
    );
    assert_eq!(pr.hooks(), 0, "no ACK hook is needed without suspension");
    let mut s = sender(4, pr);
    let mut r = receiver(ProbRetxReceiver);
    let mut first = Vec::new();
    s.write(us(0), 4000, &mut first);
    deliver(&mut s, &mut r, us(50), &first, &[1000, 3000]);
    let mut marked = Vec::new();
    s.on_scheme_timer(us(120), &mut marked);
    let sent = deliver(&mut s, &mut r, us(170), &marked, &[]);
    assert_eq!(sent[0].cause, SendCause::FastRetransmit);
    assert!(!s.policy.suspended);
    let mut again = Vec::new();
    s.on_scheme_timer(us(200), &mut again);
    assert_eq!(again.len(), 1, "the thread runs on during fast recovery");
}

#[test]
fn dsr_starts_small_and_resizes_keeping_the_byte_window() {
    let d = Dsr {
        mss_dsr: 50,
        cwnd_dsr: 50,
        per_transfer: true,
    };
    let mut s = sender(2, d);
    let mut r = receiver(incastsim_tcp::StandardTcp);
    let mut segs = Vec::new();
    s.write(us(0), 1_000_000, &mut segs);
    assert!(segs.iter().all(|g| g.len == 50));
    assert_eq!(s.window().cwnd, 100);
    // Slow start in 50-byte segments until cwnd reaches 50 segments (2500 B), then Alg. 4:
    // segment 100 B with cwnd 25 segments (still 2500 B).
    let mut t = 0;
    let mut sizes = Vec::new();
    while s.window().smss < 1000 && t < 1000 {
        t += 1;
        let cwnd_before = s.window().cwnd;
        let seg_before = s.window().smss;
        segs = deliver(&mut s, &mut r, us(100 * t), &segs, &[]);
        if s.window().smss != seg_before {
            sizes.push((seg_before, s.window().smss, cwnd_before, s.window().cwnd));
        }
    }
    assert_eq!(sizes[0].0, 50);
    assert_eq!(sizes[0].1, 100);
    // The byte window was not rewritten by the resize.
    let last: Vec<u64> = sizes.iter().map(|x| x.1).collect();
    assert_eq!(last, vec![100, 200, 400, 800, 1000]);
    // A resize never shrinks the byte window (Alg. 4 rewrites cwnd in segments so that
    // cwnd × segment size is unchanged); over a round of slow start it doubles as usual.
    for &(_, _, before, after) in &sizes {
        assert!(after >= before, "{sizes:?}");
    }
    let segs = deliver(&mut s, &mut r, us(100 * (t + 1)), &segs, &[]);
    assert!(!segs.is_empty() && segs.iter().all(|g| g.len == 1000));
    // When the transfer is complete the next one starts again with 50 B segments, cwnd kept in
    // segments.
    let mut rest = segs;
    let mut t = t + 2;
    while s.snd_una() < 1_000_000 {
        rest = deliver(&mut s, &mut r, us(100 * t), &rest, &[]);
        t += 1;
    }
    let cwnd_segments = s.window().cwnd / s.window().smss;
    assert_eq!(s.window().smss, 50);
    assert_eq!(s.window().cwnd / 50, cwnd_segments);
    let mut next = Vec::new();
    s.write(us(100 * t), 10_000, &mut next);
    assert!(!next.is_empty() && next.iter().all(|g| g.len == 50));
}

#[test]
fn plato_labels_one_segment_per_round_trip() {
    let mut s = sender(4, PlatoSender::default());
    let mut r = receiver(PlatoReceiver::default());
    let mut segs = Vec::new();
    s.write(us(0), 100_000, &mut segs);
    // LABEL → first segment labelled → DON'T LABEL.
    let labels: Vec<bool> = segs.iter().map(|g| g.flags & flags::LABEL != 0).collect();
    assert_eq!(labels, vec![true, false, false, false]);
    assert_eq!(s.policy.state, PlatoState::DontLabel);
    // The labelled ACK (of segment 0) makes new data go: TRANSIENT → LABEL: the first new
    // segment sent in response is labelled.
    let next = deliver(&mut s, &mut r, us(100), &segs[..1], &[]);
    assert_eq!(next.len(), 2);
    assert_ne!(next[0].flags & flags::LABEL, 0);
    assert_eq!(next[1].flags & flags::LABEL, 0);
    assert_eq!(s.policy.state, PlatoState::DontLabel);
    // Unlabelled ACKs do not change the state.
    let more = deliver(&mut s, &mut r, us(110), &segs[1..2], &[]);
    assert!(more.iter().all(|g| g.flags & flags::LABEL == 0));
}

#[test]
fn plato_retransmission_label_readings() {
    // A retransmission carries the switch's admission bit either way; only with `heartbeat`
    // does its ACK come back labelled (and move the sender's state machine).
    let retx = flags::RETX | flags::LABEL;
    let mut separate = PlatoReceiver::default();
    assert_eq!(separate.retransmission_label, RetxLabel::Separate);
    assert_eq!(separate.ack_flags(retx), 0);
    assert_eq!(separate.ack_flags(flags::LABEL), flags::LABEL);
    assert_eq!(
        separate.ack_flags(flags::DUMMY | flags::LABEL),
        flags::LABEL
    );
    let mut heartbeat = PlatoReceiver {
        retransmission_label: RetxLabel::Heartbeat,
    };
    assert_eq!(heartbeat.ack_flags(retx), flags::LABEL);
    // The sender labels every retransmission (for the switch) in both readings.
    let mut s = sender(4, PlatoSender::default());
    let mut segs = Vec::new();
    s.write(us(0), 4000, &mut segs);
    let mut out = Vec::new();
    let at = s.rto_deadline().unwrap();
    s.on_timeout(at, &mut out);
    assert_ne!(out[0].flags & flags::RETX, 0);
    assert_ne!(out[0].flags & flags::LABEL, 0);
}

#[test]
fn plato_arrested_sends_three_dummies_then_fires_the_rto() {
    // Window of 4; everything after the labelled segment 0 is lost, so its labelled ACK
    // arrives with cwnd full (no new data) outside recovery: ARRESTED, dummy probes.
    let mut s = sender(2, PlatoSender::default());
    let mut r = receiver(PlatoReceiver::default());
    let mut segs = Vec::new();
    s.write(us(0), 2000, &mut segs);
    s.write(us(0), 100_000, &mut Vec::new()); // more data, but cwnd is full
    // Segment 1000 lost; the labelled ACK of segment 0 opens cwnd to 3: two new segments go
    // out (the first labelled). Lose both, and the next labelled ACK finds nothing to send.
    let sent = deliver(&mut s, &mut r, us(100), &segs, &[1000]);
    assert_eq!(sent.len(), 2);
    assert_ne!(sent[0].flags & flags::LABEL, 0);
    // Now a labelled ACK without room for new data: simulate by acking nothing new but labelled
    // (the dup ACK of the lost 1000 carries the label of segment 2000's arrival).
    let mut acks = Vec::new();
    r.on_segment(
        us(200),
        sent[0].seq,
        sent[0].len,
        0,
        sent[0].flags,
        false,
        &mut acks,
    );
    assert_ne!(acks[0].flags & flags::LABEL, 0);
    let mut out = Vec::new();
    let mut info = AckInfo::plain(acks[0].ack, 1 << 30, 0);
    info.flags = acks[0].flags;
    s.on_ack(us(250), &info, &mut out);
    // TRANSIENT, no new data, not in fast recovery (1 dupack) → ARRESTED, first dummy.
    assert_eq!(s.policy.state, PlatoState::Arrested { dummy_acks: 0 });
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].len, 0);
    assert_ne!(out[0].flags & flags::DUMMY, 0);
    assert_ne!(out[0].flags & flags::LABEL, 0);
    // Each dummy is answered by a labelled dummy ACK that TCP ignores (no duplicate ACK).
    let mut dummy = out[0];
    let dupacks = s.dupacks();
    for k in 1..=3u8 {
        let mut acks = Vec::new();
        r.on_segment(us(300), dummy.seq, 0, 0, dummy.flags, false, &mut acks);
        assert_eq!(acks.len(), 1);
        assert_eq!(acks[0].flags, flags::DUMMY | flags::LABEL);
        let mut info = AckInfo::plain(acks[0].ack, 1 << 30, 0);
        info.flags = acks[0].flags;
        let mut out = Vec::new();
        s.on_ack(us(300 + k as u64), &info, &mut out);
        if k < 3 {
            assert_eq!(s.dupacks(), dupacks, "a dummy ACK is not a duplicate ACK");
            assert_eq!(s.policy.state, PlatoState::Arrested { dummy_acks: k });
            assert_eq!(out.len(), 1);
            dummy = out[0];
        } else {
            // The third dummy ACK still ARRESTED: RTO now, labelled retransmission of snd_una.
            assert_eq!(s.stats().forced_timeouts, 1);
            assert_eq!(s.stats().timeouts, 1);
            assert_eq!(out[0].seq, 1000);
            assert_eq!(out[0].cause, SendCause::Timeout);
            assert_ne!(out[0].flags & flags::LABEL, 0);
            assert_eq!(s.policy.state, PlatoState::Label);
        }
    }
    assert_eq!(r.stats().dummies, 3);
}

#[test]
fn packet_counted_cwnd_limits_segments_not_bytes() {
    // TCPRand with rMin = 200 B: payloads average ~600 B. Byte counting lets an initial window
    // of 4 × 1000 B carry more than 4 such segments; packet counting (Linux without ABC) sends 4.
    let mut bytes = sender(4, TcpRand::new(RMin::Static(200), rng(9)));
    let mut out = Vec::new();
    bytes.write(us(0), 100_000, &mut out);
    assert!(out.len() > 4, "{}", out.len());
    let mut packets = sender(4, TcpRand::new(RMin::Static(200), rng(9)));
    packets.set_packet_cwnd(true);
    let mut out = Vec::new();
    packets.write(us(0), 100_000, &mut out);
    assert_eq!(out.len(), 4);
    // Slow start: an ACK of one (small) segment adds one segment to the window, so it releases
    // two segments, whatever their sizes.
    let end = out[0].seq + out[0].len as u64;
    let mut more = Vec::new();
    packets.on_ack(us(100), &AckInfo::plain(end, 1 << 30, 0), &mut more);
    assert_eq!(more.len(), 2);
    assert_eq!(packets.window().cwnd, 5000);
    // In byte mode the same ACK grows cwnd by the bytes acknowledged only.
    let end = {
        let mut o = Vec::new();
        let mut b = sender(4, TcpRand::new(RMin::Static(200), rng(9)));
        b.write(us(0), 100_000, &mut o);
        let e = o[0].seq + o[0].len as u64;
        b.on_ack(us(100), &AckInfo::plain(e, 1 << 30, 0), &mut Vec::new());
        (e, b.window().cwnd)
    };
    assert_eq!(end.1, 4000 + end.0.min(1000));
}

#[test]
fn plato_waits_in_fast_recovery_and_labels_the_next_new_segment() {
    let mut s = sender(4, PlatoSender::default());
    let mut r = receiver(PlatoReceiver::default());
    let mut segs = Vec::new();
    s.write(us(0), 100_000, &mut segs);
    // Segment 0 (labelled) is acknowledged: TRANSIENT → LABEL: segment 4000 goes out labelled.
    let next = deliver(&mut s, &mut r, us(100), &segs[..1], &[]);
    assert_eq!(
        next.iter().map(|g| g.seq).collect::<Vec<_>>(),
        vec![4000, 5000]
    );
    assert_ne!(next[0].flags & flags::LABEL, 0);
    // 1000 is lost; 2000 and 3000 give two duplicate ACKs; the labelled 4000 gives the third,
    // labelled: fast retransmit (labelled, as every retransmission), cwnd = 2000 + 3000 leaves
    // no room for new data → in fast recovery: WAIT.
    let sent = deliver(&mut s, &mut r, us(200), &segs[1..], &[1000]);
    assert!(sent.is_empty());
    let sent = deliver(&mut s, &mut r, us(210), &next[..1], &[]);
    assert_eq!(sent.len(), 1);
    assert_eq!(
        (sent[0].seq, sent[0].cause),
        (1000, SendCause::FastRetransmit)
    );
    assert_ne!(sent[0].flags & flags::LABEL, 0);
    assert!(s.in_recovery());
    assert_eq!(s.policy.state, PlatoState::Wait);
    // The next duplicate ACK inflates cwnd enough for new data: it carries the label.
    let sent = deliver(&mut s, &mut r, us(220), &next[1..], &[]);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].seq, 6000);
    assert_ne!(sent[0].flags & flags::LABEL, 0);
    assert_eq!(s.policy.state, PlatoState::DontLabel);
}
