//! Congestion-control state as plain values: the [`Window`] the sender and its controller share,
//! and CUBIC's epoch state. A leaf module: the controllers, the sender and the policy hooks
//! import it, it imports none of them.

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

/// CUBIC's state, exposed for schemes (TCPRand adapts to it). Windows are in segments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicState {
    /// W_max: the window before the last reduction.
    pub w_max: f64,
    /// cwnd at the start of the current epoch (after the reduction).
    pub cwnd_epoch: f64,
    /// K, seconds.
    pub k: f64,
    /// When the current congestion-avoidance epoch started, if it has.
    pub epoch_start: Option<Time>,
    /// The Reno-friendly window estimate W_est.
    pub w_est: f64,
}
