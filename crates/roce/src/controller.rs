//! The rate controller hook: what a RoCE congestion controller (DCQCN, HPCC, TIMELY, ...) sees
//! of each ACK, NACK and CNP, and what it sets in return (a sending rate, a window, a timer of
//! its own).
//!
//! A RoCE NIC paces every QP at a rate (the HPCC fork's `m_rate`, `m_nextAvail`); congestion
//! control is the code that moves that rate, and for HPCC a window too. The sender holds a
//! [`Controller`] enum so the per-ACK call is a `match` on the built-ins; a controller from
//! outside this crate is the one [`Controller::Custom`] variant (one indirect call per hook),
//! the pattern of `incastsim_tcp::Cc`.

use crate::cc::{Dcqcn, Hpcc, Timely};
use incastsim_core::{BitsPerSec, Duration, IntHop, TELEMETRY_WORDS, Time};

/// One ACK or NACK as a controller sees it, after the sender has processed it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckSample<'a> {
    /// When it arrived.
    pub now: Time,
    /// It was a NACK (sequence-error NAK).
    pub nack: bool,
    /// Payload bytes it newly acknowledged cumulatively.
    pub acked_bytes: u64,
    /// `now` minus the echoed send time of the data packet that triggered it.
    pub rtt: Duration,
    /// The ACK's ECN echo (a packet it covers arrived CE-marked).
    pub ecn_echo: bool,
    /// The telemetry words the ACK echoed (a queue discipline's own; all zero when no switch
    /// stamps them).
    pub telemetry: [u64; TELEMETRY_WORDS],
    /// The INT records the ACK echoed, one per switch egress on the data packet's path, in path
    /// order (HPCC's `ack.L`; empty unless the QP's data packets carry an INT header).
    pub int: &'a [IntHop],
    /// The cumulative acknowledgement after it (snd_una, a PSN).
    pub snd_una: u64,
    /// The next PSN the sender will send new or (go-back-N) again.
    pub snd_nxt: u64,
    /// Payload bytes sent and not cumulatively acknowledged after it (snd_nxt − snd_una).
    pub bytes_in_flight: u64,
}

/// What a controller sets: the sender reads it back after every hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateControl {
    /// The sending rate: packet k+1 leaves at the earliest when packet k would have finished
    /// serializing at this rate. Must be positive (0 is taken as 1 bit/s). Not capped at the
    /// line rate: the NIC's port serializes at line rate anyway.
    pub rate: BitsPerSec,
    /// The window in bytes (sent and not cumulatively acknowledged); `None`: none.
    pub window_bytes: Option<u64>,
    /// Call [`RateController::on_timer`] at this time; `None`: no timer. It runs only while
    /// the sender has data outstanding or to send, so a periodic timer does not keep a
    /// finished QP alive.
    pub timer: Option<Time>,
}

/// Hooks a RoCE rate controller implements. All but [`on_ack`](Self::on_ack) default to doing
/// nothing.
pub trait RateController {
    /// The QP is about to send its first packet. `ctl.rate` holds the initial rate (the config's
    /// `initial_rate`, or the line rate); `line_rate` is the NIC's.
    fn on_start(&mut self, now: Time, line_rate: BitsPerSec, ctl: &mut RateControl) {
        let _ = (now, line_rate, ctl);
    }

    /// Every ACK and NACK, after the sender processed it (loss recovery included).
    fn on_ack(&mut self, sample: &AckSample<'_>, ctl: &mut RateControl);

    /// The QP sent a data packet of `wire_bytes` (payload and headers; a retransmission too)
    /// at `now`: its NIC took it, to start it at once (in the engine a NIC takes a QP's packet
    /// only then, `engine/nic.rs` in the scenario crate). DCQCN's byte counter counts these
    /// (Zhu et al. §3.1: an increase event every B bytes *transmitted*; the authors' ns-3 model
    /// subtracts each packet's size as its NIC dequeues it). Called once per data packet, so
    /// keep it cheap.
    #[inline]
    fn on_send(&mut self, now: Time, wire_bytes: u64, ctl: &mut RateControl) {
        let _ = (now, wire_bytes, ctl);
    }

    /// A congestion notification packet (RoCEv2 CNP, IBTA Annex A17) for this QP arrived.
    fn on_cnp(&mut self, now: Time, ctl: &mut RateControl) {
        let _ = (now, ctl);
    }

    /// The controller's timer ([`RateControl::timer`]) is due (it is cleared before the call:
    /// set it again for a periodic timer).
    fn on_timer(&mut self, now: Time, ctl: &mut RateControl) {
        let _ = (now, ctl);
    }

    /// What the controller reports of itself (outputs, time series, probes read this). The
    /// default reports nothing beyond the rate and window the sender holds.
    fn state(&self) -> ControllerState {
        ControllerState::default()
    }
}

/// What an RDMA controller reports of itself: the fields outputs, the time series and probes
/// read, the same for every controller (`None`: the controller has no such variable). The rate
/// and window are the sender's ([`RateControl`]); the sender adds them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ControllerState {
    /// The target rate (DCQCN's R_T).
    pub target_rate: Option<BitsPerSec>,
    /// DCQCN's α (its estimate of the fraction of marked packets).
    pub alpha: Option<f64>,
    /// HPCC's normalized inflight estimate U.
    pub utilization: Option<f64>,
    /// TIMELY's normalized RTT gradient.
    pub rtt_gradient: Option<f64>,
    /// Times the controller cut the rate (or, HPCC, the window).
    pub rate_decreases: u64,
    /// Times the controller raised it.
    pub rate_increases: u64,
}

/// No congestion control: the rate stays the initial rate (the line rate unless the config
/// sets `initial_rate`), as a RoCE QP without DCQCN on a lossless fabric sends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FixedRate;

impl RateController for FixedRate {
    #[inline]
    fn on_ack(&mut self, _sample: &AckSample<'_>, _ctl: &mut RateControl) {}
}

/// A rate controller behind a pointer: any [`RateController`] that can be cloned (each QP gets
/// its own) and printed. Implemented for every such type.
pub trait DynRateController: RateController + std::fmt::Debug {
    /// A boxed copy (so that [`Controller`] stays `Clone`).
    fn box_clone(&self) -> Box<dyn DynRateController>;
    /// The controller as `Any`, so that its own crate can read its state back.
    fn as_any(&self) -> &dyn std::any::Any;
}

impl<T: RateController + Clone + std::fmt::Debug + 'static> DynRateController for T {
    fn box_clone(&self) -> Box<dyn DynRateController> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// A controller from outside this crate, with the name it was registered under.
#[derive(Debug)]
pub struct CustomController {
    /// The name outputs show.
    pub name: &'static str,
    /// The controller.
    pub controller: Box<dyn DynRateController>,
}

impl CustomController {
    /// `controller`, named `name`.
    pub fn new(name: &'static str, controller: impl DynRateController + 'static) -> Self {
        CustomController {
            name,
            controller: Box::new(controller),
        }
    }
}

impl Clone for CustomController {
    fn clone(&self) -> Self {
        CustomController {
            name: self.name,
            controller: self.controller.box_clone(),
        }
    }
}

/// Which controller a QP runs (enum dispatch on the per-ACK path).
#[derive(Clone, Debug)]
pub enum Controller {
    /// [`FixedRate`]: no congestion control.
    Fixed(FixedRate),
    /// [`Dcqcn`]: DCQCN's reaction point.
    Dcqcn(Dcqcn),
    /// [`Hpcc`]: HPCC.
    Hpcc(Hpcc),
    /// [`Timely`]: TIMELY.
    Timely(Timely),
    /// A controller registered from outside this crate.
    Custom(CustomController),
}

impl Default for Controller {
    fn default() -> Self {
        Controller::Fixed(FixedRate)
    }
}

impl Controller {
    /// Whether [`RateController::on_send`] does anything: DCQCN's with a byte counter, and a
    /// registered controller's; the sender skips the call, and the rate check after it, for
    /// the others.
    #[inline]
    pub fn hears_sends(&self) -> bool {
        match self {
            Controller::Dcqcn(d) => d.params.byte_counter_bytes > 0,
            Controller::Custom(_) => true,
            Controller::Fixed(_) | Controller::Hpcc(_) | Controller::Timely(_) => false,
        }
    }

    /// Whether the controller may set a window ([`RateControl::window_bytes`]): HPCC's and a
    /// registered controller's.
    #[inline]
    pub fn may_set_window(&self) -> bool {
        matches!(self, Controller::Hpcc(_) | Controller::Custom(_))
    }

    /// The controller's name in outputs.
    pub fn name(&self) -> &'static str {
        match self {
            Controller::Fixed(_) => "fixed",
            Controller::Dcqcn(_) => "dcqcn",
            Controller::Hpcc(_) => "hpcc",
            Controller::Timely(_) => "timely",
            Controller::Custom(c) => c.name,
        }
    }
}

impl RateController for Controller {
    #[inline]
    fn on_start(&mut self, now: Time, line_rate: BitsPerSec, ctl: &mut RateControl) {
        match self {
            Controller::Fixed(c) => c.on_start(now, line_rate, ctl),
            Controller::Dcqcn(c) => c.on_start(now, line_rate, ctl),
            Controller::Hpcc(c) => c.on_start(now, line_rate, ctl),
            Controller::Timely(c) => c.on_start(now, line_rate, ctl),
            Controller::Custom(c) => c.controller.on_start(now, line_rate, ctl),
        }
    }
    #[inline]
    fn on_ack(&mut self, sample: &AckSample<'_>, ctl: &mut RateControl) {
        match self {
            Controller::Fixed(c) => c.on_ack(sample, ctl),
            Controller::Dcqcn(c) => c.on_ack(sample, ctl),
            Controller::Hpcc(c) => c.on_ack(sample, ctl),
            Controller::Timely(c) => c.on_ack(sample, ctl),
            Controller::Custom(c) => c.controller.on_ack(sample, ctl),
        }
    }
    #[inline]
    fn on_send(&mut self, now: Time, wire_bytes: u64, ctl: &mut RateControl) {
        match self {
            Controller::Fixed(c) => c.on_send(now, wire_bytes, ctl),
            Controller::Dcqcn(c) => c.on_send(now, wire_bytes, ctl),
            Controller::Hpcc(c) => c.on_send(now, wire_bytes, ctl),
            Controller::Timely(c) => c.on_send(now, wire_bytes, ctl),
            Controller::Custom(c) => c.controller.on_send(now, wire_bytes, ctl),
        }
    }
    #[inline]
    fn on_cnp(&mut self, now: Time, ctl: &mut RateControl) {
        match self {
            Controller::Fixed(c) => c.on_cnp(now, ctl),
            Controller::Dcqcn(c) => c.on_cnp(now, ctl),
            Controller::Hpcc(c) => c.on_cnp(now, ctl),
            Controller::Timely(c) => c.on_cnp(now, ctl),
            Controller::Custom(c) => c.controller.on_cnp(now, ctl),
        }
    }
    #[inline]
    fn on_timer(&mut self, now: Time, ctl: &mut RateControl) {
        match self {
            Controller::Fixed(c) => c.on_timer(now, ctl),
            Controller::Dcqcn(c) => c.on_timer(now, ctl),
            Controller::Hpcc(c) => c.on_timer(now, ctl),
            Controller::Timely(c) => c.on_timer(now, ctl),
            Controller::Custom(c) => c.controller.on_timer(now, ctl),
        }
    }
    fn state(&self) -> ControllerState {
        match self {
            Controller::Fixed(c) => c.state(),
            Controller::Dcqcn(c) => c.state(),
            Controller::Hpcc(c) => c.state(),
            Controller::Timely(c) => c.state(),
            Controller::Custom(c) => c.controller.state(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, Default)]
    struct Counting {
        acks: u32,
    }
    impl RateController for Counting {
        fn on_ack(&mut self, _s: &AckSample<'_>, ctl: &mut RateControl) {
            self.acks += 1;
            ctl.rate = BitsPerSec(ctl.rate.0 / 2);
        }
    }

    /// The built-ins' names, and the hooks and `state` reach them through the enum.
    #[test]
    fn builtin_variants() {
        use crate::cc::{DcqcnParams, HpccParams, TimelyParams};
        let line = BitsPerSec::gbps(100);
        let mut cs = [
            Controller::Dcqcn(Dcqcn::new(DcqcnParams::paper())),
            Controller::Hpcc(Hpcc::new(HpccParams::hpcc_fork(
                line,
                Duration::from_us(10),
            ))),
            Controller::Timely(Timely::new(TimelyParams::paper())),
        ];
        let names: Vec<_> = cs.iter().map(Controller::name).collect();
        assert_eq!(names, ["dcqcn", "hpcc", "timely"]);
        for c in &mut cs {
            let mut ctl = RateControl {
                rate: line,
                window_bytes: None,
                timer: None,
            };
            c.on_start(Time::ZERO, line, &mut ctl);
            c.on_cnp(Time::ZERO, &mut ctl);
            let st = c.state();
            match c {
                Controller::Dcqcn(_) => {
                    assert_eq!(ctl.rate, BitsPerSec::gbps(50));
                    assert_eq!((st.alpha, st.rate_decreases), (Some(1.0), 1));
                }
                Controller::Hpcc(_) => {
                    assert_eq!(ctl.window_bytes, Some(125_000));
                    assert_eq!(st.utilization, Some(1.0));
                }
                _ => assert_eq!(st.rtt_gradient, Some(0.0)),
            }
        }
    }

    /// Names, dispatch to a custom controller, and cloning keeps each copy's own state.
    #[test]
    fn dispatch_and_clone() {
        assert_eq!(Controller::default().name(), "fixed");
        let mut c = Controller::Custom(CustomController::new("mine", Counting::default()));
        assert_eq!(c.name(), "mine");
        let mut ctl = RateControl {
            rate: BitsPerSec::gbps(100),
            window_bytes: None,
            timer: None,
        };
        let s = AckSample {
            now: Time::ZERO,
            nack: false,
            acked_bytes: 1000,
            rtt: Duration::from_us(2),
            ecn_echo: false,
            telemetry: [0; TELEMETRY_WORDS],
            int: &[],
            snd_una: 1,
            snd_nxt: 1,
            bytes_in_flight: 0,
        };
        c.on_ack(&s, &mut ctl);
        assert_eq!(ctl.rate, BitsPerSec::gbps(50));
        let copy = c.clone();
        c.on_ack(&s, &mut ctl);
        let acks = |c: &Controller| match c {
            Controller::Custom(c) => {
                c.controller
                    .as_any()
                    .downcast_ref::<Counting>()
                    .unwrap()
                    .acks
            }
            _ => unreachable!(),
        };
        assert_eq!((acks(&c), acks(&copy)), (2, 1));
        let mut fixed = Controller::default();
        fixed.on_ack(&s, &mut ctl);
        assert_eq!(ctl.rate, BitsPerSec::gbps(25));
    }
}
