//! The selective-repeat sender's per-packet state (IRN, SIGCOMM 2018 §3.1): which packets in
//! flight the receiver has selectively acknowledged, which are deemed lost and wait for their
//! retransmission, and which were already retransmitted in this recovery.
//!
//! One flag byte per PSN from snd_una to snd_max, in a ring that grows to the largest flight
//! and is reused from then on (no allocation per packet). Two cursors keep every pass linear:
//! packets below `marked_to` were already judged, and no packet below `rtx_from` waits for a
//! retransmission.

use std::collections::VecDeque;

/// The receiver has it (a NACK named it).
const SACKED: u8 = 1;
/// Deemed lost: retransmit it.
const LOST: u8 = 2;
/// Retransmitted in this recovery: not deemed lost again until a timeout.
const RETX: u8 = 4;

/// Per-packet state of the PSNs in flight, `[base, base + slots.len())`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Scoreboard {
    slots: VecDeque<u8>,
    /// snd_una.
    base: u64,
    /// Slots with SACKED.
    sacked: u64,
    /// Slots with LOST.
    lost: u64,
    /// One past the highest PSN selectively acknowledged.
    high_sack: u64,
    /// Packets below this PSN have been judged lost or not.
    marked_to: u64,
    /// No packet below this PSN is LOST.
    rtx_from: u64,
}

impl Scoreboard {
    /// One past the highest PSN sent (snd_max).
    #[inline]
    fn end(&self) -> u64 {
        self.base + self.slots.len() as u64
    }

    /// A new packet (PSN snd_max) was sent.
    #[inline]
    pub(crate) fn on_new_sent(&mut self) {
        self.slots.push_back(0);
    }

    /// The cumulative acknowledgement moved to `una`.
    pub(crate) fn advance(&mut self, una: u64) {
        while self.base < una {
            let Some(f) = self.slots.pop_front() else {
                break;
            };
            self.sacked -= u64::from(f & SACKED != 0);
            self.lost -= u64::from(f & LOST != 0);
            self.base += 1;
        }
        self.base = self.base.max(una);
        self.marked_to = self.marked_to.max(una);
        self.rtx_from = self.rtx_from.max(una);
        self.high_sack = self.high_sack.max(una);
    }

    /// A NACK named `psn` as received out of order.
    pub(crate) fn sack(&mut self, psn: u64) {
        if psn < self.base || psn >= self.end() {
            return;
        }
        let f = &mut self.slots[(psn - self.base) as usize];
        if *f & SACKED == 0 {
            self.sacked += 1;
            if *f & LOST != 0 {
                self.lost -= 1;
            }
            *f = (*f | SACKED) & !LOST;
        }
        self.high_sack = self.high_sack.max(psn + 1);
    }

    /// One past the highest PSN selectively acknowledged (at least snd_una).
    #[inline]
    pub(crate) fn high_sack(&self) -> u64 {
        self.high_sack
    }

    /// IRN's loss rule: every packet below `limit` not selectively acknowledged and not
    /// retransmitted in this recovery is lost. On a FIFO path a packet is missing at the
    /// receiver once one sent after it arrived.
    pub(crate) fn mark_lost_below(&mut self, limit: u64) {
        let limit = limit.min(self.end());
        let mut psn = self.marked_to.max(self.base);
        while psn < limit {
            let f = &mut self.slots[(psn - self.base) as usize];
            if *f & (SACKED | RETX | LOST) == 0 {
                *f |= LOST;
                self.lost += 1;
            }
            psn += 1;
        }
        self.marked_to = self.marked_to.max(limit);
    }

    /// The retransmission timer expired: every packet in flight the receiver has not
    /// selectively acknowledged is lost, retransmitted or not.
    pub(crate) fn mark_all_lost(&mut self) {
        self.lost = 0;
        for f in self.slots.iter_mut() {
            if *f & SACKED == 0 {
                *f = LOST;
                self.lost += 1;
            }
        }
        self.marked_to = self.end();
        self.rtx_from = self.base;
    }

    /// The lowest lost packet, taken for retransmission (it becomes RETX).
    pub(crate) fn take_lost(&mut self) -> Option<u64> {
        if self.lost == 0 {
            return None;
        }
        let mut psn = self.rtx_from.max(self.base);
        while psn < self.end() {
            let f = &mut self.slots[(psn - self.base) as usize];
            if *f & LOST != 0 {
                *f = (*f & !LOST) | RETX;
                self.lost -= 1;
                self.rtx_from = psn + 1;
                return Some(psn);
            }
            psn += 1;
        }
        unreachable!("a LOST slot is counted but none is at or above rtx_from");
    }

    /// Packets lost and waiting for their retransmission.
    #[inline]
    pub(crate) fn lost(&self) -> u64 {
        self.lost
    }

    /// Packets in flight the receiver has not selectively acknowledged.
    #[inline]
    pub(crate) fn unsacked(&self) -> u64 {
        self.slots.len() as u64 - self.sacked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(n: u64) -> Scoreboard {
        let mut s = Scoreboard::default();
        for _ in 0..n {
            s.on_new_sent();
        }
        s
    }

    /// 0..10 sent, 3 and 6 lost: NACKs naming 4, 5 mark 3 lost; 7 marks 6; each goes once.
    #[test]
    fn holes_below_the_highest_sack_are_lost_once() {
        let mut s = sent(10);
        s.advance(3);
        s.sack(4);
        s.mark_lost_below(s.high_sack());
        assert_eq!((s.lost(), s.take_lost(), s.take_lost()), (1, Some(3), None));
        s.sack(5);
        s.mark_lost_below(s.high_sack());
        assert_eq!(s.take_lost(), None, "3 is already retransmitted");
        s.sack(7);
        s.mark_lost_below(s.high_sack());
        assert_eq!((s.take_lost(), s.take_lost()), (Some(6), None));
        assert_eq!(s.unsacked(), 7 - 3);
        s.advance(6);
        assert_eq!(s.unsacked(), 4 - 1); // 6, 8, 9 (7 is SACKed)
    }

    /// A timeout makes every unSACKed packet lost again, retransmitted or not.
    #[test]
    fn timeout_remarks_everything_unsacked() {
        let mut s = sent(5);
        s.sack(2);
        s.mark_lost_below(s.high_sack());
        assert_eq!(s.take_lost(), Some(0));
        s.mark_all_lost();
        let mut got = vec![];
        while let Some(p) = s.take_lost() {
            got.push(p);
        }
        assert_eq!(got, [0, 1, 3, 4]);
    }

    /// A lost packet that is cumulatively acknowledged (it arrived after all) leaves the count.
    #[test]
    fn acked_lost_packets_are_uncounted() {
        let mut s = sent(4);
        s.sack(3);
        s.mark_lost_below(s.high_sack());
        assert_eq!(s.lost(), 3);
        s.advance(2);
        assert_eq!((s.lost(), s.take_lost(), s.take_lost()), (1, Some(2), None));
        s.sack(99); // never sent: ignored
        assert_eq!(s.high_sack(), 4);
    }
}
