//! The RDMA congestion-control extension point: a RoCE queue pair's rate controller from a
//! downstream crate, chosen by `tcp.transport.congestion_control: {name: my_cc, ...}` (its
//! registered name and its parameters) and built per queue pair, as DCQCN, HPCC and TIMELY
//! are, through the same `incastsim_roce::RateController` hooks.

use super::*;
use incastsim_core::BitsPerSec;
use incastsim_roce::{Controller, CustomController, RateController};

/// What a rate controller gets when its queue pair is built.
#[derive(Clone, Copy, Debug)]
pub struct RdmaControllerContext {
    /// The flow (queue pair) index.
    pub flow: u32,
    /// The sending NIC's line rate.
    pub line_rate: BitsPerSec,
    /// The flow's base RTT on an idle network (a data packet out, its ACK back).
    pub base_rtt: incastsim_core::Duration,
    /// Payload bytes per packet (the QP's MTU).
    pub mtu: u32,
    run_seed: u64,
}

impl RdmaControllerContext {
    /// The context of flow `flow` in the run seeded with `run_seed`.
    pub fn new(
        run_seed: u64,
        flow: u32,
        line_rate: BitsPerSec,
        base_rtt: incastsim_core::Duration,
        mtu: u32,
    ) -> RdmaControllerContext {
        RdmaControllerContext {
            flow,
            line_rate,
            base_rtt,
            mtu,
            run_seed,
        }
    }
    /// The controller's own random stream (`Stream::Controller`, instance = flow).
    pub fn rng(&self) -> SimRng {
        SimRng::for_stream(self.run_seed, Stream::Controller, self.flow as u64)
    }
}

/// A RoCE rate controller from outside incastsim, selected by
/// `tcp.transport.congestion_control: {name: <registered name>, <param>: <value>, ...}`.
///
/// It implements [`RateController`]: it sees each ACK, NACK, CNP and its own timer, and sets
/// the rate, the window and its timer; loss recovery stays the queue pair's. A controller that
/// reads `AckSample::int` needs `tcp.transport.int_telemetry: true`.
pub trait RdmaControllerExtension: RateController + Clone + Debug + 'static {
    /// Its parameters (everything beside `name`).
    type Params: ExtensionParams;
    /// One line for `incastsim components`.
    const DESCRIPTION: &'static str;
    /// Checks the parameters (errors name keys relative to the controller).
    fn check(_params: &Self::Params) -> Result<(), ConfigError> {
        Ok(())
    }
    /// The controller of one queue pair.
    fn new(params: &Self::Params, ctx: &RdmaControllerContext) -> Self;
}

/// A rate controller ready to build queue pairs: the extension's type with its parameters read
/// once.
pub trait PreparedRdmaController: Send + Sync + Debug {
    /// The controller of one queue pair.
    fn new_controller(&self, ctx: &RdmaControllerContext) -> Controller;
}

struct RdmaControllerWith<C: RdmaControllerExtension> {
    name: &'static str,
    params: C::Params,
}

impl<C: RdmaControllerExtension> Debug for RdmaControllerWith<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {:?}", self.name, self.params)
    }
}

impl<C: RdmaControllerExtension> PreparedRdmaController for RdmaControllerWith<C> {
    fn new_controller(&self, ctx: &RdmaControllerContext) -> Controller {
        Controller::Custom(CustomController::new(self.name, C::new(&self.params, ctx)))
    }
}

impl Extensions {
    /// Registers RDMA rate controller `C` as `name` (`tcp.transport.congestion_control:
    /// {name: <name>, ...}`). A name already taken panics.
    pub fn rdma_congestion_control<C: RdmaControllerExtension>(
        mut self,
        name: &'static str,
    ) -> Extensions {
        self.refuse_taken(ExtensionPoint::RdmaCongestionControl, name);
        fn prepare<C: RdmaControllerExtension>(
            name: &'static str,
            key: &str,
            params: &serde_json::Map<String, serde_json::Value>,
        ) -> Result<Arc<dyn PreparedRdmaController>, ConfigError> {
            let params = read_params::<C::Params>(key, params)?;
            Ok(Arc::new(RdmaControllerWith::<C> { name, params }))
        }
        self.rdma_controllers.push(Registered {
            info: self.info(ExtensionPoint::RdmaCongestionControl, name, C::DESCRIPTION),
            codec: Arc::new(Codec::<C::Params> {
                check: C::check,
                _params: PhantomData,
            }),
            prepare: Some(prepare::<C>),
        });
        self
    }

    /// The RDMA controller `choice` (found under `key`) ready to build queue pairs.
    pub fn prepare_rdma_controller(
        &self,
        key: &str,
        choice: &ExtensionChoice,
    ) -> Result<Arc<dyn PreparedRdmaController>, ConfigError> {
        prepare(
            &self.rdma_controllers,
            ExtensionPoint::RdmaCongestionControl,
            key,
            choice,
        )
    }
}
