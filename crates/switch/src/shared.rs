//! A switch's shared buffer: one pool of B bytes for all the switch's output queues, admitted
//! by the Dynamic Threshold of Choudhury and Hahne ("Dynamic queue length thresholds for
//! shared-memory packet switches", IEEE/ACM ToN 6(2), 1998), as Broadcom Trident/Tomahawk
//! switches do.
//!
//! DT (§III of the paper): a queue may take a packet while its length is below
//! T(t) = α·(B − Q(t)), Q(t) being the total occupancy of the buffer. With N queues congested at
//! once each settles where q = α·(B − N·q), i.e. q = α·B / (1 + N·α), and B / (1 + N·α) of the
//! buffer stays free for queues that become active. A full buffer means T = 0, so a packet
//! meeting it is refused by the threshold; "buffer full" is the rarer case of a queue below its
//! threshold whose packet is larger than the free space.
//!
//! Optional static reservation (the "guaranteed minimum" of vendors' MMUs): each queue owns
//! `reserved` bytes that only it uses; the shared pool is what remains, S = B − n·reserved, and
//! DT applies to a queue's bytes above its reservation against the pool's free space:
//! admitted into the shared part while max(0, q − R) < α·(S − Σ max(0, qᵢ − R)).
//!
//! The pool's occupancy is kept incrementally: a copy of each queue's occupancy, refreshed only
//! for the queues whose oldest packet has finished transmission since (each port knows when
//! that happens, [`OutputPort::next_release`]; departures are fixed at admission, see
//! [`crate::port`], or, at a port that decides at dequeue (strict priority, a scheduling
//! discipline, whose head drops and trims only lower its queue), "now, check again"), and after
//! every admission through the buffer. Between refreshes the
//! copies can only be too high, and DT is monotone, so an admission the copies allow is
//! decided without refreshing them; a refusal (or a possible new maximum) on the copies brings
//! them up to date first ([`SharedBuffer::admit`]). A refresh costs a scan of one `Time` per
//! non-empty queue plus the queues that changed; debug builds check the totals against a full
//! recount.

use crate::port::OutputPort;
use crate::qdisc::DropReason;
use incastsim_core::Time;

/// The configuration of one shared buffer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SharedBufferParams {
    /// B: the whole buffer, bytes.
    pub size_bytes: u64,
    /// α of the Dynamic Threshold (> 0).
    pub alpha: f64,
    /// Bytes each queue owns outside the shared pool.
    pub reserved_per_queue_bytes: u64,
}

/// Drops a shared buffer refused, by cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SharedBufferStats {
    /// The queue was at or above its dynamic threshold.
    pub drops_threshold: u64,
    /// Below its threshold, but the packet did not fit the free space.
    pub drops_buffer_full: u64,
    /// Highest total occupancy reached, bytes.
    pub max_occupancy_bytes: u64,
}

/// One switch's shared buffer and the output queues that draw from it.
#[derive(Clone, Debug)]
pub struct SharedBuffer {
    /// Its size, α and per-queue reservation.
    pub params: SharedBufferParams,
    /// The switch's output ports (indices into the run's port vector), by slot.
    pub ports: Vec<u32>,
    /// S = B − n·reserved: the pool DT shares.
    shared_size: u64,
    /// Per slot: the queue's bytes when last looked at, and when they next fall by themselves.
    queue_bytes: Vec<u64>,
    next_release: Vec<Time>,
    /// The earliest of `next_release`: before it, no queue has changed but by admission.
    earliest_release: Time,
    /// Bit per slot: its queue holds something (`next_release` is finite), so a catch-up visits
    /// only those (most of a switch's queues are empty most of the time).
    busy: Vec<u64>,
    /// Σ queue_bytes, and Σ max(0, queue_bytes − reserved) (kept only with reservations:
    /// without, it is `total`; see [`SharedBuffer::shared_used`]).
    total: u64,
    shared_used: u64,
    /// Counters so far.
    pub stats: SharedBufferStats,
}

impl SharedBuffer {
    /// `n·reserved ≤ B` is checked by the plan; here it is a precondition. The ports must be
    /// empty (a new run) and each must be told its slot ([`OutputPort::set_shared_buffer`]).
    pub fn new(params: SharedBufferParams, ports: Vec<u32>) -> SharedBuffer {
        let reserved = params.reserved_per_queue_bytes * ports.len() as u64;
        assert!(
            reserved <= params.size_bytes,
            "reservations exceed the buffer"
        );
        assert!(params.alpha > 0.0, "α must be positive");
        SharedBuffer {
            params,
            shared_size: params.size_bytes - reserved,
            queue_bytes: vec![0; ports.len()],
            next_release: vec![Time::MAX; ports.len()],
            earliest_release: Time::MAX,
            busy: vec![0; ports.len().div_ceil(64)],
            total: 0,
            shared_used: 0,
            ports,
            stats: SharedBufferStats::default(),
        }
    }

    /// The pool's bytes in use: every queue's bytes above its reservation.
    #[inline(always)]
    fn shared_used(&self) -> u64 {
        if self.params.reserved_per_queue_bytes == 0 {
            self.total
        } else {
            self.shared_used
        }
    }

    /// The pool DT shares (B minus the reservations).
    pub fn shared_size(&self) -> u64 {
        self.shared_size
    }

    /// Total occupancy at `now`, bytes, counted afresh from the ports (for sampling).
    pub fn occupancy(&self, ports: &mut [OutputPort], now: Time) -> u64 {
        self.ports
            .iter()
            .map(|&p| ports[p as usize].occupancy(now).bytes)
            .sum()
    }

    /// Brings slot `slot`'s copy of its queue up to date at `now`.
    #[inline]
    fn refresh_slot(&mut self, ports: &mut [OutputPort], slot: usize, now: Time) {
        let port = &mut ports[self.ports[slot] as usize];
        let bytes = port.occupancy(now).bytes;
        let reserved = self.params.reserved_per_queue_bytes;
        let old = self.queue_bytes[slot];
        self.total = self.total - old + bytes;
        if reserved > 0 {
            self.shared_used =
                self.shared_used - old.saturating_sub(reserved) + bytes.saturating_sub(reserved);
        }
        self.queue_bytes[slot] = bytes;
        let next = port.next_release();
        self.next_release[slot] = next;
        let (word, bit) = (slot / 64, 1u64 << (slot % 64));
        if next == Time::MAX {
            self.busy[word] &= !bit;
        } else {
            self.busy[word] |= bit;
        }
    }

    /// Refreshes every queue whose oldest packet may have left by `now`.
    #[inline]
    fn catch_up(&mut self, ports: &mut [OutputPort], now: Time) {
        if now < self.earliest_release {
            return;
        }
        let mut earliest = Time::MAX;
        for word in 0..self.busy.len() {
            let mut bits = self.busy[word];
            while bits != 0 {
                let slot = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if self.next_release[slot] <= now {
                    self.refresh_slot(ports, slot, now);
                }
                earliest = earliest.min(self.next_release[slot]);
            }
        }
        self.earliest_release = earliest;
    }

    /// Whether `wire` bytes arriving at `now` for the queue in `slot` may enter the buffer; a
    /// refusal is counted here, by cause (the caller counts it at the port,
    /// [`OutputPort::refuse`]). The port's own discipline (ECN marking, RED) then decides as
    /// usual on the port's own queue; call [`SharedBuffer::after_offer`] after it.
    ///
    /// Fast path: the copies of the queues are only ever too high (a departure since a queue's
    /// last refresh is still counted), and DT admission is monotone (a longer queue or a fuller
    /// pool never admits more: the threshold falls, the packet's share of the pool and the
    /// pool's use rise). So if the copies admit, the exact occupancies admit too, and if the
    /// copies' total plus the packet stays within the highest total seen, the exact one does:
    /// the packet is admitted without bringing the copies up to date. Only otherwise (a refusal
    /// on the copies, or perhaps a new maximum) does [`SharedBuffer::admit_exact`] catch them up
    /// and apply the rule to the exact values. Same decisions and statistics as an exact count
    /// at every admission, at a fraction of the cost (S3: the exact path runs at one admission
    /// in six; `benches/scenarios.rs`, group `shared-buffer`).
    #[inline(always)]
    pub fn admit(
        &mut self,
        ports: &mut [OutputPort],
        slot: u32,
        now: Time,
        wire: u64,
    ) -> Result<(), DropReason> {
        if self.admits_on_copies(slot, wire) {
            debug_assert!(
                self.total >= self.occupancy(ports, now),
                "the copies undercount the shared buffer"
            );
            return Ok(());
        }
        self.admit_exact(ports, slot, now, wire)
    }

    /// Whether the copies admit `wire` bytes into `slot` without a new maximum: then the exact
    /// values do too.
    #[inline(always)]
    fn admits_on_copies(&self, slot: u32, wire: u64) -> bool {
        if self.total + wire > self.stats.max_occupancy_bytes {
            return false;
        }
        if self.params.reserved_per_queue_bytes == 0 {
            // `decide` without reservations: the pool is B and its use the total, and the
            // packet fits (total + wire ≤ the maximum ≤ B), so only the threshold can refuse.
            let queue = self.queue_bytes[slot as usize];
            let free = self.shared_size - self.total;
            return (queue as i64 as f64) < self.params.alpha * free as i64 as f64;
        }
        self.decide_on_copies(slot, wire).is_ok()
    }

    /// [`SharedBuffer::admit`] on exact occupancies: the copies are caught up first.
    #[inline(never)]
    pub fn admit_exact(
        &mut self,
        ports: &mut [OutputPort],
        slot: u32,
        now: Time,
        wire: u64,
    ) -> Result<(), DropReason> {
        self.catch_up(ports, now);
        debug_assert_eq!(
            self.total,
            self.occupancy(ports, now),
            "shared buffer's running total"
        );
        debug_assert!(
            self.total <= self.params.size_bytes,
            "shared buffer over its size"
        );
        let verdict = self.decide_on_copies(slot, wire);
        match verdict {
            Ok(()) => {
                self.stats.max_occupancy_bytes =
                    self.stats.max_occupancy_bytes.max(self.total + wire);
            }
            Err(DropReason::Threshold) => self.stats.drops_threshold += 1,
            Err(_) => self.stats.drops_buffer_full += 1,
        }
        verdict
    }

    /// The DT rule on the copies as they stand.
    #[inline(always)]
    fn decide_on_copies(&self, slot: u32, wire: u64) -> Result<(), DropReason> {
        decide(
            self.params.alpha,
            self.shared_size,
            self.params.reserved_per_queue_bytes,
            self.queue_bytes[slot as usize],
            self.shared_used(),
            wire,
        )
    }

    /// The port in `slot` was offered `wire` bytes the buffer admitted, and took them
    /// (`taken`) or its own discipline refused them.
    #[inline(always)]
    pub fn after_offer(&mut self, ports: &mut [OutputPort], slot: u32, wire: u64, taken: bool) {
        let slot = slot as usize;
        if !taken {
            return;
        }
        // The port has just brought its queue up to date (departures by now released) and
        // added the packet: its count is exact, and at most the copy plus the packet.
        let reserved = self.params.reserved_per_queue_bytes;
        let old = self.queue_bytes[slot];
        let bytes = ports[self.ports[slot] as usize].buffered_bytes_as_last_seen();
        debug_assert!(bytes <= old + wire, "a queue's copy undercounted it");
        self.total = self.total - old + bytes;
        if reserved > 0 {
            self.shared_used =
                self.shared_used - old.saturating_sub(reserved) + bytes.saturating_sub(reserved);
        }
        self.queue_bytes[slot] = bytes;
        if self.next_release[slot] == Time::MAX {
            self.now_busy(ports, slot);
        }
    }

    /// The queue in `slot` was empty and took a packet: its next departure is this packet's
    /// (or, on a priority port, not fixed yet).
    #[inline]
    fn now_busy(&mut self, ports: &[OutputPort], slot: usize) {
        let next = ports[self.ports[slot] as usize].next_release();
        self.next_release[slot] = next;
        self.busy[slot / 64] |= 1u64 << (slot % 64);
        self.earliest_release = self.earliest_release.min(next);
    }
}

/// The DT admission rule for `wire` bytes on a queue of `queue` bytes, with `shared_used` bytes
/// of the pool of `shared_size` in use (every queue's bytes above its reservation).
#[inline]
pub fn decide(
    alpha: f64,
    shared_size: u64,
    reserved: u64,
    queue: u64,
    shared_used: u64,
    wire: u64,
) -> Result<(), DropReason> {
    if queue + wire <= reserved {
        return Ok(()); // within the queue's own reservation
    }
    // The part of the packet that lands in the shared pool.
    let own_shared = queue.saturating_sub(reserved);
    let extra = queue + wire - reserved.max(queue);
    let free = shared_size - shared_used;
    // Choudhury-Hahne §III: admit while q < T = α·(B − Q).
    // Byte counts are far below 2^53, so both sides convert exactly (through i64: one
    // instruction on x86-64, where u64 → f64 takes several).
    if own_shared as i64 as f64 >= alpha * free as i64 as f64 {
        return Err(DropReason::Threshold);
    }
    if extra > free {
        return Err(DropReason::BufferFull);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::tests::pkt;
    use crate::qdisc::{BufferLimit, QueueDisc};
    use crate::{Enqueued, LinkLoss, OutputPort};
    use incastsim_core::{BitsPerSec, Duration, SerializationRate, SimRng};

    #[test]
    fn dt_rule_by_hand() {
        // B = 10 000, α = 1, empty: q = 0 < 10 000 → admit.
        assert_eq!(decide(1.0, 10_000, 0, 0, 0, 1000), Ok(()));
        // One queue of 5 000 alone: T = 1·(10 000 − 5 000) = 5 000, q = 5 000 ≥ T → threshold.
        assert_eq!(
            decide(1.0, 10_000, 0, 5000, 5000, 1000),
            Err(DropReason::Threshold)
        );
        // α = 2: T = 10 000 → admitted.
        assert_eq!(decide(2.0, 10_000, 0, 5000, 5000, 1000), Ok(()));
        // Below the threshold but no room: buffer full.
        assert_eq!(
            decide(64.0, 10_000, 0, 500, 9500, 1000),
            Err(DropReason::BufferFull)
        );
        // Inside the reservation, whatever the pool: admit.
        assert_eq!(decide(1.0 / 128.0, 0, 3000, 2000, 0, 1000), Ok(()));
        // Straddling the reservation: only 500 B go to the pool (free 400) → full.
        assert_eq!(
            decide(1.0, 10_000, 3000, 2500, 9600, 1000),
            Err(DropReason::BufferFull)
        );
    }

    fn port() -> OutputPort {
        OutputPort::new(
            1,
            SerializationRate::new(BitsPerSec::gbps(1)),
            Duration::from_us(1),
            LinkLoss::None,
            SimRng::new(1),
            QueueDisc::drop_tail(BufferLimit::Unlimited),
        )
    }

    /// Offers one 1000 B packet (1040 B on the wire) to `p` through the pool.
    fn offer(pool: &mut SharedBuffer, ports: &mut [OutputPort], p: u32, now: Time) -> bool {
        let packet = pkt(1000);
        match pool.admit(ports, p, now, packet.wire_bytes() as u64) {
            Ok(()) => {
                let taken = matches!(
                    ports[p as usize].enqueue(now, &packet),
                    Enqueued::Admitted { .. }
                );
                pool.after_offer(ports, p, packet.wire_bytes() as u64, taken);
                taken
            }
            Err(reason) => {
                ports[p as usize].refuse(&packet, reason);
                false
            }
        }
    }

    /// Choudhury-Hahne's fixed point: N queues overloaded at once settle at α·B / (1 + N·α)
    /// each, within a packet, for several α and N.
    #[test]
    fn congested_queues_settle_at_the_closed_form_fixed_point() {
        let b = 200 * 1040u64;
        for &alpha in &[0.25, 0.5, 1.0, 2.0, 4.0] {
            for n in 1..=4usize {
                let mut ports: Vec<OutputPort> = (0..n + 1).map(|_| port()).collect();
                let params = SharedBufferParams {
                    size_bytes: b,
                    alpha,
                    reserved_per_queue_bytes: 0,
                };
                let mut pool = SharedBuffer::new(params, (0..=n as u32).collect());
                // Each congested queue is offered packets at twice its line rate (one every
                // 4.16 us, round robin) for 10 ms; port n stays idle.
                let mut t = Time::ZERO;
                loop {
                    for p in 0..n as u32 {
                        offer(&mut pool, &mut ports, p, t);
                    }
                    if t >= Time(10_000_000_000) {
                        break; // read the queues at the instant of the last offers
                    }
                    t += Duration::from_ps(4_160_000);
                }
                let expect = alpha * b as f64 / (1.0 + n as f64 * alpha);
                for (p, port) in ports.iter_mut().enumerate().take(n) {
                    let q = port.occupancy(t).bytes as f64;
                    assert!(
                        (q - expect).abs() <= 1040.0,
                        "α = {alpha}, N = {n}, queue {p}: {q} B, closed form {expect:.0} B"
                    );
                }
                assert_eq!(pool.stats.drops_buffer_full, 0, "DT keeps free space");
                assert!(pool.stats.drops_threshold > 0);
                assert_eq!(ports[n].occupancy(t).bytes, 0);
            }
        }
    }

    #[test]
    fn a_reservation_is_kept_for_its_queue() {
        // B = 10 packets, 2 reserved for each of 2 queues; α large: queue 0 takes the pool.
        let params = SharedBufferParams {
            size_bytes: 10 * 1040,
            alpha: 64.0,
            reserved_per_queue_bytes: 2 * 1040,
        };
        let mut ports = vec![port(), port()];
        let mut pool = SharedBuffer::new(params, vec![0, 1]);
        let admitted = (0..20)
            .filter(|_| offer(&mut pool, &mut ports, 0, Time::ZERO))
            .count();
        assert_eq!(admitted, 8, "its reservation + the whole pool of 6");
        // A full pool means T = α·0 = 0: the threshold refuses.
        assert_eq!(pool.stats.drops_threshold, 12);
        assert!(offer(&mut pool, &mut ports, 1, Time::ZERO));
        assert!(offer(&mut pool, &mut ports, 1, Time::ZERO));
        assert!(!offer(&mut pool, &mut ports, 1, Time::ZERO));
        assert_eq!(pool.occupancy(&mut ports, Time::ZERO), 10 * 1040);
        assert_eq!(ports[0].stats().drops_threshold, 12);
        assert_eq!(ports[1].stats().drops_threshold, 1);
        assert_eq!(pool.stats.drops_buffer_full, 0);
    }

    /// The incast effect at one switch: with the same buffer, a burst arriving at one port is
    /// absorbed up to α·B / (1 + α) while the other ports are idle, but only up to
    /// α·(B − 2q) / (1 + α) ≈ α·B / (1 + 3α) while two other ports hold their DT share q.
    #[test]
    fn a_burst_is_absorbed_less_when_other_ports_are_busy() {
        let b = 120 * 1040u64;
        let burst = |busy: usize| {
            let params = SharedBufferParams {
                size_bytes: b,
                alpha: 1.0,
                reserved_per_queue_bytes: 0,
            };
            let mut ports: Vec<OutputPort> = (0..4).map(|_| port()).collect();
            let mut pool = SharedBuffer::new(params, vec![0, 1, 2, 3]);
            // Fill the busy ports to their fixed point (all at one instant: nothing leaves).
            for _ in 0..200 {
                for p in 1..=busy as u32 {
                    offer(&mut pool, &mut ports, p, Time::ZERO);
                }
            }
            // Then 100 packets arrive at port 0 at once.
            (0..100)
                .filter(|_| offer(&mut pool, &mut ports, 0, Time::ZERO))
                .count()
        };
        // Idle: q < 120 − q → 60 packets. Two busy ports at 40 each: q < 40 − q → 20 packets.
        assert_eq!(burst(0), 60);
        assert_eq!(burst(2), 20);
    }
}
