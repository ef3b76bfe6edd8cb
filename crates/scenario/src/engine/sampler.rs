//! The opt-in time series (`time_series:`), sampled on their own events and free when off; one
//! of the run's observers (`observe.rs`). (Drop runs and loss events are counted by `crate::engine::diagnostics`, which the network calls
//! on every admission and the engine on every drop.)

use super::event::{Event, Events};
use super::transport::Transport;
use crate::plan::ObservePlan;
use crate::plan::fabric::Fabric;
use crate::results::metrics::TimeSeriesRecord;
use incastsim_core::{Duration, Time};

/// PFC's per-class metric names of a pausable port (802.1Qbb's eight priorities).
const PFC_CLASS_METRICS: [(&str, &str); 8] = [
    ("paused_p0", "waiting_p0_packets"),
    ("paused_p1", "waiting_p1_packets"),
    ("paused_p2", "waiting_p2_packets"),
    ("paused_p3", "waiting_p3_packets"),
    ("paused_p4", "waiting_p4_packets"),
    ("paused_p5", "waiting_p5_packets"),
    ("paused_p6", "waiting_p6_packets"),
    ("paused_p7", "waiting_p7_packets"),
];

/// The `time_series` sampler: periodic samples of ports and flows, and every change of the
/// traced port.
pub struct Sampler {
    /// Sampled ports, with their departed bytes at the last sample.
    ports: Vec<(u32, u64)>,
    flows: Vec<u32>,
    interval: Duration,
    /// The port whose every queue change is recorded (`time_series.on_change_port`).
    pub traced_port: Option<u32>,
    /// The samples so far (timeseries.csv rows).
    pub series: Vec<TimeSeriesRecord>,
    scenario: String,
    seed: u64,
}

impl Sampler {
    /// The sampler `observe` asks for (idle without `time_series`: no events).
    pub fn new(observe: &ObservePlan, scenario: &str, seed: u64) -> Sampler {
        Sampler {
            ports: observe.ports.iter().map(|&p| (p, 0)).collect(),
            flows: observe.flows.clone(),
            interval: observe.interval.unwrap_or(Duration::ZERO),
            traced_port: observe.traced_port,
            series: Vec::new(),
            scenario: scenario.to_string(),
            seed,
        }
    }

    /// Bytes the samples so far hold: each row and its two strings (scenario and object).
    pub fn series_bytes(&self) -> u64 {
        let per_row = std::mem::size_of::<TimeSeriesRecord>() + self.scenario.len() + 32;
        self.series.len() as u64 * per_row as u64
    }

    fn record(&mut self, time_s: f64, object: &str, metric: &'static str, value: f64) {
        self.series.push(TimeSeriesRecord {
            scenario: self.scenario.clone(),
            seed: self.seed,
            time_s,
            object: object.to_string(),
            metric,
            value,
        });
    }

    /// Records one sample of every sampled port and flow and schedules the next.
    pub fn sample(
        &mut self,
        now: Time,
        fabric: &mut Fabric,
        transport: &Transport,
        events: &mut Events,
    ) {
        let t = now.as_secs_f64();
        let interval_s = self.interval.as_secs_f64();
        for i in 0..self.ports.len() {
            let (port, last_departed) = self.ports[i];
            let object = format!("port {}", fabric.port_name(port));
            let p = &mut fabric.ports[port as usize];
            let occ = p.occupancy(now);
            let departed = p.stats().departed_bytes;
            let rate = p.serialization().rate().as_f64();
            let utilization = if now == Time::ZERO {
                0.0
            } else {
                (departed - last_departed) as f64 * 8.0 / rate / interval_s
            };
            self.ports[i].1 = departed;
            self.record(t, &object, "queue_bytes", occ.bytes as f64);
            self.record(t, &object, "queue_packets", occ.packets as f64);
            self.record(t, &object, "utilization", utilization);
            // The discipline's own values, by their names.
            for (name, value) in fabric.ports[port as usize].discipline_values() {
                self.record(t, &object, name, value);
            }
            // PFC: each class's pause state (1 paused) and its packets waiting.
            let p = &fabric.ports[port as usize];
            if p.pausable() {
                for (c, &(paused, waiting)) in
                    PFC_CLASS_METRICS.iter().enumerate().take(p.classes())
                {
                    self.record(
                        t,
                        &object,
                        paused,
                        f64::from(u8::from(p.class_paused(c, now))),
                    );
                    self.record(t, &object, waiting, p.class_waiting(c) as f64);
                }
            }
        }
        // Every shared buffer's total occupancy (the sum of its queues).
        for (i, sb) in fabric.shared_buffers.iter().enumerate() {
            let bytes = sb.occupancy(&mut fabric.ports, now);
            let object = format!(
                "shared_buffer {}",
                fabric.node_names[fabric.shared_buffer_switch[i] as usize]
            );
            self.record(t, &object, "occupancy_bytes", bytes as f64);
        }
        for i in 0..self.flows.len() {
            let f = self.flows[i];
            if transport.is_roce(f as usize) {
                // A queue pair: its sending rate and what it has in flight.
                let s = &transport.conns.roce.get(f as usize).sender;
                let object = format!("flow {f}");
                self.record(t, &object, "rate_gbps", s.rate().as_f64() / 1e9);
                self.record(t, &object, "bytes_in_flight", s.bytes_in_flight() as f64);
                // A rate controller's state view: the same fields for every controller.
                if !matches!(s.controller(), incastsim_roce::Controller::Fixed(_)) {
                    let st = s.controller_state();
                    let values = [
                        ("target_rate_gbps", st.target_rate.map(|r| r.as_f64() / 1e9)),
                        ("rdma_alpha", st.alpha),
                        ("rdma_utilization", st.utilization),
                        ("rtt_gradient", st.rtt_gradient),
                        ("window_bytes", s.window_bytes().map(|w| w as f64)),
                    ];
                    for (name, value) in values {
                        if let Some(v) = value {
                            self.record(t, &object, name, v);
                        }
                    }
                }
                continue;
            }
            // A sampled flow keeps its connection for the whole run (`Transport::new`).
            let s = &transport.conns.get(f as usize).sender;
            // The controller-independent state view (the same fields for every controller).
            let cc = s.cc_state();
            let object = format!("flow {f}");
            let srtt = s.rtt().srtt().map_or(f64::NAN, |d| d.as_us_f64());
            let rto = s.rtt().backed_off_rto(0).as_ms_f64();
            self.record(t, &object, "cwnd_bytes", cc.cwnd_bytes as f64);
            self.record(
                t,
                &object,
                "ssthresh_bytes",
                cc.ssthresh_bytes.min(u32::MAX as u64) as f64,
            );
            self.record(t, &object, "rto_ms", rto);
            self.record(t, &object, "srtt_us", srtt);
            // 0 open, 1 fast recovery, 2 RTO recovery.
            self.record(t, &object, "recovery_state", cc.recovery.code() as f64);
            if let Some(alpha) = cc.dctcp_alpha {
                self.record(t, &object, "dctcp_alpha", alpha);
            }
            // The controller's and the scheme's own values, by their names.
            for (name, value) in s.component_values() {
                self.record(t, &object, name, value);
            }
        }
        events.schedule(now + self.interval, Event::Sample.into());
    }
}
