//! Components from outside incastsim, chosen by name in the config (`tcp.congestion_control:
//! {name: my_reno, beta: 0.8}`, `scheme: {name: rto_jitter, max_extra: 50us}`).
//!
//! This crate does not know any extension: it keeps the name and the raw parameters in an
//! [`ExtensionChoice`] and asks a [`Catalog`] (the registry a downstream binary builds,
//! `incastsim_scenario::Extensions`) to check them and fill in their defaults while the config
//! loads ([`crate::Config::from_tree_with`]), so an extension's errors come out at the same
//! step and in the same shape as a built-in's (key path, value, what is allowed), and the
//! resolved config prints every parameter. [`NoExtensions`] is the catalog of the built-ins
//! alone (what `Config::load` and friends use).

pub use crate::choice::ExtensionChoice;
use crate::error::{ConfigError, invalid};

/// The places a downstream crate can plug a component in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ExtensionPoint {
    /// `tcp.congestion_control` (and each `flow_overrides[i].tcp.congestion_control`).
    CongestionControl,
    /// `scheme`: sender- and receiver-side policy hooks.
    Scheme,
    /// The switch ports' queue discipline (`topology.switch_queue`).
    QueueDiscipline,
    /// An entry of `traffic:` (who sends what, when).
    TrafficGenerator,
    /// A measurement (`probes:`).
    Probe,
    /// A RoCE queue pair's rate controller (`tcp.transport.congestion_control`).
    RdmaCongestionControl,
}

impl ExtensionPoint {
    /// Every point, in the order `incastsim components` lists them.
    pub const ALL: [ExtensionPoint; 6] = [
        ExtensionPoint::CongestionControl,
        ExtensionPoint::Scheme,
        ExtensionPoint::QueueDiscipline,
        ExtensionPoint::TrafficGenerator,
        ExtensionPoint::Probe,
        ExtensionPoint::RdmaCongestionControl,
    ];

    /// The name used in listings and manifests (`congestion_control`, `scheme`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ExtensionPoint::CongestionControl => "congestion_control",
            ExtensionPoint::Scheme => "scheme",
            ExtensionPoint::QueueDiscipline => "queue_discipline",
            ExtensionPoint::TrafficGenerator => "traffic_generator",
            ExtensionPoint::Probe => "probe",
            ExtensionPoint::RdmaCongestionControl => "rdma_congestion_control",
        }
    }
}

/// What the config loader asks about components it does not know. Implemented by the registry
/// of the downstream binary (`incastsim_scenario::Extensions`); [`NoExtensions`] knows none.
/// `Send + Sync`: sweeps check their points on many threads.
pub trait Catalog: Send + Sync {
    /// Checks `choice`, found under `key` (`tcp.congestion_control`, `scheme`), and returns it
    /// with every parameter, defaults filled in. Errors name the full key
    /// (`tcp.congestion_control.beta = 1.5: ...`); an unknown name lists what is registered
    /// ([`unknown_name`]).
    fn resolve(
        &self,
        point: ExtensionPoint,
        key: &str,
        choice: &ExtensionChoice,
    ) -> Result<ExtensionChoice, ConfigError>;

    /// The names registered for `point`, in registration order.
    fn names(&self, point: ExtensionPoint) -> Vec<&'static str>;
}

/// The catalog of the built-in components alone: every extension name is unknown.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoExtensions;

impl Catalog for NoExtensions {
    fn resolve(
        &self,
        point: ExtensionPoint,
        key: &str,
        choice: &ExtensionChoice,
    ) -> Result<ExtensionChoice, ConfigError> {
        Err(unknown_name(point, key, &choice.name, &[]))
    }
    fn names(&self, _point: ExtensionPoint) -> Vec<&'static str> {
        Vec::new()
    }
}

/// The built-in names of `point` (listed beside the registered ones in errors).
pub fn builtin_names(point: ExtensionPoint) -> Vec<&'static str> {
    match point {
        ExtensionPoint::CongestionControl => incastsim_tcp::BuiltinController::ALL
            .iter()
            .map(|b| b.name())
            .collect(),
        ExtensionPoint::Scheme => crate::scheme::SCHEMES.iter().map(|(n, _)| *n).collect(),
        ExtensionPoint::QueueDiscipline => crate::queue::QUEUE_KINDS.to_vec(),
        ExtensionPoint::TrafficGenerator => crate::traffic::BUILTIN_KINDS.to_vec(),
        ExtensionPoint::Probe => Vec::new(),
        ExtensionPoint::RdmaCongestionControl => crate::rdma_cc::RDMA_CC_KINDS.to_vec(),
    }
}

/// `key = name: one of <built-ins>, or a registered extension: <names>` (or "none registered").
pub fn unknown_name(
    point: ExtensionPoint,
    key: &str,
    name: &str,
    registered: &[&str],
) -> ConfigError {
    let builtins = builtin_names(point);
    let extensions = if registered.is_empty() {
        "none registered (a binary built with incastsim::cli::main_with can add them)".to_string()
    } else {
        registered.join(", ")
    };
    let allowed = if builtins.is_empty() {
        format!("a registered extension: {extensions}")
    } else {
        format!(
            "one of {}, or a registered extension: {extensions}",
            builtins.join(", ")
        )
    };
    invalid(key, name, allowed)
}

/// Asks `catalog` about every extension `cfg` names (each group's congestion controller, the
/// switch queue, the scheme, the probes) and puts back what it returns: checked parameters, defaults filled in.
pub(crate) fn resolve_extensions(
    cfg: &mut crate::Config,
    catalog: &dyn Catalog,
) -> Result<(), ConfigError> {
    use crate::scheme::SchemeConfig;
    use crate::tcp::CongestionControlName;
    for (key, tcp) in cfg.tcp_sections_mut() {
        if let CongestionControlName::Extension(choice) = &mut tcp.congestion_control {
            let key = key.key("congestion_control");
            *choice = catalog.resolve(ExtensionPoint::CongestionControl, &key, choice)?;
        }
        if let crate::transport::TransportConfig::Roce(r) = &mut tcp.transport
            && let crate::rdma_cc::RdmaCcConfig::Extension(choice) = &mut r.congestion_control
        {
            let key = key.key("transport.congestion_control");
            *choice = catalog.resolve(ExtensionPoint::RdmaCongestionControl, &key, choice)?;
        }
    }
    if let crate::queue::QueueConfig::Extension(choice) = cfg.topology.switch_queue_mut() {
        *choice = catalog.resolve(
            ExtensionPoint::QueueDiscipline,
            "topology.switch_queue",
            choice,
        )?;
    }
    if let SchemeConfig::Extension(choice) = &mut cfg.scheme {
        *choice = catalog.resolve(ExtensionPoint::Scheme, "scheme", choice)?;
    }
    for (i, t) in cfg.traffic.iter_mut().enumerate() {
        if let crate::traffic::TrafficConfig::Extension(choice) = t {
            let point = ExtensionPoint::TrafficGenerator;
            // The name is the entry's `kind`: an unknown one is blamed on that key.
            let names = catalog.names(point);
            if !names.contains(&choice.name.as_str()) {
                let key = format!("traffic[{i}].kind");
                return Err(unknown_name(point, &key, &choice.name, &names));
            }
            *choice = catalog.resolve(point, &format!("traffic[{i}]"), choice)?;
        }
    }
    for (i, choice) in cfg.probes.iter_mut().enumerate() {
        *choice = catalog.resolve(ExtensionPoint::Probe, &format!("probes[{i}]"), choice)?;
    }
    Ok(())
}
