//! Congestion-control state as plain values: the [`Window`] the sender and its controller share,
//! and [`CcState`], what any controller reports about itself. A leaf module: the controllers, the
//! sender and the policy hooks import it, it imports none of them.

use incastsim_core::Time;

/// Window state shared between the sender and its controller, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Congestion window, bytes: at most this many bytes outstanding (with the peer's window).
    pub cwnd: u64,
    /// Slow-start threshold, bytes: below it cwnd grows exponentially, above it linearly.
    pub ssthresh: u64,
    /// Sender maximum segment size (SMSS), payload bytes.
    pub smss: u64,
}

impl Window {
    /// cwnd < ssthresh (RFC 5681 §3.1).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// A congestion controller's state, the same struct whatever the controller (after quinn's
/// `ControllerMetrics`): the window every controller has, and `Some` for what only one has.
/// Built on demand by [`crate::CongestionControl::state`] (and [`crate::TcpSender::cc_state`]),
/// never per ACK; `Copy`, no allocation.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CcState {
    /// Congestion window, bytes.
    pub cwnd_bytes: u64,
    /// Slow-start threshold, bytes (`u64::MAX / 2` until the first reduction).
    pub ssthresh_bytes: u64,
    /// CUBIC's curve (W_max, K, epoch); `None` for other controllers.
    pub cubic: Option<CubicState>,
    /// DCTCP's α, the moving average of the fraction of ECN-marked bytes per window, in [0, 1];
    /// `None` for other controllers.
    pub dctcp_alpha: Option<f64>,
    /// DCTCP's α averaged over its updates so far (one per observation window of data, RFC 8257
    /// §3.3), so idle time does not weigh in; the initial α until the first update. `None` for
    /// other controllers.
    pub dctcp_alpha_mean: Option<f64>,
    /// The sender's loss-recovery state. A controller does not know it and reports
    /// [`RecoveryState::Open`]; [`crate::TcpSender::cc_state`] fills it in.
    pub recovery: RecoveryState,
}

/// Where the sender is in loss recovery (Linux's `icsk_ca_state`, without CWR and Disorder).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum RecoveryState {
    /// No loss being repaired.
    #[default]
    Open,
    /// Fast recovery after a fast retransmit (RFC 6582 §3.2, or SACK recovery, RFC 6675 §5),
    /// until a full ACK.
    FastRecovery,
    /// After a retransmission timeout, until everything outstanding at the timeout is
    /// acknowledged (RFC 6582 §3.2 `recover`; Linux's Loss state).
    RtoRecovery,
}

impl RecoveryState {
    /// The name used in outputs (`open`, `fast_recovery`, `rto_recovery`).
    pub fn name(self) -> &'static str {
        match self {
            RecoveryState::Open => "open",
            RecoveryState::FastRecovery => "fast_recovery",
            RecoveryState::RtoRecovery => "rto_recovery",
        }
    }
    /// A number for time series: 0 open, 1 fast recovery, 2 RTO recovery.
    pub fn code(self) -> u8 {
        self as u8
    }
}

impl CcState {
    /// The window alone, for a controller with no state of its own to report (NewReno).
    pub fn of_window(w: &Window) -> CcState {
        CcState {
            cwnd_bytes: w.cwnd,
            ssthresh_bytes: w.ssthresh,
            cubic: None,
            dctcp_alpha: None,
            dctcp_alpha_mean: None,
            recovery: RecoveryState::Open,
        }
    }
}

/// CUBIC's state (RFC 9438 §4), exposed for schemes (TCPRand adapts to it).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CubicState {
    /// W_max, segments: the window before the last reduction.
    pub w_max_segments: f64,
    /// cwnd at the start of the current epoch (after the reduction), segments.
    pub cwnd_epoch_segments: f64,
    /// K, seconds: the time W_cubic takes to grow back to W_max.
    pub k_s: f64,
    /// When the current congestion-avoidance epoch started, if it has.
    pub epoch_start: Option<Time>,
    /// The Reno-friendly window estimate W_est, segments.
    pub w_est_segments: f64,
}
