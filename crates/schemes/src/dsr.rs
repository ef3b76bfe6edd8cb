//! Dynamic Segment Resizing (Kulkarni & Agrawal, "seed 003", §4.3, Algorithm 4).
//!
//! The transfer starts with segments of MSS_dsr bytes. After the normal cwnd growth on an ACK:
//! `if MSS_dsr < MSS and cwnd ≥ cwnd_dsr then MSS_temp = min(MSS, cwnd × MSS_dsr / (cwnd_dsr/2));
//! cwnd = MSS_dsr × cwnd / MSS_temp; MSS_dsr = MSS_temp` (cwnd in segments). The rewrite keeps
//! cwnd × segment size, i.e. the byte window, so the engine keeps cwnd in bytes and only changes
//! the segment size ([`SenderAction::SetSmss`]).

use incastsim_tcp::policy::{AckInfo, SenderAction, SenderPolicy, SenderView, hooks};

/// Dynamic segment resizing of one connection (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dsr {
    /// Initial (small) segment size, bytes.
    pub mss_dsr: u32,
    /// Trigger, in segments.
    pub cwnd_dsr: u32,
    /// Every transfer (each response of a persistent connection) starts again with MSS_dsr
    /// segments, cwnd kept in segments ("the transfer starts with segment size MSS_dsr"; whether
    /// state persists across blocks is not stated). Off: only the connection's first transfer.
    pub per_transfer: bool,
}

impl Dsr {
    /// One step of Algorithm 4: the new segment size, if it changes.
    /// `cwnd_segments` is cwnd in segments of the current size `seg`; `mss` the full MSS.
    pub fn resize(&self, cwnd_segments: u64, seg: u32, mss: u32) -> Option<u32> {
        if seg < mss && cwnd_segments >= self.cwnd_dsr as u64 {
            let half = (self.cwnd_dsr as f64 / 2.0).max(1.0);
            let temp = (cwnd_segments as f64 * seg as f64 / half).floor() as u64;
            Some(temp.min(mss as u64).max(seg as u64) as u32)
        } else {
            None
        }
    }
}

impl SenderPolicy for Dsr {
    fn hooks(&self) -> u16 {
        hooks::ON_ACK
    }
    fn initial_smss(&self, configured_mss: u32) -> u32 {
        self.mss_dsr.min(configured_mss)
    }
    fn on_ack(&mut self, view: &SenderView, _ack: &AckInfo) -> SenderAction {
        if self.per_transfer && view.snd_una >= view.app_bytes_written {
            // The transfer is complete: the next one starts with MSS_dsr segments.
            return if view.smss != self.mss_dsr.min(view.mss as u32) as u64 {
                SenderAction::SetSmssKeepSegments(self.mss_dsr.min(view.mss as u32))
            } else {
                SenderAction::None
            };
        }
        // Alg. 4 runs "after normal handling of cwnd growth": not during loss recovery.
        if view.in_recovery {
            return SenderAction::None;
        }
        let cwnd_segments = view.cc.cwnd_bytes / view.smss;
        match self.resize(cwnd_segments, view.smss as u32, view.mss as u32) {
            Some(s) if s as u64 != view.smss => SenderAction::SetSmss(s),
            _ => SenderAction::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithm_4_by_hand() {
        // The book's setting: MSS_dsr = 50 B, cwnd_dsr = 50 segments, MSS 1000 B.
        let d = Dsr {
            mss_dsr: 50,
            cwnd_dsr: 50,
            per_transfer: true,
        };
        // Below the trigger: nothing.
        assert_eq!(d.resize(49, 50, 1000), None);
        // cwnd = 50 segments of 50 B: MSS_temp = 50 × 50 / 25 = 100 B; cwnd becomes
        // 50 × 50 / 100 = 25 segments = cwnd_dsr/2 (the byte window 2500 B is kept).
        assert_eq!(d.resize(50, 50, 1000), Some(100));
        // Next cycle at 50 segments of 100 B: 200 B, then 400 B, 800 B, then capped at MSS.
        assert_eq!(d.resize(50, 100, 1000), Some(200));
        assert_eq!(d.resize(50, 400, 1000), Some(800));
        assert_eq!(d.resize(50, 800, 1000), Some(1000));
        // cwnd = 60 ≥ cwnd_dsr: 60 × 800 / 25 = 1920 → MSS; cwnd = 800 × 60 / 1000 = 48.
        assert_eq!(d.resize(60, 800, 1000), Some(1000));
        // At full size the cycle stops.
        assert_eq!(d.resize(500, 1000, 1000), None);
    }
}
