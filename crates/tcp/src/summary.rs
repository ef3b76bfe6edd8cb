//! What a connection's outputs read from it, as plain `Copy` values: a finished connection is
//! kept as these (a few hundred bytes) instead of its whole state (congestion control, SACK
//! scoreboard, RACK, timers, scheme: about 1.5 KB plus buffers), so a run with many short flows
//! holds full state only for the flows in progress.

use crate::cc_state::CcState;
use crate::policy::{ReceiverPolicy, SenderPolicy};
use crate::receiver::{ReceiverStats, TcpReceiver};
use crate::sender::{SenderStats, TcpSender};
use crate::timeout_class::TimeoutClassStats;
use incastsim_core::Duration;

/// A sender's counters and final state: what flows.csv, runs.csv and the diagnostics read.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SenderSummary {
    /// Its counters ([`TcpSender::stats`]).
    pub stats: SenderStats,
    /// Its timeouts by class ([`TcpSender::timeout_classes`]).
    pub timeout_classes: TimeoutClassStats,
    /// Its controller's state ([`TcpSender::cc_state`]).
    pub cc: CcState,
    /// Its controller's name ([`crate::Cc::name`]). Not serialized: a store of summaries keeps
    /// the names apart (they are `'static`) and puts them back.
    #[serde(skip)]
    pub cc_name: &'static str,
    /// Its smoothed RTT (`None`: no sample yet).
    pub srtt: Option<Duration>,
    /// RTT samples taken (their mean is the RTT the book's model is fed, §3.2).
    pub rtt_samples: u64,
    /// The samples' sum, ps.
    pub rtt_sample_sum_ps: u128,
    /// Oldest unacknowledged byte.
    pub snd_una: u64,
    /// One past the highest byte sent.
    pub snd_max: u64,
    /// One past the last byte the application wrote.
    pub app_limit: u64,
}

/// A receiver's counters and final state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReceiverSummary {
    /// Its counters ([`TcpReceiver::stats`]).
    pub stats: ReceiverStats,
    /// The next byte expected in order.
    pub rcv_nxt: u64,
    /// One past the highest byte received, in order or not.
    pub highest_received: u64,
}

impl<P: SenderPolicy> TcpSender<P> {
    /// Its summary now (counters as they stand: call [`TcpSender::close_stats`] first for
    /// final ones).
    pub fn summary(&self) -> SenderSummary {
        SenderSummary {
            stats: *self.stats(),
            timeout_classes: *self.timeout_classes(),
            cc: self.cc_state(),
            cc_name: self.cc().name(),
            srtt: self.rtt().srtt(),
            rtt_samples: self.rtt().samples(),
            rtt_sample_sum_ps: self.rtt().sample_sum_ps(),
            snd_una: self.snd_una(),
            snd_max: self.snd_max(),
            app_limit: self.app_limit(),
        }
    }
}

impl<P: ReceiverPolicy> TcpReceiver<P> {
    /// Its summary now.
    pub fn summary(&self) -> ReceiverSummary {
        ReceiverSummary {
            stats: *self.stats(),
            rcv_nxt: self.rcv_nxt(),
            highest_received: self.highest_received(),
        }
    }
}
