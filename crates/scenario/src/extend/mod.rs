//! The extension registry: components written in a downstream crate, registered by name and
//! chosen from YAML like the built-ins.
//!
//! A downstream binary builds one [`Extensions`] value (nothing global) and hands it down:
//! `incastsim_cli::main_with(extensions)` gives it to every command; from code, a config is
//! loaded with it (`Config::load_with`, then [`crate::check_buildable`]) and run with it
//! ([`crate::RunOptions::extensions`] for [`crate::run_with`] and [`crate::Plan::build`]); the
//! plain entry points use [`Extensions::builtin`].
//!
//! ```ignore
//! let extensions = incastsim::extensions!()           // names this crate as the provider
//!     .congestion_control::<MyReno>("my_reno")         // tcp.congestion_control: {name: my_reno, beta: 0.8}
//!     .scheme::<RtoJitterScheme>("rto_jitter")         // scheme: {name: rto_jitter, max_extra: 50us}
//!     .queue_discipline::<MyThreshold>("my_threshold"); // topology.switch_queue: {name: my_threshold, threshold: 20 packets}
//! ```
//!
//! Six points: congestion control ([`ControllerExtension`]), schemes ([`SchemeExtension`]),
//! queue disciplines ([`QueueDisciplineExtension`]), traffic generators
//! ([`TrafficGeneratorExtension`]), probes ([`ProbeExtension`]) and RoCE rate controllers
//! ([`RdmaControllerExtension`]). Each extension has its own
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
pub use crate::plan::traffic::{
    FinishedFlow, GeneratedFlow, PreparedTraffic, ReactionContext, RefusedFlow, TrafficContext,
    TrafficReactor,
};
pub use generator::TrafficGeneratorExtension;
pub use queue::{PreparedQueueDiscipline, QueueContext, QueueDisciplineExtension};
pub use rdma::{PreparedRdmaController, RdmaControllerContext, RdmaControllerExtension};

mod codec;
mod controller;
mod generator;
mod probe;
mod queue;
mod rdma;
mod scheme;

pub(crate) use codec::under;
use codec::{Codec, ParamsCodec, read_params};
pub use controller::{ControllerContext, ControllerExtension, PreparedController};
pub use probe::{PreparedProbe, ProbeExtension};
pub use scheme::{PreparedScheme, SchemeContext, SchemeExtension};

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
    rdma_controllers: Vec<Registered<dyn PreparedRdmaController>>,
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
            rdma_controllers: Vec::new(),
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

    /// The crate the components registered last are provided by (a downstream binary's own
    /// crate with [`extensions!`](crate::extensions); [`Provider::UNNAMED`] otherwise).
    pub fn provider(&self) -> Provider {
        self.provider
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
            .chain(self.rdma_controllers.iter().map(|r| &r.info))
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
            ExtensionPoint::RdmaCongestionControl => find(&self.rdma_controllers, name),
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
            if let crate::config::TransportConfig::Roce(r) = &t.transport
                && let crate::config::RdmaCcConfig::Extension(e) = &r.congestion_control
            {
                add(ExtensionPoint::RdmaCongestionControl, &e.name);
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
