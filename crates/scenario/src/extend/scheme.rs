//! The scheme extension point: an incast scheme from a downstream crate (sender and receiver
//! hooks), chosen by `scheme: {name: <registered name>, <param>: ...}`.

use super::*;

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

impl Extensions {
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

    /// The scheme `choice` (found under `key`) ready to build connections.
    pub fn prepare_scheme(
        &self,
        key: &str,
        choice: &ExtensionChoice,
    ) -> Result<Arc<dyn PreparedScheme>, ConfigError> {
        prepare(&self.schemes, ExtensionPoint::Scheme, key, choice)
    }
}
