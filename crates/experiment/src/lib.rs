//! TCPRand's enqueue-probability micro-experiment (Lee et al., Computer Networks 2017, §3.2,
//! Fig. 5), run on incastsim's own [`OutputPort`].
//!
//! Two input ports X and Y each deliver back-to-back frames at the link rate into one
//! drop-tail output port Z of the same rate (2:1 overload). Payloads are drawn uniformly from
//! [rMin, MSS] (integer bytes, one draw per frame). The paper's start condition is "Y_1 is
//! enqueued to the output queue while X_1 is dropped"; it then measures whether X_2 and Y_2
//! (the next frame from each input) are enqueued: P_q(pkt) = 1 − P(Q = Q_max at A\[pkt\]) (its
//! Eq. 1), 1,000 times per rMin.
//!
//! Our trial (the paper gives no queue state, so we let the two streams build it):
//! 1. X and Y start at independent U[0, T) offsets, T = one full frame time, with an empty
//!    queue. A frame *arrives* at Z when its last bit is received (store-and-forward); the next
//!    frame of the same input starts right after (the inter-frame gap is part of the frame's
//!    wire bytes, `frame_overhead`).
//! 2. Arrivals are offered to the port in time order (ties: X first). After the first drop
//!    (the queue is full), the first arrival pair "Y admitted, immediately followed by an X
//!    dropped" is the start condition (Y_1, X_1).
//! 3. The next X arrival is X_2 and the next Y arrival is Y_2; the trial records whether each
//!    was admitted. A trial that finds no start condition within `max_arrivals` arrivals (with
//!    fixed sizes it never does if X is ahead of Y) is rejected and redrawn.
//!
//! The paper leaves the queue size and the header bytes unstated; the defaults here (a queue
//! of 150 KB counted in bytes, i.e. 100 full frames — the paper reasons in "one MSS worth of
//! buffer space"; 52 B TCP/IP with timestamps, since MSS 1,448 = 1,460 − 12 B of timestamp
//! option; 38 B of Ethernet framing: preamble + SFD 8, header 14, FCS 4, inter-frame gap 12)
//! are choices, printed in the output. A queue counted in packets frees one slot per departure
//! whatever the sizes, so small frames gain nothing from fitting: it gives lower P_q at small
//! rMin (docs/diagnostics.md).

#![warn(missing_docs)]

pub use incastsim_config::experiment::{EnqueueProbability, Experiment, ExperimentFile, RMin};
use incastsim_config::units::Buffer;
use incastsim_core::rng::{Stream, derive_seed};
use incastsim_core::{Duration, Packet, PacketKind, SerializationRate, SimRng, Time};
use incastsim_switch::{BufferLimit, Enqueued, OutputPort, QueueDisc};
use serde::Serialize;

/// The outcome of one rMin value: counts over the accepted trials.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EnqueueRow {
    /// The smallest payload drawn, bytes (payloads are U[rMin, MSS]).
    pub r_min: u64,
    /// Accepted trials (the start condition was met).
    pub trials: u32,
    /// Draws redrawn because no start condition came within `max_arrivals`.
    pub rejected: u32,
    /// Trials where X_2 was enqueued.
    pub x2_enqueued: u32,
    /// Trials where Y_2 was enqueued.
    pub y2_enqueued: u32,
    /// Trials where both were.
    pub both_enqueued: u32,
    /// Trials where neither was.
    pub neither_enqueued: u32,
    /// P_q(X_2) = `x2_enqueued / trials`.
    pub p_x2: f64,
    /// P_q(Y_2) = `y2_enqueued / trials`.
    pub p_y2: f64,
    /// `both_enqueued / trials`.
    pub p_both: f64,
    /// `neither_enqueued / trials`.
    pub p_neither: f64,
}

/// Runs the experiment for every rMin value. Deterministic: trial t of rMin r draws from its
/// own stream of the seed, so adding values or trials leaves the others unchanged.
pub fn run_enqueue_probability(e: &EnqueueProbability, seed: u64) -> Vec<EnqueueRow> {
    run_enqueue_probability_until(e, seed, None, &mut |_, _| {})
}

/// [`run_enqueue_probability`] that stops once `stop` is set (the rows of the rMin values
/// finished by then, and none of the one in progress: a partial row would mix fewer trials
/// in), calling `progress(done, total)` after each rMin value.
pub fn run_enqueue_probability_until(
    e: &EnqueueProbability,
    seed: u64,
    stop: Option<&std::sync::atomic::AtomicBool>,
    progress: &mut dyn FnMut(usize, usize),
) -> Vec<EnqueueRow> {
    let stopped = || stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed));
    let values = e.r_min_values();
    let total = values.len();
    let mut rows = Vec::with_capacity(total);
    for (done, r_min) in values.into_iter().enumerate() {
        if stopped() {
            break;
        }
        let row = (|| {
            let mut row = EnqueueRow {
                r_min,
                ..EnqueueRow::default()
            };
            let mut attempt = 0u64;
            // Up to 100 draws per wanted trial; rows with rejections say so.
            while row.trials < e.trials && attempt < 100 * e.trials as u64 {
                if attempt.is_multiple_of(1024) && stopped() {
                    return None;
                }
                let mut rng = SimRng::new(derive_seed(
                    seed ^ r_min.wrapping_mul(0x9E37_79B9),
                    Stream::Queue,
                    attempt,
                ));
                attempt += 1;
                match trial(e, r_min, &mut rng) {
                    Some((x2, y2)) => {
                        row.trials += 1;
                        row.x2_enqueued += u32::from(x2);
                        row.y2_enqueued += u32::from(y2);
                        row.both_enqueued += u32::from(x2 && y2);
                        row.neither_enqueued += u32::from(!x2 && !y2);
                    }
                    None => row.rejected += 1,
                }
            }
            let n = row.trials.max(1) as f64;
            row.p_x2 = row.x2_enqueued as f64 / n;
            row.p_y2 = row.y2_enqueued as f64 / n;
            row.p_both = row.both_enqueued as f64 / n;
            row.p_neither = row.neither_enqueued as f64 / n;
            Some(row)
        })();
        match row {
            Some(row) if !stopped() => rows.push(row),
            _ => break,
        }
        progress(done + 1, total);
    }
    rows
}

/// One back-to-back input stream.
struct Input {
    /// Arrival (last bit) of its next frame.
    next: Time,
    payload: u32,
}

/// One trial: `Some((X_2 enqueued, Y_2 enqueued))`, or `None` if no start condition came.
fn trial(e: &EnqueueProbability, r_min: u64, rng: &mut SimRng) -> Option<(bool, bool)> {
    let rate = SerializationRate::new(e.link_rate.0);
    let overhead = (e.header.0 + e.frame_overhead.0) as u16;
    let mss = e.mss.0;
    let draw = |rng: &mut SimRng| rng.range_inclusive(r_min, mss) as u32;
    let frame_time = |payload: u32| rate.time_for(payload as u64 + overhead as u64);
    let full = frame_time(mss as u32);
    let mut port = OutputPort::new(
        0,
        rate,
        Duration::ZERO,
        incastsim_switch::LinkLoss::None,
        SimRng::new(0),
        QueueDisc::drop_tail(match e.buffer {
            Buffer::Bytes(n) => BufferLimit::Bytes(n),
            Buffer::Packets(n) => BufferLimit::Packets(n),
            Buffer::Unlimited => BufferLimit::Unlimited,
        }),
    );
    let start = |rng: &mut SimRng| {
        let offset = Duration(rng.range_inclusive(0, full.0 - 1));
        let payload = draw(rng);
        Input {
            next: Time::ZERO + offset + frame_time(payload),
            payload,
        }
    };
    // Index 0 is X, 1 is Y.
    let mut inputs = [start(rng), start(rng)];
    let mut head: Option<Time> = None;
    let mut full_seen = false;
    let mut prev: Option<(usize, bool)> = None;
    // After the start condition: the outcomes of X_2 and Y_2 as they come.
    let mut started = false;
    let mut outcome: [Option<bool>; 2] = [None, None];
    for _ in 0..e.max_arrivals {
        let i = if inputs[0].next <= inputs[1].next {
            0
        } else {
            1
        };
        let now = inputs[i].next;
        // Frames whose last bit has left reach the (zero-delay) far end: keep the FIFO short.
        while let Some(at) = head.filter(|&at| at <= now) {
            head = port.pop_arrival(at).next_head_at;
        }
        let mut p = Packet::new(PacketKind::Data, i as u32, 0, inputs[i].payload, overhead);
        p.seq = i as u64;
        let admitted = match port.enqueue(now, &p) {
            Enqueued::Admitted {
                schedule_head_at, ..
            } => {
                if schedule_head_at.is_some() {
                    head = schedule_head_at;
                }
                true
            }
            Enqueued::Dropped(_) => {
                full_seen = true;
                false
            }
        };
        if started {
            if outcome[i].is_none() {
                outcome[i] = Some(admitted);
            }
            if let [Some(x), Some(y)] = outcome {
                return Some((x, y));
            }
        } else if full_seen && i == 0 && !admitted && prev == Some((1, true)) {
            // TCPRand §3.2's start condition: Y_1 enqueued, then X_1 dropped.
            started = true;
        }
        prev = Some((i, admitted));
        let payload = draw(rng);
        inputs[i] = Input {
            next: now + frame_time(payload),
            payload,
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The experiment at its defaults (read from a file), with these rMin values and trials.
    fn exp(r_min: RMin, trials: u32) -> EnqueueProbability {
        let file =
            ExperimentFile::from_yaml("experiment: {kind: enqueue_probability, r_min: [1]}", &[])
                .unwrap();
        let Experiment::EnqueueProbability(e) = file.experiment;
        EnqueueProbability { r_min, trials, ..e }
    }

    #[test]
    fn fixed_size_frames_never_enqueue_x2() {
        // rMin = MSS: the arrivals keep their phase, Y always takes the freed slot (port
        // blackout, TCPRand Fig. 3): X_2 is never enqueued, Y_2 always is.
        let rows = run_enqueue_probability(&exp(RMin::List(vec![1448]), 200), 1);
        let r = &rows[0];
        assert_eq!(r.trials, 200);
        assert_eq!((r.x2_enqueued, r.y2_enqueued), (0, 200));
        // About half the draws put X ahead of Y, where the start condition never comes.
        assert!(r.rejected > 50 && r.rejected < 400, "{}", r.rejected);
    }

    #[test]
    fn random_sizes_give_x2_a_chance_and_probabilities_add_up() {
        let rows = run_enqueue_probability(&exp(RMin::List(vec![1, 724]), 400), 1);
        for r in &rows {
            assert_eq!(r.trials, 400);
            // both + x only + y only + neither = trials.
            let x_only = r.x2_enqueued - r.both_enqueued;
            let y_only = r.y2_enqueued - r.both_enqueued;
            assert_eq!(
                r.both_enqueued + x_only + y_only + r.neither_enqueued,
                r.trials
            );
        }
        assert!(rows[0].p_x2 > 0.3, "rMin = 1: P(X2) = {}", rows[0].p_x2);
        assert!(rows[0].p_x2 > rows[1].p_x2, "more randomness, more X2");
    }

    #[test]
    fn deterministic() {
        let e = exp(
            RMin::Range {
                from: 1,
                to: 1448,
                step: 700,
            },
            50,
        );
        assert_eq!(e.r_min_values(), vec![1, 701, 1401]);
        assert_eq!(
            run_enqueue_probability(&e, 3),
            run_enqueue_probability(&e, 3)
        );
    }
}
