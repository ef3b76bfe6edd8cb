//! The congestion-control extension point: a TCP controller from a downstream crate, chosen by
//! `tcp.congestion_control: {name: <registered name>, <param>: ...}` and built per connection.

use super::*;
use incastsim_core::BitsPerSec;

/// What a congestion controller gets when a connection is built.
#[derive(Clone, Copy, Debug)]
pub struct ControllerContext {
    /// The flow (connection) index.
    pub flow: u32,
    /// The sender's maximum segment size, bytes of payload (the flow's `tcp.mss`, or what its
    /// scheme starts with).
    pub smss: u32,
    /// Header bytes each segment carries on the wire besides its payload (`tcp.header` and a
    /// scheme's extra header): a full segment is `smss + header_bytes` on the wire.
    pub header_bytes: u32,
    /// The rate of the sending host's link (its NIC port): a rate-based controller's line rate.
    pub link_rate: BitsPerSec,
    run_seed: u64,
}

impl ControllerContext {
    /// The context of flow `flow` in the run seeded with `run_seed`, sending segments of
    /// `smss` payload bytes and `header_bytes` of headers from a host whose link runs at
    /// `link_rate`.
    pub fn new(
        run_seed: u64,
        flow: u32,
        smss: u32,
        header_bytes: u32,
        link_rate: BitsPerSec,
    ) -> ControllerContext {
        ControllerContext {
            flow,
            smss,
            header_bytes,
            link_rate,
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

impl Extensions {
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
}
