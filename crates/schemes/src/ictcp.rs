//! ICTCP (Wu et al., "ICTCP: Incast Congestion Control for TCP in data center networks",
//! CoNEXT 2010): the receiver adjusts each connection's advertised window from its measured vs
//! expected throughput, within the available bandwidth of the receiving interface.
//!
//! - Interface (§4.2): a global slot of 2T (T = mean RTT of the interface's connections) split
//!   into two sub-slots. In the first the incoming traffic BW_T is measured; then
//!   BW_A = max(0, α·C − BW_T), α = 0.9, is the quota for window increases in the second.
//! - Connection (§4.3): b_m = max(b_s, β·b_m + (1 − β)·b_s) from samples b_s over one RTT;
//!   b_e = max(b_m, rwnd/RTT); d_b = (b_e − b_m)/b_e. Every 2 RTTs (a change takes one RTT to act
//!   and one to measure): d_b ≤ γ1 (0.1) → +1 MSS if in the second sub-slot and the quota allows
//!   (the quota shrinks by it); d_b > γ2 (0.5) for three checks in a row → −1 MSS; rwnd ≥ 2 MSS.
//! - Fairness (§4.4): when BW_A < 0.2·C, a connection whose window is above the interface's mean
//!   window gives up one MSS at its check in the second sub-slot.
//!
//! The receiver's RTT is measured as Linux's receive-side estimate does without timestamps: the
//! time to receive one advertised window of data after a sequence point (a window-limited sender,
//! ICTCP's regime, delivers one window per RTT), keeping the minimum sample. The per-interface state is shared by the
//! interface's connections (`Rc<RefCell<_>>`, created once per run; nothing allocates per packet).

use incastsim_core::{Duration, Time};
use incastsim_tcp::policy::{ReceiverPolicy, hooks};
use std::cell::RefCell;
use std::rc::Rc;

/// ICTCP's constants (the paper's values by default).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IctcpParams {
    /// γ1: with d_b ≤ γ1 the window may grow by one MSS.
    pub gamma1: f64,
    /// γ2: with d_b > γ2 for three checks in a row the window shrinks by one MSS.
    pub gamma2: f64,
    /// α: the share of the link capacity ICTCP lets the connections use.
    pub alpha: f64,
    /// β of the throughput EWMA.
    pub beta: f64,
    /// RTT assumed before the first measurement.
    pub initial_rtt: Duration,
    /// Initial and minimal window, in MSS.
    pub min_window_mss: u32,
}

/// The receiving interface's state, shared by its connections.
#[derive(Clone, Debug)]
pub struct IctcpHost {
    /// Link capacity C, bits/s.
    pub capacity_bps: f64,
    /// Its parameters.
    pub params: IctcpParams,
    sub_slot_start: Time,
    second_sub_slot: bool,
    bytes_in_sub_slot: u64,
    /// Remaining increase quota (bits/s) in the second sub-slot.
    pub quota_bps: f64,
    /// BW_A at the last measurement, bits/s.
    pub available_bps: f64,
    /// Sum and count of the connections' current RTTs (ps) and windows (bytes), for T and the
    /// fairness mean.
    rtt_sum_ps: u64,
    window_sum: u64,
    connections: u64,
}

impl IctcpHost {
    /// The host's state for a link of `capacity_bps` bit/s.
    pub fn new(capacity_bps: f64, params: IctcpParams) -> Self {
        IctcpHost {
            capacity_bps,
            params,
            sub_slot_start: Time::ZERO,
            second_sub_slot: false,
            bytes_in_sub_slot: 0,
            quota_bps: 0.0,
            available_bps: params.alpha * capacity_bps,
            rtt_sum_ps: 0,
            window_sum: 0,
            connections: 0,
        }
    }

    /// T: the mean RTT of the connections (the initial RTT before any).
    pub fn sub_slot(&self) -> Duration {
        match self.rtt_sum_ps.checked_div(self.connections) {
            None => self.params.initial_rtt,
            Some(mean) => Duration(mean.max(1)),
        }
    }

    /// Moves the slot clock to `now`, closing finished sub-slots.
    fn advance(&mut self, now: Time) {
        loop {
            let len = self.sub_slot();
            if now < self.sub_slot_start + len {
                return;
            }
            if self.second_sub_slot {
                self.second_sub_slot = false;
            } else {
                // End of the first sub-slot: BW_T measured; BW_A = max(0, αC − BW_T).
                let bw_t = self.bytes_in_sub_slot as f64 * 8.0 / len.as_secs_f64();
                self.available_bps = (self.params.alpha * self.capacity_bps - bw_t).max(0.0);
                self.quota_bps = self.available_bps;
                self.second_sub_slot = true;
            }
            self.bytes_in_sub_slot = 0;
            // An idle gap longer than a slot restarts the clock at `now`.
            self.sub_slot_start = if now >= self.sub_slot_start + len + len {
                now
            } else {
                self.sub_slot_start + len
            };
        }
    }

    /// Whether the current slot is in its second half, where windows may grow.
    pub fn in_second_sub_slot(&self) -> bool {
        self.second_sub_slot
    }
}

/// One connection's ICTCP state.
#[derive(Clone, Debug)]
pub struct IctcpReceiver {
    /// The host's shared state (one per receiving host, shared by its connections).
    pub host: Rc<RefCell<IctcpHost>>,
    mss: u32,
    /// The advertised window ICTCP allows, bytes.
    pub rwnd: u32,
    /// Receiver-side RTT estimate.
    pub rtt: Duration,
    /// Measured throughput b_m, bits/s.
    pub b_m: f64,
    sample_start: Time,
    sample_bytes: u64,
    received: u64,
    /// Window-based RTT measurement: (bytes received at the sequence point, its time).
    rtt_mark: Option<(u64, Time)>,
    last_check: Time,
    over: u32,
    registered: bool,
    measured: bool,
}

impl IctcpReceiver {
    /// A connection of `host` with segments of `mss` bytes.
    pub fn new(host: Rc<RefCell<IctcpHost>>, mss: u32) -> Self {
        let (rtt, min) = {
            let h = host.borrow();
            (h.params.initial_rtt, h.params.min_window_mss)
        };
        IctcpReceiver {
            host,
            mss,
            rwnd: min * mss,
            rtt,
            b_m: 0.0,
            sample_start: Time::ZERO,
            sample_bytes: 0,
            received: 0,
            rtt_mark: None,
            last_check: Time::ZERO,
            over: 0,
            registered: false,
            measured: false,
        }
    }

    fn set_rtt(&mut self, rtt: Duration) {
        let mut h = self.host.borrow_mut();
        h.rtt_sum_ps = h.rtt_sum_ps - self.rtt.as_ps() + rtt.as_ps();
        self.rtt = rtt;
    }

    fn set_rwnd(&mut self, rwnd: u32) {
        let mut h = self.host.borrow_mut();
        h.window_sum = h.window_sum - self.rwnd as u64 + rwnd as u64;
        self.rwnd = rwnd;
    }

    /// The per-connection decision, every 2 RTTs (§4.3, §4.4). Returns false if an increase is
    /// due but the interface is in its first sub-slot: the check waits for the second.
    fn check(&mut self) -> bool {
        let p = self.host.borrow().params;
        let rtt_s = self.rtt.as_secs_f64();
        let b_e = self.b_m.max(self.rwnd as f64 * 8.0 / rtt_s);
        let d_b = if b_e > 0.0 {
            (b_e - self.b_m) / b_e
        } else {
            0.0
        };
        let min = p.min_window_mss * self.mss;
        let step_bps = self.mss as f64 * 8.0 / rtt_s;
        let (second, fair_cut) = {
            let h = self.host.borrow();
            let mean = h.window_sum as f64 / h.connections.max(1) as f64;
            (
                h.second_sub_slot,
                h.available_bps < 0.2 * h.capacity_bps && self.rwnd as f64 > mean,
            )
        };
        if d_b <= p.gamma1 {
            if !second {
                return false;
            }
            self.over = 0;
            let mut h = self.host.borrow_mut();
            if h.quota_bps >= step_bps && !fair_cut {
                h.quota_bps -= step_bps;
                drop(h);
                self.set_rwnd(self.rwnd + self.mss);
                return true;
            }
        } else if d_b > p.gamma2 {
            self.over += 1;
            if self.over >= 3 {
                self.over = 0;
                self.set_rwnd((self.rwnd - self.mss).max(min));
                return true;
            }
        } else {
            self.over = 0;
        }
        if second && fair_cut {
            self.set_rwnd((self.rwnd - self.mss).max(min));
        }
        true
    }
}

impl ReceiverPolicy for IctcpReceiver {
    fn rx_hooks(&self) -> u16 {
        hooks::RX_WINDOW | hooks::RX_ON_DATA
    }

    fn advertised_window(&mut self, _now: Time, configured_bytes: u32) -> u32 {
        self.rwnd.min(configured_bytes)
    }

    fn on_data(&mut self, now: Time, len: u32) {
        if !self.registered {
            self.registered = true;
            let mut h = self.host.borrow_mut();
            h.connections += 1;
            h.rtt_sum_ps += self.rtt.as_ps();
            h.window_sum += self.rwnd as u64;
            drop(h);
            self.sample_start = now;
            self.last_check = now;
        }
        {
            let mut h = self.host.borrow_mut();
            h.advance(now);
            h.bytes_in_sub_slot += len as u64;
        }
        self.received += len as u64;
        self.sample_bytes += len as u64;
        // RTT: one advertised window received since the sequence point.
        match self.rtt_mark {
            None => self.rtt_mark = Some((self.received, now)),
            Some((at, t0)) if self.received >= at + self.rwnd as u64 => {
                let sample = now.since(t0);
                // A window-based sample only overestimates (the sender may not be window-
                // limited), so, as Linux's tcp_rcv_rtt_update does for such samples, keep the
                // minimum (the first sample replaces the initial guess).
                if sample > Duration::ZERO && (!self.measured || sample < self.rtt) {
                    self.measured = true;
                    self.set_rtt(sample);
                }
                self.rtt_mark = Some((self.received, now));
            }
            Some(_) => {}
        }
        // Throughput sample b_s over one RTT; b_m = max(b_s, β b_m + (1 − β) b_s).
        let elapsed = now.since(self.sample_start);
        if elapsed >= self.rtt {
            let b_s = self.sample_bytes as f64 * 8.0 / elapsed.as_secs_f64();
            let beta = self.host.borrow().params.beta;
            self.b_m = b_s.max(beta * self.b_m + (1.0 - beta) * b_s);
            self.sample_start = now;
            self.sample_bytes = 0;
        }
        if now.since(self.last_check) >= self.rtt + self.rtt && self.check() {
            self.last_check = now;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> IctcpParams {
        IctcpParams {
            gamma1: 0.1,
            gamma2: 0.5,
            alpha: 0.9,
            beta: 0.75,
            initial_rtt: Duration::from_us(100),
            min_window_mss: 2,
        }
    }

    fn us(t: u64) -> Time {
        Time(t * 1_000_000)
    }

    #[test]
    fn quota_is_what_the_first_sub_slot_left() {
        let mut h = IctcpHost::new(1e9, params());
        // 100 us sub-slots. 5000 B in the first: BW_T = 400 Mbps → BW_A = 900 − 400 = 500 Mbps.
        h.advance(us(0));
        h.bytes_in_sub_slot += 5000;
        h.advance(us(100));
        assert!(h.in_second_sub_slot());
        assert!((h.available_bps - 500e6).abs() < 1.0);
        assert!((h.quota_bps - 500e6).abs() < 1.0);
        h.advance(us(200));
        assert!(!h.in_second_sub_slot());
    }

    #[test]
    fn window_grows_when_throughput_meets_expectation_and_shrinks_when_it_does_not() {
        let host = Rc::new(RefCell::new(IctcpHost::new(1e9, params())));
        let mut c = IctcpReceiver::new(host.clone(), 1000);
        assert_eq!(c.rwnd, 2000);
        // A sender using the whole window: 2000 B per 100 us RTT = 160 Mbps = rwnd/RTT, d_b = 0.
        // Windows grow by one MSS per check made in a second sub-slot.
        let mut t = 0;
        for _ in 0..40 {
            for _ in 0..(c.rwnd / 1000) {
                c.on_data(us(t), 1000);
                t += 100 / (c.rwnd as u64 / 1000);
            }
        }
        assert!(c.rwnd > 4000, "rwnd {}", c.rwnd);
        let grown = c.rwnd;
        // Now the sender sends far less than the window allows (d_b > 0.5): after three checks
        // in a row the window shrinks by one MSS, down to 2 MSS at least.
        for _ in 0..200 {
            c.on_data(us(t), 100);
            t += 100;
        }
        assert!(c.rwnd < grown, "{} !< {grown}", c.rwnd);
        for _ in 0..5000 {
            c.on_data(us(t), 100);
            t += 100;
        }
        assert_eq!(c.rwnd, 2000);
    }
}
