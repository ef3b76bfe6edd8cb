//! The extension registry: components written in a downstream crate, registered by name and
//! chosen from YAML like the built-ins.
//!
//! A downstream binary builds one [`Extensions`] value (nothing global) and hands it down:
//! `incastsim_cli::main_with(extensions)` gives it to every command; from code, the `_with`
//! entry points take it ([`crate::load_checked_with`], [`crate::Plan::with_extensions`],
//! [`crate::run_once_with`]); the plain ones use [`Extensions::builtin`].
//!
//! ```ignore
//! let extensions = incastsim::extensions!()           // names this crate as the provider
//!     .congestion_control::<MyReno>("my_reno")         // tcp.congestion_control: {name: my_reno, beta: 0.8}
//!     .scheme::<RtoJitterScheme>("rto_jitter")         // scheme: {name: rto_jitter, max_extra: 50us}
//!     .queue_discipline::<MyThreshold>("my_threshold"); // topology.switch_queue: {name: my_threshold, threshold: 20 packets}
//! ```
//!
//! Five points: congestion control ([`ControllerExtension`]), schemes ([`SchemeExtension`]),
//! queue disciplines ([`QueueDisciplineExtension`]), traffic generators
//! ([`TrafficGeneratorExtension`]) and probes ([`ProbeExtension`]). Each extension has its own
//! parameters type (serde, human units from [`crate::units`]), checked by [`Extensions`] while
//! the config loads (it is the loader's [`Catalog`]): errors name the full key, the value and
//! what is allowed, and the resolved config prints every parameter with its default filled in.
//!
//! **Cost.** The built-ins stay enum variants; each point has one more variant holding a boxed
//! trait object ([`incastsim_tcp::Cc::Extension`], [`incastsim_schemes::SenderScheme::Extension`],
//! [`incastsim_schemes::ReceiverScheme::Extension`], [`incastsim_switch::QueueDisc::Extension`]), so a run of built-ins pays nothing and an
//! extension one indirect call per hook.
//!
//! **Determinism.** Factories are `Send + Sync` (sweeps build runs on many threads) and
//! stateless: a component is built from its parameters and a context alone. Its randomness is
//! its own seeded stream ([`ControllerContext::rng`], [`SchemeContext::rng`],
//! [`QueueContext::rng`]), derived from the
//! run seed, so it shifts no other component's draws and a (config, seed) pair replays
//! bit-identically on any thread count.

use crate::config::ConfigError;
use crate::config::error::plain_words;
use crate::config::extension::unknown_name;
use incastsim_core::SimRng;
use incastsim_core::rng::Stream;
use incastsim_schemes::{ReceiverScheme, SenderScheme};
use incastsim_tcp::{Cc, CongestionControl, ExtensionCc, ReceiverPolicy, SenderPolicy};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt::Debug;
use std::marker::PhantomData;
use std::sync::Arc;

pub use crate::config::extension::{Catalog, ExtensionChoice, ExtensionPoint, NoExtensions};
pub use crate::plan::traffic::{GeneratedFlow, PreparedTraffic, TrafficContext};
pub use generator::TrafficGeneratorExtension;
pub use queue::{PreparedQueueDiscipline, QueueContext, QueueDisciplineExtension};

mod generator;
mod queue;

/// The crate that provides a component, for manifests and `incastsim components`
/// ([`provider!`](crate::provider) fills it in from the calling crate's `Cargo.toml`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Provider {
    /// The crate's name (`CARGO_PKG_NAME`).
    pub crate_name: &'static str,
    /// Its version (`CARGO_PKG_VERSION`).
    pub version: &'static str,
}

impl Provider {
    /// incastsim itself (the built-ins).
    pub const INCASTSIM: Provider = Provider {
        crate_name: "incastsim",
        version: env!("CARGO_PKG_VERSION"),
    };
    /// Components registered without naming their crate ([`Extensions::new`]).
    pub const UNNAMED: Provider = Provider {
        crate_name: "(unnamed crate)",
        version: "",
    };
}

impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.version.is_empty() {
            f.write_str(self.crate_name)
        } else {
            write!(f, "{} {}", self.crate_name, self.version)
        }
    }
}

/// The calling crate as a [`Provider`] (its `CARGO_PKG_NAME` and `CARGO_PKG_VERSION`).
#[macro_export]
macro_rules! provider {
    () => {
        $crate::extend::Provider {
            crate_name: env!("CARGO_PKG_NAME"),
            version: env!("CARGO_PKG_VERSION"),
        }
    };
}

/// An empty registry whose components name the calling crate as their provider:
/// `extensions!().congestion_control::<MyReno>("my_reno")`.
#[macro_export]
macro_rules! extensions {
    () => {
        $crate::extend::Extensions::for_crate($crate::provider!())
    };
}

/// What an extension's parameters must be: read from YAML (serde, with `#[serde(default)]`s
/// for the defaults and `#[serde(deny_unknown_fields)]` so typos are refused), written back
/// into the resolved config, and shared by the threads of a sweep.
pub trait ExtensionParams:
    Serialize + DeserializeOwned + Clone + Debug + Send + Sync + 'static
{
}
impl<T: Serialize + DeserializeOwned + Clone + Debug + Send + Sync + 'static> ExtensionParams
    for T
{
}

/// What a congestion controller gets when a connection is built.
#[derive(Clone, Copy, Debug)]
pub struct ControllerContext {
    /// The flow (connection) index.
    pub flow: u32,
    /// The sender's maximum segment size, bytes.
    pub smss: u32,
    run_seed: u64,
}

impl ControllerContext {
    /// The context of flow `flow` in the run seeded with `run_seed`.
    pub fn new(run_seed: u64, flow: u32, smss: u32) -> ControllerContext {
        ControllerContext {
            flow,
            smss,
            run_seed,
        }
    }
    /// The controller's own random stream (`Stream::Controller`, instance = flow): draws from
    /// it shift no other component's.
    pub fn rng(&self) -> SimRng {
        SimRng::for_stream(self.run_seed, Stream::Controller, self.flow as u64)
    }
}

/// A congestion controller from outside incastsim, selected by `tcp.congestion_control:
/// {name: <registered name>, <param>: <value>, ...}`.
///
/// It implements [`CongestionControl`] (reads and writes only the [`incastsim_tcp::Window`] the
/// sender hands it, reports itself through [`incastsim_tcp::CcState`]); loss detection and
/// recovery stay the sender's. One value per connection, built by [`ControllerExtension::new`].
pub trait ControllerExtension: CongestionControl + Clone + Debug + 'static {
    /// Its parameters (everything beside `name` in `tcp.congestion_control`).
    type Params: ExtensionParams;
    /// One line for `incastsim components`.
    const DESCRIPTION: &'static str;
    /// Checks the parameters. Errors name keys relative to the controller
    /// (`invalid("beta", 1.5, "a factor in (0, 1)")`); the registry prefixes the full path.
    fn check(_params: &Self::Params) -> Result<(), ConfigError> {
        Ok(())
    }
    /// The controller of one connection.
    fn new(params: &Self::Params, ctx: &ControllerContext) -> Self;
}

/// What a scheme gets when a connection's sender or receiver side is built.
#[derive(Clone, Copy, Debug)]
pub struct SchemeContext {
    /// The flow (connection) index.
    pub flow: u32,
    /// The receiving host.
    pub dst: u32,
    /// The connection's maximum segment size, bytes.
    pub mss: u32,
    run_seed: u64,
}

impl SchemeContext {
    /// The context of flow `flow` (received by host `dst`) in the run seeded with `run_seed`.
    pub fn new(run_seed: u64, flow: u32, dst: u32, mss: u32) -> SchemeContext {
        SchemeContext {
            flow,
            dst,
            mss,
            run_seed,
        }
    }
    /// The run seed the streams derive from.
    pub fn run_seed(&self) -> u64 {
        self.run_seed
    }
    /// The connection's scheme stream (`Stream::Scheme`, instance = flow; the one every
    /// built-in scheme draws from), so a run with the scheme sees the same jitter and losses as
    /// the run without.
    pub fn rng(&self) -> SimRng {
        SimRng::for_stream(self.run_seed, Stream::Scheme, self.flow as u64)
    }
}

/// An incast scheme from outside incastsim, selected by
/// `scheme: {name: <registered name>, <param>: <value>, ...}`: per-connection state behind the hooks of
/// [`incastsim_tcp::SenderPolicy`] / [`incastsim_tcp::ReceiverPolicy`] (ARCHITECTURE.md
/// "Schemes": a hook reads a copy of the connection's state and acts only through its return
/// value). A side the scheme does not touch returns `None` (plain TCP there); use
/// [`incastsim_tcp::StandardTcp`] as its type.
pub trait SchemeExtension: 'static {
    /// Its parameters (everything beside `name` in `scheme`).
    type Params: ExtensionParams;
    /// The sender-side state of one connection.
    type Sender: SenderPolicy + Clone + Debug + 'static;
    /// The receiver-side state of one connection.
    type Receiver: ReceiverPolicy + Clone + Debug + 'static;
    /// One line for `incastsim components`.
    const DESCRIPTION: &'static str;
    /// Checks the parameters (keys relative to the scheme, as [`ControllerExtension::check`]).
    fn check(_params: &Self::Params) -> Result<(), ConfigError> {
        Ok(())
    }
    /// The sender side of connection `ctx.flow`, or `None` for plain TCP.
    fn sender(params: &Self::Params, ctx: &SchemeContext) -> Option<Self::Sender>;
    /// The receiver side of connection `ctx.flow`, or `None` for plain TCP.
    fn receiver(params: &Self::Params, ctx: &SchemeContext) -> Option<Self::Receiver>;
}

/// A measurement from outside incastsim, selected by name: `probes: [{name: <registered
/// name>, <param>: <value>, ...}]` (a list: several probes, each with its parameters).
///
/// Its probe ([`crate::probe::Probe`]) has no-op default hooks (packet enqueued, marked,
/// dropped with its reason, dequeued, delivered; ACK processed with the sender's
/// [`incastsim_tcp::CcState`]; RTO fired; transfer started and finished) and adds columns to
/// `runs.csv`/`flows.csv` or a CSV file of its own when the run ends. It observes only: every
/// hook gets shared references, so the run is the same with or without it; its randomness is
/// [`crate::probe::ProbeSetup::rng`]. One probe per run, built by [`ProbeExtension::new`].
/// A sweep writes its files' headers before any run, so it writes the columns
/// [`ProbeExtension::columns`] declares (and refuses a run whose probe adds one it did not).
pub trait ProbeExtension: 'static {
    /// Its parameters (everything beside `name` in its entry of `probes`).
    type Params: ExtensionParams;
    /// The probe of one run.
    type Probe: crate::probe::Probe + 'static;
    /// One line for `incastsim components`.
    const DESCRIPTION: &'static str;
    /// Checks the parameters (keys relative to the probe).
    fn check(_params: &Self::Params) -> Result<(), ConfigError> {
        Ok(())
    }
    /// The probe of the run `setup` describes.
    fn new(params: &Self::Params, setup: &crate::probe::ProbeSetup) -> Self::Probe;
    /// The columns its probe adds to `runs.csv` and `flows.csv` with `params`, in the order
    /// [`crate::probe::Probe::finish`] adds them. Single runs write whatever `finish` adds;
    /// a sweep fixes its files' headers from this before its first run, so a column missing
    /// here fails the sweep's first run that adds it. Default: none.
    fn columns(params: &Self::Params) -> crate::probe::ProbeColumnNames {
        let _ = params;
        crate::probe::ProbeColumnNames::default()
    }
}

/// A probe ready to be built for runs: the extension's type with its parameters read once.
pub trait PreparedProbe: Send + Sync + Debug {
    /// The probe of one run.
    fn new_probe(&self, setup: &crate::probe::ProbeSetup) -> Box<dyn crate::probe::Probe>;
    /// The columns its probes add ([`ProbeExtension::columns`]).
    fn columns(&self) -> crate::probe::ProbeColumnNames;
}

struct ProbeWith<P: ProbeExtension> {
    name: &'static str,
    params: P::Params,
}

impl<P: ProbeExtension> Debug for ProbeWith<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {:?}", self.name, self.params)
    }
}

impl<P: ProbeExtension> PreparedProbe for ProbeWith<P> {
    fn new_probe(&self, setup: &crate::probe::ProbeSetup) -> Box<dyn crate::probe::Probe> {
        Box::new(P::new(&self.params, setup))
    }
    fn columns(&self) -> crate::probe::ProbeColumnNames {
        P::columns(&self.params)
    }
}

/// A registered component as listings and manifests show it.
#[derive(Clone, Debug, PartialEq)]
pub struct ComponentInfo {
    /// Where it plugs in.
    pub point: ExtensionPoint,
    /// The name configs choose it by.
    pub name: &'static str,
    /// Its one-line description.
    pub description: &'static str,
    /// The crate that provides it.
    pub provider: Provider,
}

/// Reads, checks and completes an extension's parameters (type-erased `Params`).
trait ParamsCodec: Send + Sync {
    /// `params` checked, with every field (defaults filled in), or the error under `key`.
    fn resolve(
        &self,
        key: &str,
        params: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<serde_json::Map<String, serde_json::Value>, ConfigError>;
    /// Every parameter at its default (`None` if some parameter has none).
    fn defaults(&self) -> Option<serde_json::Map<String, serde_json::Value>>;
}

struct Codec<P> {
    check: fn(&P) -> Result<(), ConfigError>,
    _params: PhantomData<fn() -> P>,
}

/// `params` read as `P`, errors under `key` (`tcp.congestion_control.beta: ...`).
fn read_params<P: ExtensionParams>(
    key: &str,
    params: &serde_json::Map<String, serde_json::Value>,
) -> Result<P, ConfigError> {
    serde_path_to_error::deserialize(serde_json::Value::Object(params.clone())).map_err(|e| {
        let path = e.path().to_string();
        ConfigError::Key {
            key: if path == "." {
                key.to_string()
            } else {
                format!("{key}.{path}")
            },
            message: plain_words(&e.into_inner().to_string()),
        }
    })
}

/// `e` with its key moved under `key` (an extension names its keys relative to itself).
fn under(key: &str, e: ConfigError) -> ConfigError {
    let full = |k: String| {
        if k.is_empty() {
            key.to_string()
        } else {
            format!("{key}.{k}")
        }
    };
    match e {
        ConfigError::Invalid {
            key: k,
            value,
            allowed,
        } => ConfigError::Invalid {
            key: full(k),
            value,
            allowed,
        },
        ConfigError::Key { key: k, message } => ConfigError::Key {
            key: full(k),
            message,
        },
        other => other,
    }
}

impl<P: ExtensionParams> ParamsCodec for Codec<P> {
    fn resolve(
        &self,
        key: &str,
        params: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<serde_json::Map<String, serde_json::Value>, ConfigError> {
        let typed: P = read_params(key, params)?;
        (self.check)(&typed).map_err(|e| under(key, e))?;
        match serde_json::to_value(&typed) {
            Ok(serde_json::Value::Object(m)) => Ok(m),
            Ok(serde_json::Value::Null) => Ok(Default::default()),
            Ok(other) => Err(ConfigError::Key {
                key: key.to_string(),
                message: format!(
                    "the extension's parameters must be a mapping of keys to values (it wrote {other})"
                ),
            }),
            Err(e) => Err(ConfigError::Key {
                key: key.to_string(),
                message: format!("the extension's parameters cannot be written back: {e}"),
            }),
        }
    }
    fn defaults(&self) -> Option<serde_json::Map<String, serde_json::Value>> {
        let p: P = serde_json::from_value(serde_json::json!({})).ok()?;
        match serde_json::to_value(p).ok()? {
            serde_json::Value::Object(m) => Some(m),
            serde_json::Value::Null => Some(Default::default()),
            _ => None,
        }
    }
}

/// A controller ready to build connections: the extension's type with its parameters read once.
pub trait PreparedController: Send + Sync + Debug {
    /// The controller of one connection.
    fn new_controller(&self, ctx: &ControllerContext) -> Cc;
}

struct ControllerWith<C: ControllerExtension> {
    name: &'static str,
    params: C::Params,
}

impl<C: ControllerExtension> Debug for ControllerWith<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {:?}", self.name, self.params)
    }
}

impl<C: ControllerExtension> PreparedController for ControllerWith<C> {
    fn new_controller(&self, ctx: &ControllerContext) -> Cc {
        Cc::Extension(ExtensionCc::new(self.name, C::new(&self.params, ctx)))
    }
}

/// A scheme ready to build connections: the extension's type with its parameters read once.
pub trait PreparedScheme: Send + Sync + Debug {
    /// The sender side of a connection (`None`: plain TCP).
    fn sender(&self, ctx: &SchemeContext) -> Option<SenderScheme>;
    /// The receiver side of a connection (`None`: plain TCP).
    fn receiver(&self, ctx: &SchemeContext) -> Option<ReceiverScheme>;
}

struct SchemeWith<S: SchemeExtension> {
    name: &'static str,
    params: S::Params,
}

impl<S: SchemeExtension> Debug for SchemeWith<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {:?}", self.name, self.params)
    }
}

impl<S: SchemeExtension> PreparedScheme for SchemeWith<S> {
    fn sender(&self, ctx: &SchemeContext) -> Option<SenderScheme> {
        S::sender(&self.params, ctx).map(|p| SenderScheme::Extension(Box::new(p)))
    }
    fn receiver(&self, ctx: &SchemeContext) -> Option<ReceiverScheme> {
        S::receiver(&self.params, ctx).map(|p| ReceiverScheme::Extension(Box::new(p)))
    }
}

type Prepare<T> = fn(
    &'static str,
    &str,
    &serde_json::Map<String, serde_json::Value>,
) -> Result<Arc<T>, ConfigError>;

/// One registered component: what it is, its parameters' codec, and how to prepare it.
struct Registered<T: ?Sized> {
    info: ComponentInfo,
    codec: Arc<dyn ParamsCodec>,
    prepare: Option<Prepare<T>>,
}

impl<T: ?Sized> Clone for Registered<T> {
    fn clone(&self) -> Self {
        Registered {
            info: self.info.clone(),
            codec: self.codec.clone(),
            prepare: self.prepare,
        }
    }
}

/// Components registered by name, per extension point. Built by the downstream binary and
/// passed down explicitly (not global); cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct Extensions {
    provider: Provider,
    controllers: Vec<Registered<dyn PreparedController>>,
    schemes: Vec<Registered<dyn PreparedScheme>>,
    queue_disciplines: Vec<Registered<dyn PreparedQueueDiscipline>>,
    traffic_generators: Vec<Registered<dyn PreparedTraffic>>,
    probes: Vec<Registered<dyn PreparedProbe>>,
}

impl Default for Extensions {
    fn default() -> Self {
        Extensions::builtin()
    }
}

impl Debug for Extensions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.components().map(|c| (c.point.name(), c.name)))
            .finish()
    }
}

impl Extensions {
    /// The built-in components alone (what the plain entry points use).
    pub fn builtin() -> Extensions {
        Extensions {
            provider: Provider::UNNAMED,
            controllers: Vec::new(),
            schemes: Vec::new(),
            queue_disciplines: Vec::new(),
            traffic_generators: Vec::new(),
            probes: Vec::new(),
        }
    }

    /// An empty registry; components registered on it show an unnamed provider (prefer
    /// [`extensions!`](crate::extensions) or [`Extensions::for_crate`]).
    pub fn new() -> Extensions {
        Extensions::builtin()
    }

    /// An empty registry whose components are provided by `provider` (see
    /// [`provider!`](crate::provider)).
    pub fn for_crate(provider: Provider) -> Extensions {
        Extensions {
            provider,
            ..Extensions::builtin()
        }
    }

    /// Components registered after this call are provided by `provider`.
    pub fn provided_by(mut self, provider: Provider) -> Extensions {
        self.provider = provider;
        self
    }

    fn info(
        &self,
        point: ExtensionPoint,
        name: &'static str,
        description: &'static str,
    ) -> ComponentInfo {
        ComponentInfo {
            point,
            name,
            description,
            provider: self.provider,
        }
    }

    /// Registers congestion controller `C` as `name` (`tcp.congestion_control: {name: <name>,
    /// ...}`). A name already taken (by a built-in or an earlier registration) panics: it is a
    /// programming error of the binary, found on its first run.
    pub fn congestion_control<C: ControllerExtension>(mut self, name: &'static str) -> Extensions {
        self.refuse_taken(ExtensionPoint::CongestionControl, name);
        fn prepare<C: ControllerExtension>(
            name: &'static str,
            key: &str,
            params: &serde_json::Map<String, serde_json::Value>,
        ) -> Result<Arc<dyn PreparedController>, ConfigError> {
            let params = read_params::<C::Params>(key, params)?;
            Ok(Arc::new(ControllerWith::<C> { name, params }))
        }
        self.controllers.push(Registered {
            info: self.info(ExtensionPoint::CongestionControl, name, C::DESCRIPTION),
            codec: Arc::new(Codec::<C::Params> {
                check: C::check,
                _params: PhantomData,
            }),
            prepare: Some(prepare::<C>),
        });
        self
    }

    /// Registers scheme `S` as `name` (`scheme: {name: <name>, ...}`).
    pub fn scheme<S: SchemeExtension>(mut self, name: &'static str) -> Extensions {
        self.refuse_taken(ExtensionPoint::Scheme, name);
        fn prepare<S: SchemeExtension>(
            name: &'static str,
            key: &str,
            params: &serde_json::Map<String, serde_json::Value>,
        ) -> Result<Arc<dyn PreparedScheme>, ConfigError> {
            let params = read_params::<S::Params>(key, params)?;
            Ok(Arc::new(SchemeWith::<S> { name, params }))
        }
        self.schemes.push(Registered {
            info: self.info(ExtensionPoint::Scheme, name, S::DESCRIPTION),
            codec: Arc::new(Codec::<S::Params> {
                check: S::check,
                _params: PhantomData,
            }),
            prepare: Some(prepare::<S>),
        });
        self
    }

    /// Registers probe `P` as `name` (see [`ProbeExtension`]).
    pub fn probe<P: ProbeExtension>(mut self, name: &'static str) -> Extensions {
        self.refuse_taken(ExtensionPoint::Probe, name);
        fn prepare<P: ProbeExtension>(
            name: &'static str,
            key: &str,
            params: &serde_json::Map<String, serde_json::Value>,
        ) -> Result<Arc<dyn PreparedProbe>, ConfigError> {
            let params = read_params::<P::Params>(key, params)?;
            Ok(Arc::new(ProbeWith::<P> { name, params }))
        }
        self.probes.push(Registered {
            info: self.info(ExtensionPoint::Probe, name, P::DESCRIPTION),
            codec: Arc::new(Codec::<P::Params> {
                check: P::check,
                _params: PhantomData,
            }),
            prepare: Some(prepare::<P>),
        });
        self
    }

    fn refuse_taken(&self, point: ExtensionPoint, name: &'static str) {
        let builtin = crate::config::extension::builtin_names(point).contains(&name);
        assert!(
            !builtin && !self.names(point).contains(&name),
            "{} `{name}` is registered twice (or is a built-in's name)",
            point.name()
        );
    }

    /// Every registered component, point by point in registration order.
    pub fn components(&self) -> impl Iterator<Item = &ComponentInfo> {
        self.controllers
            .iter()
            .map(|r| &r.info)
            .chain(self.schemes.iter().map(|r| &r.info))
            .chain(self.queue_disciplines.iter().map(|r| &r.info))
            .chain(self.traffic_generators.iter().map(|r| &r.info))
            .chain(self.probes.iter().map(|r| &r.info))
    }

    /// The parameters of component `name` of `point` at their defaults (`None` for an unknown
    /// name, or one with a parameter that has no default).
    pub fn defaults(
        &self,
        point: ExtensionPoint,
        name: &str,
    ) -> Option<serde_json::Map<String, serde_json::Value>> {
        self.codec(point, name)?.defaults()
    }

    fn codec(&self, point: ExtensionPoint, name: &str) -> Option<&Arc<dyn ParamsCodec>> {
        fn find<'a, T: ?Sized>(
            v: &'a [Registered<T>],
            name: &str,
        ) -> Option<&'a Arc<dyn ParamsCodec>> {
            v.iter().find(|r| r.info.name == name).map(|r| &r.codec)
        }
        match point {
            ExtensionPoint::CongestionControl => find(&self.controllers, name),
            ExtensionPoint::Scheme => find(&self.schemes, name),
            ExtensionPoint::QueueDiscipline => find(&self.queue_disciplines, name),
            ExtensionPoint::TrafficGenerator => find(&self.traffic_generators, name),
            ExtensionPoint::Probe => find(&self.probes, name),
        }
    }

    /// The extensions `cfg` uses (each once, in the order `cfg` names them), for manifests.
    pub fn used_by(&self, cfg: &crate::Config) -> Vec<ComponentInfo> {
        use crate::config::{CongestionControlName, SchemeConfig};
        let mut out: Vec<ComponentInfo> = Vec::new();
        let mut add = |point: ExtensionPoint, name: &str| {
            if let Some(info) = self
                .components()
                .find(|c| c.point == point && c.name == name)
                && !out.contains(info)
            {
                out.push(info.clone());
            }
        };
        for (_, t) in cfg.tcp_sections() {
            if let CongestionControlName::Extension(e) = &t.congestion_control {
                add(ExtensionPoint::CongestionControl, &e.name);
            }
        }
        if let crate::config::QueueConfig::Extension(e) = cfg.topology.switch_queue() {
            add(ExtensionPoint::QueueDiscipline, &e.name);
        }
        if let SchemeConfig::Extension(e) = &cfg.scheme {
            add(ExtensionPoint::Scheme, &e.name);
        }
        for t in &cfg.traffic {
            if let crate::plan::traffic::TrafficConfig::Extension(e) = t {
                add(ExtensionPoint::TrafficGenerator, &e.name);
            }
        }
        for p in &cfg.probes {
            add(ExtensionPoint::Probe, &p.name);
        }
        out
    }

    /// The controller `choice` (found under `key`) ready to build connections.
    pub fn prepare_controller(
        &self,
        key: &str,
        choice: &ExtensionChoice,
    ) -> Result<Arc<dyn PreparedController>, ConfigError> {
        prepare(
            &self.controllers,
            ExtensionPoint::CongestionControl,
            key,
            choice,
        )
    }

    /// Probe `choice` (found under `key`) ready to be built for runs.
    pub fn prepare_probe(
        &self,
        key: &str,
        choice: &ExtensionChoice,
    ) -> Result<Arc<dyn PreparedProbe>, ConfigError> {
        prepare(&self.probes, ExtensionPoint::Probe, key, choice)
    }

    /// The columns the probes of `cfg` (`probes:`) add to `runs.csv` and `flows.csv`, each
    /// once, in the order the probes are listed ([`ProbeExtension::columns`]).
    pub fn probe_columns(
        &self,
        cfg: &crate::Config,
    ) -> Result<crate::probe::ProbeColumnNames, ConfigError> {
        let mut names = crate::probe::ProbeColumnNames::default();
        for (i, choice) in cfg.probes.iter().enumerate() {
            names.extend(
                &self
                    .prepare_probe(&format!("probes[{i}]"), choice)?
                    .columns(),
            );
        }
        Ok(names)
    }

    /// The scheme `choice` (found under `key`) ready to build connections.
    pub fn prepare_scheme(
        &self,
        key: &str,
        choice: &ExtensionChoice,
    ) -> Result<Arc<dyn PreparedScheme>, ConfigError> {
        prepare(&self.schemes, ExtensionPoint::Scheme, key, choice)
    }
}

fn prepare<T: ?Sized>(
    registered: &[Registered<T>],
    point: ExtensionPoint,
    key: &str,
    choice: &ExtensionChoice,
) -> Result<Arc<T>, ConfigError> {
    let names: Vec<&str> = registered.iter().map(|r| r.info.name).collect();
    let r = registered
        .iter()
        .find(|r| r.info.name == choice.name)
        .ok_or_else(|| unknown_name(point, key, &choice.name, &names))?;
    let prepare = r.prepare.ok_or_else(|| ConfigError::Key {
        key: key.to_string(),
        message: format!("{} extensions cannot be built yet", point.name()),
    })?;
    prepare(r.info.name, key, &choice.params)
}

impl Catalog for Extensions {
    fn resolve(
        &self,
        point: ExtensionPoint,
        key: &str,
        choice: &ExtensionChoice,
    ) -> Result<ExtensionChoice, ConfigError> {
        let codec = self
            .codec(point, &choice.name)
            .ok_or_else(|| unknown_name(point, key, &choice.name, &self.names(point)))?;
        Ok(ExtensionChoice {
            name: choice.name.clone(),
            params: codec.resolve(key, &choice.params)?,
        })
    }

    fn names(&self, point: ExtensionPoint) -> Vec<&'static str> {
        self.components()
            .filter(|c| c.point == point)
            .map(|c| c.name)
            .collect()
    }
}
