//! A crate that extends incastsim without forking it: a congestion controller, a scheme, a
//! switch queue discipline, a traffic generator and a probe of its own, registered by name ([`extensions`])
//! and run by incastsim's own command line (`src/main.rs`) and library.
//!
//! - [`MyReno`]: NewReno (RFC 5681 §3.1, RFC 6582) written again through the public
//!   [`CongestionControl`] trait, with the multiplicative decrease `beta` as a parameter
//!   (0.5 = RFC 5681 eq. (4); with it, results equal the built-in `newreno`'s).
//! - [`Vegas`] (`vegas.rs`): TCP Vegas, a delay-based controller reading every ACK's own RTT
//!   sample (`tcp.congestion_control: {name: vegas, alpha: 2, beta: 4}`), without `tcp.ecn`.
//! - [`RtoJitterScheme`]: "RTO jitter", adding U(0, max_extra) to every retransmission timeout
//!   (`crates/schemes/examples/rto_jitter.rs`, now selectable from YAML).
//! - [`MyThreshold`] (module [`queue`]): a switch-port queue discipline that drops or marks
//!   arrivals finding the queue above a fixed threshold
//!   (`topology.switch_queue: {name: my_threshold, threshold: 20 packets, action: drop}`).
//! - [`CoDel`] (`codel`, in `codel.rs`): RFC 8289's CoDel, head drops at dequeue
//!   (`topology.switch_queue: {name: codel, target: 5ms, interval: 100ms}`), and [`Drr2`]
//!   (`drr2`, in `drr.rs`): two queues served by deficit round robin
//!   (`topology.switch_queue: {name: drr2, quantum: 1500B}`), both through the dequeue side
//!   of the queue-discipline trait.
//! - [`IncastBursts`] (`traffic.rs`): a traffic generator, a periodic all-to-one burst
//!   (`traffic: [{kind: incast_bursts, period: 2ms, size: 20KB}]`).
//! - [`BarrierWaves`] (`waves.rs`): a reactive traffic generator, incast waves behind a
//!   barrier, each started when the last flow of the previous one finishes
//!   (`traffic: [{name: barrier_waves, waves: 4, size: 20KB, gap: 100us}]`).
//! - [`MeanQueueingDelayProbe`] (`mean_queueing_delay`, in `probe.rs`): a probe adding each
//!   flow's mean queueing delay to `flows.csv`.
//! - [`QueueHistogramProbe`] (`queue_histogram`, in `histogram.rs`): a probe with a table of its
//!   own, admissions per port (by name) and queue length, which sweeps write too.

use incastsim::Extensions;
use incastsim::config::invalid;
use incastsim::config::units::Dur;
use incastsim::core::{Duration, SimRng, Time};
use incastsim::extend::{ControllerContext, ControllerExtension, SchemeContext, SchemeExtension};
use incastsim::scenario::ConfigError;
use incastsim::tcp::policy::{SenderPolicy, SenderView, hooks};
use incastsim::tcp::{CcState, CongestionControl, StandardTcp, Window};
use serde::{Deserialize, Serialize};

pub mod codel;
pub use codel::{CoDel, CoDelParams};
pub mod drr;
pub use drr::{Drr2, Drr2Params};
pub mod probe;
pub use probe::{MeanQueueingDelay, MeanQueueingDelayParams, MeanQueueingDelayProbe};
pub mod histogram;
pub use histogram::{QueueHistogram, QueueHistogramParams, QueueHistogramProbe};
pub mod queue;
pub use queue::{MyThreshold, MyThresholdParams};
mod traffic;
pub use traffic::{IncastBursts, IncastBurstsParams};
pub mod vegas;
pub use vegas::{Vegas, VegasParams};
mod waves;
pub use waves::{BarrierWaves, BarrierWavesParams};

/// This crate's components, registered under their names (the provider recorded in manifests
/// is this crate, by `extensions!`).
pub fn extensions() -> Extensions {
    incastsim::extensions!()
        .congestion_control::<MyReno>("my_reno")
        .congestion_control::<Vegas>("vegas")
        .scheme::<RtoJitterScheme>("rto_jitter")
        .queue_discipline::<MyThreshold>("my_threshold")
        .queue_discipline::<CoDel>("codel")
        .queue_discipline::<Drr2>("drr2")
        .traffic_generator::<IncastBursts>("incast_bursts")
        .traffic_generator::<BarrierWaves>("barrier_waves")
        .probe::<MeanQueueingDelayProbe>("mean_queueing_delay")
        .probe::<QueueHistogramProbe>("queue_histogram")
}

/// `my_reno`'s parameters: `tcp.congestion_control: {name: my_reno, beta: 0.7}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MyRenoParams {
    /// ssthresh = max(beta × FlightSize, 2 SMSS) after a loss (RFC 5681 eq. (4) has 1/2).
    #[serde(default = "half")]
    pub beta: f64,
}

fn half() -> f64 {
    0.5
}

/// NewReno's window growth and reduction, outside incastsim.
#[derive(Clone, Debug, Default)]
pub struct MyReno {
    beta: f64,
    /// Bytes acknowledged since cwnd last grew in congestion avoidance.
    bytes_acked: u64,
}

impl CongestionControl for MyReno {
    fn on_ack(&mut self, w: &mut Window, _now: Time, acked: u64, _rtt: Option<Duration>) {
        if w.in_slow_start() {
            // RFC 5681 §3.1 eq. (2): cwnd += min(N, SMSS).
            w.cwnd += acked.min(w.smss);
            self.bytes_acked = 0;
        } else {
            // §3.1 congestion avoidance with byte counting: one SMSS per cwnd of ACKed bytes.
            self.bytes_acked += acked;
            if self.bytes_acked >= w.cwnd {
                self.bytes_acked -= w.cwnd;
                w.cwnd += w.smss;
            }
        }
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _now: Time, flight_size: u64) -> u64 {
        // RFC 5681 eq. (4) with beta in place of 1/2 (exact for 0.5: FlightSize / 2).
        ((flight_size as f64 * self.beta) as u64).max(2 * w.smss)
    }

    fn on_timeout(&mut self, w: &mut Window, now: Time, flight_size: u64, first_timeout: bool) {
        // §3.1: ssthresh held if the segment was already retransmitted by the timer; LW = 1 SMSS.
        if first_timeout {
            w.ssthresh = self.ssthresh_on_loss(w, now, flight_size);
        }
        w.cwnd = w.smss;
        self.bytes_acked = 0;
    }

    fn on_recovery_exit(&mut self, _w: &mut Window, _now: Time) {
        self.bytes_acked = 0;
    }

    fn state(&self, w: &Window) -> CcState {
        CcState::of_window(w)
    }
}

impl ControllerExtension for MyReno {
    type Params = MyRenoParams;
    const DESCRIPTION: &'static str =
        "NewReno (RFC 5681) through the public trait; beta: the multiplicative decrease";

    fn check(p: &MyRenoParams) -> Result<(), ConfigError> {
        if p.beta > 0.0 && p.beta < 1.0 {
            Ok(())
        } else {
            Err(invalid("beta", p.beta, "a factor in (0, 1)"))
        }
    }

    fn new(p: &MyRenoParams, _ctx: &ControllerContext) -> MyReno {
        MyReno {
            beta: p.beta,
            bytes_acked: 0,
        }
    }
}

/// `rto_jitter`'s parameters: `scheme: {name: rto_jitter, max_extra: 50us}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RtoJitterParams {
    /// The largest extra time added to a timeout.
    #[serde(default = "one_ms")]
    pub max_extra: Dur,
}

fn one_ms() -> Dur {
    Dur(Duration::from_ms(1))
}

/// The scheme's registration: its parameters and how a connection's state is built.
pub struct RtoJitterScheme;

/// Per-connection state: adds U(0, max_extra) to the RFC 6298 timeout, drawn from the
/// connection's own scheme stream.
#[derive(Clone, Debug)]
pub struct RtoJitter {
    max_extra: Duration,
    rng: SimRng,
}

impl SenderPolicy for RtoJitter {
    fn hooks(&self) -> u16 {
        hooks::RTO
    }
    fn retransmission_timeout(&mut self, _view: &SenderView, rfc6298_rto: Duration) -> Duration {
        rfc6298_rto + self.rng.duration_up_to(self.max_extra)
    }
}

impl SchemeExtension for RtoJitterScheme {
    type Params = RtoJitterParams;
    type Sender = RtoJitter;
    type Receiver = StandardTcp;
    const DESCRIPTION: &'static str =
        "RTO jitter: every retransmission timeout + U(0, max_extra) (sender side only)";

    fn check(p: &RtoJitterParams) -> Result<(), ConfigError> {
        if p.max_extra.0 == Duration::ZERO {
            return Err(invalid("max_extra", p.max_extra.0, "a positive duration"));
        }
        Ok(())
    }

    fn sender(p: &RtoJitterParams, ctx: &SchemeContext) -> Option<RtoJitter> {
        Some(RtoJitter {
            max_extra: p.max_extra.0,
            rng: ctx.rng(),
        })
    }

    fn receiver(_p: &RtoJitterParams, _ctx: &SchemeContext) -> Option<StandardTcp> {
        None
    }
}
