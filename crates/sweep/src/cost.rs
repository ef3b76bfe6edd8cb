//! What a run is expected to cost, relative to the sweep's other runs, and the ETA it gives.
//!
//! Runs go in point order, and a sweep's expensive points often come last (the largest N of an
//! incast curve): counting runs, 36 % of them done can be 5 % of the time. So the progress
//! weighs each run by a cost proxy, the bytes its workload moves (packets are most of a run's
//! events), and the ETA divides the cost left by the cost done per second so far.

use incastsim_scenario::Config;
use incastsim_scenario::config::workload::WorkloadConfig;

/// A run's expected cost, in bytes its workload moves (at least 1): synchronized reads move
/// senders × SRU (or block) × blocks; a bulk workload its links' rate for its duration (the
/// bottleneck's); a traffic workload about half its hosts' link capacity for its duration
/// (generators' loads are mostly below 1). A proxy: only ratios between runs matter.
pub fn expected_cost(cfg: &Config) -> f64 {
    let rate_bytes_per_s = cfg.topology.links().link_rate.0.as_f64() / 8.0;
    let cost = match &cfg.workload {
        WorkloadConfig::SynchronizedReads {
            sru, block, blocks, ..
        } => {
            let per_server = sru.or(*block).map_or(0, |b| b.0) as f64;
            match block {
                // A block is split among the senders; an SRU is per sender.
                Some(_) if sru.is_none() => per_server * f64::from(*blocks),
                _ => per_server * f64::from(cfg.senders) * f64::from(*blocks),
            }
        }
        WorkloadConfig::Bulk { duration, .. } => rate_bytes_per_s * duration.0.as_secs_f64(),
        WorkloadConfig::Traffic { duration, .. } => {
            let hosts = cfg.topology.host_count(cfg.senders) as f64;
            0.5 * hosts * rate_bytes_per_s * duration.0.as_secs_f64()
        }
    };
    cost.max(1.0)
}

/// Seconds left: the cost not done yet over the cost done per second since the sweep started
/// (`done_at_start` was stored by an earlier attempt and took none of `elapsed_s`). `None`
/// until anything was done.
pub fn eta_secs(done_at_start: f64, done: f64, total: f64, elapsed_s: f64) -> Option<f64> {
    let done_now = done - done_at_start;
    (done_now > 0.0 && elapsed_s > 0.0).then(|| (total - done).max(0.0) * elapsed_s / done_now)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 39: a sweep whose last points cost 10× its first. Counting runs, the ETA at 30 %
    /// of them is far off; weighing them by cost, within 50 % of the real remaining time
    /// (here exact, the model's costs being the real ones).
    #[test]
    fn the_eta_weighs_runs_by_cost() {
        // 60 cheap runs (1 s each), then 40 runs 10× as costly, one at a time.
        let costs: Vec<f64> = (0..100).map(|i| if i < 60 { 1.0 } else { 10.0 }).collect();
        let total: f64 = costs.iter().sum();
        let done_runs = 30;
        let elapsed: f64 = costs[..done_runs].iter().sum(); // 1 s per unit of cost
        let real_left = total - elapsed;
        let by_count = (100 - done_runs) as f64 * elapsed / done_runs as f64;
        let by_cost = eta_secs(0.0, elapsed, total, elapsed).unwrap();
        assert!(
            (by_count - real_left).abs() > 0.5 * real_left,
            "{by_count} vs {real_left}"
        );
        assert!(
            (by_cost - real_left).abs() <= 0.5 * real_left,
            "{by_cost} vs {real_left}"
        );
        // Resumed runs took no time of this attempt.
        assert_eq!(eta_secs(30.0, 30.0, total, 5.0), None);
        assert_eq!(eta_secs(30.0, 40.0, 100.0, 5.0), Some(30.0));
    }

    /// The proxy orders S1's points by N as their packets do.
    #[test]
    fn incast_costs_grow_with_senders() {
        let cfg = |n: u32| {
            incastsim_scenario::from_yaml_checked(
                "senders: 4\ntopology: {kind: star, link_rate: 1Gbps, link_delay: 25us, switch_buffer: 32KB}\nworkload: {kind: synchronized_reads, sru: 256KB, blocks: 10}\n",
                &[format!("senders={n}")],
            )
            .unwrap()
        };
        assert_eq!(expected_cost(&cfg(64)), 16.0 * expected_cost(&cfg(4)));
    }
}
