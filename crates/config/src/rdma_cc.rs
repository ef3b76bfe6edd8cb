//! `tcp.transport.congestion_control`: the rate controller of a RoCE section's queue pairs.
//! A built-in by `kind` (`dcqcn`, `hpcc`, `timely`, or `none`: the line rate throughout), each
//! starting from a named parameter set (`preset`) that any single key overrides; or a
//! controller registered by a downstream crate by `name`, its parameters beside it. The
//! defaults and their sources are `incastsim_roce`'s (`cc/`); a key left out keeps them.

use crate::choice::{ExtensionChoice, tagged_builtins};
use crate::units::{Bytes, Dur, Rate};
use serde::{Deserialize, Serialize};

/// DCQCN's named parameter sets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DcqcnPreset {
    /// Zhu et al., SIGCOMM 2015 (the values of its §3 and §5).
    #[default]
    Paper,
    /// The HPCC authors' ns-3 fork, `run.py`'s `dcqcn` mode (the ConnectX values it uses).
    HpccFork,
}

/// HPCC's reading of maxStage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HpccPreset {
    /// The SIGCOMM 2019 paper's parameters.
    #[default]
    Paper,
    /// The HPCC fork's `run.py` `hp` mode.
    HpccFork,
}

tagged_builtins! {
    /// The rate controller of RoCE queue pairs.
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(tag = "kind", deny_unknown_fields)]
    pub enum RdmaCcConfig, names RDMA_CC_KINDS, name_fn name {
        /// No congestion control: every queue pair sends at its initial rate.
        #[default]
        None = "none",
        /// DCQCN (Zhu et al., SIGCOMM 2015): ECN marks at the switches (the queue discipline's
        /// `ecn`), CNPs from the receiver, the rate cut and recovered at the sender.
        Dcqcn = "dcqcn" {
            /// The parameter set the keys below override.
            #[serde(default)]
            preset: DcqcnPreset,
            /// α's EWMA gain g.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            g: Option<f64>,
            /// α's decay timer (the paper's K).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            alpha_timer: Option<Dur>,
            /// The rate-increase timer (the paper's T).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            rate_timer: Option<Dur>,
            /// The rate-increase byte counter (the paper's B).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            byte_counter: Option<Bytes>,
            /// Fast-recovery stages (the paper's F).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            fast_recovery_stages: Option<u32>,
            /// Additive increase step R_AI.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            rate_ai: Option<Rate>,
            /// Hyper increase step R_HAI.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            rate_hai: Option<Rate>,
            /// The lowest rate.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            min_rate: Option<Rate>,
            /// At most one cut per this interval.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            rate_decrease_interval: Option<Dur>,
            /// On a CNP, the target rate always takes the current rate.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            clamp_target_rate: Option<bool>,
            /// The notification point's CNP interval N (default 50 µs).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            cnp_interval: Option<Dur>,
        },
        /// HPCC (Li et al., SIGCOMM 2019): a window from the switches' in-band telemetry.
        Hpcc = "hpcc" {
            /// The parameter set the keys below override.
            #[serde(default)]
            preset: HpccPreset,
            /// Target utilization η.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            eta: Option<f64>,
            /// Additive-increase stages before a multiplicative update (maxStage).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            max_stage: Option<u32>,
            /// Additive increase W_AI.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            w_ai: Option<Bytes>,
            /// The base RTT T of every flow (default: each flow's own, from the topology).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            base_rtt: Option<Dur>,
            /// The lowest rate.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            min_rate: Option<Rate>,
        },
        /// TIMELY (Mittal et al., SIGCOMM 2015): the rate from the RTT's gradient.
        Timely = "timely" {
            /// EWMA weight α of the RTT difference.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            ewma_alpha: Option<f64>,
            /// Multiplicative decrease β.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            beta: Option<f64>,
            /// Additive increase δ.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            delta: Option<Rate>,
            /// Below this RTT, increase.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            t_low: Option<Dur>,
            /// Above this RTT, decrease.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            t_high: Option<Dur>,
            /// The minimum RTT that normalizes the gradient.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            min_rtt: Option<Dur>,
            /// Completions with a negative gradient before hyper-active increase (N).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            hai_after: Option<u32>,
            /// The lowest rate.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            min_rate: Option<Rate>,
        },
    }
}

impl RdmaCcConfig {
    /// Whether this is the default (no controller): not printed in resolved configs.
    pub fn is_none(&self) -> bool {
        matches!(self, RdmaCcConfig::None)
    }

    /// Whether its data packets carry HPCC's INT header.
    pub fn wants_int(&self) -> bool {
        matches!(self, RdmaCcConfig::Hpcc { .. })
    }
}

impl Serialize for RdmaCcConfig {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RdmaCcConfig::Extension(e) => e.serialize(s),
            builtin => RdmaCcConfig::serialize(builtin, s),
        }
    }
}

impl<'de> Deserialize<'de> for RdmaCcConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let kinds = || RDMA_CC_KINDS.join(", ");
        let (name, mut params) = match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(name) => (name, serde_json::Map::new()),
            serde_json::Value::Object(mut m) => match (m.remove("kind"), m.remove("name")) {
                (Some(serde_json::Value::String(n)), None)
                | (None, Some(serde_json::Value::String(n))) => (n, m),
                _ => {
                    return Err(D::Error::custom(format!(
                        "expected {{kind: <one of {}>, ...}} or {{name: <registered RDMA controller>, ...}}",
                        kinds()
                    )));
                }
            },
            other => {
                return Err(D::Error::custom(format!(
                    "invalid RDMA congestion controller {other}: one of {}, or a registered one's name",
                    kinds()
                )));
            }
        };
        if incastsim_tcp::BuiltinController::from_name(&name).is_some() {
            return Err(D::Error::custom(format!(
                "{name} is a TCP congestion controller; RoCE queue pairs take one of {} (or a registered RDMA controller)",
                kinds()
            )));
        }
        if RDMA_CC_KINDS.contains(&name.as_str()) {
            params.insert("kind".into(), name.into());
            RdmaCcConfig::deserialize(serde_json::Value::Object(params)).map_err(D::Error::custom)
        } else {
            Ok(RdmaCcConfig::Extension(ExtensionChoice { name, params }))
        }
    }
}
