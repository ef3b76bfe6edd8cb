//! Results: a finished [`Simulation`] read into the run/flow/port/class/series records
//! (`crate::results::metrics`), each by a small named builder. Reads the engine; the engine never calls
//! in here.

pub mod collectives;
pub mod diagnostics;
mod flows;
pub mod ideal_fct;
pub mod metrics;
mod pfc;
mod ports;
pub mod rdma;
mod run;

use crate::engine::Simulation;
use crate::engine::apps::Workload;
use crate::results::metrics::{DropRunRecord, FlowRecord, PortRecord, RunRecord, RunResult};
use incastsim_core::Time;

/// What every builder needs about the finished run.
pub(crate) struct RunEnd {
    /// When the run ended (workload done, time limit, or the last event).
    pub end: Time,
    pub secs: f64,
    /// Bytes delivered per flow.
    pub delivered: Vec<u64>,
}

impl RunEnd {
    /// Megabits per second of `bytes` over the whole run.
    pub fn mbps(&self, bytes: u64) -> f64 {
        if self.secs > 0.0 {
            bytes as f64 * 8.0 / self.secs / 1e6
        } else {
            0.0
        }
    }
}

impl Simulation {
    /// Collects the run's results. Call after [`Simulation::run`].
    pub fn results(&mut self) -> RunResult {
        // A finished flow's summary was closed when it finished.
        for c in self.transport.conns.live_mut() {
            c.sender.close_stats();
        }
        self.obs.diag.close();
        let end = self.finished_at.unwrap_or(self.events.now());
        let run_end = RunEnd {
            end,
            secs: end.as_secs_f64(),
            delivered: (0..self.transport.flows.len())
                .map(|f| {
                    self.transport
                        .conns
                        .receiver_summary(f)
                        .stats
                        .delivered_bytes
                })
                .collect(),
        };
        // The collectives' tables first, then their gates go (a million-flow collective's
        // tables need not stay beside its flow records).
        let (mut tables, collective_columns) = collectives::collective_results(self);
        if !self.gates.is_empty() {
            self.gates.release();
        }
        let flow_stats = flows::FlowStats::of(self, &run_end);
        let mut run = run::run_record(self, &run_end, &flow_stats);
        let mut flows = flows::flow_records(self, &run_end, &flow_stats);
        let mut ports = ports::port_records(self, end);
        let port_classes = ports::port_class_records(self);
        let drop_runs = self.fill_diagnostics(&mut run, &mut flows, &mut ports);
        let time_series = ports::time_series(self, end);
        let shared_buffers = ports::shared_buffer_records(self, end);
        let pfc = ports::pfc_records(self, end);
        let (pfc_deadlocks, pfc_flows, pfc_summary) =
            pfc::pfc_diagnostics(self, &run_end, &flow_stats);
        // The same test as the sweep header's (`Extensions::probe_columns`).
        if self
            .transport
            .conns
            .value_names()
            .contains(&"rdma_final_rate_gbps")
        {
            let switch_port: Vec<bool> = (0..ports.len())
                .map(|i| {
                    let from = self.network.fabric.port_from[i] as usize;
                    matches!(
                        self.network.fabric.nodes[from],
                        incastsim_core::NodeKind::Switch(_)
                    )
                })
                .collect();
            run.probes.0.extend(rdma::run_columns(
                &flows,
                &flows::fairness_flows(self),
                &ports,
                &switch_port,
                &pfc,
                &flow_stats.fct_all,
                &flow_stats.fct_groups[0],
            ));
        }
        run.probes.0.extend(self.generated.value_columns());
        run.probes.0.extend(collective_columns);
        tables.extend(self.finish_probes(&mut run, &mut flows));
        let probe_tables = tables;
        RunResult {
            pfc,
            pfc_deadlocks,
            pfc_flows,
            pfc_summary,
            probe_tables,
            shared_buffers,
            drop_runs,
            run,
            flows,
            ports,
            port_classes,
            time_series,
            block_times_ms: run::block_times_ms(self),
            capture: self
                .obs
                .capture
                .on
                .then(|| std::mem::take(&mut self.obs.capture.result)),
        }
    }

    /// Lets each probe report (`Probe::finish`) and puts its columns into the records; returns
    /// the probes' own tables. The probes leave the run here (results are read once).
    fn finish_probes(
        &mut self,
        run: &mut RunRecord,
        flows: &mut [FlowRecord],
    ) -> Vec<crate::probe::ProbeTable> {
        if !self.obs.probes.on {
            return Vec::new();
        }
        let mut probes = std::mem::take(&mut self.obs.probes);
        let mut report = crate::probe::ProbeReport::new(flows.len());
        for p in &mut probes.list {
            p.finish(self, &mut report);
        }
        run.probes.0.extend(report.run);
        for (name, values) in report.flow {
            for (rec, v) in flows.iter_mut().zip(values) {
                rec.probes.0.push((name.clone(), v));
            }
        }
        report.tables
    }

    /// Fills the diagnostic columns of runs/flows/ports.csv; returns drop_runs.csv's rows.
    fn fill_diagnostics(
        &self,
        run: &mut RunRecord,
        flows: &mut [FlowRecord],
        ports: &mut [PortRecord],
    ) -> Vec<DropRunRecord> {
        let conns = &self.transport.conns;
        for (f, rec) in flows.iter_mut().enumerate() {
            self.obs.diag.fill_flow(rec, &conns.sender_summary(f));
        }
        for rec in ports.iter_mut() {
            let at_dequeue = self.network.fabric.ports[rec.port as usize]
                .stats()
                .drops_at_dequeue;
            self.obs.diag.fill_port(rec, at_dequeue);
        }
        let model_flows = if self.workload_flows > 0 {
            self.workload_flows
        } else {
            self.transport.flows.len()
        };
        let (blocks_requested, block_bytes) = match &self.workload {
            Workload::SyncReads(w) => (w.blocks_requested(), w.per_flow_bytes.iter().sum()),
            // No blocks: the whole run is one transfer of what was delivered.
            Workload::Bulk(_) | Workload::Traffic { .. } => (
                1,
                (0..model_flows)
                    .map(|f| conns.receiver_summary(f).stats.delivered_bytes)
                    .sum(),
            ),
        };
        let t = &self.cfg.tcp;
        let fabric = &self.network.fabric;
        let port_offered: Vec<u64> = fabric
            .ports
            .iter()
            // Offered = admitted + refused at admission (either buffer cause, or the AQM), as
            // ports.csv counts it; runs.csv's drop_ratio divides `drops_buffer + drops_aqm` by it.
            // (A scheduling discipline's head drops are AQM drops of admitted packets.)
            .map(|p| {
                let s = p.stats();
                s.enqueued_packets + s.drops_buffer + s.drops_threshold + s.drops_aqm
                    - s.drops_at_dequeue
            })
            .collect();
        self.obs.diag.fill_run(
            run,
            &crate::results::diagnostics::ModelContext {
                flows: self.transport.flows.len(),
                sender: &|f| conns.sender_summary(f),
                packets_offered: port_offered.iter().sum(),
                blocks_requested,
                block_bytes,
                mss_bytes: t.mss.0,
                rto_min: t.rto_min.0,
                delayed_ack: t.delayed_ack.enabled,
                evaluate: self.cfg.metrics.models,
            },
        );
        self.obs.diag.drop_run_records(
            &self.cfg.name,
            self.seed,
            self.cfg.senders,
            &port_offered,
            |p| fabric.port_name(p),
        )
    }
}
