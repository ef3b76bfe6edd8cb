//! The `scheme:` section: which incast mitigation scheme runs, with its parameters by the papers'
//! names and in human units. `scheme: tda` is short for `scheme: {name: tda}` (all defaults).
//! Every parameter is printed in the resolved config and is a sweepable key (`scheme.delta`).
//! The scheme state itself is built by the scenario crate (`plan::schemes`).

use crate::choice::ExtensionChoice;
use crate::error::{ConfigError, invalid};
use crate::tcp::TcpConfig;
use crate::units::{Bytes, Dur};
use incastsim_core::Duration;
use incastsim_tcp::BuiltinController;
use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

/// What a built-in scheme's parameters check against the TCP settings they apply to (the
/// top-level `tcp`, and each flow-override group's). Errors name `scheme.<key>`.
pub trait SchemeParams {
    /// Each parameter with its meaning, for `incastsim schemes` (a struct declared with
    /// `scheme_params!` has them as `DECLARED`); default: none listed.
    const PARAMETERS: &'static [Parameter] = &[];
    /// Checks the parameters; the default accepts any.
    fn validate(&self, _tcp: &TcpConfig) -> Result<(), ConfigError> {
        Ok(())
    }
}

/// Declares a scheme's parameters struct with each field's meaning once: the text is the
/// field's doc comment and, in `DECLARED` (for `SchemeParams::PARAMETERS`), what `incastsim schemes`
/// prints beside its default (with the field's type, from which it names the unit).
macro_rules! scheme_params {
    (
        $(#[$smeta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $field:ident : $ty:ty = $doc:literal,
            )*
        }
    ) => {
        $(#[$smeta])*
        pub struct $name {
            $(
                #[doc = $doc]
                $(#[$fmeta])*
                pub $field: $ty,
            )*
        }

        impl $name {
            /// Each parameter with its meaning (what `SchemeParams::PARAMETERS` gives).
            pub const DECLARED: &'static [Parameter] = &[$(Parameter {
                name: stringify!($field),
                type_name: stringify!($ty),
                meaning: $doc,
            }),*];
        }
    };
}

/// One parameter of a scheme, as `incastsim schemes` describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parameter {
    /// Its key in `scheme: {name: ..., <key>: <value>}`.
    pub name: &'static str,
    /// Its Rust type (`Dur`, `Bytes`, `f64`, `Option<Dur>`, ...): [`Parameter::unit`] reads it.
    pub type_name: &'static str,
    /// What it means.
    pub meaning: &'static str,
}

impl Parameter {
    /// What a value is written as: "a duration (1ms)", "bytes (64KB)", "a number", ...
    pub fn unit(&self) -> &'static str {
        match self.type_name.replace(' ', "").as_str() {
            "Dur" => "a duration, e.g. 1ms",
            "Option<Dur>" => "a duration, e.g. 1ms, or null",
            "Bytes" => "bytes, e.g. 64KB",
            "Option<Bytes>" => "bytes, e.g. 64KB, or null",
            "f64" => "a number",
            "u32" => "an integer",
            "Option<u32>" => "an integer, or null",
            "bool" => "true or false",
            "RMinConfig" => "bytes, e.g. 200B, or adaptive",
            "Nu" => "a number, or inf",
            "PrSegmentName" => "snd_una or last_sent",
            "PlatoRetxLabelName" => "separate or heartbeat",
            _ => "see the guide",
        }
    }
}

/// Declares the built-in schemes once: each line gives the variant, its parameters type, the
/// name configs and runs.csv use, and the one-line description `incastsim schemes` prints.
/// From it come [`SchemeConfig`], [`SCHEMES`], `SchemeConfig::name`, both serde directions
/// and `SchemeConfig::validate`.
macro_rules! builtin_schemes {
    (
        $(#[$none_doc:meta])*
        none: $none_about:literal;
        $(
            $(#[$doc:meta])*
            $variant:ident($params:ty) = $name:literal, $about:literal;
        )+
    ) => {
        /// The scheme and its parameters. In YAML a mapping `{name: <scheme>, <param>: <value>, ...}`.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub enum SchemeConfig {
            $(#[$none_doc])*
            #[default]
            None,
            $($(#[$doc])* $variant($params),)+
            /// A scheme registered by a downstream crate (checked and completed by the loader's
            /// [`crate::Catalog`]; see [`crate::extension`]).
            Extension(ExtensionChoice),
        }

        /// Every built-in scheme name with a one-line description (for `incastsim schemes` and
        /// errors).
        pub const SCHEMES: &[(&str, &str)] = &[("none", $none_about), $(($name, $about)),+];

        impl SchemeConfig {
            /// The parameters of built-in scheme `name`, each with its meaning and type (none
            /// for `none` or a name that is not built in).
            pub fn parameters(name: &str) -> &'static [Parameter] {
                match name {
                    $($name => <$params as SchemeParams>::PARAMETERS,)+
                    _ => &[],
                }
            }

            /// The scheme's name as configs and runs.csv spell it (`none`, `tda`, ..., or an
            /// extension's).
            pub fn name(&self) -> &str {
                match self {
                    SchemeConfig::None => "none",
                    $(SchemeConfig::$variant(_) => $name,)+
                    SchemeConfig::Extension(e) => &e.name,
                }
            }

            /// Checks the parameters against the TCP settings of the flows they apply to (the
            /// top-level `tcp`, and each flow-override group's).
            pub fn validate(&self, tcp: &TcpConfig) -> Result<(), ConfigError> {
                match self {
                    SchemeConfig::None => Ok(()),
                    $(SchemeConfig::$variant(p) => SchemeParams::validate(p, tcp),)+
                    // Checked by the catalog while loading.
                    SchemeConfig::Extension(_) => Ok(()),
                }
            }

            /// The scheme `name` with the parameters `rest` (a mapping without `name`).
            fn read<E: de::Error>(name: String, rest: serde_json::Value) -> Result<SchemeConfig, E> {
                Ok(match name.as_str() {
                    "none" => {
                        match rest.as_object() {
                            Some(m) if !m.is_empty() => {
                                return Err(de::Error::custom(format!(
                                    "scheme {name} has no parameters (got {})",
                                    m.keys().cloned().collect::<Vec<_>>().join(", ")
                                )));
                            }
                            _ => {}
                        }
                        SchemeConfig::None
                    }
                    $($name => SchemeConfig::$variant(read_params(&name, rest)?),)+
                    // Not a built-in: the loader's catalog knows it, or lists what it knows.
                    _ => SchemeConfig::Extension(ExtensionChoice {
                        name,
                        params: match rest {
                            serde_json::Value::Object(m) => m,
                            _ => Default::default(),
                        },
                    }),
                })
            }

            /// The parameters as a mapping (`None` for an extension, written as it was given).
            fn params_value(&self) -> Option<Result<serde_json::Value, serde_json::Error>> {
                Some(match self {
                    SchemeConfig::None => Ok(serde_json::json!({})),
                    $(SchemeConfig::$variant(p) => serde_json::to_value(p),)+
                    SchemeConfig::Extension(_) => return None,
                })
            }
        }
    };
}

/// A built-in scheme's parameters read from `rest`; errors say where and which scheme.
fn read_params<T: serde::de::DeserializeOwned, E: de::Error>(
    name: &str,
    rest: serde_json::Value,
) -> Result<T, E> {
    serde_path_to_error::deserialize(rest).map_err(|e| {
        let path = e.path().to_string();
        let at = if path == "." {
            String::new()
        } else {
            format!("{path}: ")
        };
        E::custom(format!("{at}{} (scheme {name})", e.into_inner()))
    })
}

impl<'de> Deserialize<'de> for SchemeConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut map = match serde_json::Value::deserialize(d)? {
            serde_json::Value::Object(m) => m,
            serde_json::Value::String(name) => {
                let mut m = serde_json::Map::new();
                m.insert("name".into(), name.into());
                m
            }
            other => {
                return Err(de::Error::custom(format!(
                    "invalid scheme {other}: expected a scheme name or {{name: <scheme>, ...}}"
                )));
            }
        };
        let name = match map.remove("name") {
            Some(serde_json::Value::String(n)) => n,
            Some(other) => {
                return Err(de::Error::custom(format!(
                    "`name` is {other}: it takes one scheme's name, a string (e.g. {{name: tda}})"
                )));
            }
            None => {
                let names: Vec<&str> = SCHEMES.iter().map(|(n, _)| *n).collect();
                return Err(de::Error::custom(format!(
                    "missing `name`; expected one of {}",
                    names.join(", ")
                )));
            }
        };
        SchemeConfig::read(name, serde_json::Value::Object(map))
    }
}

impl Serialize for SchemeConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let params = match (self, self.params_value()) {
            (SchemeConfig::Extension(e), _) => return e.serialize(s),
            (_, Some(p)) => p.map_err(serde::ser::Error::custom)?,
            (_, None) => unreachable!("only an extension has no parameters value"),
        };
        let mut map = serde_json::Map::new();
        map.insert("name".into(), self.name().into());
        if let serde_json::Value::Object(m) = params {
            map.extend(m);
        }
        map.serialize(s)
    }
}

builtin_schemes! {
    /// Plain TCP.
    none: "plain TCP: no incast mitigation";
    /// RTO randomization, static interval (Hafeez et al. Eq. 3): RTO = U(RTO_min ± Δ/2) × 2^b.
    RtoStatic(RtoStaticParams) = "rto_static", "RTO randomization, static interval: RTO = U(RTO_min - delta/2, RTO_min + delta/2) x 2^b (Hafeez et al. Eq. 3)";
    /// Timeout-Driven Adaptation (Eq. 8): interval ω^s·Δ on the s-th successive timeout.
    Tda(TdaParams) = "tda", "RTO randomization, Timeout-Driven Adaptation: interval omega^s x delta on the s-th successive timeout (Eq. 8)";
    /// Multiplexing-Aware Adaptation: Δ = ⌊N/(σ log₂ N)⌋ × unit, N = active senders.
    Maa(MaaParams) = "maa", "RTO randomization, Multiplexing-Aware Adaptation: delta = floor(N / (sigma log2 N)) x unit, N = active senders";
    /// Flow-Size Aware Adaptation: TDA with ω_long once `long_after` bytes were sent, else ω_short.
    Fsa(FsaParams) = "fsa", "RTO randomization, Flow-Size Aware: TDA with omega_long after long_after bytes sent, else omega_short";
    /// Fine-grained RTO (Vasudevan et al. 2009) randomized backoff: RTO × 2^b × (1 + U(0, max_extra)).
    /// Set tcp.rto_min (200us) and tcp.clock_granularity (1us) for the paper's setting.
    FineRto(FineRtoParams) = "fine_rto", "fine-grained RTO (Vasudevan et al.): randomized backoff RTO x 2^b x (1 + U(0, max_extra)); set tcp.rto_min";
    /// TCPRand (Lee et al.): payload U[rMin, MSS]; rMin a size or `adaptive` (Algorithm 1, CUBIC).
    Tcprand(TcprandParams) = "tcprand", "TCPRand (Lee et al.): payload U[r_min, MSS]; r_min bytes or `adaptive` (Algorithm 1 on CUBIC)";
    /// Probabilistic retransmission (Kulkarni & Agrawal §4.2, Alg. 1-3).
    ProbRetx(ProbRetxParams) = "prob_retx", "probabilistic retransmission (Kulkarni & Agrawal Alg. 1-3): every period, with probability p, resend the highest unACKed segment (segment: snd_una | last_sent) marked";
    /// Dynamic Segment Resizing (Kulkarni & Agrawal §4.3, Alg. 4), optional header compression.
    Dsr(DsrParams) = "dsr", "Dynamic Segment Resizing (Kulkarni & Agrawal Alg. 4): start with mss_dsr, grow at cwnd_dsr; optional compressed_header";
    /// TCP PLATO (Shukla et al.); pair with topology.switch_queue {kind: threshold_admit}.
    Plato(PlatoParams) = "plato", "TCP PLATO (Shukla et al.): labelling state machine with dummy probes; use switch_queue threshold_admit";
    /// ICTCP (Wu et al. 2010): receiver-side window control per connection.
    Ictcp(IctcpConfigParams) = "ictcp", "ICTCP (Wu et al.): receiver adjusts each connection's window from measured vs expected throughput within alpha x link capacity";
}

scheme_params! {
    /// Parameters of `Ictcp` (see [`SchemeConfig`]).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    pub struct IctcpConfigParams {
        gamma1: f64 = "γ1: below this fraction of the expected throughput (d_b ≤ γ1) the window may grow by one MSS.",
        gamma2: f64 = "γ2: above it (d_b > γ2) for three checks in a row, the window shrinks by one MSS.",
        alpha: f64 = "Share of the receiving link's capacity the connections may use.",
        beta: f64 = "EWMA weight of the measured throughput.",
        initial_rtt: Dur = "RTT assumed before the first receiver-side measurement.",
        min_window_segments: u32 = "Initial and minimal advertised window, segments.",
    }
}

scheme_params! {
    /// Parameters of `RtoStatic` (see [`SchemeConfig`]).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    pub struct RtoStaticParams {
        delta: Dur = "Δ of Eq. 3: the RTO is drawn from U(RTO_min − Δ/2, RTO_min + Δ/2).",
    }
}

scheme_params! {
    /// Parameters of `Tda` (see [`SchemeConfig`]). The readings (`keep_backoff`, `s_max`,
    /// `lower_bound`) and why their defaults: `RtoRandMode::Tda` in the schemes crate.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    pub struct TdaParams {
        delta: Dur = "Δ of Eq. 8, the interval width before any timeout.",
        omega: f64 = "ω of Eq. 8: the interval grows to ω^s Δ after s successive timeouts.",
        keep_backoff: bool = "Eq. 2's ×2^b on top of Eq. 8 (default false: the growing interval is the backoff).",
        s_max: Option<u32> = "Eq. 8's M, the largest s; null = no cap (the paper gives no value).",
        lower_bound: Option<Dur> = "The lowest RTO a draw may take; null = the clock granularity.",
    }
}

scheme_params! {
    /// Parameters of `Maa` (see [`SchemeConfig`]).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    pub struct MaaParams {
        sigma: f64 = "σ of f(N, σ) = ⌊N / (σ log₂ N)⌋: larger σ, narrower interval.",
        unit: Dur = "The unit of f(N, σ): Δ = f(N, σ) units.",
    }
}

scheme_params! {
    /// Parameters of `Fsa` (see [`SchemeConfig`]).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    pub struct FsaParams {
        delta: Dur = "Δ, as for TDA.",
        omega_long: f64 = "ω once the flow has sent `long_after` bytes (long flows).",
        omega_short: f64 = "ω before that (short flows).",
        long_after: Bytes = "Bytes sent after which a flow counts as long.",
    }
}

scheme_params! {
    /// Parameters of `FineRto` (see [`SchemeConfig`]).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    pub struct FineRtoParams {
        max_extra: f64 = "The timeout is RTO × 2^b × (1 + U(0, max_extra)) (§5.3 of the fine-grained RTO paper: 0.5).",
    }
}

scheme_params! {
    /// Parameters of `Tcprand` (see [`SchemeConfig`]).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    pub struct TcprandParams {
        r_min: RMinConfig = "rMin, the smallest payload drawn: bytes or `adaptive`.",
        mu: f64 = "μ of Φ (Algorithm 1 line 4).",
        sigma2: f64 = "σ² of Φ.",
        nu_tau: Nu = "ν_τ ∈ [1, ∞]: trigger point τ = W_max − (W_max − α)/ν_τ (Eq. 2).",
        nu_omega: Nu = "ν_ω ∈ [0, ∞): end point ω = W_max + (W_max − α)/ν_ω (Eq. 3); 0 gives ω = ∞.",
        theta: Bytes = "θ: lower bound of rMin, bytes (200 B in the paper).",
    }
}

scheme_params! {
    /// Parameters of `ProbRetx` (see [`SchemeConfig`]).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    pub struct ProbRetxParams {
        period: Dur = "How often the retransmission thread runs (Alg. 1: 20 µs).",
        p: f64 = "Probability that the thread resends a segment when it runs.",
        #[serde(alias = "target")]
        segment: PrSegmentName = "Which segment the thread resends: `snd_una` (default) or `last_sent` (see `incastsim_schemes::prob_retx` for the reading). `target: oldest | highest` is accepted as an older spelling.",
        suspend_in_recovery: bool = "Alg. 3's suspension of the thread from the third duplicate ACK until recovery ends.",
    }
}

scheme_params! {
    /// Parameters of `Plato` (see [`SchemeConfig`]).
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    pub struct PlatoParams {
        retransmission_label: PlatoRetxLabelName = "`separate` (default): retransmissions pass the switch but their ACKs are not labelled; `heartbeat`: retransmissions carry the heartbeat label (see `incastsim_schemes::plato`).",
    }
}

/// Whether PLATO's retransmissions carry the heartbeat label.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlatoRetxLabelName {
    /// Retransmissions pass the switch unlabelled; their ACKs are not labelled.
    #[default]
    Separate,
    /// Retransmissions carry the heartbeat label.
    Heartbeat,
}

scheme_params! {
    /// Parameters of `Dsr` (see [`SchemeConfig`]).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(default, deny_unknown_fields)]
    pub struct DsrParams {
        mss_dsr: Bytes = "MSS_dsr: the small segment size a transfer starts with, bytes.",
        cwnd_dsr: u32 = "cwnd_dsr: the window, segments, at which segments grow back toward the MSS.",
        per_transfer: bool = "Every response (block) starts again with MSS_dsr segments (false: only the first).",
        #[serde(skip_serializing_if = "Option::is_none")]
        compressed_header: Option<Bytes> = "Header bytes per packet with RFC 1144 compression (3-4 B on average); none: tcp.header.",
    }
}

impl Default for IctcpConfigParams {
    fn default() -> Self {
        // The ICTCP paper's values (Wu et al., CoNEXT 2010; configs/papers/wu-ictcp.yaml).
        IctcpConfigParams {
            gamma1: 0.1,
            gamma2: 0.5,
            // α = 0.9 of the receiving link's capacity.
            alpha: 0.9,
            beta: 0.75,
            // About a data-center base RTT (S1's is 100 µs) until the receiver measures one.
            initial_rtt: Dur(Duration::from_us(100)),
            // ICTCP's floor of 2 MSS per connection.
            min_window_segments: 2,
        }
    }
}

impl Default for RtoStaticParams {
    fn default() -> Self {
        // Hafeez et al. do not state Δ: 1 ms, their sizing example (100 packets of 10 µs).
        RtoStaticParams {
            delta: Dur(Duration::from_ms(1)),
        }
    }
}

impl Default for TdaParams {
    fn default() -> Self {
        TdaParams {
            // Hafeez et al.'s sizing example, as for `rto_static`.
            delta: Dur(Duration::from_ms(1)),
            // ω = 2, the paper's TDA (Figs. 7 and 9).
            omega: 2.0,
            // The readings the text supports best (`RtoRandMode::Tda` in the schemes crate says
            // why): the growing interval is the backoff, no cap on s, the clock granularity as
            // the floor.
            keep_backoff: false,
            s_max: None,
            lower_bound: None,
        }
    }
}

impl Default for MaaParams {
    fn default() -> Self {
        MaaParams {
            // σ is not stated by Hafeez et al.: 1, with log base 2 (the report sweeps 0.5-4).
            sigma: 1.0,
            // f(N, σ) in ms.
            unit: Dur(Duration::from_ms(1)),
        }
    }
}

impl Default for FsaParams {
    fn default() -> Self {
        FsaParams {
            // Hafeez et al.'s sizing example, as for TDA.
            delta: Dur(Duration::from_ms(1)),
            // ω = 4 for flows past 1 MB, 3 below (configs/papers/hafeez-rto-randomization-bg.yaml).
            omega_long: 4.0,
            omega_short: 3.0,
            long_after: Bytes(1_000_000),
        }
    }
}

impl Default for FineRtoParams {
    fn default() -> Self {
        // §5.3 of the fine-grained RTO paper (Vasudevan et al. 2009): up to 0.5 RTO extra.
        FineRtoParams { max_extra: 0.5 }
    }
}

impl Default for TcprandParams {
    fn default() -> Self {
        // TCPRand's (Lee et al. 2017) defaults: adaptive rMin (Algorithm 1) with
        // (σ², μ, ν_τ, ν_ω) = (1, 1, 1, 1) and θ = 200 B.
        TcprandParams {
            r_min: RMinConfig::Adaptive,
            mu: 1.0,
            sigma2: 1.0,
            nu_tau: Nu(1.0),
            nu_omega: Nu(1.0),
            theta: Bytes(200),
        }
    }
}

impl Default for ProbRetxParams {
    fn default() -> Self {
        ProbRetxParams {
            // Kulkarni & Agrawal Alg. 1: a 20 µs thread period.
            period: Dur(Duration::from_us(20)),
            // p = 0.001, the book's best value.
            p: 0.001,
            // The readings the text supports best (`incastsim_schemes::prob_retx` says why):
            // resend the segment at snd_una; Alg. 3's suspension as written.
            segment: PrSegmentName::SndUna,
            suspend_in_recovery: true,
        }
    }
}

impl Default for DsrParams {
    fn default() -> Self {
        DsrParams {
            // Kulkarni & Agrawal §4.3.1: MSS_dsr = 50 B, cwnd_dsr = 50 segments.
            mss_dsr: Bytes(50),
            cwnd_dsr: 50,
            // Every transfer restarts at MSS_dsr (not stated by the book; with `false` DSR loses
            // to TCP, configs/papers/kulkarni-dsr.yaml).
            per_transfer: true,
            // No header compression: tcp.header.
            compressed_header: None,
        }
    }
}

/// TCPRand's rMin: a size in bytes, or `adaptive`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RMinConfig {
    /// Adapt rMin to the window (TCPRand §4).
    Adaptive,
    /// This many bytes.
    Fixed(u64),
}

impl<'de> Deserialize<'de> for RMinConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        match &v {
            serde_json::Value::String(s) if s.trim() == "adaptive" => Ok(RMinConfig::Adaptive),
            serde_json::Value::String(s) => crate::units::parse_bytes(s)
                .map(RMinConfig::Fixed)
                .map_err(|e| de::Error::custom(format!("{e}; or `adaptive`"))),
            serde_json::Value::Number(n) if n.as_u64().is_some() => {
                Ok(RMinConfig::Fixed(n.as_u64().unwrap_or(0)))
            }
            other => Err(de::Error::custom(format!(
                "invalid r_min {other}: expected a size (e.g. 200B) or `adaptive`"
            ))),
        }
    }
}
impl Serialize for RMinConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RMinConfig::Adaptive => s.serialize_str("adaptive"),
            RMinConfig::Fixed(b) => Bytes(*b).serialize(s),
        }
    }
}

/// ν_τ / ν_ω: a non-negative number or `inf`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Nu(pub f64);

impl<'de> Deserialize<'de> for Nu {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        match &v {
            serde_json::Value::String(s)
                if matches!(s.trim(), "inf" | "infinity" | ".inf" | "∞") =>
            {
                Ok(Nu(f64::INFINITY))
            }
            serde_json::Value::Number(n) => Ok(Nu(n.as_f64().unwrap_or(f64::NAN))),
            other => Err(de::Error::custom(format!(
                "invalid value {other}: expected a number or `inf`"
            ))),
        }
    }
}
impl Serialize for Nu {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_infinite() {
            s.serialize_str("inf")
        } else {
            s.serialize_f64(self.0)
        }
    }
}

/// Which outstanding segment probabilistic retransmission resends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrSegmentName {
    /// The segment at snd_una (what the RTO would resend).
    #[serde(alias = "oldest")]
    SndUna,
    /// The last segment sent (the highest sequence number).
    #[serde(alias = "highest")]
    LastSent,
}

impl SchemeConfig {
    /// The built-in scheme `name` with every parameter at its default (`None` for any other
    /// name: an extension's defaults are its registry's).
    pub fn defaults(name: &str) -> Option<SchemeConfig> {
        serde_json::from_value(serde_json::json!({ "name": name }))
            .ok()
            .filter(|s| !matches!(s, SchemeConfig::Extension(_)))
    }

    /// Header bytes of the flows' packets, if the scheme changes them (DSR's compression).
    pub fn header_bytes(&self) -> Option<u64> {
        match self {
            SchemeConfig::Dsr(DsrParams {
                compressed_header: Some(h),
                ..
            }) => Some(h.0),
            _ => None,
        }
    }
}

impl SchemeParams for RtoStaticParams {
    const PARAMETERS: &'static [Parameter] = RtoStaticParams::DECLARED;
    fn validate(&self, _tcp: &TcpConfig) -> Result<(), ConfigError> {
        positive_dur("delta", &self.delta)
    }
}

impl SchemeParams for TdaParams {
    const PARAMETERS: &'static [Parameter] = TdaParams::DECLARED;
    fn validate(&self, _tcp: &TcpConfig) -> Result<(), ConfigError> {
        positive_dur("delta", &self.delta)?;
        if self.s_max == Some(0) {
            return Err(invalid(
                "scheme.s_max",
                0,
                "at least 1 (Eq. 8: s in 1..M), or null for no cap",
            ));
        }
        growth_factor("omega", self.omega)
    }
}

/// PLATO has no numeric parameters to check.
impl SchemeParams for PlatoParams {
    const PARAMETERS: &'static [Parameter] = PlatoParams::DECLARED;
}

/// `scheme.<k>` is a positive duration.
fn positive_dur(k: &str, d: &Dur) -> Result<(), ConfigError> {
    if d.0 == Duration::ZERO {
        Err(invalid(&format!("scheme.{k}"), d.0, "a positive duration"))
    } else {
        Ok(())
    }
}

/// `scheme.<k>` is a growth factor (ω) of at least 1.
fn growth_factor(k: &str, w: f64) -> Result<(), ConfigError> {
    if w.is_finite() && w >= 1.0 {
        Ok(())
    } else {
        Err(invalid(
            &format!("scheme.{k}"),
            w,
            "a growth factor of at least 1",
        ))
    }
}

impl SchemeParams for IctcpConfigParams {
    const PARAMETERS: &'static [Parameter] = IctcpConfigParams::DECLARED;
    /// ICTCP: ordered thresholds γ1 < γ2, a share α, an EWMA weight β, a window of at least one
    /// segment.
    fn validate(&self, _tcp: &TcpConfig) -> Result<(), ConfigError> {
        let IctcpConfigParams {
            gamma1,
            gamma2,
            alpha,
            beta,
            initial_rtt,
            min_window_segments,
        } = self;
        if !(*gamma1 >= 0.0 && gamma1 < gamma2 && *gamma2 <= 1.0) {
            return Err(invalid(
                "scheme.gamma1 / scheme.gamma2",
                format!("{gamma1} / {gamma2}"),
                "0 ≤ gamma1 < gamma2 ≤ 1",
            ));
        }
        if !(*alpha > 0.0 && *alpha <= 1.0) {
            return Err(invalid("scheme.alpha", alpha, "a share in (0, 1]"));
        }
        if !(0.0..1.0).contains(beta) {
            return Err(invalid("scheme.beta", beta, "a weight in [0, 1)"));
        }
        positive_dur("initial_rtt", initial_rtt)?;
        if *min_window_segments == 0 {
            return Err(invalid("scheme.min_window_segments", 0, "at least 1"));
        }
        Ok(())
    }
}

impl SchemeParams for MaaParams {
    const PARAMETERS: &'static [Parameter] = MaaParams::DECLARED;
    /// MAA: a positive σ and time unit.
    fn validate(&self, _tcp: &TcpConfig) -> Result<(), ConfigError> {
        let MaaParams { sigma, unit } = self;
        if !(sigma.is_finite() && *sigma > 0.0) {
            return Err(invalid("scheme.sigma", sigma, "a positive number"));
        }
        positive_dur("unit", unit)
    }
}

impl SchemeParams for FsaParams {
    const PARAMETERS: &'static [Parameter] = FsaParams::DECLARED;
    /// FSA: TDA's Δ and two growth factors, and a positive long-flow threshold.
    fn validate(&self, _tcp: &TcpConfig) -> Result<(), ConfigError> {
        let FsaParams {
            delta,
            omega_long,
            omega_short,
            long_after,
        } = self;
        positive_dur("delta", delta)?;
        growth_factor("omega_long", *omega_long)?;
        growth_factor("omega_short", *omega_short)?;
        if long_after.0 == 0 {
            return Err(invalid("scheme.long_after", 0, "at least 1 byte"));
        }
        Ok(())
    }
}

impl SchemeParams for FineRtoParams {
    const PARAMETERS: &'static [Parameter] = FineRtoParams::DECLARED;
    /// Fine-grained RTO: a non-negative randomization fraction.
    fn validate(&self, _tcp: &TcpConfig) -> Result<(), ConfigError> {
        let FineRtoParams { max_extra } = self;
        if !(max_extra.is_finite() && *max_extra >= 0.0) {
            return Err(invalid(
                "scheme.max_extra",
                max_extra,
                "a non-negative fraction (the paper: 0.5)",
            ));
        }
        Ok(())
    }
}

impl SchemeParams for TcprandParams {
    const PARAMETERS: &'static [Parameter] = TcprandParams::DECLARED;
    /// TCPRand: r_min and θ within one MSS of `tcp`, adaptive r_min only with CUBIC, and valid
    /// Algorithm 1 parameters (μ, σ², ν_τ, ν_ω).
    fn validate(&self, tcp: &TcpConfig) -> Result<(), ConfigError> {
        let TcprandParams {
            r_min,
            mu,
            sigma2,
            nu_tau,
            nu_omega,
            theta,
        } = self;
        let mss = tcp.mss.0;
        match r_min {
            RMinConfig::Fixed(b) if *b == 0 || *b > mss => {
                return Err(invalid(
                    "scheme.r_min",
                    b,
                    format!("1 B to tcp.mss ({mss} B), or `adaptive`"),
                ));
            }
            RMinConfig::Adaptive if !tcp.congestion_control.is(BuiltinController::Cubic) => {
                return Err(invalid(
                    "scheme.r_min",
                    "adaptive",
                    "a fixed size unless tcp.congestion_control is cubic (Algorithm 1 reads CUBIC's W_max)",
                ));
            }
            _ => {}
        }
        if !mu.is_finite() {
            return Err(invalid("scheme.mu", mu, "a finite number"));
        }
        if !(sigma2.is_finite() && *sigma2 > 0.0) {
            return Err(invalid("scheme.sigma2", sigma2, "a positive variance"));
        }
        if nu_tau.0.is_nan() || nu_tau.0 < 1.0 {
            return Err(invalid("scheme.nu_tau", nu_tau.0, "a number ≥ 1, or inf"));
        }
        if !(nu_omega.0 >= 0.0 && nu_omega.0.is_finite()) {
            return Err(invalid(
                "scheme.nu_omega",
                nu_omega.0,
                "a number ≥ 0 (0 means ω = ∞)",
            ));
        }
        if theta.0 == 0 || theta.0 > mss {
            return Err(invalid(
                "scheme.theta",
                theta.0,
                format!("1 B to tcp.mss ({mss} B)"),
            ));
        }
        Ok(())
    }
}

impl SchemeParams for ProbRetxParams {
    const PARAMETERS: &'static [Parameter] = ProbRetxParams::DECLARED;
    /// Probabilistic retransmission: a positive period and a probability p.
    fn validate(&self, _tcp: &TcpConfig) -> Result<(), ConfigError> {
        let ProbRetxParams { period, p, .. } = self;
        positive_dur("period", period)?;
        if !(0.0..=1.0).contains(p) {
            return Err(invalid("scheme.p", p, "a probability in [0, 1]"));
        }
        Ok(())
    }
}

impl SchemeParams for DsrParams {
    const PARAMETERS: &'static [Parameter] = DsrParams::DECLARED;
    /// DSR: MSS_dsr within `tcp`'s MSS, cwnd_dsr of at least 2 segments, a compressed header no
    /// larger than `tcp`'s.
    fn validate(&self, tcp: &TcpConfig) -> Result<(), ConfigError> {
        let DsrParams {
            mss_dsr,
            cwnd_dsr,
            compressed_header,
            ..
        } = self;
        let mss = tcp.mss.0;
        if mss_dsr.0 == 0 || mss_dsr.0 > mss {
            return Err(invalid(
                "scheme.mss_dsr",
                mss_dsr.0,
                format!("1 B to tcp.mss ({mss} B)"),
            ));
        }
        if *cwnd_dsr < 2 {
            return Err(invalid("scheme.cwnd_dsr", cwnd_dsr, "at least 2 segments"));
        }
        if let Some(h) = compressed_header
            && h.0 > tcp.header.0
        {
            return Err(invalid(
                "scheme.compressed_header",
                h.0,
                format!("at most tcp.header ({} B)", tcp.header.0),
            ));
        }
        Ok(())
    }
}
