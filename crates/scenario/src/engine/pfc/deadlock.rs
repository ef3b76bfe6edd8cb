//! PFC deadlock detection: the wait-for graph of paused egress queues, searched for cycles only
//! when a pause starts and at scheduled re-checks, never per packet.
//!
//! A node of the graph is a paused (port P, lossless class c). P's packets of class c go to
//! the input of P's far-end node S; that input's packets wait in S's egress queues. If such an
//! egress queue (port Q, class c) is itself paused and holds a packet that came in by P (the
//! `ingress` tag every waiting packet of a PFC port carries), P waits on Q: an edge P → Q.
//! Edges are read on demand by scanning Q's class queue for P's packets
//! (`OutputPort::holds_from`, stopping at the first): no count per (input, egress) is kept,
//! because keeping one would cost two updates per lossless packet (admission and departure)
//! and a table of radix² counters per switch, where the scans run only on the rare checks.
//!
//! A cycle found is a candidate, formed when first seen. It is a deadlock once every port of
//! it has stayed paused, in one unbroken stretch, from then until `pfc.deadlock.after` later.
//! While they stay paused their class queues cannot send, so the packets behind each edge are
//! still there and the edges still hold: the continuity of the ports' pauses is the whole test.

use super::PfcState;
use incastsim_core::Time;
use incastsim_switch::OutputPort;

/// The longest period of the re-check while pauses last: 10 µs, a few pause/resume cycles at
/// 100 Gbps (the hand-worked 2:1 case cycles every 9.2 µs). Each re-check reads every (port,
/// lossless class)'s pause and searches from the paused ones: at a k = 8 fat-tree's 768
/// ports, a few thousand reads per 10 µs, against some 10^5 events in that time.
const RECHECK: incastsim_core::Duration = incastsim_core::Duration::from_us(10);

/// A cycle of paused queues seen but not yet confirmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// When the detector first saw it.
    pub formed: Time,
    /// The lossless class (traffic class number).
    pub class: u8,
    /// The paused ports, each waiting on the next and the last on the first, starting at the
    /// lowest port index.
    pub ports: Vec<u32>,
}

/// A deadlock: a cycle of paused queues that lasted `pfc.deadlock.after`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadlockReport {
    /// When the cycle was first seen (at the pause that closed it, or at a re-check).
    pub formed: Time,
    /// When it was confirmed (`formed` + `after`, or the first re-check after that).
    pub detected: Time,
    /// The lossless class.
    pub class: u8,
    /// The ports of the cycle, in wait order, from the lowest index.
    pub ports: Vec<u32>,
}

/// The detector's state.
#[derive(Clone, Debug, Default)]
pub struct Deadlock {
    /// Cycles seen, not yet confirmed nor broken.
    pub candidates: Vec<Candidate>,
    /// Confirmed deadlocks, in the order found.
    pub reports: Vec<DeadlockReport>,
    /// When the pending re-check is due (`Time::MAX`: none).
    pub next_check: Time,
    /// DFS marks per (port, k): the search's epoch × 4 + colour (1 on the stack, 2 done).
    mark: Vec<u64>,
    epoch: u64,
    /// The DFS stack: (port, next neighbour to try).
    stack: Vec<(u32, u32)>,
}

impl Deadlock {
    /// The detector of a run with `slots` (port, lossless class) slots.
    pub fn new(slots: usize) -> Deadlock {
        Deadlock {
            next_check: Time::MAX,
            mark: vec![0; slots],
            ..Deadlock::default()
        }
    }

    /// Whether `cycle` (canonical) of `class` is already a candidate or a report.
    fn known(&self, class: u8, cycle: &[u32]) -> bool {
        self.candidates
            .iter()
            .any(|c| c.class == class && c.ports == cycle)
            || self
                .reports
                .iter()
                .any(|r| r.class == class && r.ports == cycle)
    }
}

/// `cycle` rotated to start at its lowest port.
fn canonical(mut cycle: Vec<u32>) -> Vec<u32> {
    if let Some(i) = (0..cycle.len()).min_by_key(|&i| cycle[i]) {
        cycle.rotate_left(i);
    }
    cycle
}

impl PfcState {
    /// Whether port `p` waits on port `q` for lossless class `class` at `now`: `q` leaves
    /// `p`'s far-end node, is paused, and holds a packet that came in by `p`.
    fn waits_on(&self, ports: &[OutputPort], p: u32, q: u32, class: usize, now: Time) -> bool {
        let Some(slot) = self.slot(q, class) else {
            return false;
        };
        self.pause[slot].until > now && ports[q as usize].holds_from(class, p)
    }

    /// Depth-first search of the wait-for graph of `class` from each of `roots` (paused
    /// ports); every back edge closes a cycle, returned in wait order. Iterative: a long
    /// chain of pauses cannot overflow the stack.
    fn cycles_from(
        &mut self,
        ports: &[OutputPort],
        roots: &[u32],
        class: usize,
        now: Time,
    ) -> Vec<Vec<u32>> {
        let mut found = Vec::new();
        let mut stack = std::mem::take(&mut self.deadlock.stack);
        self.deadlock.epoch += 1;
        let base = self.deadlock.epoch * 4;
        for &root in roots {
            let Some(rs) = self.slot(root, class) else {
                continue;
            };
            if self.deadlock.mark[rs] >= base {
                continue;
            }
            self.deadlock.mark[rs] = base + 1;
            stack.clear();
            stack.push((root, 0));
            while let Some(&(p, i)) = stack.last() {
                let node = ports[p as usize].to as usize;
                let next = self.node_ports[node].get(i as usize).copied();
                let Some(q) = next else {
                    let ps = self.slot(p, class).expect("lossless");
                    self.deadlock.mark[ps] = base + 2;
                    stack.pop();
                    continue;
                };
                stack.last_mut().expect("non-empty").1 += 1;
                if !self.waits_on(ports, p, q, class, now) {
                    continue;
                }
                let qs = self.slot(q, class).expect("lossless");
                match self.deadlock.mark[qs].checked_sub(base) {
                    Some(1) => {
                        // q is on the stack: the stack from q to the top is a cycle.
                        let from = stack.iter().position(|&(s, _)| s == q).expect("on stack");
                        found.push(stack[from..].iter().map(|&(s, _)| s).collect());
                    }
                    Some(2) => {}
                    _ => {
                        self.deadlock.mark[qs] = base + 1;
                        stack.push((q, 0));
                    }
                }
            }
        }
        self.deadlock.stack = stack;
        found
    }

    /// Remembers the new cycles among `cycles` as candidates formed at `now`; returns
    /// whether there was one.
    fn add_candidates(&mut self, cycles: Vec<Vec<u32>>, class: usize, now: Time) -> bool {
        let mut added = false;
        for cycle in cycles {
            let ports = canonical(cycle);
            if self.deadlock.known(class as u8, &ports) {
                continue;
            }
            self.deadlock.candidates.push(Candidate {
                formed: now,
                class: class as u8,
                ports,
            });
            added = true;
        }
        added
    }

    /// Asks for a re-check at `at`: returns the time to schedule a `PfcCheck`, unless one is
    /// pending no later.
    fn want_check(&mut self, at: Time) -> Option<Time> {
        (at < self.deadlock.next_check).then(|| {
            self.deadlock.next_check = at;
            at
        })
    }

    /// A pause stretch of `port`'s `class` started at `now`: any cycle it closed goes
    /// through it, so the search starts there. Returns when to schedule a re-check (a
    /// candidate's confirmation, or the periodic look while pauses last).
    pub fn on_new_pause(
        &mut self,
        now: Time,
        ports: &[OutputPort],
        port: u32,
        class: usize,
    ) -> Option<Time> {
        let cycles = self.cycles_from(ports, &[port], class, now);
        self.add_candidates(cycles, class, now);
        // The periodic look comes before any confirmation (a quarter of `after`).
        self.want_check(now + self.recheck_period())
    }

    /// The periodic re-check's period while pauses last: [`RECHECK`], or a quarter of
    /// `after` if that is shorter. A cycle whose last edge formed after the pauses that made
    /// its nodes (a packet reaching an already paused queue) is seen at most that late.
    fn recheck_period(&self) -> incastsim_core::Duration {
        let quarter = incastsim_core::Duration((self.plan.deadlock_after.as_ps() / 4).max(1));
        quarter.min(RECHECK)
    }

    /// The re-check at `now` (stale unless due now): confirms candidates that lasted
    /// `after` with every port paused throughout, drops broken ones, and searches the whole
    /// graph for cycles formed since. Returns whether a new deadlock asks the run to stop,
    /// and when to re-check next.
    pub fn check_deadlocks(&mut self, now: Time, ports: &[OutputPort]) -> (bool, Option<Time>) {
        if self.deadlock.next_check != now {
            return (false, None);
        }
        self.deadlock.next_check = Time::MAX;
        let after = self.plan.deadlock_after;
        let mut stop = false;
        let candidates = std::mem::take(&mut self.deadlock.candidates);
        for c in candidates {
            let unbroken = c.ports.iter().all(|&p| {
                let pause = &self.pause[self.slot(p, c.class as usize).expect("lossless")];
                pause.from <= c.formed && pause.until > now
            });
            if !unbroken {
                continue;
            }
            if now >= c.formed + after {
                stop |= self.plan.deadlock_stop;
                self.deadlock.reports.push(DeadlockReport {
                    formed: c.formed,
                    detected: now,
                    class: c.class,
                    ports: c.ports,
                });
            } else {
                self.deadlock.candidates.push(c);
            }
        }
        let mut next = self
            .deadlock
            .candidates
            .iter()
            .map(|c| c.formed + after)
            .min();
        let k_count = self.classes();
        for k in 0..k_count {
            let class = self.plan.lossless[k] as usize;
            let paused: Vec<u32> = (0..self.pause.len() / k_count)
                .filter(|&p| self.pause[p * k_count + k].until > now)
                .map(|p| p as u32)
                .collect();
            if paused.is_empty() {
                continue;
            }
            let cycles = self.cycles_from(ports, &paused, class, now);
            if self.add_candidates(cycles, class, now) {
                let due = now + after;
                next = Some(next.map_or(due, |n: Time| n.min(due)));
            }
            let periodic = now + self.recheck_period();
            next = Some(next.map_or(periodic, |n| n.min(periodic)));
        }
        let next = next.and_then(|t| self.want_check(t));
        (stop, next)
    }
}

#[cfg(test)]
mod tests {
    use super::canonical;

    #[test]
    fn a_cycle_starts_at_its_lowest_port() {
        assert_eq!(canonical(vec![7, 3, 9]), vec![3, 9, 7]);
        assert_eq!(canonical(vec![1, 2]), vec![1, 2]);
    }
}
