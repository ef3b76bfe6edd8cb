//! The sender's counters.

/// Successive-timeout histogram bins: index k-1 counts episodes of exactly k timeouts in a row
/// of one segment, for k = 1..7; the last bin counts 8 or more.
pub const SUCCESSIVE_TIMEOUT_BINS: usize = 8;

/// The sender's counters, for outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SenderStats {
    /// Data segments sent, first transmissions and retransmissions.
    pub segments_sent: u64,
    /// Payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
    /// Data segments sent again, for any reason.
    pub retransmitted_segments: u64,
    /// Payload bytes sent again.
    pub retransmitted_bytes: u64,
    /// Fast retransmissions (third duplicate ACK or RACK).
    pub fast_retransmits: u64,
    /// Retransmissions on partial ACKs (RFC 6582).
    pub partial_ack_retransmits: u64,
    /// New segments sent by limited transmit (RFC 3042).
    pub limited_transmit_segments: u64,
    /// Retransmission timeouts that fired.
    pub timeouts: u64,
    /// Sum of the RTO values that expired: time the flow spent waiting on timeouts.
    pub timeout_wait_ps: u64,
    /// Episodes of exactly k successive timeouts of one segment (index k - 1), the last bin 8+.
    pub successive_timeouts: [u64; SUCCESSIVE_TIMEOUT_BINS],
    /// The longest such episode.
    pub max_successive_timeouts: u32,
    /// cwnd reductions in response to ECN-Echo.
    pub ecn_reductions: u64,
    /// Retransmissions chosen by RFC 6675 NextSeg.
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
