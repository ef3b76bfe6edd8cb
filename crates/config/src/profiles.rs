//! Named TCP profiles (`tcp.profile`): the defaults of a stack researchers compare against,
//! filled in under the keys a config gives (any key given beside the profile wins). Each value's
//! source is in the guide's TCP profiles table (docs/tcp-profiles.md); this is the one place the values live.
//!
//! A profile is expanded on the YAML tree before type-checking, so the resolved config shows
//! every value it set, as if written by hand.

use crate::tcp::TcpProfileName;
use crate::tree::deep_merge;
use serde_json::{Value, json};

/// The `tcp` keys a profile sets.
pub fn profile_defaults(name: TcpProfileName) -> Value {
    match name {
        // Linux 6.x sysctl and compile-time defaults.
        TcpProfileName::Linux => json!({
            "initial_cwnd": 10,
            "limited_transmit": true,
            "loss_recovery": "sack",
            "dsack": true,
            "rack": true,
            "tlp": true,
            "cwnd_reduction": "prr",
            "delayed_ack": {"enabled": true, "count": 2, "timeout": "40ms"},
            "rto_min": "200ms",
            "rto_max": "120s",
            "clock_granularity": "1ms",
            "rtt_sampling": "timestamps",
            "receive_window_segments": 6291,
            "cubic": {"reno_friendly_alpha": "linux"},
        }),
        // ns-3 (3.4x) TcpSocket / TcpSocketBase / TcpSocketState attribute defaults.
        TcpProfileName::Ns3 => json!({
            "initial_cwnd": 10,
            "limited_transmit": true,
            "loss_recovery": "sack",
            "dsack": false,
            "rack": false,
            "tlp": false,
            "cwnd_reduction": "prr",
            "delayed_ack": {"enabled": true, "count": 2, "timeout": "200ms"},
            "rto_min": "1s",
            "rto_max": "60s",
            "clock_granularity": "1ms",
            "rtt_sampling": "timestamps",
            "receive_window_segments": 131,
            "cubic": {"reno_friendly_alpha": "linux"},
        }),
        // ns-2.35 Agent/TCP/Newreno and Agent/TCPSink defaults (tcl/lib/ns-default.tcl).
        TcpProfileName::Ns2 => json!({
            "initial_cwnd": 2,
            "limited_transmit": true,
            "loss_recovery": "newreno",
            "dsack": false,
            "rack": false,
            "tlp": false,
            "cwnd_reduction": "standard",
            "delayed_ack": {"enabled": false},
            "rto_min": "200ms",
            "rto_max": "60s",
            "clock_granularity": "10ms",
            "rtt_sampling": "once_per_rtt",
            "receive_window_segments": 20,
            "cubic": {"reno_friendly_alpha": "rfc9438"},
        }),
        // The IETF documents as written.
        TcpProfileName::Rfc => json!({
            "initial_cwnd": 4,
            "limited_transmit": true,
            "loss_recovery": "sack",
            "dsack": true,
            "rack": true,
            "tlp": true,
            "cwnd_reduction": "prr",
            "delayed_ack": {"enabled": true, "count": 2, "timeout": "200ms"},
            "rto_min": "1s",
            "rto_max": "60s",
            "clock_granularity": "1us",
            "rtt_sampling": "timestamps",
            "receive_window_segments": 1000,
            "cubic": {"reno_friendly_alpha": "rfc9438"},
        }),
    }
}

/// Replaces a `tcp` tree naming a profile by the profile's defaults with the tree's own keys
/// merged over them. An unknown name is left for type-checking to report under `tcp.profile`.
pub fn expand_profile(tcp: &mut Value) {
    let Some(name) = tcp.get("profile").cloned() else {
        return;
    };
    let Ok(name) = serde_json::from_value::<TcpProfileName>(name) else {
        return;
    };
    let mut merged = profile_defaults(name);
    deep_merge(&mut merged, tcp);
    *tcp = merged;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::tcp::TcpConfig;

    const BASE: &str = "
senders: 4
topology: {kind: star}
workload: {kind: synchronized_reads, sru: 64KB}
";
    const ALL: [TcpProfileName; 4] = [
        TcpProfileName::Linux,
        TcpProfileName::Ns3,
        TcpProfileName::Ns2,
        TcpProfileName::Rfc,
    ];

    fn load(sets: &[String]) -> Config {
        Config::from_yaml(BASE, sets).unwrap()
    }

    /// Every key of the profile's table, as a typed value, is the loaded config's value.
    fn assert_profile_applies(p: TcpProfileName, tcp: &TcpConfig) {
        let table = profile_defaults(p);
        let typed: TcpConfig = serde_json::from_value(table.clone()).unwrap();
        let (want, got) = (
            serde_json::to_value(&typed).unwrap(),
            serde_json::to_value(tcp).unwrap(),
        );
        for (key, v) in table.as_object().unwrap() {
            if let Some(sub) = v.as_object() {
                for k in sub.keys() {
                    assert_eq!(got[key][k], want[key][k], "{p:?}: tcp.{key}.{k}");
                }
            } else {
                assert_eq!(got[key], want[key], "{p:?}: tcp.{key}");
            }
        }
    }

    #[test]
    fn every_profile_value_takes_effect_and_a_key_beside_it_wins() {
        for p in ALL {
            let name = serde_json::to_value(p).unwrap();
            let name = name.as_str().unwrap();
            let cfg = load(&[format!("tcp.profile={name}")]);
            assert_eq!(cfg.tcp.profile, Some(p));
            assert_profile_applies(p, &cfg.tcp);
            // The resolved config reloads to itself (the profile's keys are all explicit).
            assert_eq!(Config::from_yaml(&cfg.to_yaml(), &[]).unwrap(), cfg);
            let cfg = load(&[
                format!("tcp.profile={name}"),
                "tcp.initial_cwnd=7".into(),
                "tcp.delayed_ack.timeout=1ms".into(),
            ]);
            assert_eq!(cfg.tcp.initial_cwnd, 7, "{p:?}");
            assert_eq!(
                cfg.tcp.delayed_ack.timeout.0,
                incastsim_core::Duration::from_ms(1)
            );
        }
    }

    #[test]
    fn no_profile_keeps_the_defaults_and_a_groups_profile_applies_to_the_group() {
        let cfg = load(&[]);
        assert_eq!(cfg.tcp.profile, None);
        assert_eq!(cfg.tcp, {
            let mut t = TcpConfig::default();
            t.rto_initial = Some(t.rto_min);
            t
        });
        let cfg = load(&[
            "tcp.profile=ns2".into(),
            "flow_overrides=[{flows: [1], tcp: {profile: linux}}, {flows: [2], tcp: {initial_cwnd: 3}}]"
                .into(),
        ]);
        assert_profile_applies(TcpProfileName::Ns2, &cfg.tcp);
        assert_profile_applies(TcpProfileName::Linux, &cfg.flow_overrides[0].tcp);
        let g = &cfg.flow_overrides[1].tcp;
        assert_eq!((g.initial_cwnd, g.receive_window_segments), (3, 20));
    }

    #[test]
    fn an_unknown_profile_names_the_key() {
        let e = Config::from_yaml(BASE, &["tcp.profile=bsd".into()]).unwrap_err();
        let e = e.to_string();
        assert!(e.starts_with("tcp.profile"), "{e}");
        assert!(e.contains("linux") && e.contains("ns2"), "{e}");
    }
}
