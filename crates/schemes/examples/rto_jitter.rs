//! A complete scheme in one file: "RTO jitter", which adds U(0, jitter) to every retransmission
//! timeout (the smallest possible desynchronization scheme). It shows the three steps of
//! ARCHITECTURE.md "How to add a scheme":
//! 1. a type with the scheme's state and parameters;
//! 2. the hooks it needs (here only `retransmission_timeout`), and `hooks()` naming them;
//! 3. its randomness from the connection's own `Stream::Scheme` generator.
//!
//! Run it: `cargo run -p incastsim-schemes --example rto_jitter`. To use it in simulations from a
//! crate of your own, register it by name: `examples/extend/` (repository root) does, as
//! `scheme: {name: rto_jitter, max_extra: 50us}`.

use incastsim_core::rng::Stream;
use incastsim_core::{Duration, SimRng, Time};
use incastsim_tcp::policy::{SenderPolicy, SenderView, hooks};
use incastsim_tcp::{Cc, NewReno, RecoveryExit, RtoConfig, RttSampling, SenderConfig, TcpSender};

/// Adds U(0, jitter) to the RFC 6298 timeout.
pub struct RtoJitter {
    pub jitter: Duration,
    pub rng: SimRng,
}

impl SenderPolicy for RtoJitter {
    fn hooks(&self) -> u16 {
        hooks::RTO
    }
    fn retransmission_timeout(&mut self, _view: &SenderView, rfc6298_rto: Duration) -> Duration {
        rfc6298_rto + self.rng.duration_up_to(self.jitter)
    }
}

/// Drives one sender through three timeouts; returns the RTOs it armed, in ms.
pub fn demo(seed: u64) -> Vec<f64> {
    let cfg = SenderConfig {
        smss: 1000,
        initial_cwnd_segments: 2,
        dupack_threshold: 3,
        limited_transmit: true,
        rto: RtoConfig {
            min: Duration::from_ms(10),
            max: Duration::from_secs(60),
            initial: Duration::from_ms(10),
            granularity: Duration::from_us(1),
        },
        rtt_sampling: RttSampling::Timestamps,
        recovery_exit: RecoveryExit::Ssthresh,
        slow_start_after_idle: false,
        ecn: false,
        sack: false,
        rack: false,
        tlp: false,
        prr: false,
    };
    let scheme = RtoJitter {
        jitter: Duration::from_ms(2),
        rng: SimRng::for_stream(seed, Stream::Scheme, 0),
    };
    let mut s = TcpSender::new(0, cfg, Cc::NewReno(NewReno::default()), scheme);
    let mut out = Vec::new();
    s.write(Time::ZERO, 10_000, &mut out);
    let mut armed = vec![s.armed_rto().as_ms_f64()];
    for _ in 0..3 {
        let at = s.rto_deadline().expect("data outstanding");
        s.on_timeout(at, &mut out);
        armed.push(s.armed_rto().as_ms_f64());
    }
    armed
}

#[allow(dead_code)]
fn main() {
    for (i, rto) in demo(1).iter().enumerate() {
        println!("timeout {i}: RTO {rto:.3} ms");
    }
}
