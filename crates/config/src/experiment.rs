//! The experiment config file (`incastsim experiment`): TCPRand's enqueue-probability
//! micro-experiment (Lee et al. 2017, §3.2). The experiment itself runs in the scenario crate
//! (the `incastsim-experiment` crate).

use crate::defaults::default_seed;
use crate::error::{ConfigError, invalid};
use crate::tree::{apply_override, parse_tree};
use crate::units::{Buffer, Bytes, Rate};
use serde::{Deserialize, Serialize};

/// An experiment config file: `name`, `seed` and one `experiment:` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentFile {
    /// A label copied into the outputs.
    #[serde(default = "default_name")]
    pub name: String,
    /// Base seed of the trials.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// The experiment and its parameters.
    pub experiment: Experiment,
}

// `ExperimentFile` and `EnqueueProbability` have required keys (`experiment`, `r_min`), so serde
// cannot fill them from a `Default`: the other keys keep a default function each.
fn default_name() -> String {
    "experiment".into()
}

/// An experiment that is not a network run (`incastsim experiment`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Experiment {
    /// TCPRand §3.2, Fig. 5: the enqueue probability of the frames after a drop.
    EnqueueProbability(EnqueueProbability),
}

/// The rMin values: a list, or `{from, to, step}` (inclusive).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RMin {
    /// These values, bytes.
    List(Vec<u64>),
    /// `{from, to, step}`, inclusive, bytes.
    Range {
        /// First value.
        from: u64,
        /// Last value (included if on a step).
        to: u64,
        /// Increment.
        step: u64,
    },
}

/// Parameters of the enqueue-probability experiment (TCPRand Fig. 5).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnqueueProbability {
    /// Rate of both inputs and of the output port (`1Gbps`).
    #[serde(default = "default_rate")]
    pub link_rate: Rate,
    /// Largest payload (the paper's MSS, 1,448 B).
    #[serde(default = "default_mss")]
    pub mss: Bytes,
    /// TCP/IP header bytes per frame.
    #[serde(default = "default_header")]
    pub header: Bytes,
    /// Ethernet bytes per frame on the wire, inter-frame gap included.
    #[serde(default = "default_overhead")]
    pub frame_overhead: Bytes,
    /// Output queue limit (`N packets` or bytes), counting the frame being sent.
    #[serde(default = "default_buffer")]
    pub buffer: Buffer,
    /// The rMin values to try: payloads are drawn from U[rMin, mss].
    pub r_min: RMin,
    /// Accepted trials per rMin value.
    #[serde(default = "default_trials")]
    pub trials: u32,
    /// Arrivals a trial may take to reach its start condition before it is redrawn.
    #[serde(default = "default_max_arrivals")]
    pub max_arrivals: u32,
}

// TCPRand §3.2 (Fig. 5; configs/papers/tcprand-fig5.yaml): 1 Gbps inputs and output.
fn default_rate() -> Rate {
    Rate(incastsim_core::BitsPerSec::gbps(1))
}
// The paper's MSS: 1460 B less the 12 B timestamp option.
fn default_mss() -> Bytes {
    Bytes(1448)
}
// TCP/IP with timestamps (not stated by the paper).
fn default_header() -> Bytes {
    Bytes(52)
}
// Preamble + SFD 8, Ethernet header 14, FCS 4, inter-frame gap 12.
fn default_overhead() -> Bytes {
    Bytes(38)
}
// Q_max is not stated: 100 full frames, in bytes.
fn default_buffer() -> Buffer {
    Buffer::Bytes(150_000)
}
/// Most trials per rMin value: about a minute per value here (the paper ran 1000), so a typo
/// cannot start a run of years.
pub const MAX_TRIALS: u32 = 10_000_000;

// The paper's 1000 trials per rMin.
fn default_trials() -> u32 {
    1000
}
// A bound on a trial's search for its start condition, not a paper value.
fn default_max_arrivals() -> u32 {
    100_000
}

impl ExperimentFile {
    /// Reads, overrides (`--set experiment.buffer="20 packets"`) and validates a file.
    pub fn load(path: &std::path::Path, overrides: &[String]) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::from_yaml(&text, overrides)
    }

    /// Parses YAML, applies `--set` overrides and validates.
    pub fn from_yaml(text: &str, overrides: &[String]) -> Result<Self, ConfigError> {
        let mut tree = parse_tree(text)?;
        for o in overrides {
            apply_override(&mut tree, o)?;
        }
        let f: ExperimentFile = serde_path_to_error::deserialize(tree).map_err(|e| {
            let key = e.path().to_string();
            ConfigError::Key {
                key: if key == "." { "config".into() } else { key },
                message: e.into_inner().to_string(),
            }
        })?;
        f.validate()?;
        Ok(f)
    }

    /// The file with every default filled in.
    pub fn to_yaml(&self) -> String {
        serde_saphyr::to_string(self).expect("an experiment always serializes")
    }

    fn validate(&self) -> Result<(), ConfigError> {
        crate::check::check_name(&self.name)?;
        let Experiment::EnqueueProbability(e) = &self.experiment;
        let mss = e.mss.0;
        if mss == 0 || mss > 65_000 {
            return Err(invalid("experiment.mss", e.mss.0, "1 B to 65000 B"));
        }
        if e.header.0 + e.frame_overhead.0 > u16::MAX as u64 - 1 {
            return Err(invalid(
                "experiment.header",
                e.header.0,
                "header + frame_overhead below 65535 B",
            ));
        }
        if e.link_rate.0.0 == 0 {
            return Err(invalid("experiment.link_rate", "0bps", "a positive rate"));
        }
        match e.buffer {
            Buffer::Unlimited => {
                return Err(invalid(
                    "experiment.buffer",
                    "unlimited",
                    "a finite buffer (N packets or bytes): an unlimited queue never drops",
                ));
            }
            Buffer::Packets(0) | Buffer::Bytes(0) => {
                return Err(invalid("experiment.buffer", 0, "at least one packet"));
            }
            Buffer::Bytes(b) if b < mss + e.header.0 + e.frame_overhead.0 => {
                return Err(invalid(
                    "experiment.buffer",
                    format!("{b}B"),
                    "at least one full frame (mss + header + frame_overhead)",
                ));
            }
            _ => {}
        }
        if e.trials == 0 || e.trials > MAX_TRIALS {
            return Err(invalid(
                "experiment.trials",
                e.trials,
                format!("1 to {MAX_TRIALS} trials per rMin value (the paper's: 1000)"),
            ));
        }
        if e.max_arrivals < 10 {
            return Err(invalid(
                "experiment.max_arrivals",
                e.max_arrivals,
                "at least 10",
            ));
        }
        if let RMin::Range { to, .. } = e.r_min
            && to > mss
        {
            return Err(invalid(
                "experiment.r_min.to",
                to,
                format!("1 <= rMin <= mss ({mss} B)"),
            ));
        }
        let values = e.r_min_values();
        if values.is_empty() {
            return Err(invalid(
                "experiment.r_min",
                format!("{:?}", e.r_min),
                "at least one value (a list, or {from, to, step} with from <= to, step >= 1)",
            ));
        }
        if let Some(bad) = values.iter().find(|&&r| r == 0 || r > mss) {
            return Err(invalid(
                "experiment.r_min",
                bad,
                format!("1 <= rMin <= mss ({mss} B)"),
            ));
        }
        Ok(())
    }
}

impl EnqueueProbability {
    /// The rMin values, a range expanded (bytes).
    pub fn r_min_values(&self) -> Vec<u64> {
        match &self.r_min {
            RMin::List(v) => v.clone(),
            RMin::Range { from, to, step } if *step > 0 && from <= to => {
                (*from..=*to).step_by(*step as usize).collect()
            }
            RMin::Range { .. } => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_errors_name_the_key() {
        let yaml = "experiment: {kind: enqueue_probability, r_min: [0]}";
        let err = ExperimentFile::from_yaml(yaml, &[])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("experiment.r_min") && err.contains("rMin"),
            "{err}"
        );
        let yaml = "experiment: {kind: enqueue_probability, r_min: [1], buffer: unlimited}";
        let err = ExperimentFile::from_yaml(yaml, &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("experiment.buffer"), "{err}");
        let yaml =
            "experiment: {kind: enqueue_probability, r_min: {from: 1, to: 1000000000000, step: 1}}";
        let err = ExperimentFile::from_yaml(yaml, &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("experiment.r_min.to"), "{err}");
        let yaml = "experiment: {kind: enqueue_probability, r_min: [1], bogus: 1}";
        let err = ExperimentFile::from_yaml(yaml, &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("bogus"), "{err}");
        let ok = ExperimentFile::from_yaml(
            "experiment: {kind: enqueue_probability, r_min: {from: 1, to: 9, step: 4}}",
            &["experiment.buffer=20 packets".into()],
        )
        .unwrap();
        let Experiment::EnqueueProbability(e) = ok.experiment;
        assert_eq!(e.buffer, Buffer::Packets(20));
        assert_eq!(e.r_min_values(), vec![1, 5, 9]);
    }
}
