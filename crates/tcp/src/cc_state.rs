//! Congestion-control state as plain values: the [`Window`] the sender and its controller share,
//! and [`CcState`], what any controller reports about itself. A leaf module: the controllers, the
//! sender and the policy hooks import it, it imports none of them.

use incastsim_core::Time;

/// Window state shared between the sender and its controller, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    /// Sender maximum segment size (SMSS), payload bytes.
    pub smss: u64,
}

impl Window {
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// A congestion controller's state, the same struct whatever the controller (after quinn's
/// `ControllerMetrics`): the window every controller has, and `Some` for what only one has.
/// Built on demand by [`crate::CongestionControl::state`] (and [`crate::TcpSender::cc_state`]),
/// never per ACK; `Copy`, no allocation.
#[derive(Clone, Copy, Debug, PartialEq)]
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
}

impl CcState {
    /// The window alone, for a controller with no state of its own to report (NewReno).
    pub fn of_window(w: &Window) -> CcState {
        CcState {
            cwnd_bytes: w.cwnd,
            ssthresh_bytes: w.ssthresh,
            cubic: None,
            dctcp_alpha: None,
        }
    }
}

/// CUBIC's state (RFC 9438 §4), exposed for schemes (TCPRand adapts to it).
#[derive(Clone, Copy, Debug, PartialEq)]
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
