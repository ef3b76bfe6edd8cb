//! What a finished flow keeps: its sender's and receiver's summaries, packed.
//!
//! A finished generated flow's connection is given up ([`super::connections`]); the results
//! read only its summaries (counters and final state). Held as structs those take 528 bytes
//! per flow, most of them counters that stay 0 or small, so a million-flow collective kept
//! half a gigabyte of zeros. Here each flow's summaries are one varint record (`postcard`,
//! exact: every integer as written, every float bit for bit) in one byte arena, about 70–110
//! bytes per flow, and read back into the same structs. The controllers' names (`'static`)
//! are kept once each, the values a controller or scheme of a downstream crate reports only
//! for the flows that have some.

use incastsim_tcp::{ReceiverSummary, SenderSummary};

/// The finished flows' summaries, by the order they finished.
#[derive(Debug, Default)]
pub struct FinishedFlows {
    /// Every record, one after another.
    bytes: Vec<u8>,
    /// Where each record starts in `bytes` (the next one's start ends it).
    start: Vec<u64>,
    /// The controllers' names, each once; a record starts with its index here.
    cc_names: Vec<&'static str>,
    /// (finished index, values) for the flows whose components report values of their own.
    values: Vec<(u32, OwnValues)>,
}

/// The values a flow's controller and scheme report of their own, by name.
type OwnValues = Box<[(&'static str, f64)]>;

impl FinishedFlows {
    /// Flows kept.
    pub fn len(&self) -> usize {
        self.start.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }

    /// Keeps a finished flow's summaries and values; returns its index.
    pub fn push(
        &mut self,
        sender: &SenderSummary,
        receiver: &ReceiverSummary,
        values: Vec<(&'static str, f64)>,
    ) -> u32 {
        let index = self.start.len() as u32;
        let name = match self.cc_names.iter().position(|n| *n == sender.cc_name) {
            Some(i) => i,
            None => {
                self.cc_names.push(sender.cc_name);
                self.cc_names.len() - 1
            }
        };
        self.start.push(self.bytes.len() as u64);
        let bytes = std::mem::take(&mut self.bytes);
        self.bytes = postcard::to_extend(&(name as u32, sender, receiver), bytes)
            .expect("a summary always encodes into a growable buffer");
        if !values.is_empty() {
            self.values.push((index, values.into_boxed_slice()));
        }
        index
    }

    fn record(&self, i: u32) -> (SenderSummary, ReceiverSummary) {
        let i = i as usize;
        let end = self
            .start
            .get(i + 1)
            .map_or(self.bytes.len(), |&e| e as usize);
        let bytes = &self.bytes[self.start[i] as usize..end];
        let (name, mut sender, receiver): (u32, SenderSummary, ReceiverSummary) =
            postcard::from_bytes(bytes).expect("a record reads back as it was written");
        sender.cc_name = self.cc_names[name as usize];
        (sender, receiver)
    }

    /// Flow `i`'s sender summary, as it was when it finished.
    pub fn sender(&self, i: u32) -> SenderSummary {
        self.record(i).0
    }

    /// Flow `i`'s receiver summary, as it was when it finished.
    pub fn receiver(&self, i: u32) -> ReceiverSummary {
        self.record(i).1
    }

    /// Flow `i`'s own values (empty for the built-in components).
    pub fn values(&self, i: u32) -> &[(&'static str, f64)] {
        match self.values.binary_search_by_key(&i, |(k, _)| *k) {
            Ok(k) => &self.values[k].1,
            Err(_) => &[],
        }
    }

    /// Bytes held (for the memory measurements).
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + 8 * self.start.capacity() + 24 * self.values.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use incastsim_core::{Duration, Time};
    use incastsim_tcp::{CcState, CubicState, RecoveryState, SenderStats, TimeoutClassStats};

    fn summary(cc_name: &'static str, k: u64) -> SenderSummary {
        let mut stats = SenderStats {
            segments_sent: 1000 + k,
            timeouts: k,
            timeout_wait_ps: u64::MAX - k,
            ..SenderStats::default()
        };
        stats.successive_timeouts[3] = 7;
        SenderSummary {
            stats,
            timeout_classes: TimeoutClassStats {
                abtt: k,
                ..TimeoutClassStats::default()
            },
            cc: CcState {
                cwnd_bytes: 14_600,
                ssthresh_bytes: u64::MAX,
                cubic: Some(CubicState {
                    w_max_segments: 0.1 + k as f64,
                    cwnd_epoch_segments: f64::NAN,
                    k_s: -0.0,
                    epoch_start: Some(Time::ZERO + Duration::from_ns(3)),
                    w_est_segments: 1e300,
                }),
                dctcp_alpha: None,
                dctcp_alpha_mean: Some(0.25),
                recovery: RecoveryState::FastRecovery,
            },
            cc_name,
            srtt: Some(Duration::from_us(12)),
            rtt_samples: 3,
            rtt_sample_sum_ps: u128::MAX - 1,
            snd_una: 1 << 40,
            snd_max: 1 << 40,
            app_limit: 1 << 40,
        }
    }

    #[test]
    fn records_read_back_bit_for_bit() {
        let mut store = FinishedFlows::default();
        let receiver = ReceiverSummary {
            rcv_nxt: 77,
            highest_received: 78,
            ..ReceiverSummary::default()
        };
        let names = ["cubic", "dctcp", "cubic"];
        for (k, name) in names.iter().enumerate() {
            let values = if k == 1 {
                vec![("base_rtt_us", 1.5)]
            } else {
                vec![]
            };
            assert_eq!(
                store.push(&summary(name, k as u64), &receiver, values),
                k as u32
            );
        }
        for (k, name) in names.iter().enumerate() {
            let (want, got) = (summary(name, k as u64), store.sender(k as u32));
            // NaN != NaN: compare the bits of the one NaN field, the rest as values.
            let bits = |s: &SenderSummary| s.cc.cubic.unwrap().cwnd_epoch_segments.to_bits();
            assert_eq!(bits(&got), bits(&want));
            let strip = |mut s: SenderSummary| {
                s.cc.cubic.as_mut().unwrap().cwnd_epoch_segments = 0.0;
                s
            };
            assert_eq!(strip(got), strip(want));
            assert_eq!(store.receiver(k as u32), receiver);
        }
        assert_eq!(store.values(1), &[("base_rtt_us", 1.5)]);
        assert!(store.values(0).is_empty() && store.values(2).is_empty());
        assert_eq!(store.cc_names.len(), 2);
        // Mostly small counters: far below the 528 bytes of the structs.
        assert!(
            store.bytes.len() / 3 < 200,
            "{} bytes",
            store.bytes.len() / 3
        );
    }
}
