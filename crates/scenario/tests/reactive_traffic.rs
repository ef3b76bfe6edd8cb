//! A reactive traffic generator (`TrafficGeneratorExtension::reactor`): flows it adds while the
//! run goes, when one of its flows finishes, get the next flow ids, start no earlier than
//! asked, complete with FCT, ideal FCT and slowdown, are the same run after run, stop at
//! `run.max_sim_time`, and bad ones are refused by the context's constructors.

use incastsim_core::{Duration, HostId, Time};
use incastsim_scenario::config::units::{Bytes, Dur};
use incastsim_scenario::extend::{
    FinishedFlow, GeneratedFlow, ReactionContext, RefusedFlow, TrafficContext,
    TrafficGeneratorExtension, TrafficReactor,
};
use incastsim_scenario::{Config, ConfigError, Extensions, RunOptions, check_buildable, run_with};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

/// `relay`: one flow from the first sender to the receiver; each time a flow finishes, the
/// next sender (cycling) sends `size` bytes `gap` later, `flows` flows in all (`flows: 0`: no
/// end). With `bad: true` each reaction first tries two bad flows.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RelayParams {
    flows: u32,
    gap: Dur,
    size: Bytes,
    #[serde(default)]
    bad: bool,
    /// A random extra delay U[0, jitter] per added flow (from the entry's stream).
    #[serde(default = "zero")]
    jitter: Dur,
}

fn zero() -> Dur {
    Dur(Duration::ZERO)
}

/// What the reactors of the test saw refused (shared with the test through the static).
static REFUSED: Mutex<Vec<RefusedFlow>> = Mutex::new(Vec::new());

struct Relay;

struct RelayReactor {
    params: RelayParams,
    senders: Vec<HostId>,
    receiver: HostId,
    added: u32,
    refused: Arc<Mutex<Vec<RefusedFlow>>>,
}

impl TrafficReactor for RelayReactor {
    fn on_flow_finish(&mut self, done: &FinishedFlow, ctx: &mut ReactionContext) {
        assert_eq!(done.finish, ctx.now());
        assert!(done.fct() > Duration::ZERO);
        if self.params.bad {
            REFUSED.lock().unwrap().extend(
                [
                    ctx.sized_flow(self.receiver, self.receiver, 1, Duration::ZERO),
                    ctx.sized_flow(self.senders[0], self.receiver, 0, Duration::ZERO),
                ]
                .into_iter()
                .filter_map(Result::err),
            );
        }
        if self.params.flows != 0 && self.added + 1 >= self.params.flows {
            return;
        }
        self.added += 1;
        let src = self.senders[self.added as usize % self.senders.len()];
        let jitter = ctx.rng().duration_up_to(self.params.jitter.0);
        let after = self.params.gap.0 + jitter;
        match ctx.sized_flow(src, self.receiver, self.params.size.0, after) {
            Ok(id) => assert_eq!(id, done.flow + 1, "ids follow in order"),
            Err(e) => self.refused.lock().unwrap().push(e),
        }
    }
}

impl TrafficGeneratorExtension for Relay {
    type Params = RelayParams;
    const DESCRIPTION: &'static str = "one flow at a time, each when the previous finishes";
    fn generate(
        p: &RelayParams,
        ctx: &mut TrafficContext,
    ) -> Result<Vec<GeneratedFlow>, ConfigError> {
        let src = ctx.senders()[0];
        let dst = ctx.receivers()[0];
        Ok(vec![ctx.sized_flow(src, dst, Time::ZERO, p.size.0)])
    }
    fn reactor(
        p: &RelayParams,
        ctx: &mut TrafficContext,
    ) -> Result<Option<Box<dyn TrafficReactor>>, ConfigError> {
        Ok(Some(Box::new(RelayReactor {
            params: p.clone(),
            senders: ctx.senders().to_vec(),
            receiver: ctx.receivers()[0],
            added: 0,
            refused: Arc::new(Mutex::new(Vec::new())),
        })))
    }
}

fn extensions() -> Extensions {
    Extensions::new().traffic_generator::<Relay>("relay")
}

fn config(traffic: &str, extra: &str) -> Config {
    let yaml = format!(
        r#"
name: reactive-test
senders: 3
topology: {{kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 100KB}}
tcp: {{mss: 1460B, header: 40B, initial_cwnd: 2, rto_min: 10ms, delayed_ack: {{enabled: false}}}}
workload: {{kind: traffic, duration: 1ms}}
traffic: {traffic}
{extra}
"#
    );
    let ext = extensions();
    let cfg = Config::from_yaml_with(&yaml, &[], &ext).unwrap();
    check_buildable(&cfg, &ext).unwrap();
    cfg
}

fn run(cfg: &Config, seed: u64) -> incastsim_scenario::RunResult {
    run_with(cfg, seed, &RunOptions::new().extensions(&extensions())).unwrap()
}

#[test]
fn each_flow_starts_a_gap_after_the_previous_one_finishes() {
    let cfg = config("[{kind: relay, flows: 5, gap: 100us, size: 2920B}]", "");
    let r = run(&cfg, 1);
    // The workload's arrivals end at 1 ms; draining waits for the added flows too.
    assert!(r.run.completed);
    assert_eq!(r.flows.len(), 5);
    assert_eq!(r.run.flows_finite, 5);
    assert_eq!(r.run.flows_completed, 5);
    for (i, f) in r.flows.iter().enumerate() {
        assert_eq!(f.flow, i as u32);
        assert_eq!(f.kind, "relay");
        assert_eq!(f.generator, Some(0));
        assert_eq!(f.src_host, i as u32 % 3);
        assert_eq!(f.dst_host, 3);
        assert_eq!(f.size_bytes, Some(2920));
        assert_eq!(f.bytes_delivered, 2920);
        // Alone on the network: the ideal FCT, slowdown 1.
        let (fct, ideal) = (f.fct_ms.unwrap(), f.ideal_fct_ms.unwrap());
        assert!((fct - ideal).abs() < 1e-9, "flow {i}: {fct} vs {ideal}");
        assert!((f.slowdown.unwrap() - 1.0).abs() < 1e-9);
    }
    for w in r.flows.windows(2) {
        let finish = w[0].start_s + w[0].fct_ms.unwrap() / 1e3;
        let gap = w[1].start_s - finish;
        assert!((gap - 100e-6).abs() < 1e-12, "gap {gap}");
    }
}

#[test]
fn same_config_and_seed_same_flows() {
    let cfg = config(
        "[{kind: relay, flows: 20, gap: 10us, size: 20000B, jitter: 50us}]",
        "",
    );
    let key = |r: &incastsim_scenario::RunResult| {
        r.flows
            .iter()
            .map(|f| format!("{} {} {:?} {:?}", f.flow, f.start_s, f.fct_ms, f.slowdown))
            .collect::<Vec<_>>()
    };
    let a = run(&cfg, 7);
    assert_eq!(a.flows.len(), 20);
    assert_eq!(key(&a), key(&run(&cfg, 7)));
    // The jitter comes from the seed: another seed, other starts.
    assert_ne!(key(&a), key(&run(&cfg, 8)));
}

#[test]
fn an_endless_generator_stops_at_the_time_limit() {
    let cfg = config(
        "[{kind: relay, flows: 0, gap: 50us, size: 1460B}]",
        "run: {max_sim_time: 5ms}",
    );
    let r = run(&cfg, 1);
    assert!(!r.run.completed);
    let limit = 0.005;
    assert!(r.flows.len() > 10, "{} flows", r.flows.len());
    assert!(r.flows.iter().all(|f| f.start_s <= limit));
}

#[test]
fn bad_flows_are_refused_not_added() {
    REFUSED.lock().unwrap().clear();
    let cfg = config(
        "[{kind: relay, flows: 3, gap: 10us, size: 1460B, bad: true}]",
        "",
    );
    let r = run(&cfg, 1);
    assert!(r.run.completed);
    assert_eq!(r.flows.len(), 3);
    assert!(
        r.flows
            .iter()
            .all(|f| f.src_host != f.dst_host && f.size_bytes == Some(1460))
    );
    // Two refusals per reaction (one per finished flow).
    let refused = REFUSED.lock().unwrap().clone();
    let want: Vec<RefusedFlow> = [RefusedFlow::SameHost, RefusedFlow::Empty]
        .repeat(3)
        .to_vec();
    assert_eq!(refused, want);
}

#[test]
fn refusals_say_why() {
    assert_eq!(
        RefusedFlow::AfterTimeLimit.to_string(),
        "it would start after run.max_sim_time"
    );
    assert_eq!(
        RefusedFlow::SameHost.to_string(),
        "source and destination are the same host"
    );
}
