//! `topology.switch_queue`: the switch ports' queue discipline, a built-in by `kind` (drop-tail,
//! RED/WRED, ECN threshold, threshold admission) or a registered extension by `name`.

use crate::choice::{ExtensionChoice, tagged_builtins};
use crate::defaults::default_true;
use crate::units::Buffer;
use serde::{Deserialize, Serialize};

tagged_builtins! {
    /// The queue discipline of every switch output port: a built-in by `kind`
    /// (`{kind: red, min_th: 5 packets, ...}`), or a discipline registered by a downstream crate
    /// by `name`, its parameters beside it (`{name: my_threshold, threshold: 20 packets}`, or just
    /// `my_threshold` for its defaults; see [`crate::extension`]). Either key takes either kind of
    /// name, so `kind: my_threshold` works too; an unknown one lists the built-ins and what is
    /// registered.
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(tag = "kind", deny_unknown_fields)]
    pub enum QueueConfig, names QUEUE_KINDS, name_fn name {
        /// Drop arrivals that do not fit the buffer.
        #[default]
        DropTail = "drop_tail",
        /// RED (Floyd & Jacobson): thresholds in bytes or packets, on an EWMA of the queue.
        Red = "red" {
            /// Below this average queue, no drops (RED min_th).
            min_th: Buffer,
            /// Above it, every arrival dropped or marked (max_th; `gentle` ramps to 2 × max_th).
            max_th: Buffer,
            /// Drop probability at max_th.
            #[serde(default = "default_max_p")]
            max_p: f64,
            /// Weight of the queue EWMA (Floyd & Jacobson: 0.002).
            #[serde(default = "default_w_q")]
            w_q: f64,
            /// Gentle RED: the probability rises from max_p to 1 between max_th and 2 × max_th.
            #[serde(default = "default_true")]
            gentle: bool,
            /// Mark ECN-capable packets instead of dropping them.
            #[serde(default)]
            ecn: bool,
        },
        /// WRED: a RED profile per traffic class (DSCP); unlisted DSCPs use the first profile.
        Wred = "wred" {
            /// The profiles, by DSCP.
            profiles: Vec<WredProfile>,
            /// Weight of the queue EWMA.
            #[serde(default = "default_w_q")]
            w_q: f64,
            /// Gentle RED.
            #[serde(default = "default_true")]
            gentle: bool,
            /// Mark ECN-capable packets instead of dropping them.
            #[serde(default)]
            ecn: bool,
        },
        /// DCTCP marking: CE on ECN-capable arrivals when the instantaneous queue exceeds K.
        EcnThreshold = "ecn_threshold" {
            /// The marking threshold K (bytes or packets).
            k: Buffer,
        },
        /// PLATO's switch: at or above the threshold, only labelled packets are admitted.
        ThresholdAdmit = "threshold_admit" {
            /// Queue length from which only labelled packets are admitted.
            threshold: Buffer,
        },
    }
}

impl Serialize for QueueConfig {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            // `{name: my_threshold, <params>}`, as it is written.
            QueueConfig::Extension(e) => e.serialize(s),
            // Built-ins as before: `{kind: red, ...}`.
            builtin => QueueConfig::serialize(builtin, s),
        }
    }
}

impl<'de> Deserialize<'de> for QueueConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let kinds = || QUEUE_KINDS.join(", ");
        let (name, mut params) = match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(name) => (name, serde_json::Map::new()),
            serde_json::Value::Object(mut m) => {
                let name = match (m.remove("kind"), m.remove("name")) {
                    (Some(n), None) | (None, Some(n)) => n,
                    (Some(k), Some(n)) => {
                        return Err(D::Error::custom(format!(
                            "both kind ({k}) and name ({n}): write {{kind: <built-in>, ...}} or {{name: <registered discipline>, ...}}"
                        )));
                    }
                    (None, None) => {
                        return Err(D::Error::custom(format!(
                            "missing `kind`: one of {}, or `name` of a registered discipline",
                            kinds()
                        )));
                    }
                };
                match name {
                    serde_json::Value::String(name) => (name, m),
                    other => {
                        return Err(D::Error::custom(format!(
                            "invalid queue discipline {other}: one of {}, or a registered discipline's name",
                            kinds()
                        )));
                    }
                }
            }
            other => {
                return Err(D::Error::custom(format!(
                    "invalid queue discipline {other}: expected {{kind: <one of {}>, ...}} or {{name: <registered discipline>, ...}}",
                    kinds()
                )));
            }
        };
        if QUEUE_KINDS.contains(&name.as_str()) {
            params.insert("kind".into(), name.into());
            QueueConfig::deserialize(serde_json::Value::Object(params)).map_err(D::Error::custom)
        } else {
            // Not a built-in: the loader's catalog knows it, or lists what it knows.
            Ok(QueueConfig::Extension(ExtensionChoice { name, params }))
        }
    }
}

/// One WRED profile: RED thresholds for some traffic classes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WredProfile {
    /// The DSCPs that use it.
    pub dscp: Vec<u8>,
    /// RED min_th.
    pub min_th: Buffer,
    /// RED max_th.
    pub max_th: Buffer,
    /// Drop probability at max_th.
    #[serde(default = "default_max_p")]
    pub max_p: f64,
}

// RED / WRED have required thresholds, so these stay one function each.
// Drop probability 0.1 at max_th.
fn default_max_p() -> f64 {
    0.1
}
// Floyd & Jacobson's EWMA weight, 0.002.
fn default_w_q() -> f64 {
    0.002
}

#[cfg(test)]
mod tests {
    use crate::Config;

    const BASE: &str = "senders: 4
topology: {kind: star, switch_buffer: 32KB}
workload: {kind: synchronized_reads, sru: 64KB, blocks: 2}";

    fn load(set: &str) -> Result<Config, String> {
        Config::from_yaml(BASE, &[set.to_string()]).map_err(|e| e.to_string())
    }

    /// Built-ins read and print as before (`kind:` first); a bare built-in name is its
    /// parameterless form.
    #[test]
    fn builtins_read_and_print_as_before() {
        let cfg = load("topology.switch_queue={kind: ecn_threshold, k: 20 packets}").unwrap();
        let yaml = cfg.to_yaml();
        assert!(yaml.contains("kind: ecn_threshold"), "{yaml}");
        assert!(!yaml.contains("name: ecn_threshold"), "{yaml}");
        let again = Config::from_yaml(&yaml, &[]).unwrap();
        assert_eq!(again.topology.switch_queue(), cfg.topology.switch_queue());
        let bare = load("topology.switch_queue=drop_tail").unwrap();
        assert_eq!(bare.topology.switch_queue(), &super::QueueConfig::DropTail);
        assert_eq!(cfg.topology.switch_queue().name(), "ecn_threshold");
    }

    /// Errors inside a built-in still name the key; an unknown name lists the built-ins (and,
    /// with a registry, what is registered: crates/scenario and the template crate test that).
    #[test]
    fn errors_name_the_key_and_what_is_allowed() {
        let e = load("topology.switch_queue={kind: red, min_th: 5 packets}").unwrap_err();
        assert!(
            e.contains("topology.switch_queue") && e.contains("max_th"),
            "{e}"
        );
        let e = load("topology.switch_queue={kind: ecn_threshold, k: lots}").unwrap_err();
        assert!(e.starts_with("topology.switch_queue.k"), "{e}");
        let e = load("topology.switch_queue={kind: codel}").unwrap_err();
        assert!(
            e.starts_with("topology.switch_queue = codel: one of drop_tail, red, wred, ecn_threshold, threshold_admit, or a registered extension: none registered"),
            "{e}"
        );
        let e = load("topology.switch_queue={name: codel, target: 5ms}").unwrap_err();
        assert!(e.starts_with("topology.switch_queue = codel:"), "{e}");
        let e = load("topology.switch_queue={kind: red, name: codel}").unwrap_err();
        assert!(
            e.contains("both kind") && e.contains("topology.switch_queue"),
            "{e}"
        );
        let e = load("topology.switch_queue={threshold: 5 packets}").unwrap_err();
        assert!(e.contains("missing `kind`"), "{e}");
    }
}
