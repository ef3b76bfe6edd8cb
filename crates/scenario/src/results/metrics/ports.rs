//! The per-port records: a row of ports.csv per output port, of port_classes.csv per
//! priority class, of shared_buffers.csv per shared buffer, and the sampled time series.

use serde::Serialize;

/// One row of ports.csv.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct PortRecord {
    /// The config's `name`.
    pub scenario: String,
    /// The run's seed (a sweep derives one per point and replicate).
    pub seed: u64,
    /// The config's `senders` (the swept N of incast curves).
    pub senders: u32,
    /// Port index (as in drop_runs.csv and the port's `time_series` object).
    pub port: u32,
    /// The node the port belongs to (`switch0`, `host3`).
    pub from_node: String,
    /// The node at the far end of its link.
    pub to_node: String,
    /// Packets admitted to the queue.
    pub packets_enqueued: u64,
    /// Refused for want of buffer: `drops_threshold` + `drops_buffer_full`.
    pub drops_buffer: u64,
    /// Of those, refused by its switch's shared-buffer Dynamic Threshold (0 on static ports).
    pub drops_threshold: u64,
    /// Of those, refused because the packet did not fit the (static or shared) buffer.
    pub drops_buffer_full: u64,
    /// Packets dropped by the AQM (RED).
    pub drops_aqm: u64,
    /// Packets lost on the port's link by random loss.
    pub drops_link_loss: u64,
    /// Packets marked CE.
    pub ecn_marks: u64,
    /// Queue length averaged over time, bytes (exact, not sampled).
    pub mean_queue_bytes: f64,
    /// Longest queue, bytes.
    pub max_queue_bytes: u64,
    /// Longest queue, packets.
    pub max_queue_packets: u32,
    /// Fraction of the run the link was busy sending.
    pub utilization: f64,
    // ----- diagnostics (crate::engine::diagnostics) -----
    /// Packets offered (admitted + dropped at admission); (buffer + AQM drops) / offered.
    pub packets_offered: u64,
    /// (buffer + AQM drops) / `packets_offered`.
    pub drop_ratio: f64,
    /// Runs of consecutive drops per input port, summed over the port's inputs.
    pub drop_run_1: u64,
    /// Runs of exactly 2 consecutive drops from one input, summed over its inputs.
    pub drop_run_2: u64,
    /// Runs of exactly 3 consecutive drops from one input, summed over its inputs.
    pub drop_run_3: u64,
    /// Runs of exactly 4 consecutive drops from one input, summed over its inputs.
    pub drop_run_4: u64,
    /// Runs of exactly 5 consecutive drops from one input, summed over its inputs.
    pub drop_run_5: u64,
    /// Runs of exactly 6 consecutive drops from one input, summed over its inputs.
    pub drop_run_6: u64,
    /// Runs of exactly 7 consecutive drops from one input, summed over its inputs.
    pub drop_run_7: u64,
    /// Runs of 8 or more consecutive drops from one input, summed over its inputs.
    pub drop_run_8plus: u64,
    /// The longest run of consecutive drops at one of its inputs.
    pub max_drop_run: u32,
    /// Values the port's queue discipline reports of its own (`QueueDiscipline::value_names`)
    /// at the end of the run, after every built-in column; empty where the port's discipline
    /// lacks one (host NICs), none without such a discipline.
    #[serde(flatten)]
    pub values: crate::probe::columns::ProbeColumns,
}

/// One row of port_classes.csv: a port's counters for one traffic class (DSCP, capped at 7).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct PortClassRecord {
    /// The config's `name`.
    pub scenario: String,
    /// The run's seed (a sweep derives one per point and replicate).
    pub seed: u64,
    /// The config's `senders` (the swept N of incast curves).
    pub senders: u32,
    /// Port index (as in drop_runs.csv and the port's `time_series` object).
    pub port: u32,
    /// The node the port belongs to (`switch0`, `host3`).
    pub from_node: String,
    /// The node at the far end of its link.
    pub to_node: String,
    /// Traffic class: the packets' DSCP, capped at 7.
    pub class: u32,
    /// Packets admitted to the queue.
    pub packets_enqueued: u64,
    /// Packets of this class dropped at admission.
    pub drops: u64,
    /// Packets marked CE.
    pub ecn_marks: u64,
}

/// One row of shared_buffers.csv (written only by runs with shared-buffer switches): one output
/// queue of a shared buffer, with the buffer's own figures repeated on each of its rows.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SharedBufferRecord {
    /// The config's `name`.
    pub scenario: String,
    /// The run's seed (a sweep derives one per point and replicate).
    pub seed: u64,
    /// The config's `senders` (the swept N of incast curves).
    pub senders: u32,
    /// The switch whose buffer it is ("switch1").
    pub switch: String,
    /// The shared buffer's size, bytes.
    pub size_bytes: u64,
    /// The Dynamic Threshold α: a queue may grow to α × the free buffer (Choudhury-Hahne).
    pub alpha: f64,
    /// Bytes reserved for each queue outside the shared pool.
    pub reserved_per_queue_bytes: u64,
    /// Highest total occupancy of the buffer, and its time average over the run.
    pub buffer_max_occupancy_bytes: u64,
    /// Time-averaged occupancy of the buffer, bytes (exact).
    pub buffer_mean_occupancy_bytes: f64,
    /// The buffer's drops by cause (all its queues).
    pub buffer_drops_threshold: u64,
    /// Drops because the packet did not fit in the free buffer.
    pub buffer_drops_full: u64,
    /// The queue (output port, as in ports.csv) and its drops by cause.
    pub port: u32,
    /// The node at the far end of the queue's link.
    pub to_node: String,
    /// Drops because the queue was at or above α × free space.
    pub drops_threshold: u64,
    /// Drops below the threshold because the packet did not fit (rare).
    pub drops_full: u64,
    /// Longest queue, bytes.
    pub max_queue_bytes: u64,
    /// Time-averaged queue length, bytes (exact).
    pub mean_queue_bytes: f64,
}

/// One row of timeseries.csv (long format).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct TimeSeriesRecord {
    /// The config's `name`.
    pub scenario: String,
    /// The run's seed (a sweep derives one per point and replicate).
    pub seed: u64,
    /// Sample time, simulated seconds.
    pub time_s: f64,
    /// "port switch0->host16" or "flow 3".
    pub object: String,
    /// `queue_bytes`, `cwnd_bytes`, `rto_ms`, ... (docs/outputs.md: timeseries.csv).
    pub metric: &'static str,
    /// The sample, in the unit its metric names.
    pub value: f64,
}

impl PortRecord {
    /// Sets `drop_run_1` … `drop_run_8plus` from a histogram of run lengths 1..7, 8+.
    pub fn set_drop_runs(&mut self, b: &[u64; 8]) {
        set_bins!(
            self,
            b,
            drop_run_1,
            drop_run_2,
            drop_run_3,
            drop_run_4,
            drop_run_5,
            drop_run_6,
            drop_run_7,
            drop_run_8plus
        );
    }
}

/// One row of pfc.csv (runs with `pfc:` only): one port and lossless priority, seen from the
/// node the port leaves. The PAUSEs it sent are for that node's input from `to_node`; the
/// pauses it received stopped it; the input's counts are of what came in from `to_node`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct PfcRecord {
    /// The config's `name`.
    pub scenario: String,
    /// The run's seed.
    pub seed: u64,
    /// The config's `senders`.
    pub senders: u32,
    /// The port, as in ports.csv.
    pub port: u32,
    /// The node it leaves.
    pub from_node: String,
    /// The node at the far end.
    pub to_node: String,
    /// The lossless priority (traffic class).
    pub priority: u8,
    /// PAUSE frames (quanta > 0) the port sent, refreshes included.
    pub pauses_sent: u64,
    /// RESUME frames (quanta 0) the port sent.
    pub resumes_sent: u64,
    /// PAUSE frames that paused the port.
    pub pauses_received: u64,
    /// RESUME frames that resumed it.
    pub resumes_received: u64,
    /// Time the port's priority was paused, µs.
    pub paused_us: f64,
    /// The longest single pause, µs.
    pub longest_pause_us: f64,
    /// Times the input from `to_node` went over XOFF (a PAUSE from the unpaused state).
    pub xoff_crossings: u64,
    /// The input's largest count (below XOFF plus headroom), bytes.
    pub ingress_peak_bytes: u64,
    /// The input's headroom, bytes (computed or set).
    pub headroom_bytes: u64,
    /// The input's largest headroom in use, bytes.
    pub headroom_peak_bytes: u64,
    /// Lossless packets dropped with the input's headroom full.
    pub overflow_drops: u64,
}
