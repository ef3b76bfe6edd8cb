//! `queue_histogram`: a probe with a table of its own, `queue_histogram.csv`: per switch or NIC
//! port (by its ports.csv name) and queue length, how many packets found the queue at that
//! length once admitted (`probes: [{name: queue_histogram, bin: 4}]`: lengths in bins of 4
//! packets). It reads each admission's [`PortView`] (name, rate, occupancy), so it needs
//! nothing of the run at the end. A sweep writes its table too (declared in
//! [`ProbeExtension::columns`]), one file for all runs, after `point` and `replicate`.

use incastsim::config::invalid;
use incastsim::core::{Packet, Time};
use incastsim::extend::ProbeExtension;
use incastsim::scenario::ConfigError;
use incastsim::scenario::probe::{
    FinishedRun, PortView, Probe, ProbeColumnNames, ProbeReport, ProbeSetup,
};
use serde::{Deserialize, Serialize};

/// The table's file.
pub const TABLE: &str = "queue_histogram.csv";
/// Its columns: the port's name, its rate, the bin's lowest queue length (packets, the
/// admitted packet included) and the admissions in it.
pub const COLUMNS: [&str; 4] = ["port", "rate_bps", "queue_packets", "admissions"];

/// `queue_histogram`'s parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueHistogramParams {
    /// Width of a bin, packets.
    #[serde(default = "one")]
    pub bin: u32,
}

fn one() -> u32 {
    1
}

/// The probe's registration.
pub struct QueueHistogramProbe;

/// One run's counts: per port id, its name, rate and the admissions per bin.
#[derive(Clone, Debug, Default)]
pub struct QueueHistogram {
    bin: u32,
    ports: Vec<Option<(String, u64, Vec<u64>)>>,
}

impl Probe for QueueHistogram {
    fn on_enqueue(&mut self, _now: Time, port: &PortView, _packet: &Packet) {
        let i = port.index as usize;
        if self.ports.len() <= i {
            self.ports.resize(i + 1, None);
        }
        let (_, _, counts) = self.ports[i]
            .get_or_insert_with(|| (port.name.to_string(), port.rate.as_f64() as u64, Vec::new()));
        let b = (port.occupancy.packets / self.bin) as usize;
        if counts.len() <= b {
            counts.resize(b + 1, 0);
        }
        counts[b] += 1;
    }

    fn finish(&mut self, _sim: &dyn FinishedRun, report: &mut ProbeReport) {
        let mut rows = Vec::new();
        for (name, rate, counts) in self.ports.iter().flatten() {
            for (b, &n) in counts.iter().enumerate().filter(|(_, n)| **n > 0) {
                let low = b as u64 * u64::from(self.bin);
                rows.push(vec![
                    name.as_str().into(),
                    (*rate).into(),
                    low.into(),
                    n.into(),
                ]);
            }
        }
        report.table(TABLE, COLUMNS.map(String::from).to_vec(), rows);
    }
}

impl ProbeExtension for QueueHistogramProbe {
    type Params = QueueHistogramParams;
    type Probe = QueueHistogram;
    const DESCRIPTION: &'static str =
        "admissions per port and queue length (queue_histogram.csv, a table of its own)";

    fn check(p: &QueueHistogramParams) -> Result<(), ConfigError> {
        if p.bin == 0 {
            return Err(invalid("bin", 0, "at least 1 packet"));
        }
        Ok(())
    }

    fn new(p: &QueueHistogramParams, _setup: &ProbeSetup) -> QueueHistogram {
        QueueHistogram {
            bin: p.bin,
            ports: Vec::new(),
        }
    }

    /// Declares the table, so a sweep writes it (its files are fixed before the first run).
    fn columns(_p: &QueueHistogramParams) -> ProbeColumnNames {
        ProbeColumnNames::default().table(TABLE, COLUMNS)
    }
}
