//! `mean_queueing_delay`: a probe of one's own, adding each flow's mean queueing delay to
//! `flows.csv` (`probes: [{name: mean_queueing_delay}]`).
//!
//! A packet's queueing delay at a port is the time from its admission to the first bit of its
//! transmission (`tx_start - admitted` in [`Probe::on_dequeue`]); the column is the mean over
//! every port a flow's data segments were admitted to (sender NIC and switch ports alike), in
//! microseconds. A flow with no data segment queued gets an empty field.

use incastsim::core::{Packet, PacketKind, Time};
use incastsim::extend::ProbeExtension;
use incastsim::scenario::probe::{
    FinishedRun, PortView, Probe, ProbeColumnNames, ProbeReport, ProbeSetup, ProbeValue,
};
use serde::{Deserialize, Serialize};

/// The column it adds to `flows.csv`.
pub const COLUMN: &str = "mean_queueing_delay_us";

/// `mean_queueing_delay` takes no parameters (`probes: [{name: mean_queueing_delay}]`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeanQueueingDelayParams {}

/// The probe's registration.
pub struct MeanQueueingDelayProbe;

/// One run's sums: per flow, the queueing delay of its data segments' hops (ps) and their count.
#[derive(Clone, Debug, Default)]
pub struct MeanQueueingDelay {
    sum_ps: Vec<u64>,
    hops: Vec<u64>,
}

impl Probe for MeanQueueingDelay {
    fn on_dequeue(&mut self, _: Time, _: &PortView, p: &Packet, admitted: Time, tx_start: Time) {
        if p.kind == PacketKind::Data {
            let f = p.flow as usize;
            // A reactive traffic generator adds flows while the run goes: grow on demand.
            if f >= self.sum_ps.len() {
                self.sum_ps.resize(f + 1, 0);
                self.hops.resize(f + 1, 0);
            }
            self.sum_ps[f] += tx_start.since(admitted).as_ps();
            self.hops[f] += 1;
        }
    }

    fn finish(&mut self, _sim: &dyn FinishedRun, report: &mut ProbeReport) {
        let means: Vec<ProbeValue> = self
            .sum_ps
            .iter()
            .zip(&self.hops)
            .map(|(&sum, &n)| (n > 0).then(|| sum as f64 / n as f64 / 1e6).into())
            .collect();
        report.flow_column(COLUMN, means);
    }
}

impl ProbeExtension for MeanQueueingDelayProbe {
    type Params = MeanQueueingDelayParams;
    type Probe = MeanQueueingDelay;
    const DESCRIPTION: &'static str =
        "each flow's mean queueing delay of its data segments over every port, µs (flows.csv)";

    fn new(_params: &MeanQueueingDelayParams, setup: &ProbeSetup) -> MeanQueueingDelay {
        MeanQueueingDelay {
            sum_ps: vec![0; setup.flows],
            hops: vec![0; setup.flows],
        }
    }

    /// Declared so that sweeps write the column too (their headers are fixed before any run).
    fn columns(_params: &MeanQueueingDelayParams) -> ProbeColumnNames {
        ProbeColumnNames {
            flow: vec![COLUMN.to_string()],
            ..ProbeColumnNames::default()
        }
    }
}
