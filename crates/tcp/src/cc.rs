//! Congestion control: how the window grows on ACKs and shrinks on congestion.
//!
//! Loss *detection and recovery* (dupacks, fast retransmit, NewReno partial ACKs, RTO) live in the
//! sender; a controller only answers "how big is the window". Controllers implement
//! [`CongestionControl`]; the sender holds a [`Cc`] enum so the per-ACK path is a `match`.
//! CUBIC and DCTCP slot in as further variants.

use incastsim_core::{Duration, Time};

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

/// Hooks a congestion controller implements. Defaults follow RFC 5681.
pub trait CongestionControl {
    /// `acked` new bytes were cumulatively acknowledged outside loss recovery.
    fn on_ack(&mut self, w: &mut Window, now: Time, acked: u64, rtt: Option<Duration>);

    /// ssthresh after a loss detected by duplicate ACKs.
    /// RFC 5681 §3.2 eq. (4): ssthresh = max(FlightSize / 2, 2*SMSS).
    fn ssthresh_on_loss(&mut self, w: &Window, _now: Time, flight_size: u64) -> u64 {
        (flight_size / 2).max(2 * w.smss)
    }

    /// The retransmission timer expired. RFC 5681 §3.1: ssthresh per eq. (4) — held constant if
    /// the segment had already been retransmitted by the timer — and cwnd = LW = 1 SMSS.
    fn on_timeout(&mut self, w: &mut Window, now: Time, flight_size: u64, first_timeout: bool) {
        if first_timeout {
            w.ssthresh = self.ssthresh_on_loss(w, now, flight_size);
        }
        w.cwnd = w.smss;
    }

    /// Fast recovery ended (full ACK).
    fn on_recovery_exit(&mut self, _w: &mut Window, _now: Time) {}
}

/// NewReno's window growth (RFC 5681 §3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NewReno {
    /// Bytes acknowledged since cwnd last grew in congestion avoidance.
    bytes_acked: u64,
}

impl CongestionControl for NewReno {
    fn on_ack(&mut self, w: &mut Window, _now: Time, acked: u64, _rtt: Option<Duration>) {
        if w.in_slow_start() {
            // §3.1 eq. (2): cwnd += min(N, SMSS).
            w.cwnd += acked.min(w.smss);
            self.bytes_acked = 0;
        } else {
            // §3.1 congestion avoidance, byte counting: grow by SMSS once a full cwnd of bytes
            // has been acknowledged (about one SMSS per RTT).
            self.bytes_acked += acked;
            if self.bytes_acked >= w.cwnd {
                self.bytes_acked -= w.cwnd;
                w.cwnd += w.smss;
            }
        }
    }

    fn on_timeout(&mut self, w: &mut Window, now: Time, flight_size: u64, first_timeout: bool) {
        if first_timeout {
            w.ssthresh = self.ssthresh_on_loss(w, now, flight_size);
        }
        w.cwnd = w.smss;
        self.bytes_acked = 0;
    }

    fn on_recovery_exit(&mut self, _w: &mut Window, _now: Time) {
        self.bytes_acked = 0;
    }
}

/// Which controller a flow runs (enum dispatch; no `dyn` on the per-ACK path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cc {
    NewReno(NewReno),
}

impl Cc {
    pub fn name(&self) -> &'static str {
        match self {
            Cc::NewReno(_) => "newreno",
        }
    }
}

impl CongestionControl for Cc {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, now: Time, acked: u64, rtt: Option<Duration>) {
        match self {
            Cc::NewReno(c) => c.on_ack(w, now, acked, rtt),
        }
    }
    #[inline]
    fn ssthresh_on_loss(&mut self, w: &Window, now: Time, flight_size: u64) -> u64 {
        match self {
            Cc::NewReno(c) => c.ssthresh_on_loss(w, now, flight_size),
        }
    }
    #[inline]
    fn on_timeout(&mut self, w: &mut Window, now: Time, flight_size: u64, first_timeout: bool) {
        match self {
            Cc::NewReno(c) => c.on_timeout(w, now, flight_size, first_timeout),
        }
    }
    #[inline]
    fn on_recovery_exit(&mut self, w: &mut Window, now: Time) {
        match self {
            Cc::NewReno(c) => c.on_recovery_exit(w, now),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_grows_one_smss_per_ack() {
        let mut w = Window {
            cwnd: 2000,
            ssthresh: u64::MAX,
            smss: 1000,
        };
        let mut c = NewReno::default();
        c.on_ack(&mut w, Time::ZERO, 1000, None);
        c.on_ack(&mut w, Time::ZERO, 3000, None); // a stretch ACK still adds only SMSS
        assert_eq!(w.cwnd, 4000);
    }

    #[test]
    fn congestion_avoidance_adds_one_smss_per_window() {
        let mut w = Window {
            cwnd: 10_000,
            ssthresh: 5000,
            smss: 1000,
        };
        let mut c = NewReno::default();
        for _ in 0..9 {
            c.on_ack(&mut w, Time::ZERO, 1000, None);
        }
        assert_eq!(w.cwnd, 10_000);
        c.on_ack(&mut w, Time::ZERO, 1000, None);
        assert_eq!(w.cwnd, 11_000);
    }

    #[test]
    fn loss_halves_flight_with_floor() {
        let w = Window {
            cwnd: 10_000,
            ssthresh: u64::MAX,
            smss: 1000,
        };
        let mut c = NewReno::default();
        assert_eq!(c.ssthresh_on_loss(&w, Time::ZERO, 10_000), 5000);
        assert_eq!(c.ssthresh_on_loss(&w, Time::ZERO, 3000), 2000);
    }

    #[test]
    fn timeout_collapses_to_one_segment_and_holds_ssthresh_on_repeat() {
        let mut w = Window {
            cwnd: 10_000,
            ssthresh: u64::MAX,
            smss: 1000,
        };
        let mut c = NewReno::default();
        c.on_timeout(&mut w, Time::ZERO, 10_000, true);
        assert_eq!((w.cwnd, w.ssthresh), (1000, 5000));
        c.on_timeout(&mut w, Time::ZERO, 1000, false);
        assert_eq!((w.cwnd, w.ssthresh), (1000, 5000));
    }
}
