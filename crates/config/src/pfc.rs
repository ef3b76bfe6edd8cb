//! `pfc:`: Priority Flow Control (IEEE 802.1Qbb) on every link of the fabric, for the lossless
//! priorities it names. Absent (the default), no port pauses and nothing changes.
//!
//! A switch counts the bytes each (input port, priority) holds in its buffer. Above XOFF it
//! sends a PAUSE for that priority out of that input port; once the count is `xon_offset` below
//! XOFF it sends a RESUME (quanta 0), or lets the pause lapse (`resume: false`). Bytes that
//! arrive above XOFF go to the (port, priority)'s headroom; beyond the headroom they are dropped
//! and counted as headroom overflow. XOFF is static bytes, or dynamic: α × the free lossless
//! pool, as Broadcom's MMU and the HPCC ns-3 fork (`SwitchMmu::GetPfcThreshold`) do it.

use crate::topology::Alpha;
use crate::units::{Bytes, Dur};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The `pfc:` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PfcConfig {
    /// The lossless priorities (traffic classes, as `topology.priority_classes` numbers them:
    /// class = min(DSCP, classes − 1)).
    pub priorities: Vec<u8>,
    /// Static XOFF per (input port, priority). Exactly one of `xoff` and `dynamic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xoff: Option<Bytes>,
    /// Dynamic XOFF: α × the lossless pool's free bytes. Exactly one of `xoff` and `dynamic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic: Option<DynamicXoff>,
    /// The hysteresis: a paused (port, priority) resumes once its count is this far below XOFF
    /// (the HPCC fork's `resume_offset`, 3 KiB, `switch-mmu.cc`).
    #[serde(default = "default_xon_offset")]
    pub xon_offset: Bytes,
    /// Bytes each (input port, priority) may take above XOFF: what is already on the wire
    /// after the PAUSE leaves. `auto`: link rate × (2 × link latency + `response_time`) + 2
    /// largest packets + the PAUSE frame.
    #[serde(default)]
    pub headroom: Headroom,
    /// How long a sender takes to act on a PAUSE after its last bit arrived (0: at once, after
    /// the packet on the wire; IEEE 802.1Qbb allows up to 201,728 bit times at 100 Gbps).
    #[serde(default)]
    pub response_time: Dur,
    /// Pause time of a PAUSE frame, in quanta of 512 bit times (802.1Qbb's largest, 65535,
    /// as switches send by default).
    #[serde(default = "default_quanta")]
    pub pause_quanta: u16,
    /// A PAUSE is sent again after this fraction of its pause time while the input is still
    /// above the XON point, so the sender never resumes on its own (0.5: re-sent halfway).
    #[serde(default = "default_refresh")]
    pub refresh: f64,
    /// Send a RESUME (quanta 0) on falling below XON; `false`: stop refreshing and let the
    /// pause lapse.
    #[serde(default = "crate::defaults::default_true")]
    pub resume: bool,
    /// Host NICs honour PAUSE frames (stop sending that priority). `false`: they ignore them
    /// (a misconfigured host; its packets then overflow the headroom).
    #[serde(default = "crate::defaults::default_true")]
    pub hosts_honour: bool,
    /// Deadlock detection: how long a cycle of paused queues must last, and what then.
    #[serde(default)]
    pub deadlock: DeadlockConfig,
    /// Hosts whose NIC hands packets to the host at a limited rate (PCIe, the host's
    /// processing) keep a receive buffer, and PAUSE their switch when it fills (absent: hosts
    /// take every packet as it arrives).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_receive: Option<HostReceive>,
}

/// `pfc.deadlock`: the wait-for graph of paused queues (`engine/pfc/deadlock.rs`). A paused
/// (port P, priority c) waits on P's far-end input, whose packets wait in that node's egress
/// queues; a cycle of such waits that lasts `after` is a deadlock: reported in
/// pfc_deadlocks.csv, then the run stops (`action: stop`, outcome `pfc_deadlock`) or goes on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeadlockConfig {
    /// A cycle must persist this long, every port of it paused throughout (1 ms: far above a
    /// healthy pause, which lasts µs to tens of µs at 10-100 Gbps, and far below the 100 ms
    /// or so switch PFC watchdogs wait, which have no graph and must not fire on a long
    /// incast; docs/lossless.md).
    #[serde(default = "default_deadlock_after")]
    pub after: Dur,
    /// `stop` (default): end the run as `pfc_deadlock`; `continue`: report and go on.
    #[serde(default)]
    pub action: DeadlockAction,
}

impl Default for DeadlockConfig {
    fn default() -> Self {
        DeadlockConfig {
            after: default_deadlock_after(),
            action: DeadlockAction::Stop,
        }
    }
}

/// What a detected deadlock does to the run (`pfc.deadlock.action`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeadlockAction {
    /// End the run (outcome `pfc_deadlock`, runs.csv `completed = false`).
    #[default]
    Stop,
    /// Report it and run on (the deadlocked queues stay paused).
    Continue,
}

fn default_deadlock_after() -> Dur {
    Dur(incastsim_core::Duration::from_ms(1))
}

/// Dynamic XOFF (`pfc.dynamic`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DynamicXoff {
    /// α: XOFF = α × (pool − headroom of every (port, priority) − bytes held). The HPCC fork
    /// sets it per port as 2^-shift (`pfc_a_shift`, 3 by default: α = 1/8).
    #[serde(default = "default_pfc_alpha")]
    pub alpha: Alpha,
    /// The lossless pool of one switch, in bytes (a Broadcom service pool; the HPCC fork's
    /// `buffer_size`). Lossy classes keep `switch_buffer` / `shared_buffer`.
    pub pool: Bytes,
}

/// `pfc.host_receive`: a host NIC's receive buffer for the lossless priorities (a ConnectX
/// NIC keeps one per priority), drained into the host at `rate`; above `xoff` bytes (per
/// lossless priority) the NIC sends its switch a PAUSE, and resumes `pfc.xon_offset` below it.
/// The buffer takes what is still on the wire after the PAUSE, so it never drops (its peak is
/// in pfc.csv: the host's row, `ingress_peak_bytes`). Lossy packets are not held (their own
/// buffer is not modelled).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostReceive {
    /// How fast the NIC hands packets to the host.
    pub rate: crate::units::Rate,
    /// Buffered bytes (of one priority) at which the NIC PAUSEs its switch.
    pub xoff: Bytes,
}

/// `pfc.headroom`: `auto` or bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Headroom {
    /// Computed per link (see [`PfcConfig::headroom`]).
    #[default]
    Auto,
    /// This many bytes per (input port, priority).
    Bytes(u64),
}

impl<'de> Deserialize<'de> for Headroom {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) if s.trim() == "auto" => Ok(Headroom::Auto),
            v => Bytes::deserialize(v)
                .map(|b| Headroom::Bytes(b.0))
                .map_err(|e| serde::de::Error::custom(format!("{e}, or auto"))),
        }
    }
}

impl Serialize for Headroom {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Headroom::Auto => s.serialize_str("auto"),
            Headroom::Bytes(b) => Bytes(*b).serialize(s),
        }
    }
}

fn default_xon_offset() -> Bytes {
    Bytes(3 * 1024)
}
fn default_quanta() -> u16 {
    u16::MAX
}
fn default_refresh() -> f64 {
    0.5
}
fn default_pfc_alpha() -> Alpha {
    Alpha::PowerOfTwo(-3)
}

#[cfg(test)]
mod tests {
    use crate::Config;

    const BASE: &str = "senders: 2
topology: {kind: star, link_rate: 100Gbps, link_delay: 1us, switch_buffer: 1MB}
workload: {kind: synchronized_reads, sru: 64KB, blocks: 2}";

    fn load(set: &str) -> Result<Config, String> {
        Config::from_yaml(BASE, &[set.to_string()]).map_err(|e| e.to_string())
    }

    /// Defaults fill in, and the resolved config reads back the same.
    #[test]
    fn defaults_and_round_trip() {
        let cfg = load("pfc={priorities: [0], xoff: 100KB}").unwrap();
        let pfc = cfg.pfc.as_ref().unwrap();
        assert_eq!(pfc.xon_offset.0, 3072);
        assert_eq!(pfc.pause_quanta, 65535);
        assert_eq!(pfc.headroom, super::Headroom::Auto);
        let again = Config::from_yaml(&cfg.to_yaml(), &[]).unwrap();
        assert_eq!(again.pfc, cfg.pfc);
        let cfg = load("pfc={priorities: [0], dynamic: {pool: 4MB}, headroom: 50KB}").unwrap();
        let pfc = cfg.pfc.as_ref().unwrap();
        assert_eq!(pfc.headroom, super::Headroom::Bytes(50_000));
        assert_eq!(pfc.dynamic.as_ref().unwrap().alpha.value(), 0.125);
        let again = Config::from_yaml(&cfg.to_yaml(), &[]).unwrap();
        assert_eq!(again.pfc, cfg.pfc);
        let cfg =
            load("pfc={priorities: [0], xoff: 100KB, deadlock: {after: 200us, action: continue}}")
                .unwrap();
        let d = &cfg.pfc.as_ref().unwrap().deadlock;
        assert_eq!(d.after.0, incastsim_core::Duration::from_us(200));
        assert_eq!(d.action, super::DeadlockAction::Continue);
        let again = Config::from_yaml(&cfg.to_yaml(), &[]).unwrap();
        assert_eq!(again.pfc, cfg.pfc);
    }

    /// Bad values name the key, the value and what is allowed.
    #[test]
    fn bad_values_are_refused() {
        for (set, expect) in [
            (
                "pfc={priorities: [0]}",
                "pfc: one of `xoff` (static bytes) or `dynamic` ({alpha, pool}) sets",
            ),
            (
                "pfc={priorities: [0], xoff: 10KB, dynamic: {pool: 1MB}}",
                "pfc: one of `xoff` (static bytes) or `dynamic` ({alpha, pool}) sets",
            ),
            (
                "pfc={priorities: [], xoff: 10KB}",
                "pfc.priorities = []: one or more priorities",
            ),
            (
                "pfc={priorities: [1], xoff: 10KB}",
                "pfc.priorities = 1: below topology.priority_classes (1) and 8",
            ),
            (
                "pfc={priorities: [0, 0], xoff: 10KB}",
                "pfc.priorities = 0: listed twice",
            ),
            (
                "pfc={priorities: [0], xoff: 2MB}",
                "pfc.xoff = 2MB: above 0 and, with the headroom, within the switch buffer (topology.switch_buffer = 1MB)",
            ),
            (
                "pfc={priorities: [0], xoff: 100KB, xon_offset: 200KB}",
                "pfc.xon_offset = 200KB: below pfc.xoff (100KB): the XON point must be above 0",
            ),
            (
                "pfc={priorities: [0], xoff: 100KB, headroom: 100}",
                "pfc.headroom = 100B: at least one largest packet (1040B)",
            ),
            (
                "pfc={priorities: [0], xoff: 100KB, refresh: 1.5}",
                "pfc.refresh = 1.5: a fraction of the pause time above 0 and below 1",
            ),
            (
                "pfc={priorities: [0], xoff: 100KB, pause_quanta: 0}",
                "pfc.pause_quanta = 0: 1 to 65535 (0 is a RESUME)",
            ),
            (
                "pfc={priorities: [0], dynamic: {pool: 1MB, alpha: 0}}",
                "pfc.dynamic.alpha = 0:",
            ),
            (
                "pfc={priorities: [0], xoff: 100KB, headroom: lots}",
                "pfc.headroom",
            ),
            (
                "pfc={priorities: [0], xoff: 100KB, deadlock: {after: 0s}}",
                "pfc.deadlock.after = 0",
            ),
            (
                "pfc={priorities: [0], xoff: 100KB, deadlock: {after: 11s}}",
                "pfc.deadlock.after = ",
            ),
            (
                "pfc={priorities: [0], xoff: 100KB, deadlock: {action: halt}}",
                "pfc.deadlock.action",
            ),
        ] {
            let e = load(set).unwrap_err();
            assert!(e.starts_with(expect), "{set}: {e}");
        }
    }
}
