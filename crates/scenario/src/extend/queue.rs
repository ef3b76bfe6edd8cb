//! The queue-discipline extension point: a switch-port discipline (admission, marking, and
//! optionally scheduling at dequeue) from a downstream crate, chosen by
//! `topology.switch_queue: {name: <registered name>, <param>: ...}` and built for every switch
//! output port by the plan.

use super::{Codec, ExtensionParams, Extensions, Registered, prepare, read_params};
use crate::config::ConfigError;
use crate::config::extension::{ExtensionChoice, ExtensionPoint};
use incastsim_core::rng::Stream;
use incastsim_core::{BitsPerSec, Packet, SimRng, Time};
use incastsim_switch::{
    BufferLimit, DequeueContext, DropReason, Held, Occupancy, QueueDisc, QueueDiscipline, Verdict,
};
use std::fmt::Debug;
use std::marker::PhantomData;
use std::sync::Arc;

/// What a queue discipline gets when a switch output port is built.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueContext {
    /// The port's index (as in `ports.csv` and [`crate::Simulation::port_occupancy`]).
    pub port: u32,
    /// The port's name as in `ports.csv` (`switch0->host16`: from switch0 towards host16).
    pub name: String,
    /// The port's transmission rate (its link's rate, with its node's clock offset if
    /// `topology.clock_tolerance_ppm` is set).
    pub rate: BitsPerSec,
    /// The port's buffer (`topology.switch_buffer` or a custom link's `buffer`). `Unlimited` on
    /// a switch with a shared buffer: there the shared buffer admits first. The port enforces
    /// it whatever the discipline says (see [`QueueDisciplineExtension`]).
    pub limit: BufferLimit,
    /// The top-level `tcp.mss`, bytes of payload in a full segment (a full packet also
    /// carries `tcp.header` bytes).
    pub mss: u32,
    run_seed: u64,
}

impl QueueContext {
    /// The context of port `port` (named `name`) in the run seeded with `run_seed`.
    pub fn new(
        run_seed: u64,
        port: u32,
        name: impl Into<String>,
        rate: BitsPerSec,
        limit: BufferLimit,
        mss: u32,
    ) -> QueueContext {
        QueueContext {
            port,
            name: name.into(),
            rate,
            limit,
            mss,
            run_seed,
        }
    }

    /// The run seed the streams derive from.
    pub fn run_seed(&self) -> u64 {
        self.run_seed
    }

    /// The port's queue-discipline stream (`Stream::Queue`, instance = port): the stream a
    /// built-in RED draws from at this port. A port runs one discipline, so the stream is the
    /// extension's alone: its draws shift no other component's, and a discipline that draws as
    /// RED does sees RED's numbers.
    pub fn rng(&self) -> SimRng {
        SimRng::for_stream(self.run_seed, Stream::Queue, self.port as u64)
    }
}

/// A switch-port queue discipline from outside incastsim (admission, marking), selected by
/// `topology.switch_queue: {name: <registered name>, <param>: <value>, ...}` (or the bare name
/// for its defaults); it then runs at every switch output port (host NICs stay drop-tail).
///
/// Its discipline implements [`incastsim_switch::QueueDiscipline`]: on each arrival it sees
/// the packet, the buffer's occupancy (the packet not included) and the time, and returns a
/// verdict: admit, admit marked (the port sets CE and counts the mark), or drop with a reason
/// (an AQM drop is [`DropReason::Aqm`]). It may change only the arriving packet's ECN and flag
/// bits, and holds no reference into the run (it is `'static`). The port
/// keeps the buffer, counts the verdicts and enforces [`QueueContext::limit`]: an arrival the
/// discipline admits but that does not fit is dropped as [`DropReason::BufferFull`] (the
/// discipline still saw it, as RED's average does). One value per port, built by
/// [`QueueDisciplineExtension::new`]; its randomness is [`QueueContext::rng`].
///
/// A discipline may also schedule (the dequeue side of [`QueueDiscipline`]: `schedules`,
/// `hold`, `dequeue`, its timer): it then holds the admitted packets and picks each departure,
/// dropping, marking or trimming at its head through the `DequeueContext` the port gives it
/// (counted once at the port; a head drop is a [`DropReason::Aqm`] drop). Its ports cannot
/// also have `topology.priority_classes` above 1 (refused at plan time).
pub trait QueueDisciplineExtension: 'static {
    /// Its parameters (everything beside `name` in `topology.switch_queue`).
    type Params: ExtensionParams;
    /// The discipline of one port. `Clone` and `Send`: ports are copied with their plan and
    /// runs go to sweep threads; `Debug`: it shows in the plan's debug output.
    type Discipline: QueueDiscipline + Clone + Debug + Send + 'static;
    /// One line for `incastsim components`.
    const DESCRIPTION: &'static str;
    /// Checks the parameters. Errors name keys relative to the discipline
    /// (`invalid("threshold", ..., "a size in bytes or packets")`); the registry prefixes
    /// `topology.switch_queue`.
    fn check(_params: &Self::Params) -> Result<(), ConfigError> {
        Ok(())
    }
    /// The discipline of the port `ctx` describes.
    fn new(params: &Self::Params, ctx: &QueueContext) -> Self::Discipline;
}

/// A queue discipline ready to be built for ports: the extension's type with its parameters
/// read once.
pub trait PreparedQueueDiscipline: Send + Sync + Debug {
    /// The discipline of the port `ctx` describes, as the port holds it
    /// ([`QueueDisc::Extension`]), its buffer enforced.
    fn new_discipline(&self, ctx: &QueueContext) -> QueueDisc;
}

struct QueueDisciplineWith<Q: QueueDisciplineExtension> {
    name: &'static str,
    params: Q::Params,
}

impl<Q: QueueDisciplineExtension> Debug for QueueDisciplineWith<Q> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {:?}", self.name, self.params)
    }
}

impl<Q: QueueDisciplineExtension> PreparedQueueDiscipline for QueueDisciplineWith<Q> {
    fn new_discipline(&self, ctx: &QueueContext) -> QueueDisc {
        QueueDisc::extension(WithinBuffer {
            discipline: Q::new(&self.params, ctx),
            limit: ctx.limit,
        })
    }
}

/// An extension's discipline with the port's buffer enforced after its verdict, so the port's
/// invariant (the buffer within its limit) holds whatever the extension decides.
#[derive(Clone, Debug)]
struct WithinBuffer<D> {
    discipline: D,
    limit: BufferLimit,
}

impl<D: QueueDiscipline> QueueDiscipline for WithinBuffer<D> {
    #[inline]
    fn on_enqueue(&mut self, packet: &mut Packet, occupancy: Occupancy, now: Time) -> Verdict {
        match self.discipline.on_enqueue(packet, occupancy, now) {
            Verdict::Admit | Verdict::AdmitMarked
                if !self.limit.fits(occupancy, packet.wire_bytes()) =>
            {
                Verdict::Drop(DropReason::BufferFull)
            }
            verdict => verdict,
        }
    }
    fn limit(&self) -> BufferLimit {
        self.limit
    }
    fn tracks_idle(&self) -> bool {
        self.discipline.tracks_idle()
    }
    fn note_idle(&mut self, since: Time) {
        self.discipline.note_idle(since)
    }
    // The dequeue side as the extension's own.
    fn schedules(&self) -> bool {
        self.discipline.schedules()
    }
    fn hold(&mut self, held: Held) {
        self.discipline.hold(held)
    }
    fn dequeue(&mut self, ctx: &mut DequeueContext) -> Option<Held> {
        self.discipline.dequeue(ctx)
    }
    fn next_timer(&self) -> Option<Time> {
        self.discipline.next_timer()
    }
    fn on_timer(&mut self, ctx: &mut DequeueContext) {
        self.discipline.on_timer(ctx)
    }
    fn value_names(&self) -> &'static [&'static str] {
        self.discipline.value_names()
    }
    fn values(&self, out: &mut [f64]) {
        self.discipline.values(out)
    }
}

impl Extensions {
    /// Registers queue discipline `Q` as `name` (`topology.switch_queue: {name: <name>, ...}`;
    /// see [`QueueDisciplineExtension`]). A name already taken (by a built-in `kind` or an
    /// earlier registration) panics, as [`Extensions::congestion_control`].
    pub fn queue_discipline<Q: QueueDisciplineExtension>(
        mut self,
        name: &'static str,
    ) -> Extensions {
        self.refuse_taken(ExtensionPoint::QueueDiscipline, name);
        fn prepare<Q: QueueDisciplineExtension>(
            name: &'static str,
            key: &str,
            params: &serde_json::Map<String, serde_json::Value>,
        ) -> Result<Arc<dyn PreparedQueueDiscipline>, ConfigError> {
            let params = read_params::<Q::Params>(key, params)?;
            Ok(Arc::new(QueueDisciplineWith::<Q> { name, params }))
        }
        self.queue_disciplines.push(Registered {
            info: self.info(ExtensionPoint::QueueDiscipline, name, Q::DESCRIPTION),
            codec: Arc::new(Codec::<Q::Params> {
                check: Q::check,
                _params: PhantomData,
            }),
            prepare: Some(prepare::<Q>),
        });
        self
    }

    /// The queue discipline `choice` (found under `key`) ready to be built for ports.
    pub fn prepare_queue_discipline(
        &self,
        key: &str,
        choice: &ExtensionChoice,
    ) -> Result<Arc<dyn PreparedQueueDiscipline>, ConfigError> {
        prepare(
            &self.queue_disciplines,
            ExtensionPoint::QueueDiscipline,
            key,
            choice,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use incastsim_core::PacketKind;

    /// Admits everything: the port's buffer must still hold.
    #[derive(Clone, Debug)]
    struct AdmitAll;
    impl QueueDiscipline for AdmitAll {
        fn on_enqueue(&mut self, _: &mut Packet, _: Occupancy, _: Time) -> Verdict {
            Verdict::Admit
        }
        fn limit(&self) -> BufferLimit {
            BufferLimit::Unlimited
        }
    }

    #[test]
    fn the_buffer_holds_whatever_the_discipline_says() {
        let mut q = WithinBuffer {
            discipline: AdmitAll,
            limit: BufferLimit::Packets(2),
        };
        let mut p = Packet::new(PacketKind::Data, 0, 1, 1000, 40);
        let occ = |packets| Occupancy {
            bytes: 1040 * packets as u64,
            packets,
        };
        assert_eq!(q.on_enqueue(&mut p, occ(1), Time::ZERO), Verdict::Admit);
        assert_eq!(
            q.on_enqueue(&mut p, occ(2), Time::ZERO),
            Verdict::Drop(DropReason::BufferFull)
        );
        assert_eq!(q.limit(), BufferLimit::Packets(2));
    }

    #[test]
    fn each_port_has_its_own_stream() {
        let ctx = |port| {
            QueueContext::new(
                7,
                port,
                "p",
                BitsPerSec::gbps(1),
                BufferLimit::Unlimited,
                1000,
            )
        };
        assert_eq!(ctx(3).rng().next_u64(), ctx(3).rng().next_u64());
        assert_ne!(ctx(3).rng().next_u64(), ctx(4).rng().next_u64());
        // The stream a built-in RED at the same port draws from.
        assert_eq!(
            ctx(3).rng(),
            SimRng::for_stream(7, Stream::Queue, 3),
            "the port's queue stream"
        );
    }
}
