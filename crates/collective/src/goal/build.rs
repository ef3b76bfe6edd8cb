//! Parsed ops → a [`Schedule`]: pair sends with receives, order the ops topologically, and add
//! one node per op (see the readings in the module documentation).

use incastsim_core::Duration;

use super::parse::{Kind, OpLine, Trace};
use super::{GoalError, GoalOptions, line_text};
use crate::schedule::{NodeId, Schedule, ScheduleError};

/// No op / no node.
const NONE: u32 = u32::MAX;

/// Builds the schedule of `trace`, read from `text` (for the lines errors quote).
///
/// The graph has two vertices per op: `2i` (op i starts: what it waits for is done) and
/// `2i + 1` (op i is done). Edges: start → done of the same op; `a requires b`: done(b) →
/// start(a); `a irequires b`: start(b) → start(a); a matched send's done → its receive's done.
pub(super) fn build(text: &str, trace: &Trace, opts: &GoalOptions) -> Result<Schedule, GoalError> {
    let ops = &trace.ops;
    let n = ops.len();
    let partner = match_messages(text, ops)?;
    // The vertex each dependency comes from: done(b) for `requires`, start(b) for `irequires`.
    let from = |on: u32, start: bool| 2 * on + u32::from(!start);
    let waits = Csr::new(n, trace.deps.iter().map(|d| (d.op, from(d.on, d.start))));
    let feeds = Csr::new(
        2 * n,
        trace.deps.iter().map(|d| (from(d.on, d.start), 2 * d.op)),
    );

    let mut indeg = vec![0u32; 2 * n];
    let mut queue: Vec<u32> = Vec::with_capacity(2 * n);
    for (i, op) in ops.iter().enumerate() {
        indeg[2 * i] = waits.get(i).len() as u32;
        indeg[2 * i + 1] = 1 + u32::from(op.kind == Kind::Recv);
        if indeg[2 * i] == 0 {
            queue.push(2 * i as u32);
        }
    }

    let mut b = Builder {
        text,
        opts,
        schedule: Schedule::new(trace.ranks),
        depth: Vec::new(),
        scratch: Vec::new(),
    };
    let mut done_node = vec![NONE; n];
    // What op i waits for to start: `start_deps[start_at[i]..][..start_len[i]]`.
    let mut start_deps: Vec<NodeId> = Vec::new();
    let mut start_at = vec![0usize; n];
    let mut start_len = vec![0u32; n];

    let mut head = 0;
    while head < queue.len() {
        let v = queue[head];
        head += 1;
        let i = (v / 2) as usize;
        let op = &ops[i];
        if v & 1 == 0 {
            let begin = start_deps.len();
            for &u in waits.get(i) {
                let on = (u / 2) as usize;
                if u & 1 == 1 {
                    start_deps.push(done_node[on]);
                } else {
                    let at = start_at[on];
                    start_deps.extend_from_within(at..at + start_len[on] as usize);
                }
            }
            start_deps[begin..].sort_unstable();
            let mut kept = begin;
            for r in begin..start_deps.len() {
                if kept == begin || start_deps[r] != start_deps[kept - 1] {
                    start_deps[kept] = start_deps[r];
                    kept += 1;
                }
            }
            start_deps.truncate(kept);
            start_at[i] = begin;
            // Distinct node ids, so fewer than 2^32.
            start_len[i] = (kept - begin) as u32;
            release(&mut indeg, &mut queue, v + 1);
        } else {
            let deps = &start_deps[start_at[i]..][..start_len[i] as usize];
            let node = match op.kind {
                Kind::Calc => b.calc(op, deps)?,
                Kind::Send => {
                    let node = b.send(op, deps)?;
                    release(&mut indeg, &mut queue, 2 * partner[i] + 1);
                    node
                }
                Kind::Recv => b.recv(op, done_node[partner[i] as usize], deps)?,
            };
            done_node[i] = node;
        }
        for &w in feeds.get(v as usize) {
            release(&mut indeg, &mut queue, w);
        }
    }
    if queue.len() < 2 * n {
        let line = ops[cycle_op(ops, &partner, &waits, &indeg)].line;
        return Err(GoalError::Cycle {
            line,
            text: line_text(text, line),
        });
    }
    Ok(b.schedule)
}

/// One fewer wait for vertex `w`; queues it when none is left.
fn release(indeg: &mut [u32], queue: &mut Vec<u32>, w: u32) {
    indeg[w as usize] -= 1;
    if indeg[w as usize] == 0 {
        queue.push(w);
    }
}

/// Adds nodes to the schedule, labelling each with its transfer depth.
struct Builder<'a> {
    text: &'a str,
    opts: &'a GoalOptions,
    schedule: Schedule,
    /// Per node: transfers on the longest chain ending with it (it included).
    depth: Vec<u32>,
    /// A receive's join dependencies, reused.
    scratch: Vec<NodeId>,
}

impl Builder<'_> {
    fn calc(&mut self, op: &OpLine, deps: &[NodeId]) -> Result<NodeId, GoalError> {
        let Some(ps) = self.opts.calc_unit.as_ps().checked_mul(op.size) else {
            return Err(GoalError::BadNumber {
                line: op.line,
                text: line_text(self.text, op.line),
                what: "calc cost (longer than 2^64 ps)",
                found: op.size.to_string(),
            });
        };
        self.delay(op, Duration::from_ps(ps), deps)
    }

    fn send(&mut self, op: &OpLine, deps: &[NodeId]) -> Result<NodeId, GoalError> {
        if op.peer == op.rank {
            return self.delay(op, Duration::ZERO, deps);
        }
        let bytes = if op.size == 0 {
            self.opts.empty_message_bytes
        } else {
            op.size
        };
        let step = self.step(deps);
        let node = self
            .schedule
            .transfer(op.rank, op.peer, bytes, (0, step), deps)
            .map_err(|e| self.refused(op, e))?;
        self.depth.push(step + 1);
        Ok(node)
    }

    /// A receive is its transfer, or a join after [transfer, its dependencies...].
    fn recv(
        &mut self,
        op: &OpLine,
        transfer: NodeId,
        deps: &[NodeId],
    ) -> Result<NodeId, GoalError> {
        if deps.is_empty() {
            return Ok(transfer);
        }
        let mut all = std::mem::take(&mut self.scratch);
        all.clear();
        all.push(transfer);
        all.extend_from_slice(deps);
        let node = self.delay(op, Duration::ZERO, &all);
        self.scratch = all;
        node
    }

    fn delay(
        &mut self,
        op: &OpLine,
        duration: Duration,
        deps: &[NodeId],
    ) -> Result<NodeId, GoalError> {
        let step = self.step(deps);
        let node = self
            .schedule
            .delay(op.rank, duration, (0, step), deps)
            .map_err(|e| self.refused(op, e))?;
        self.depth.push(step);
        Ok(node)
    }

    /// Transfers on the longest chain before a node waiting for `deps`.
    fn step(&self, deps: &[NodeId]) -> u32 {
        deps.iter()
            .map(|&d| self.depth[d as usize])
            .max()
            .unwrap_or(0)
    }

    fn refused(&self, op: &OpLine, source: ScheduleError) -> GoalError {
        GoalError::Schedule {
            line: op.line,
            text: line_text(self.text, op.line),
            source,
        }
    }
}

/// Pairs each send with its receive (per (src, dst, tag), in program order) and returns each
/// op's partner (`NONE` for a calc). Of several errors, the one on the earliest line.
fn match_messages(text: &str, ops: &[OpLine]) -> Result<Vec<u32>, GoalError> {
    // (src, dst, tag, op): sorting puts each channel's ops together in program order, as op
    // indices follow the file and a rank's ops are one block.
    let mut sends: Vec<(u32, u32, u32, u32)> = Vec::new();
    let mut recvs: Vec<(u32, u32, u32, u32)> = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        match op.kind {
            Kind::Send => sends.push((op.rank, op.peer, op.tag, i as u32)),
            Kind::Recv => recvs.push((op.peer, op.rank, op.tag, i as u32)),
            Kind::Calc => {}
        }
    }
    sends.sort_unstable();
    recvs.sort_unstable();
    let mut partner = vec![NONE; ops.len()];
    // The earliest problem: (line, op, kind) with kind 0 = unmatched, 1 = size mismatch
    // (op the send, the other its receive).
    let mut worst: Option<(u32, u32, u32)> = None;
    let mut note = |line: u32, op: u32, other: u32| {
        if worst.is_none_or(|(l, _, _)| line < l) {
            worst = Some((line, op, other));
        }
    };
    let (mut s, mut r) = (0, 0);
    while s < sends.len() || r < recvs.len() {
        let key = |t: &(u32, u32, u32, u32)| (t.0, t.1, t.2);
        let order = match (sends.get(s), recvs.get(r)) {
            (Some(a), Some(b)) => key(a).cmp(&key(b)),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Less => {
                let op = sends[s].3;
                note(ops[op as usize].line, op, NONE);
                s += 1;
            }
            std::cmp::Ordering::Greater => {
                let op = recvs[r].3;
                note(ops[op as usize].line, op, NONE);
                r += 1;
            }
            std::cmp::Ordering::Equal => {
                let (a, b) = (sends[s].3, recvs[r].3);
                if ops[a as usize].size != ops[b as usize].size {
                    note(ops[a as usize].line.min(ops[b as usize].line), a, b);
                }
                partner[a as usize] = b;
                partner[b as usize] = a;
                s += 1;
                r += 1;
            }
        }
    }
    match worst {
        None => Ok(partner),
        Some((_, op, NONE)) => {
            let o = &ops[op as usize];
            let (op, partner) = match o.kind {
                Kind::Send => ("send", "recv"),
                _ => ("recv", "send"),
            };
            Err(GoalError::Unmatched {
                line: o.line,
                text: line_text(text, o.line),
                op,
                partner,
            })
        }
        Some((_, send, recv)) => {
            let (a, b) = (&ops[send as usize], &ops[recv as usize]);
            Err(GoalError::SizeMismatch {
                send_line: a.line,
                send_text: line_text(text, a.line),
                send_bytes: a.size,
                recv_line: b.line,
                recv_text: line_text(text, b.line),
                recv_bytes: b.size,
            })
        }
    }
}

/// An op on a cycle, once Kahn's algorithm has stopped short: every vertex left has a
/// predecessor left (else it would have been released), so walking back from one must come
/// round to a vertex seen before, which lies on a cycle.
fn cycle_op(ops: &[OpLine], partner: &[u32], waits: &Csr, indeg: &[u32]) -> usize {
    let left = |v: u32| indeg[v as usize] > 0;
    let pred = |v: u32| -> Option<u32> {
        let i = (v / 2) as usize;
        if v & 1 == 1 {
            let own = v - 1;
            if left(own) {
                return Some(own);
            }
            if ops[i].kind != Kind::Recv {
                return None;
            }
            let sent = 2 * partner[i] + 1;
            left(sent).then_some(sent)
        } else {
            waits.get(i).iter().copied().find(|&u| left(u))
        }
    };
    let Some(mut v) = (0..indeg.len() as u32).find(|&v| left(v)) else {
        return 0;
    };
    let mut seen = vec![false; indeg.len()];
    while !seen[v as usize] {
        seen[v as usize] = true;
        match pred(v) {
            Some(u) => v = u,
            None => break,
        }
    }
    (v / 2) as usize
}

/// Values grouped by key (compressed sparse rows).
struct Csr {
    start: Vec<u32>,
    values: Vec<u32>,
}

impl Csr {
    /// From (key, value) pairs with keys below `keys`; values keep their order within a key.
    fn new(keys: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Csr {
        let mut start = vec![0u32; keys + 1];
        for (k, _) in pairs.clone() {
            start[k as usize + 1] += 1;
        }
        for k in 0..keys {
            start[k + 1] += start[k];
        }
        let mut next = start.clone();
        let mut values = vec![0; start[keys] as usize];
        for (k, v) in pairs {
            let at = &mut next[k as usize];
            values[*at as usize] = v;
            *at += 1;
        }
        Csr { start, values }
    }

    fn get(&self, key: usize) -> &[u32] {
        &self.values[self.start[key] as usize..self.start[key + 1] as usize]
    }
}
