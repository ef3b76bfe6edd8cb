//! Probabilistic retransmission (Kulkarni & Agrawal, "seed 003", §4.2, Algorithms 1-3).
//!
//! Sender (Alg. 1): every `period` (20 µs), if the transmit window holds at least one segment,
//! with probability p mark the highest unacknowledged segment and retransmit it. Receiver
//! (Alg. 2): a marked segment with a sequence number not seen before means the original was lost:
//! answer it with three more (duplicate) ACKs. Sender (Alg. 3): on the third duplicate ACK,
//! suspend the retransmission thread and fast-retransmit as usual.
//!
//! Two readings of the text decide the result and are parameters (`scheme.segment`,
//! `scheme.suspend_in_recovery`); a third, how often TCP samples the RTT, is `tcp.rtt_sampling`
//! (ns-2's TCP, the book's simulator, times one segment per RTT: `once_per_rtt`).
//! - Which segment: "the *highest unacknowledged segment* in sender's transmission window". The
//!   default is the one at snd_una: the book's simulator names the cumulative ACK point
//!   `highest_ack_`, so the highest unacknowledged segment is `highest_ack_ + 1`; and the thread
//!   is a proactive stand-in for the retransmission timer ("using TCP's retransmission timer as
//!   a fallback option", §4.2), which resends snd_una. `last_sent` (the outstanding segment with
//!   the highest sequence number) is the other reading; it was this module's default before
//!   (issue 16): with it and no randomness PR is ×2.3 over TCP, with 1 µs of switch jitter the
//!   gain vanishes (docs/reproductions/kulkarni.md).
//! - Suspension: Alg. 3 suspends the thread on the third duplicate ACK and never says when it
//!   resumes; on (default, as written) it resumes when fast recovery ends or at a timeout; off
//!   ignores Alg. 3's suspension.

use incastsim_core::packet::flags;
use incastsim_core::{Duration, SimRng};
use incastsim_tcp::policy::{
    AckInfo, ReceiverPolicy, SenderAction, SenderPolicy, SenderView, hooks,
};

/// Which outstanding segment the thread retransmits ("highest unacknowledged segment" is
/// ambiguous; see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrTarget {
    /// The segment at snd_una (default: ns-2's `highest_ack_ + 1`, what the RTO would resend).
    SndUna,
    /// The outstanding segment with the highest sequence number (the last one sent).
    LastSent,
}

/// Probabilistic retransmission's sender (Alg. 1): a thread that resends a segment with
/// probability `p` every `period`, marked so the receiver answers with duplicate ACKs.
#[derive(Clone, Debug)]
pub struct ProbRetxSender {
    /// How often the thread runs (Alg. 1: 20 µs).
    pub period: Duration,
    /// Probability of a retransmission each time it runs.
    pub p: f64,
    /// Which outstanding segment it resends.
    pub target: PrTarget,
    /// Whether Alg. 3's suspension applies (the reading `suspend_in_recovery`).
    pub suspend_in_recovery: bool,
    /// Alg. 3: the thread is suspended from the third duplicate ACK until fast recovery ends
    /// (when it resumes is not stated; inferred).
    pub suspended: bool,
    rng: SimRng,
}

impl ProbRetxSender {
    /// A sender thread; `rng` is the flow's own scheme stream.
    pub fn new(
        period: Duration,
        p: f64,
        target: PrTarget,
        suspend_in_recovery: bool,
        rng: SimRng,
    ) -> Self {
        ProbRetxSender {
            period,
            p,
            target,
            suspend_in_recovery,
            suspended: false,
            rng,
        }
    }
}

impl SenderPolicy for ProbRetxSender {
    fn hooks(&self) -> u16 {
        if self.suspend_in_recovery {
            hooks::ON_ACK | hooks::ON_TIMEOUT
        } else {
            0
        }
    }
    fn timer_period(&self) -> Option<Duration> {
        Some(self.period)
    }
    fn on_timer(&mut self, view: &SenderView) -> SenderAction {
        // Alg. 1: `if length(Transmit Window) ≥ 1 then if uniform(0,1) ≤ p then ...`.
        if self.suspended || view.snd_max <= view.snd_una || !self.rng.bernoulli(self.p) {
            return SenderAction::None;
        }
        match self.target {
            PrTarget::LastSent => SenderAction::RetransmitHighest { flags: flags::MARK },
            PrTarget::SndUna => SenderAction::RetransmitOldest { flags: flags::MARK },
        }
    }
    fn on_ack(&mut self, view: &SenderView, _ack: &AckInfo) -> SenderAction {
        if !self.suspend_in_recovery {
            return SenderAction::None;
        }
        if view.dupacks >= 3 {
            // Alg. 3: `if dupackcount ≡ 3 then suspend retransmission thread`.
            self.suspended = true;
        } else if self.suspended && !view.in_recovery && view.dupacks == 0 {
            self.suspended = false;
        }
        SenderAction::None
    }
    fn on_timeout(&mut self, _view: &SenderView) -> SenderAction {
        // A timeout ends any fast recovery: the thread runs again.
        self.suspended = false;
        SenderAction::None
    }
}

/// Alg. 2 at the receiver.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProbRetxReceiver;

impl ReceiverPolicy for ProbRetxReceiver {
    fn extra_duplicate_acks(&mut self, segment_flags: u8, unseen: bool) -> u32 {
        // `if isduplicate(seg) ≡ false then if ismarked(seg) then for i = 1 to 3 do send ACK`;
        // a marked duplicate gets only the normal cumulative ACK.
        if unseen && segment_flags & flags::MARK != 0 {
            3
        } else {
            0
        }
    }
}
