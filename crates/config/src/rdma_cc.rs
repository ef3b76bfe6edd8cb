//! `tcp.transport.congestion_control`: the rate controller of a RoCE section's queue pairs.
//! A built-in by `kind` (`dcqcn`, `hpcc`, `timely`, or `none`: the line rate throughout), each
//! starting from a named parameter set (`preset`) that any single key overrides; or a
//! controller registered by a downstream crate by `name`, its parameters beside it. The
//! defaults and their sources are `incastsim_roce`'s (`cc/`); a key left out keeps them.

use crate::choice::{ExtensionChoice, tagged_builtins};
use crate::units::{Bytes, Dur, Rate};
use serde::{Deserialize, Serialize};

/// A built-in's named parameter set (the keys beside it override single values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CcPreset {
    /// The paper's values (DCQCN: Zhu et al. SIGCOMM 2015; HPCC: Li et al. SIGCOMM 2019, with
    /// maxStage = 5 as printed; TIMELY: Mittal et al. SIGCOMM 2015).
    Paper,
    /// The HPCC authors' ns-3 fork, as its `run.py` runs each (`dcqcn`, `hp`, `timely`
    /// modes), rates scaled to the NIC's line rate as `run.py` does. The default for DCQCN
    /// (its values are ConnectX's, from the fork's source) and HPCC (maxStage = 0: the
    /// authors' correction of the paper's typo).
    #[default]
    HpccFork,
}

/// DCQCN: which comes first at a CNP, the rate cut or α's update (HPCC#52).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecreaseOrderConfig {
    /// The paper's: cut with the old α, then update α.
    CutThenAlpha,
    /// The fork's (ConnectX): update α, then cut with the new one.
    AlphaThenCut,
}

/// DCQCN: how α is updated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlphaUpdateConfig {
    /// The paper's: up on each CNP, decayed by its timer when none came.
    OnCnp,
    /// The fork's: one update per timer tick, up if a CNP came in it.
    Periodic,
}

/// DCQCN: the hyper-increase step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HyperIncreaseConfig {
    /// The paper's: R_T += i · R_HAI in the i-th hyper stage.
    Scaled,
    /// The fork's: R_T += R_HAI.
    Constant,
}

/// TIMELY: what a completion (an update of the rate) is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimelyUpdateConfig {
    /// Every ACK.
    EveryAck,
    /// Every `update_bytes` acknowledged (the paper's segment completions).
    EveryBytes,
    /// Once per RTT (the fork's).
    OncePerRtt,
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
            preset: CcPreset,
            /// α's EWMA gain g.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            g: Option<f64>,
            /// α before the first CNP.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            initial_alpha: Option<f64>,
            /// α's timer (the paper's K).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            alpha_interval: Option<Dur>,
            /// How α is updated.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            alpha_update: Option<AlphaUpdateConfig>,
            /// At most one cut per this interval (0: one per CNP).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            rate_decrease_interval: Option<Dur>,
            /// The cut's order against α's update.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            decrease_order: Option<DecreaseOrderConfig>,
            /// The rate after the first CNP, as a fraction of the current rate.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            rate_on_first_cnp: Option<f64>,
            /// At every cut the target rate takes the current rate (the paper's Eq. 1).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            clamp_target_rate: Option<bool>,
            /// The rate-increase timer (the paper's T).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            increase_interval: Option<Dur>,
            /// The rate-increase byte counter (the paper's B; 0: none).
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
            /// The hyper-increase step's form.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            hyper_increase: Option<HyperIncreaseConfig>,
            /// The lowest rate.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            min_rate: Option<Rate>,
            /// An ACK's ECN echo counts as a CNP (the fork's CNP: a flag on the ACK).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            ecn_echo_as_cnp: Option<bool>,
            /// The notification point's CNP interval N (the paper: 50 µs; `none` with the
            /// fork's ACK-flag CNPs).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            cnp_interval: Option<Dur>,
        },
        /// HPCC (Li et al., SIGCOMM 2019): a window from the switches' in-band telemetry.
        Hpcc = "hpcc" {
            /// The parameter set the keys below override.
            #[serde(default)]
            preset: CcPreset,
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
            /// React to every ACK between the once-per-RTT updates (the fork's FAST_REACT).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            fast_react: Option<bool>,
        },
        /// TIMELY (Mittal et al., SIGCOMM 2015): the rate from the RTT's gradient.
        Timely = "timely" {
            /// The parameter set the keys below override (default `paper`).
            #[serde(default = "paper_preset")]
            preset: CcPreset,
            /// EWMA weight α of the RTT difference.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            alpha: Option<f64>,
            /// Multiplicative decrease β.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            beta: Option<f64>,
            /// Additive increase δ.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            delta: Option<Rate>,
            /// Hyper-active increase: N × δ.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            hai_factor: Option<u32>,
            /// Completions with a non-positive gradient before hyper-active increase.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            hai_after: Option<u32>,
            /// Below this RTT, increase.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            t_low: Option<Dur>,
            /// Above this RTT, decrease.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            t_high: Option<Dur>,
            /// The minimum RTT that normalizes the gradient.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            min_rtt: Option<Dur>,
            /// What a completion is.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            update: Option<TimelyUpdateConfig>,
            /// Bytes per completion with `update: every_bytes`.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            update_bytes: Option<Bytes>,
            /// The lowest rate.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            min_rate: Option<Rate>,
        },
    }
}

/// TIMELY's default preset: the paper's (the fork changes what a completion is).
fn paper_preset() -> CcPreset {
    CcPreset::Paper
}

impl RdmaCcConfig {
    /// Whether this is the default (no controller): not printed in resolved configs.
    pub fn is_none(&self) -> bool {
        matches!(self, RdmaCcConfig::None)
    }

    /// Whether the controller may set a window, which an ACK may shrink: HPCC's W, and a
    /// registered controller's (it may set `RateControl::window_bytes`).
    pub fn may_set_window(&self) -> bool {
        matches!(self, RdmaCcConfig::Hpcc { .. } | RdmaCcConfig::Extension(_))
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
