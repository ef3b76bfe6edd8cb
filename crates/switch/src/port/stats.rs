//! A port's counters: what it admitted, dropped, marked and delivered, and for how long it
//! was busy and buffered, overall and per traffic class.

/// Classes with their own counters (DSCP values above the last share it).
pub const STAT_CLASSES: usize = 8;

/// Per-port counters. Drops are counted here and only here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortStats {
    /// Packets admitted.
    pub enqueued_packets: u64,
    /// Bytes admitted (headers included).
    pub enqueued_bytes: u64,
    /// Packets refused for lack of buffer.
    pub drops_buffer: u64,
    /// Packets dropped by the AQM's decision (RED; a scheduling discipline's head drops too).
    pub drops_aqm: u64,
    /// Of `drops_aqm`: packets a scheduling discipline dropped at dequeue, after admission.
    pub drops_at_dequeue: u64,
    /// Wire bytes of the packets dropped at dequeue (admitted, never departed).
    pub drops_at_dequeue_bytes: u64,
    /// Packets a scheduling discipline trimmed, and the wire bytes cut off.
    pub trimmed_packets: u64,
    /// Bytes cut off by trimming (admitted, never departed).
    pub trimmed_bytes: u64,
    /// Packets lost on the link (random loss), after transmission.
    pub drops_link_loss: u64,
    /// Refused by a shared buffer's Dynamic Threshold (shared-buffer switches only).
    pub drops_threshold: u64,
    /// PFC: lossless packets dropped because their ingress headroom was full (counted at
    /// the port they were offered to).
    pub drops_headroom: u64,
    /// Control frames (PFC PAUSE and RESUME) the port sent; not in the packet counts.
    pub control_frames: u64,
    /// Packets marked CE.
    pub ecn_marks: u64,
    /// Packets that reached the far end of the link.
    pub delivered_packets: u64,
    /// Longest queue, bytes (including the packet being transmitted).
    pub max_buffered_bytes: u64,
    /// Longest queue, packets.
    pub max_buffered_packets: u32,
    /// Total time the transmitter was busy (for utilization).
    pub busy_ps: u64,
    /// Bytes whose last bit has left the port (counted lazily, exact whenever the port is read).
    pub departed_bytes: u64,
    /// Σ over packets of bytes × time buffered (admission to last bit sent), in byte·ps: equal
    /// to ∫ buffered bytes dt, and computable once per packet when its departure is fixed.
    pub residence_byte_ps: u128,
    /// Per traffic class (DSCP, capped at 7): packets admitted, dropped (any reason), marked.
    pub class_enqueued: [u64; STAT_CLASSES],
    /// Drops per traffic class (at admission, and at dequeue by a scheduling discipline).
    pub class_drops: [u64; STAT_CLASSES],
    /// CE marks per traffic class.
    pub class_marks: [u64; STAT_CLASSES],
}

impl PortStats {
    /// Every drop: buffer, AQM, link loss, shared-buffer threshold and PFC headroom.
    pub fn drops_total(&self) -> u64 {
        self.drops_buffer
            + self.drops_aqm
            + self.drops_link_loss
            + self.drops_threshold
            + self.drops_headroom
    }
}
