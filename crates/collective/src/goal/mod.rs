//! An importer of GOAL traces: the text schedule format of LogGOPSim and its schedule generator
//! schedgen (Hoefler, Schneider, Lumsdaine, "LogGOPSim: Simulating Large-Scale Applications in
//! the LogGOPS Model", 2010), which ATLAHS (2025) uses for ML and HPC traces. [`read_goal`]
//! turns a trace into a [`Schedule`].
//!
//! # The format read
//!
//! The grammar is LogGOPSim's `txt2bin` (an re2c scanner, `src/LogGOPSim/txt2bin.re` in
//! spcl/LogGOPSim), one statement a line:
//!
//! ```text
//! num_ranks 2                    // once, before the first rank
//! rank 0 {                       // the ops of rank 0; labels are local to the block
//! l1: calc 500                   // busy for 500 calc units
//! l2: send 64b to 1 tag 7        // then 64 bytes to rank 1 with tag 7
//! l2 requires l1                 // l2 starts when l1 is done
//! }
//! rank 1 {
//! r1: recv 64b from 0 tag 7 cpu 0 nic 0
//! r2: calc 10
//! r2 irequires r1                // r2 may start once r1 has started
//! }
//! ```
//!
//! * Ops: `[label:] send <size>b to <rank> [tag <t>] [cpu <n>] [nic <n>]`, the same for
//!   `recv ... from <rank>`, and `[label:] calc <cost> [cpu <n>]` (the suffixes in that order,
//!   as in `txt2bin`; a missing tag is 0). `<size>b` may also be written `<size> b`. A label is
//!   a letter then letters, digits or `_`, defined once per rank block before it is named.
//! * Dependencies: `<a> requires <b>` and `<a> irequires <b>`, naming labels of the same block
//!   defined on earlier lines.
//! * Comments: `//` to the end of the line, and `/* ... */`, which may span lines.
//!
//! Deliberately narrower than `txt2bin`: a statement is one line (`txt2bin` also accepts, say,
//! an op after `rank 0 {` on the same line; no published trace seen writes that); words are
//! separated by spaces (`to 1`, where `txt2bin` would also take `to1`); a label
//! defined twice in a block is an error (`txt2bin` keeps the first); a rank block given twice is
//! an error; `num_ranks` must come once, before the first block, and be at least 1.
//!
//! Not supported, each an error naming its line: wildcard receives (`from -1`, MPI_ANY_SOURCE,
//! and `tag -1`, MPI_ANY_TAG), whose matching depends on arrival order in a run, not on the
//! trace; and the LogGOPSim2 / Portals extensions (`put`, `get`, `append`, `tput`, `test`,
//! `calcgem5`, ...). `cpu` and `nic` are read and ignored: a rank here is one host with one
//! network interface. LogGOPSim also keeps a CPU busy during a calc (and for the overhead o of
//! each send and receive), so independent ops of one CPU run one after another there; here
//! only dependencies order ops, and independent calcs of a rank overlap.
//!
//! # Readings (how a trace becomes a schedule)
//!
//! * **Matching.** A send from rank s to rank d with tag t is paired with a receive on rank d
//!   from s with tag t, in program order per (s, d, t): the k-th such send with the k-th such
//!   receive (MPI's non-overtaking rule; program order is the order of lines in the rank's
//!   block). The sizes of a pair must agree; a send or receive left without a partner is an
//!   error naming its line.
//! * **Transfer.** A matched pair becomes one [`Schedule::transfer`] from s to d that waits for
//!   what the send waits for. A message of 0 bytes becomes a transfer of
//!   [`GoalOptions::empty_message_bytes`] (a network carries a header for it anyway); a message
//!   from a rank to itself becomes a zero-length delay at the rank (it crosses no network).
//! * **Send completion.** A send is done when its transfer is done, i.e. its last byte has
//!   reached the receiver; the news reaches the sender as the simulator's control message. This
//!   differs from LogGOPSim, where an eager send (size ≤ S) completes at the sender as soon as
//!   it is issued (its overhead o occupies the CPU), and a rendezvous send when the receiver has
//!   matched it.
//! * **Receive completion.** A receive is done when its transfer is done and its own
//!   dependencies are done: if it has dependencies, a zero-length delay at the receiving rank
//!   waits for [transfer, dependencies...] and stands for the receive; ops that require the
//!   receive wait for that delay (otherwise for the transfer). The transfer itself does not wait
//!   for the receive to be posted: data arriving before its receive is buffered (LogGOPSim's
//!   unexpected queue).
//! * **Calc.** `calc <cost>` is a [`Op::Delay`](crate::Op::Delay) of cost ×
//!   [`GoalOptions::calc_unit`] at its rank, after its dependencies. LogGOPSim adds the cost to
//!   its clock unchanged and its times are nanoseconds (its README reports host end times in ns;
//!   its `--LogGOPS_L`, `o`, `g` are ns), so the default unit is 1 ns.
//! * **`a requires b`**: a waits until b is done. **`a irequires b`** (LogGOPSim's start
//!   dependency: a may start once b has started): b starts exactly when everything it waits for
//!   is done, so a waits for b's dependencies (transitively through b's own `irequires`), not
//!   for b.
//! * **Order.** Schedule nodes are created in a topological order (Kahn's algorithm over the
//!   ops of all ranks, with a matched send's completion feeding its receive); a dependency
//!   cycle, which would deadlock LogGOPSim too, is an error naming a line of an op in it.
//! * **Labels.** Every node gets iteration 0 and, as its step, the number of transfers on the
//!   longest chain of waits before it (0 for a transfer nothing precedes): transfers with the
//!   same step can run at the same time as far as dependencies go.
//!
//! # Cost
//!
//! Lines are read one by one without regular expressions or per-op allocation: ops,
//! dependencies and the graph are flat vectors (tens of bytes per op), labels borrow from the
//! text, and matching is a sort. Errors only allocate their message.

mod build;
mod parse;
#[cfg(test)]
mod tests;

use incastsim_core::Duration;

use crate::schedule::{Schedule, ScheduleError};

/// How to read a GOAL trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GoalOptions {
    /// The length of one unit of `calc` cost (LogGOPSim: 1 ns).
    pub calc_unit: Duration,
    /// Bytes of the transfer a 0-byte message becomes (default 1: a header still crosses the
    /// network). 0 makes such a message an error.
    pub empty_message_bytes: u64,
}

impl Default for GoalOptions {
    fn default() -> GoalOptions {
        GoalOptions {
            calc_unit: Duration::from_ns(1),
            empty_message_bytes: 1,
        }
    }
}

/// A trace that cannot be read. Each names a 1-based line number and that line's text
/// (shortened past 160 characters).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GoalError {
    /// A word or symbol where the grammar wants another.
    #[error("line {line}: expected {expected}, found {found}: `{text}`")]
    Syntax {
        /// Line number.
        line: u32,
        /// The line.
        text: String,
        /// What the grammar allows here.
        expected: &'static str,
        /// What the line has instead (`end of line` if nothing).
        found: String,
    },
    /// A number that does not parse or does not fit (a size, a rank, a tag, a cost).
    #[error("line {line}: bad {what} `{found}`: `{text}`")]
    BadNumber {
        /// Line number.
        line: u32,
        /// The line.
        text: String,
        /// Which number (`size`, `rank`, `tag`, ...).
        what: &'static str,
        /// The word.
        found: String,
    },
    /// A rank at or past `num_ranks`.
    #[error("line {line}: rank {rank} is not among the {ranks} ranks (0..{ranks}): `{text}`")]
    RankOutOfRange {
        /// Line number.
        line: u32,
        /// The line.
        text: String,
        /// The rank named.
        rank: u64,
        /// `num_ranks`.
        ranks: u32,
    },
    /// A dependency naming a label not defined earlier in the rank block.
    #[error("line {line}: label `{label}` is not defined before this line in its rank: `{text}`")]
    UndefinedLabel {
        /// Line number.
        line: u32,
        /// The line.
        text: String,
        /// The label.
        label: String,
    },
    /// A label defined twice in one rank block.
    #[error("line {line}: label `{label}` is already defined on line {first}: `{text}`")]
    DuplicateLabel {
        /// Line number.
        line: u32,
        /// The line.
        text: String,
        /// The label.
        label: String,
        /// Where it was defined first.
        first: u32,
    },
    /// A rank block given twice.
    #[error("line {line}: rank {rank} already has a block: `{text}`")]
    DuplicateRank {
        /// Line number.
        line: u32,
        /// The line.
        text: String,
        /// The rank.
        rank: u32,
    },
    /// A construct this importer does not read (wildcard receives, extensions).
    #[error("line {line}: {what} is not supported: `{text}`")]
    Unsupported {
        /// Line number.
        line: u32,
        /// The line.
        text: String,
        /// What.
        what: &'static str,
    },
    /// The text ends inside a rank block or a `/* */` comment.
    #[error("line {line}: this {what} is never closed: `{text}`")]
    Unclosed {
        /// Line number of the opening.
        line: u32,
        /// The line.
        text: String,
        /// `rank block` or `comment`.
        what: &'static str,
    },
    /// A trace without `num_ranks`.
    #[error("the trace has no `num_ranks` line")]
    NoNumRanks,
    /// A send or receive without a partner on the peer rank (same peers and tag, same count).
    #[error("line {line}: this {op} has no matching {partner}: `{text}`")]
    Unmatched {
        /// Line number of the op.
        line: u32,
        /// The line.
        text: String,
        /// `send` or `recv`.
        op: &'static str,
        /// `recv` or `send`.
        partner: &'static str,
    },
    /// A matched send and receive of different sizes.
    #[error(
        "line {send_line} sends {send_bytes} bytes but its matching receive on line {recv_line} \
         expects {recv_bytes}: `{send_text}` / `{recv_text}`"
    )]
    SizeMismatch {
        /// Line number of the send.
        send_line: u32,
        /// The send's line.
        send_text: String,
        /// Bytes sent.
        send_bytes: u64,
        /// Line number of the receive.
        recv_line: u32,
        /// The receive's line.
        recv_text: String,
        /// Bytes expected.
        recv_bytes: u64,
    },
    /// Ops that wait for each other in a circle (the trace would deadlock).
    #[error("line {line}: this op is in a dependency cycle: `{text}`")]
    Cycle {
        /// Line number of an op in the cycle.
        line: u32,
        /// The line.
        text: String,
    },
    /// The schedule refused a node (more than 2^32 nodes or dependencies, or a 0-byte message
    /// with `empty_message_bytes` 0).
    #[error("line {line}: {source}: `{text}`")]
    Schedule {
        /// Line number of the op.
        line: u32,
        /// The line.
        text: String,
        /// Why.
        source: ScheduleError,
    },
    /// More lines or ops than 32-bit indices hold.
    #[error("more than 2^31 ops or 2^32 lines")]
    TooLarge,
}

/// Reads a GOAL trace into a [`Schedule`] over its `num_ranks` ranks (see the module
/// documentation for the grammar and the readings).
///
/// ```
/// use incastsim_collective::goal::{GoalOptions, read_goal};
///
/// let trace = "num_ranks 2
/// rank 0 {
/// l1: calc 1000
/// l2: send 4096b to 1 tag 0
/// l2 requires l1
/// }
/// rank 1 {
/// l1: recv 4096b from 0 tag 0
/// }
/// ";
/// let schedule = read_goal(trace, &GoalOptions::default())?;
/// assert_eq!(schedule.len(), 2); // a delay of 1 µs, then the transfer
/// assert_eq!(schedule.bytes_received_per_rank(), vec![0, 4096]);
/// # Ok::<(), incastsim_collective::goal::GoalError>(())
/// ```
pub fn read_goal(text: &str, opts: &GoalOptions) -> Result<Schedule, GoalError> {
    let trace = parse::parse(text)?;
    build::build(text, &trace, opts)
}

/// Longest line text an error carries.
const TEXT_MAX: usize = 160;

/// Line `line` (1-based) of `text`, without its line break, shortened to [`TEXT_MAX`]
/// characters. Only errors call it, so the scan from the start is affordable.
fn line_text(text: &str, line: u32) -> String {
    let raw = text
        .split('\n')
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or("");
    shorten(raw.strip_suffix('\r').unwrap_or(raw))
}

fn shorten(s: &str) -> String {
    match s.char_indices().nth(TEXT_MAX) {
        Some((at, _)) => format!("{}...", &s[..at]),
        None => s.to_string(),
    }
}
