//! The built-in congestion controllers, each declared once (the last lines of this file): its
//! variant of [`Cc`], the name configs and outputs use, and how a connection's controller is
//! built from the `tcp` section's parameters. From that one line come [`Cc`] and its
//! enum dispatch, [`BuiltinController`] (the names the config accepts and errors list), and
//! [`BuiltinController::new_controller`]. A controller from outside incastsim is the one
//! [`Cc::Extension`] variant: one indirect call per hook.

use super::{
    AckSample, CcControl, CongestionControl, Cubic, CubicConfig, Dctcp, DctcpConfig, ExtensionCc,
    NewReno,
};
use crate::cc_state::{CcState, Window};
use incastsim_core::{Duration, Time};

/// The parameters the built-ins are built from: one field per built-in that has parameters,
/// each its config section (`tcp.cubic`, `tcp.dctcp`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ControllerParams {
    /// `tcp.cubic`.
    pub cubic: CubicConfig,
    /// `tcp.dctcp`.
    pub dctcp: DctcpConfig,
}

macro_rules! builtin_controllers {
    ($(
        $(#[$doc:meta])*
        $variant:ident($ty:ty) = $name:literal, $params:ident => $build:expr;
    )+) => {
        /// Which controller a flow runs (enum dispatch; no `dyn` on the per-ACK path of the
        /// built-ins).
        #[derive(Clone, Debug)]
        pub enum Cc {
            $($(#[$doc])* $variant($ty),)+
            /// A controller registered by a downstream crate (`incastsim_scenario::Extensions`).
            Extension(ExtensionCc),
        }

        /// A built-in controller by name (`tcp.congestion_control`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum BuiltinController {
            $($(#[$doc])* $variant,)+
        }

        impl BuiltinController {
            /// Every built-in, in declaration order (errors and listings show them so).
            pub const ALL: &'static [BuiltinController] = &[$(BuiltinController::$variant),+];

            /// The name configs and outputs use.
            pub fn name(self) -> &'static str {
                match self {
                    $(BuiltinController::$variant => $name,)+
                }
            }

            /// The built-in called `name`, if one is.
            pub fn from_name(name: &str) -> Option<BuiltinController> {
                match name {
                    $($name => Some(BuiltinController::$variant),)+
                    _ => None,
                }
            }

            /// A connection's controller, from the `tcp` section's parameters.
            pub fn new_controller(self, params: &ControllerParams) -> Cc {
                match self {
                    $(BuiltinController::$variant => {
                        let $params = params;
                        Cc::$variant($build)
                    })+
                }
            }
        }

        impl Cc {
            /// The controller's name in outputs (an extension's is the name it was registered
            /// under).
            pub fn name(&self) -> &'static str {
                self.builtin().map_or_else(
                    || match self {
                        Cc::Extension(e) => e.name,
                        _ => unreachable!("every other variant is a built-in"),
                    },
                    BuiltinController::name,
                )
            }

            /// Which built-in this is (`None` for an extension's controller).
            pub fn builtin(&self) -> Option<BuiltinController> {
                match self {
                    $(Cc::$variant(_) => Some(BuiltinController::$variant),)+
                    Cc::Extension(_) => None,
                }
            }
        }

        impl CongestionControl for Cc {
            #[inline(always)]
            fn on_ack(&mut self, w: &mut Window, now: Time, acked: u64, srtt: Option<Duration>) {
                match self {
                    $(Cc::$variant(c) => c.on_ack(w, now, acked, srtt),)+
                    Cc::Extension(e) => e.controller.on_ack(w, now, acked, srtt),
                }
            }
            #[inline]
            fn ssthresh_on_loss(&mut self, w: &Window, now: Time, flight_size: u64) -> u64 {
                match self {
                    $(Cc::$variant(c) => c.ssthresh_on_loss(w, now, flight_size),)+
                    Cc::Extension(e) => e.controller.ssthresh_on_loss(w, now, flight_size),
                }
            }
            #[inline]
            fn on_timeout(
                &mut self,
                w: &mut Window,
                now: Time,
                flight_size: u64,
                first_timeout: bool,
            ) {
                match self {
                    $(Cc::$variant(c) => c.on_timeout(w, now, flight_size, first_timeout),)+
                    Cc::Extension(e) => e.controller.on_timeout(w, now, flight_size, first_timeout),
                }
            }
            #[inline]
            fn on_recovery_exit(&mut self, w: &mut Window, now: Time) {
                match self {
                    $(Cc::$variant(c) => c.on_recovery_exit(w, now),)+
                    Cc::Extension(e) => e.controller.on_recovery_exit(w, now),
                }
            }
            #[inline]
            fn on_ack_ecn(&mut self, acked: u64, ece: bool, ack: u64, snd_nxt: u64) {
                match self {
                    $(Cc::$variant(c) => c.on_ack_ecn(acked, ece, ack, snd_nxt),)+
                    Cc::Extension(e) => e.controller.on_ack_ecn(acked, ece, ack, snd_nxt),
                }
            }
            #[inline]
            fn ssthresh_on_ecn(&mut self, w: &Window, now: Time, flight_size: u64) -> u64 {
                match self {
                    $(Cc::$variant(c) => c.ssthresh_on_ecn(w, now, flight_size),)+
                    Cc::Extension(e) => e.controller.ssthresh_on_ecn(w, now, flight_size),
                }
            }
            #[inline]
            fn cc_hooks(&self) -> u8 {
                match self {
                    $(Cc::$variant(c) => c.cc_hooks(),)+
                    Cc::Extension(e) => e.controller.cc_hooks(),
                }
            }
            #[inline]
            fn on_ack_sample(&mut self, w: &mut Window, sample: &AckSample, ctl: &mut CcControl) {
                match self {
                    $(Cc::$variant(c) => c.on_ack_sample(w, sample, ctl),)+
                    Cc::Extension(e) => e.controller.on_ack_sample(w, sample, ctl),
                }
            }
            fn value_names(&self) -> &'static [&'static str] {
                match self {
                    $(Cc::$variant(c) => c.value_names(),)+
                    Cc::Extension(e) => e.controller.value_names(),
                }
            }
            fn values(&self, out: &mut [f64]) {
                match self {
                    $(Cc::$variant(c) => c.values(out),)+
                    Cc::Extension(e) => e.controller.values(out),
                }
            }
            #[inline]
            fn on_cc_start(&mut self, w: &mut Window, now: Time, ctl: &mut CcControl) {
                match self {
                    $(Cc::$variant(c) => c.on_cc_start(w, now, ctl),)+
                    Cc::Extension(e) => e.controller.on_cc_start(w, now, ctl),
                }
            }
            #[inline]
            fn on_cc_timer(&mut self, w: &mut Window, now: Time, ctl: &mut CcControl) {
                match self {
                    $(Cc::$variant(c) => c.on_cc_timer(w, now, ctl),)+
                    Cc::Extension(e) => e.controller.on_cc_timer(w, now, ctl),
                }
            }
            #[inline]
            fn state(&self, w: &Window) -> CcState {
                match self {
                    $(Cc::$variant(c) => c.state(w),)+
                    Cc::Extension(e) => e.controller.state(w),
                }
            }
        }
    };
}

// The built-ins. A new one is a type implementing `CongestionControl` (with its config type
// beside it, if it has parameters, and a field in `ControllerParams`) and one line here.
builtin_controllers! {
    /// NewReno (RFC 5681, RFC 6582).
    NewReno(NewReno) = "newreno", _p => NewReno::default();
    /// CUBIC (RFC 9438), parameters in `tcp.cubic`.
    Cubic(Cubic) = "cubic", p => Cubic::new(p.cubic);
    /// DCTCP (RFC 8257), parameters in `tcp.dctcp`; implies ECN.
    Dctcp(Dctcp) = "dctcp", p => Dctcp::from_config(p.dctcp);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names and variants agree both ways, and each built-in builds its own variant.
    #[test]
    fn each_builtin_is_declared_once_and_consistently() {
        let params = ControllerParams::default();
        for &b in BuiltinController::ALL {
            assert_eq!(BuiltinController::from_name(b.name()), Some(b));
            let cc = b.new_controller(&params);
            assert_eq!(cc.builtin(), Some(b));
            assert_eq!(cc.name(), b.name());
        }
        assert_eq!(BuiltinController::from_name("vegas"), None);
        let ext = Cc::Extension(ExtensionCc::new("mine", NewReno::default()));
        assert_eq!((ext.name(), ext.builtin()), ("mine", None));
    }
}
