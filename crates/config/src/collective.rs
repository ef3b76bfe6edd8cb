//! The options of the `collective` and `goal` traffic kinds (ML collectives as traffic; see
//! the guide's "Collectives" page): which algorithm, how ranks map to hosts, and how the news
//! of a finished flow reaches the next sender.

use crate::units::{Dur, parse_duration};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A collective algorithm (`traffic[I].algorithm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CollectiveAlgorithm {
    /// Ring all-reduce: reduce-scatter then all-gather, 2(n−1) steps of S/n.
    RingAllreduce,
    /// Rabenseifner's recursive halving (reduce-scatter) then doubling (all-gather).
    HalvingDoublingAllreduce,
    /// NCCL's double binary tree all-reduce (two trees, each half of S).
    DoubleBinaryTreeAllreduce,
    /// Every rank sends S/n to every other at once.
    AllToAll,
    /// All-to-all in n−1 pairwise rounds.
    PairwiseAllToAll,
    /// Ring all-gather: n−1 steps of S/n.
    RingAllgather,
    /// Ring reduce-scatter: n−1 steps of S/n.
    RingReduceScatter,
    /// Pipelined chain broadcast from rank 0.
    Broadcast,
    /// Parameter servers: every worker pushes its gradients, then pulls the update.
    ParameterServer,
}

/// How ranks map to hosts (`traffic[I].placement`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum RankPlacement {
    /// Rank i on the i-th host of `hosts` (hosts of a rack are consecutive: ranks fill racks).
    #[default]
    InOrder,
    /// Rank i in rack i mod R (round robin over the racks of `hosts`: neighbours in rank
    /// order sit in different racks).
    PerRack,
    /// A uniformly random assignment of `hosts` (the entry's random stream).
    Random,
    /// Rank i on host `list[i]` (topology host indices).
    List(Vec<u32>),
}

impl RankPlacement {
    const HELP: &'static str = "in_order, per_rack, random, or a list of host indices";
}

impl<'de> Deserialize<'de> for RankPlacement {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        let bad = || {
            serde::de::Error::custom(format!(
                "invalid placement {value}: expected {}",
                RankPlacement::HELP
            ))
        };
        match &value {
            serde_json::Value::String(s) => match s.as_str() {
                "in_order" => Ok(RankPlacement::InOrder),
                "per_rack" => Ok(RankPlacement::PerRack),
                "random" => Ok(RankPlacement::Random),
                _ => Err(bad()),
            },
            serde_json::Value::Array(items) => items
                .iter()
                .map(|v| v.as_u64().and_then(|h| u32::try_from(h).ok()))
                .collect::<Option<Vec<u32>>>()
                .map(RankPlacement::List)
                .ok_or_else(bad),
            _ => Err(bad()),
        }
    }
}

impl Serialize for RankPlacement {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RankPlacement::InOrder => s.serialize_str("in_order"),
            RankPlacement::PerRack => s.serialize_str("per_rack"),
            RankPlacement::Random => s.serialize_str("random"),
            RankPlacement::List(hosts) => hosts.serialize(s),
        }
    }
}

/// How long the news that a flow finished takes from its receiver to the host of a flow
/// that waits for it (`traffic[I].control_latency`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ControlLatencyConfig {
    /// The one-way latency of a 64-byte message on the route (`path`, the default).
    #[default]
    Path,
    /// A fixed latency between any two different hosts (`2us`).
    Fixed(Dur),
}

impl<'de> Deserialize<'de> for ControlLatencyConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        match &value {
            serde_json::Value::String(s) if s == "path" => Ok(ControlLatencyConfig::Path),
            serde_json::Value::String(s) => parse_duration(s)
                .map(|d| ControlLatencyConfig::Fixed(Dur(d)))
                .map_err(|e| {
                    serde::de::Error::custom(format!(
                        "invalid control latency {s:?}: expected path or a duration ({e})"
                    ))
                }),
            serde_json::Value::Number(n) if n.as_u64() == Some(0) => {
                Ok(ControlLatencyConfig::Fixed(Dur::default()))
            }
            _ => Err(serde::de::Error::custom(format!(
                "invalid control latency {value}: expected path or a duration such as 2us"
            ))),
        }
    }
}

impl Serialize for ControlLatencyConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ControlLatencyConfig::Path => s.serialize_str("path"),
            ControlLatencyConfig::Fixed(d) => d.serialize(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_and_latency_read_and_print_back() {
        let p: RankPlacement = serde_json::from_str("\"per_rack\"").unwrap();
        assert_eq!(p, RankPlacement::PerRack);
        let p: RankPlacement = serde_json::from_str("[3, 1, 2]").unwrap();
        assert_eq!(serde_json::to_string(&p).unwrap(), "[3,1,2]");
        let e = serde_json::from_str::<RankPlacement>("\"rack\"").unwrap_err();
        assert!(e.to_string().contains("in_order, per_rack, random"), "{e}");
        let l: ControlLatencyConfig = serde_json::from_str("\"2us\"").unwrap();
        assert_eq!(serde_json::to_string(&l).unwrap(), "\"2us\"");
        let e = serde_json::from_str::<ControlLatencyConfig>("\"soon\"").unwrap_err();
        assert!(e.to_string().contains("expected path or a duration"), "{e}");
    }
}
