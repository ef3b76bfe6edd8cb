//! The diagnostics' columns of runs.csv, flows.csv, ports.csv and drop_runs.csv, filled from
//! what the engine counted ([`Diagnostics`]).
//!
//! # The book's model inputs (Kulkarni & Agrawal §3.2)
//! Measured over the "model flows" (the workload's flows; every TCP flow for a `traffic`
//! workload), exactly as §3.2 describes its trace analysis:
//! - **loss indication** (of one flow): a triple-duplicate-ACK indication (a fast retransmit,
//!   i.e. entering fast recovery) or a timeout indication (the first expiry of a run of
//!   successive timeouts; the backed-off expiries that follow belong to the same indication,
//!   as in Padhye et al.'s TO sequences). `loss_indications` = fast retransmits + first timeouts.
//! - **p_r** = loss indications of the flows / packets they sent (all data segments including
//!   retransmissions: the book's B counts packets "regardless of their eventual fate"). Pooled
//!   over the flows, which equals the per-flow ratio for flows sending equal amounts.
//! - **loss event of the cumulative flow**: a round of the cumulative flow in which at least one
//!   model flow loses a packet ("it is only counted as a loss event when one or more composite
//!   flows experiences a loss in a round", §3.1.1.2). Measured on the drop trace: a data segment
//!   of a model flow dropped more than one round after the first drop of the current event
//!   opens a new event; a round is the dropping flow's SRTT (its base RTT before it has one).
//! - **p_c** = loss events / packets sent by all model flows. So p_r/p_c = loss indications per
//!   loss event ≈ the book's j, the mean number of flows losing in a loss round.
//! - **δ** = ABTTs (see `incastsim_tcp::timeout_class`) / blocks the workload requested.
//! - **RTT** = the mean of every RTT sample the model flows took (echoed timestamps, or Karn's
//!   timed segments).
//! - **T0** = the mean RTO value of first timeouts (the book's "single" timeout, before
//!   doubling); RTO_min when the run had no timeout.
//! - **L** = the block in packets: Σ SRU / MSS (book Eq. 3.37 needs packets; see
//!   `incastsim_models::book`).

mod model;

use crate::engine::diagnostics::{Diagnostics, FlowDrops, LOCAL_INPUT, NONE, RunHistogram};
use crate::results::metrics::{DropRunRecord, FlowRecord, PortRecord, RunRecord};
use incastsim_core::Duration;
use incastsim_tcp::{SenderSummary, TimeoutClassStats};
pub use model::ModelContext;
use model::{fill_model_predictions, fill_timeout_classes};

impl Diagnostics {
    /// drop_runs.csv rows: every (output port, input port) pair that was offered a packet, by
    /// output port, then input port. `port_name(p)` names port p ("switch0->host16");
    /// `port_offered[p]`: packets offered to p (admitted + dropped at admission, from the
    /// port's own counters).
    pub fn drop_run_records(
        &self,
        scenario: &str,
        seed: u64,
        senders: u32,
        port_offered: &[u64],
        port_name: impl Fn(u32) -> String,
    ) -> Vec<DropRunRecord> {
        let mut order: Vec<u32> = (0..self.pair_key.len() as u32).collect();
        order.sort_unstable_by_key(|&i| self.pair_key[i as usize]);
        // At most one row per pair (k = 32: ~46,000 rows of ~200 bytes, grown by doubling
        // they were copied and faulted in about twice over).
        let mut out = Vec::with_capacity(order.len());
        for i in order.into_iter().map(|i| i as usize) {
            let (port, input) = self.pair_key[i];
            let Some(&port_offered) = port_offered.get(port as usize) else {
                continue;
            };
            let offered = if input == LOCAL_INPUT {
                port_offered
            } else {
                self.offered(port, i)
            };
            if offered == 0 {
                continue;
            }
            let (dropped, h) = match self.pair_drop[i] {
                NONE => (0, RunHistogram::default()),
                d => (
                    self.pair_drops[d as usize].dropped,
                    self.pair_drops[d as usize].hist,
                ),
            };
            let mut r = DropRunRecord {
                scenario: scenario.to_string(),
                seed,
                senders,
                port,
                port_name: port_name(port),
                input_port: (input != LOCAL_INPUT).then_some(input),
                input_name: if input == LOCAL_INPUT {
                    "local".into()
                } else {
                    port_name(input)
                },
                packets_offered: offered,
                drops: dropped,
                drop_ratio: dropped as f64 / offered as f64,
                max_drop_run: h.max,
                ..DropRunRecord::default()
            };
            r.set_runs(&h.bins);
            out.push(r);
        }
        out
    }

    /// Fills the per-flow columns of flows.csv.
    pub fn fill_flow(&self, rec: &mut FlowRecord, sender: &SenderSummary) {
        let c = &sender.timeout_classes;
        rec.rto_abtt = c.abtt;
        rec.rto_ibtt_whole_window = c.ibtt_whole_window;
        rec.rto_ibtt_partial_window = c.ibtt_partial_window;
        rec.rto_ibtt_tail = c.ibtt_tail;
        rec.rto_ibtt_retransmission = c.ibtt_retransmission;
        rec.loss_indications = sender.stats.fast_retransmits + c.first_timeouts;
        let fd = match self.flows[rec.flow as usize].drops {
            NONE => FlowDrops::default(),
            d => self.flow_drops[d as usize],
        };
        rec.drops = fd.drops;
        rec.max_drop_run = fd.hist.max;
        rec.set_drop_runs(&fd.hist.bins);
    }

    /// Flow f's data segments dropped at admission (flows.csv's `drops`).
    pub fn flow_drop_count(&self, f: usize) -> u64 {
        match self.flows[f].drops {
            NONE => 0,
            d => self.flow_drops[d as usize].drops,
        }
    }

    /// Fills the per-port columns of ports.csv (`packets_enqueued` and the drop counts set);
    /// `dropped_at_dequeue` of the AQM drops were admitted first (a scheduling discipline's
    /// head drops), so they are offered once.
    pub fn fill_port(&self, rec: &mut PortRecord, dropped_at_dequeue: u64) {
        let hist = self.port_runs(rec.port as usize);
        let dropped = rec.drops_buffer + rec.drops_aqm;
        let offered = rec.packets_enqueued + dropped - dropped_at_dequeue;
        rec.packets_offered = offered;
        rec.drop_ratio = if offered == 0 {
            0.0
        } else {
            dropped as f64 / offered as f64
        };
        rec.max_drop_run = hist.max;
        rec.set_drop_runs(&hist.bins);
    }

    /// Fills the run-level diagnostic and model columns of runs.csv.
    pub fn fill_run(&self, run: &mut RunRecord, m: &ModelContext<'_>) {
        fill_timeout_classes(run, m);
        self.fill_drop_runs(run, m.packets_offered);

        // The book's §3.2 measurements over the model flows.
        let model = self.model_flows.min(m.flows);
        let t0 = self.fill_model_inputs(run, model, m);
        fill_model_predictions(run, model, t0, m);
    }

    /// The drop ratio over `offered` packets and the drop-run histograms of runs.csv: runs per
    /// input port summed over the ports, and per flow summed over the flows.
    fn fill_drop_runs(&self, run: &mut RunRecord, offered: u64) {
        let mut inputs = RunHistogram::default();
        for h in &self.port_hists {
            inputs.add(h);
        }
        run.packets_offered = offered;
        run.drop_ratio = if offered == 0 {
            0.0
        } else {
            (run.drops_buffer + run.drops_aqm) as f64 / offered as f64
        };
        run.max_input_drop_run = inputs.max;
        run.set_input_drop_runs(&inputs.bins);
        let mut flows = RunHistogram::default();
        for fd in &self.flow_drops {
            flows.add(&fd.hist);
        }
        run.max_flow_drop_run = flows.max;
        run.set_flow_drop_runs(&flows.bins);
    }

    /// The book's model inputs measured over the model flows `model` (§3.2: p_r, p_c, δ, RTT,
    /// L); returns T0, which the models take in seconds and runs.csv shows in ms.
    fn fill_model_inputs(
        &self,
        run: &mut RunRecord,
        model: usize,
        m: &ModelContext<'_>,
    ) -> Duration {
        let mut mc = TimeoutClassStats::default();
        let (mut packets, mut fast, mut rtt_sum, mut rtt_n) = (0u64, 0u64, 0u128, 0u64);
        for f in 0..model {
            let s = (m.sender)(f);
            mc.add(&s.timeout_classes);
            packets += s.stats.segments_sent;
            fast += s.stats.fast_retransmits;
            rtt_sum += s.rtt_sample_sum_ps;
            rtt_n += s.rtt_samples;
        }
        let indications = fast + mc.first_timeouts;
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
        run.model_flows = model as u32;
        run.model_packets_sent = packets;
        run.loss_indications = indications;
        run.loss_events = self.loss_events;
        run.p_c = ratio(self.loss_events as f64, packets as f64);
        run.p_r = ratio(indications as f64, packets as f64);
        run.delta_abtt_per_block = ratio(mc.abtt as f64, m.blocks_requested as f64);
        run.rtt_mean_us = ratio(rtt_sum as f64, rtt_n as f64) / 1e6;
        let t0 = mc
            .first_timeout_wait_ps
            .checked_div(mc.first_timeouts)
            .map_or(m.rto_min, Duration);
        run.t0_ms = t0.as_ms_f64();
        run.block_packets = m.block_bytes as f64 / m.mss_bytes as f64;
        run.delayed_ack = m.delayed_ack;
        t0
    }
}
