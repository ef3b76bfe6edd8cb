//! The run-level model columns of runs.csv: the timeout classes summed over every sender, the
//! book models' predictions, and what the diagnostics need to know about the workload for them.

use crate::results::metrics::RunRecord;
use incastsim_core::Duration;
use incastsim_models::book::{BookParams, DEFAULT_N_STAR, pps_to_mbps};
use incastsim_tcp::{SenderSummary, TimeoutClassStats};

/// The timeout classes of runs.csv (ABTT and the IBTT kinds), summed over every sender.
pub(super) fn fill_timeout_classes(run: &mut RunRecord, m: &ModelContext<'_>) {
    let mut classes = TimeoutClassStats::default();
    for f in 0..m.flows {
        classes.add(&(m.sender)(f).timeout_classes);
    }
    run.rto_abtt = classes.abtt;
    run.rto_ibtt_whole_window = classes.ibtt_whole_window;
    run.rto_ibtt_partial_window = classes.ibtt_partial_window;
    run.rto_ibtt_tail = classes.ibtt_tail;
    run.rto_ibtt_retransmission = classes.ibtt_retransmission;
}

/// The book models' predictions from the inputs already in `run` (`n_senders` model flows,
/// first-timeout RTO `t0`) when `metrics.models` asks for them; NaN otherwise.
pub(super) fn fill_model_predictions(
    run: &mut RunRecord,
    n_senders: usize,
    t0: Duration,
    m: &ModelContext<'_>,
) {
    run.model_td_only_mbps = f64::NAN;
    run.model_full_mbps = f64::NAN;
    run.model_split_mbps = f64::NAN;
    run.model_j = f64::NAN;
    run.model_q_full = f64::NAN;
    run.model_q_split = f64::NAN;
    if m.evaluate {
        let params = BookParams {
            n_senders: n_senders as u64,
            p_c: run.p_c,
            p_r: run.p_r,
            delta_abtts_per_block: run.delta_abtt_per_block,
            rtt_s: run.rtt_mean_us / 1e6,
            t0_s: t0.as_secs_f64(),
            block_packets: run.block_packets,
            n_star: DEFAULT_N_STAR,
        };
        // Out-of-range inputs (no loss at all: p_c = 0; no block: L = 0) leave NaN: the
        // models are undefined there, which is not an error of the run.
        if let Ok(b) = params.evaluate() {
            let seg = m.mss_bytes as f64;
            run.model_td_only_mbps = pps_to_mbps(b.td_only_pps, seg);
            run.model_full_mbps = pps_to_mbps(b.full_pps, seg);
            run.model_split_mbps = pps_to_mbps(b.split_pps, seg);
            run.model_j = b.j;
            run.model_q_full = b.q_full;
            run.model_q_split = b.q_split;
        } else if let Ok(td) = params.td_only_pps() {
            run.model_td_only_mbps = pps_to_mbps(td, m.mss_bytes as f64);
        }
    }
}

/// What [`super::Diagnostics::fill_run`] needs to know about the workload.
pub struct ModelContext<'a> {
    /// TCP flows in the run (the model flows are the first of them).
    pub flows: usize,
    /// Flow f's sender counters (the model flows' are read for the model's inputs).
    pub sender: &'a dyn Fn(usize) -> SenderSummary,
    /// Packets offered to every port (admitted + dropped at admission).
    pub packets_offered: u64,
    /// Blocks the client requested (including one still in progress); 1 for a bulk workload.
    pub blocks_requested: u64,
    /// Σ over model flows of the bytes each sends per block (the block, L in bytes).
    pub block_bytes: u64,
    /// Payload bytes of a full segment (turns packets/s into Mbps).
    pub mss_bytes: u64,
    /// RTO_min: the T0 of a run without timeouts.
    pub rto_min: Duration,
    /// The model assumes one ACK per packet: reported so a reader can discount the row.
    pub delayed_ack: bool,
    /// `metrics.models`: evaluate the models.
    pub evaluate: bool,
}
