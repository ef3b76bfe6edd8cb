//! The sender's counters.

/// Successive-timeout histogram bins: index k-1 counts episodes of exactly k timeouts in a row
/// of one segment, for k = 1..7; the last bin counts 8 or more.
pub const SUCCESSIVE_TIMEOUT_BINS: usize = 8;

/// The sender's counters, for outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    pub fast_retransmits: u64,
    pub partial_ack_retransmits: u64,
    pub limited_transmit_segments: u64,
    pub timeouts: u64,
    /// Sum of the RTO values that expired: time the flow spent waiting on timeouts.
    pub timeout_wait_ps: u64,
    pub successive_timeouts: [u64; SUCCESSIVE_TIMEOUT_BINS],
    pub max_successive_timeouts: u32,
    /// cwnd reductions in response to ECN-Echo.
    pub ecn_reductions: u64,
    pub sack_retransmits: u64,
    /// Retransmissions a scheme asked for (e.g. probabilistic retransmission's marked ones).
    pub scheme_retransmits: u64,
    /// Dummy packets sent (PLATO).
    pub dummies_sent: u64,
    /// Timeouts a scheme fired before the timer expired (PLATO).
    pub forced_timeouts: u64,
    /// The RTO value that expired at the flow's first timeout (0: none yet): the X_i of the RTO
    /// randomization paper's analysis (its Eq. 4-7).
    pub first_timeout_rto_ps: u64,
    /// RFC 8985 Tail Loss Probes sent.
    pub loss_probes: u64,
}

impl SenderStats {
    pub(super) fn record_successive(&mut self, k: u32) {
        let bin = (k as usize).clamp(1, SUCCESSIVE_TIMEOUT_BINS) - 1;
        self.successive_timeouts[bin] += 1;
        self.max_successive_timeouts = self.max_successive_timeouts.max(k);
    }
}
