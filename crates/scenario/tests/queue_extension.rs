//! A switch-port queue discipline from outside the crate ([`QueueDisciplineExtension`]),
//! chosen by `topology.switch_queue: {name: ..., <params>}`: the plan builds one per switch
//! port with that port's context and stream; the built-in RED wrapped as an extension gives
//! the built-in's run bit for bit (same stream, same idle-time hook); its parameters are
//! checked, completed and refused as a built-in's.

use crate::common;

use common::config_path;
use incastsim_core::{Packet, SerializationRate, Time};
use incastsim_scenario::config::ConfigError;
use incastsim_scenario::extend::{QueueContext, QueueDisciplineExtension};
use incastsim_scenario::{Config, Extensions, Plan, RunOptions, check_buildable, run_with};
use incastsim_switch::{
    BufferLimit, Occupancy, QueueDiscipline, Red, RedParams, RedProfile, Threshold, Verdict,
};
use serde::{Deserialize, Serialize};

/// The switch crate's RED, registered as an extension: `{name: ext_red, min_th, max_th, w_q}`
/// in packets.
#[derive(Clone, Debug)]
struct ExtRed {
    red: Red,
    /// The port it runs at, as the plan named it (read through `Debug`).
    #[allow(dead_code)]
    port_name: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExtRedParams {
    min_th: u32,
    max_th: u32,
    #[serde(default = "default_w_q")]
    w_q: f64,
}

fn default_w_q() -> f64 {
    0.002
}

impl QueueDiscipline for ExtRed {
    fn on_enqueue(&mut self, packet: &mut Packet, occ: Occupancy, now: Time) -> Verdict {
        self.red.on_enqueue(packet, occ, now)
    }
    fn limit(&self) -> BufferLimit {
        self.red.limit()
    }
    fn tracks_idle(&self) -> bool {
        true
    }
    fn note_idle(&mut self, since: Time) {
        self.red.note_idle(since)
    }
}

impl QueueDisciplineExtension for ExtRed {
    type Params = ExtRedParams;
    type Discipline = ExtRed;
    const DESCRIPTION: &'static str = "the built-in RED through the extension point";

    fn check(p: &ExtRedParams) -> Result<(), ConfigError> {
        if p.min_th >= p.max_th {
            return Err(incastsim_scenario::config::invalid(
                "max_th",
                p.max_th,
                format!("more than min_th ({})", p.min_th),
            ));
        }
        Ok(())
    }

    fn new(p: &ExtRedParams, ctx: &QueueContext) -> ExtRed {
        // As the plan builds the built-in: idle time counted in full packets (MSS + 40 B).
        let typical_tx_ps = SerializationRate::new(ctx.rate)
            .time_for(ctx.mss as u64 + 40)
            .as_ps() as f64;
        let params = RedParams {
            unit: Threshold::Packets(p.min_th),
            w_q: p.w_q,
            gentle: true,
            ecn: false,
            limit: ctx.limit,
            profiles: vec![RedProfile {
                min_th: p.min_th as f64,
                max_th: p.max_th as f64,
                max_p: 0.1,
            }],
            profile_of_dscp: [0; 64],
            typical_tx_ps,
        };
        ExtRed {
            red: Red::new(params, ctx.rng()),
            port_name: ctx.name.clone(),
        }
    }
}

fn extensions() -> Extensions {
    Extensions::new().queue_discipline::<ExtRed>("ext_red")
}

fn s1(queue: &str) -> Result<Config, ConfigError> {
    let sets = [
        "senders=16".to_string(),
        "workload.blocks=5".to_string(),
        format!("topology.switch_queue={queue}"),
    ];
    let ext = extensions();
    let cfg = Config::load_with(&config_path("incast-classic.yaml"), &sets, &ext)?;
    check_buildable(&cfg, &ext)?;
    Ok(cfg)
}

/// The extension sees what the built-in sees and draws what it draws: identical runs.
#[test]
fn red_through_the_extension_point_equals_the_builtin() {
    let builtin = s1("{kind: red, min_th: 5 packets, max_th: 15 packets, w_q: 0.2}").unwrap();
    let mine = s1("{name: ext_red, min_th: 5, max_th: 15, w_q: 0.2}").unwrap();
    let ext = extensions();
    let with_ext = RunOptions::new().extensions(&ext);
    for seed in [1, 2] {
        let a = run_with(&builtin, seed, &with_ext).unwrap();
        let b = run_with(&mine, seed, &with_ext).unwrap();
        let aqm: u64 = b.ports.iter().map(|p| p.drops_aqm).sum();
        assert!(aqm > 0, "RED acted ({aqm} early drops)");
        // As text: NaN columns (no finite flows) are equal there.
        let text =
            |r: &incastsim_scenario::RunResult| format!("{:?}", (&r.run, &r.flows, &r.ports));
        assert_eq!(text(&a), text(&b), "seed {seed}");
    }
}

/// One discipline per switch port, built with that port's name; host NICs stay drop-tail.
#[test]
fn every_switch_port_gets_its_own_discipline() {
    let cfg = s1("{name: ext_red, min_th: 5, max_th: 15}").unwrap();
    let ext = extensions();
    let plan = Plan::build(&cfg, 1, &RunOptions::new().extensions(&ext)).unwrap();
    let ports: Vec<String> = plan.fabric.ports.iter().map(|p| format!("{p:?}")).collect();
    assert_eq!(ports.len(), 2 * 17);
    let with = |s: &str| ports.iter().filter(|p| p.contains(s)).count();
    assert_eq!(with("ExtRed"), 17, "one per switch port");
    assert_eq!(with("port_name: \"switch0->host16\""), 1);
    assert_eq!(with("DropTail"), 17, "the host NICs");
}

/// Defaults are filled in (the resolved config re-loads to the same config); bad values and
/// unknown names are refused with the key, the value and what is allowed.
#[test]
fn parameters_are_checked_and_completed_as_a_builtins() {
    let cfg = s1("{name: ext_red, min_th: 5, max_th: 15}").unwrap();
    let yaml = cfg.to_yaml();
    assert!(
        yaml.contains("name: ext_red") && yaml.contains("w_q: 0.002"),
        "{yaml}"
    );
    let again = Config::from_yaml_with(&yaml, &[], &extensions()).unwrap();
    assert_eq!(again, cfg);

    let e = s1("{name: ext_red, min_th: 15, max_th: 5}")
        .unwrap_err()
        .to_string();
    assert_eq!(e, "topology.switch_queue.max_th = 5: more than min_th (15)");
    let builtin = s1("{kind: red, min_th: 15 packets, max_th: 5 packets}")
        .unwrap_err()
        .to_string();
    assert_eq!(
        builtin,
        "topology.switch_queue.max_th = 5 packets: more than min_th (15 packets)"
    );
    let e = s1("{name: ext_red, min_th: 5}").unwrap_err().to_string();
    assert!(
        e.starts_with("topology.switch_queue") && e.contains("max_th"),
        "{e}"
    );
    let e = s1("{name: codel}").unwrap_err().to_string();
    assert!(
        e.starts_with("topology.switch_queue = codel: one of drop_tail, red,")
            && e.ends_with("or a registered extension: ext_red"),
        "{e}"
    );
    // Without the registry the name is unknown, and the error says how to add one.
    let e = incastsim_scenario::load_checked(
        &config_path("incast-classic.yaml"),
        &["topology.switch_queue={name: ext_red, min_th: 5, max_th: 15}".into()],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("none registered"), "{e}");
}

/// The manifest's record of the run names the discipline.
#[test]
fn used_by_names_the_discipline() {
    let cfg = s1("{name: ext_red, min_th: 5, max_th: 15}").unwrap();
    let used = extensions().used_by(&cfg);
    assert_eq!(used.len(), 1);
    assert_eq!(used[0].name, "ext_red");
    assert_eq!(used[0].point.name(), "queue_discipline");
}
