//! The SACK scoreboard of RFC 6675: which bytes above the cumulative ACK the receiver holds.

/// SACKed byte ranges `[start, end)` above snd_una: sorted, disjoint, merged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scoreboard {
    ranges: Vec<(u64, u64)>,
}

/// A hole: unSACKed bytes `[start, end)` and whether RFC 6675's IsLost() holds for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hole {
    /// First byte of the hole.
    pub start: u64,
    /// One past its last byte.
    pub end: u64,
    /// RFC 6675 IsLost(): at least DupThresh segments' worth of bytes SACKed above it.
    pub lost: bool,
}

impl Scoreboard {
    /// The SACKed ranges, `[start, end)`, sorted and disjoint.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }
    /// Nothing SACKed.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
    /// Forgets every SACKed range.
    pub fn clear(&mut self) {
        self.ranges.clear();
    }
    /// One past the highest SACKed byte, if any.
    pub fn highest_sacked(&self) -> Option<u64> {
        self.ranges.last().map(|r| r.1)
    }

    /// Records a SACK block; returns how many bytes it newly covers.
    pub fn insert(&mut self, start: u64, end: u64) -> u64 {
        if start >= end {
            return 0;
        }
        let before: u64 = self.covered(start, end);
        let i = self.ranges.partition_point(|&(_, e)| e < start);
        let mut j = i;
        let (mut s, mut e) = (start, end);
        while j < self.ranges.len() && self.ranges[j].0 <= e {
            s = s.min(self.ranges[j].0);
            e = e.max(self.ranges[j].1);
            j += 1;
        }
        if i == j {
            self.ranges.insert(i, (s, e));
        } else {
            self.ranges[i] = (s, e);
            self.ranges.drain(i + 1..j);
        }
        (end - start) - before
    }

    /// Bytes of `[start, end)` already SACKed.
    pub fn covered(&self, start: u64, end: u64) -> u64 {
        self.ranges
            .iter()
            .map(|&(s, e)| e.min(end).saturating_sub(s.max(start)))
            .sum()
    }

    /// Forgets everything below the cumulative ACK.
    pub fn advance(&mut self, snd_una: u64) {
        let n = self.ranges.partition_point(|&(_, e)| e <= snd_una);
        self.ranges.drain(..n);
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(snd_una);
        }
    }

    /// The SACKed range containing `seq`, if any (its end).
    pub fn sacked_end(&self, seq: u64) -> Option<u64> {
        let i = self.ranges.partition_point(|&(_, e)| e <= seq);
        self.ranges.get(i).filter(|r| r.0 <= seq).map(|r| r.1)
    }

    /// Start of the first SACKed range above `seq` (or `u64::MAX`).
    pub fn next_sacked_start(&self, seq: u64) -> u64 {
        let i = self.ranges.partition_point(|&(_, e)| e <= seq);
        self.ranges.get(i).map_or(u64::MAX, |r| r.0.max(seq))
    }

    /// The holes between `snd_una` and `snd_max`, lowest first, each with RFC 6675 IsLost():
    /// DupThresh discontiguous SACKed ranges above it, or more than (DupThresh − 1)·SMSS SACKed
    /// bytes above it. (Both counts are the same for every byte of one hole.)
    pub fn holes(
        &self,
        snd_una: u64,
        snd_max: u64,
        dupthresh: u32,
        smss: u64,
    ) -> impl Iterator<Item = Hole> + '_ {
        let n = self.ranges.len();
        // Suffix sums of SACKed bytes, computed lazily from the top while iterating upwards
        // would need a reverse pass; ranges are few, so compute the total once and subtract.
        let total: u64 = self.ranges.iter().map(|r| r.1 - r.0).sum();
        let mut above = total;
        let mut cursor = snd_una;
        let mut i = 0;
        std::iter::from_fn(move || {
            while cursor < snd_max {
                let (next_start, next_end) = if i < n {
                    self.ranges[i]
                } else {
                    (snd_max, snd_max)
                };
                if cursor < next_start {
                    let hole_end = next_start.min(snd_max);
                    let ranges_above = (n - i) as u32;
                    let lost = ranges_above >= dupthresh || above > (dupthresh as u64 - 1) * smss;
                    let h = Hole {
                        start: cursor,
                        end: hole_end,
                        lost,
                    };
                    cursor = hole_end;
                    return Some(h);
                }
                if i < n {
                    above -= next_end - next_start;
                    i += 1;
                    cursor = cursor.max(next_end);
                } else {
                    break;
                }
            }
            None
        })
    }

    /// RFC 6675 IsLost(seq) for an unSACKed byte.
    pub fn is_lost(&self, seq: u64, dupthresh: u32, smss: u64) -> bool {
        let i = self.ranges.partition_point(|&(s, _)| s <= seq);
        let ranges_above = (self.ranges.len() - i) as u32;
        let bytes_above: u64 = self.ranges[i..].iter().map(|r| r.1 - r.0).sum();
        ranges_above >= dupthresh || bytes_above > (dupthresh as u64 - 1) * smss
    }

    /// RFC 6675 SetPipe(): unSACKed bytes in [snd_una, snd_max) not deemed lost, plus those
    /// retransmitted in this recovery (below `high_rxt`).
    pub fn pipe(
        &self,
        snd_una: u64,
        snd_max: u64,
        high_rxt: u64,
        dupthresh: u32,
        smss: u64,
    ) -> u64 {
        self.holes(snd_una, snd_max, dupthresh, smss)
            .map(|h| {
                let in_flight = if h.lost { 0 } else { h.end - h.start };
                let retransmitted = h.end.min(high_rxt).saturating_sub(h.start);
                in_flight + retransmitted
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_merges_and_counts_new_bytes() {
        let mut sb = Scoreboard::default();
        assert_eq!(sb.insert(2000, 3000), 1000);
        assert_eq!(sb.insert(4000, 5000), 1000);
        assert_eq!(sb.insert(2500, 4500), 1000, "only 3000..4000 is new");
        assert_eq!(sb.ranges(), &[(2000, 5000)]);
        assert_eq!(sb.insert(2000, 3000), 0);
        sb.advance(2500);
        assert_eq!(sb.ranges(), &[(2500, 5000)]);
        sb.advance(6000);
        assert!(sb.is_empty());
    }

    #[test]
    fn is_lost_needs_three_segments_or_ranges_above() {
        // Window 0..10000 (SMSS 1000); segment 0 lost, 1..3 SACKed: 3000 B above 0 > 2 SMSS.
        let mut sb = Scoreboard::default();
        sb.insert(1000, 3000);
        assert!(!sb.is_lost(0, 3, 1000), "2000 B above is not > 2*SMSS");
        sb.insert(3000, 4000);
        assert!(sb.is_lost(0, 3, 1000));
        // Three discontiguous ranges above make it lost even with little data.
        let mut sb = Scoreboard::default();
        for s in [1000, 1200, 1400] {
            sb.insert(s, s + 100);
        }
        assert!(sb.is_lost(0, 3, 1000));
    }

    #[test]
    fn pipe_counts_unsacked_unlost_and_retransmitted_bytes() {
        // Sent 0..10000; 0 and 5000 lost; the rest SACKed.
        let mut sb = Scoreboard::default();
        sb.insert(1000, 5000);
        sb.insert(6000, 10_000);
        let holes: Vec<Hole> = sb.holes(0, 10_000, 3, 1000).collect();
        assert_eq!(
            holes,
            vec![
                Hole {
                    start: 0,
                    end: 1000,
                    lost: true
                },
                Hole {
                    start: 5000,
                    end: 6000,
                    lost: true
                }
            ]
        );
        assert_eq!(
            sb.pipe(0, 10_000, 0, 3, 1000),
            0,
            "both holes lost, nothing retransmitted"
        );
        assert_eq!(
            sb.pipe(0, 10_000, 1000, 3, 1000),
            1000,
            "the retransmission of 0 is in flight"
        );
        // New data sent beyond the last SACK is in the pipe until proven lost.
        assert_eq!(sb.pipe(0, 12_000, 1000, 3, 1000), 3000);
        // A hole with only 2 SMSS SACKed above is not yet lost: it counts in the pipe.
        let mut sb = Scoreboard::default();
        sb.insert(1000, 3000);
        assert_eq!(sb.pipe(0, 3000, 0, 3, 1000), 1000);
    }
}
