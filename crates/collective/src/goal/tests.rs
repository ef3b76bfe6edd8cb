use incastsim_core::Duration;
use proptest::prelude::*;

use super::*;
use crate::schedule::{NodeId, Op};

/// LogGOPSim's example (see `tests/data/README.md`).
const DISSEMINATION_16: &str = include_str!("../../tests/data/dissemination_16.goal");

fn read(text: &str) -> Result<Schedule, GoalError> {
    read_goal(text, &GoalOptions::default())
}

/// The node of the transfer from `src` to `dst` (the only one in these traces).
fn transfer(s: &Schedule, src: u32, dst: u32) -> NodeId {
    let found: Vec<NodeId> = (0..s.len() as NodeId)
        .filter(|&n| matches!(s.op(n), Op::Transfer { src: a, dst: b, .. } if a == src && b == dst))
        .collect();
    assert_eq!(found.len(), 1, "transfers {src} -> {dst}");
    found[0]
}

/// The error's line (the send's for a size mismatch).
fn line_of(e: &GoalError) -> u32 {
    match e {
        GoalError::Syntax { line, .. }
        | GoalError::BadNumber { line, .. }
        | GoalError::RankOutOfRange { line, .. }
        | GoalError::UndefinedLabel { line, .. }
        | GoalError::DuplicateLabel { line, .. }
        | GoalError::DuplicateRank { line, .. }
        | GoalError::Unsupported { line, .. }
        | GoalError::Unclosed { line, .. }
        | GoalError::Unmatched { line, .. }
        | GoalError::Cycle { line, .. }
        | GoalError::Schedule { line, .. } => *line,
        GoalError::SizeMismatch { send_line, .. } => *send_line,
        GoalError::NoNumRanks | GoalError::TooLarge => 0,
    }
}

#[test]
fn published_dissemination_barrier() {
    let text = DISSEMINATION_16;
    assert_eq!(text.lines().filter(|l| l.contains(": send ")).count(), 64);
    assert_eq!(text.lines().filter(|l| l.contains(": recv ")).count(), 64);
    let s = read(text).unwrap();
    assert_eq!(s.ranks(), 16);
    // 64 matched pairs; no receive has dependencies, so no join nodes, and no calcs.
    assert_eq!(s.len(), 64);
    assert!(
        s.ops()
            .iter()
            .all(|op| matches!(op, Op::Transfer { bytes: 1, .. }))
    );
    assert_eq!(s.bytes_sent_per_rank(), vec![4; 16]);
    assert_eq!(s.bytes_received_per_rank(), vec![4; 16]);
    // Four rounds, each waiting for the previous one's receive.
    assert_eq!(s.transfer_depth(), 4);
    for step in 0..4 {
        assert_eq!((0..64).filter(|&n| s.label(n) == (0, step)).count(), 16);
    }
    // Hand-checked: rank 0's `l3: send 1b to 2` requires `l2: recv 1b from 15`, matched with
    // rank 15's `l1: send 1b to 0`; rank 0's `l1: send 1b to 1` waits for nothing.
    let first = transfer(&s, 15, 0);
    assert_eq!(s.deps(first), &[] as &[NodeId]);
    assert_eq!(s.deps(transfer(&s, 0, 2)), &[first]);
    assert_eq!(s.label(transfer(&s, 0, 2)), (0, 1));
    // Rank 8's `l7: send 1b to 0` requires `l6: recv 1b from 4`, rank 4's `l5: send 1b to 8`.
    assert_eq!(s.deps(transfer(&s, 8, 0)), &[transfer(&s, 4, 8)]);
    assert_eq!(s.label(transfer(&s, 8, 0)), (0, 3));
}

#[test]
fn a_receive_with_dependencies_joins_them_with_its_transfer() {
    let text = "num_ranks 2
rank 0 {
s: send 10b to 1 tag 3
back: recv 4b from 1 tag 3
}
rank 1 {
c: calc 5
r: recv 10b from 0 tag 3
r requires c
x: send 4b to 0 tag 3
x requires r
}
";
    let s = read(text).unwrap();
    let t = transfer(&s, 0, 1);
    let c = (0..s.len() as NodeId)
        .find(|&n| {
            s.op(n)
                == Op::Delay {
                    rank: 1,
                    duration: Duration::from_ns(5),
                }
        })
        .unwrap();
    let back = transfer(&s, 1, 0);
    assert_eq!(s.deps(t), &[] as &[NodeId]);
    // `x` waits for the join of the transfer and `c`, a zero delay at the receiver.
    let [join] = *s.deps(back) else {
        panic!("{:?}", s.deps(back))
    };
    assert_eq!(
        s.op(join),
        Op::Delay {
            rank: 1,
            duration: Duration::ZERO
        }
    );
    assert_eq!(s.deps(join), &[t, c]);
    assert_eq!(s.len(), 4);
    assert_eq!(s.label(back), (0, 1));
    // `back` has no dependencies: nothing waits for it, so no join.
}

#[test]
fn irequires_waits_for_what_the_other_op_waits_for() {
    let text = "num_ranks 1
rank 0 {
a: calc 100
b: calc 7
b requires a
c: calc 3
c irequires b
d: calc 2
d irequires c
}
";
    let s = read(text).unwrap();
    let node = |ns| {
        (0..s.len() as NodeId)
            .find(|&n| {
                s.op(n)
                    == Op::Delay {
                        rank: 0,
                        duration: Duration::from_ns(ns),
                    }
            })
            .unwrap()
    };
    assert_eq!(s.deps(node(7)), &[node(100)]);
    // c may start once b has started, i.e. once a is done; d once c has started: also a.
    assert_eq!(s.deps(node(3)), &[node(100)]);
    assert_eq!(s.deps(node(2)), &[node(100)]);
}

#[test]
fn irequires_on_a_receive_does_not_wait_for_its_message() {
    // Post a receive, then send once it is posted (schedgen writes this for MPI_Irecv then
    // MPI_Send): no cycle even though the peer only sends after receiving.
    let text = "num_ranks 2
rank 0 {
r: recv 8b from 1
s: send 8b to 1
s irequires r
}
rank 1 {
r: recv 8b from 0
s: send 8b to 0
s requires r
}
";
    let s = read(text).unwrap();
    let first = transfer(&s, 0, 1);
    assert_eq!(s.deps(first), &[] as &[NodeId]);
    assert_eq!(s.deps(transfer(&s, 1, 0)), &[first]);
}

#[test]
fn calc_cost_is_in_calc_units() {
    let text = "num_ranks 1\nrank 0 {\ncalc 250\n}\n";
    let delay = |s: Schedule| s.op(0);
    assert_eq!(
        delay(read(text).unwrap()),
        Op::Delay {
            rank: 0,
            duration: Duration::from_ns(250)
        }
    );
    let opts = GoalOptions {
        calc_unit: Duration::from_us(1),
        ..GoalOptions::default()
    };
    assert_eq!(
        delay(read_goal(text, &opts).unwrap()),
        Op::Delay {
            rank: 0,
            duration: Duration::from_us(250)
        }
    );
    let huge = "num_ranks 1\nrank 0 {\ncalc 18446744073709551615\n}\n";
    let e = read(huge).unwrap_err();
    assert!(matches!(e, GoalError::BadNumber { line: 3, .. }), "{e}");
}

#[test]
fn messages_match_per_channel_in_program_order() {
    // Two tags interleaved differently on both sides; same tag matched first with first.
    let text = "num_ranks 2
rank 0 {
send 10b to 1 tag 1
send 20b to 1 tag 2
send 30b to 1 tag 1
}
rank 1 {
recv 20b from 0 tag 2
recv 10b from 0 tag 1
recv 30b from 0 tag 1
}
";
    let s = read(text).unwrap();
    let bytes: Vec<u64> = s
        .ops()
        .iter()
        .map(|op| match *op {
            Op::Transfer { bytes, .. } => bytes,
            Op::Delay { .. } => 0,
        })
        .collect();
    let mut sorted = bytes.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, vec![10, 20, 30]);
    // The same with the tag-1 receives swapped: the first tag-1 send (10 b) meets a 30 b receive.
    let swapped = text.replace(
        "recv 10b from 0 tag 1\nrecv 30b",
        "recv 30b from 0 tag 1\nrecv 10b",
    );
    let e = read(&swapped).unwrap_err();
    assert!(
        matches!(
            e,
            GoalError::SizeMismatch {
                send_line: 3,
                send_bytes: 10,
                recv_line: 9,
                recv_bytes: 30,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn syntax_variants_of_the_grammar() {
    // Comments of both kinds, `<n> b`, missing tag, cpu/nic suffixes, unlabelled ops, `rank 1{`,
    // CRLF line ends, a 0-byte message (1 byte on the wire) and a message to self (no network).
    let text = "// a trace\r\nnum_ranks 2 /* two\r\nranks */\r\nrank 0 {\r\n\
                l1: send 64 b to 1 cpu 0 nic 1 // trailing\r\n\
                l2 : calc 9 cpu 1\r\nl2 requires l1\r\nsend 0b to 1 tag 5\r\n\
                send 7b to 0\r\nrecv 7b from 0\r\n}\r\nrank 1{\r\nrecv 64b from 0 tag 0 nic 0\r\n\
                recv 0b from 0 tag 5\r\n}\r\n";
    let s = read(text).unwrap();
    assert_eq!(s.bytes_sent_per_rank(), vec![65, 0]);
    assert_eq!(s.len(), 4);
    assert_eq!(
        s.ops()
            .iter()
            .filter(|op| **op
                == Op::Delay {
                    rank: 0,
                    duration: Duration::ZERO
                })
            .count(),
        1
    );
}

/// (trace, line of the error, a piece of its message)
const BROKEN: &[(&str, u32, &str)] = &[
    (
        "num_ranks 2\nrank 0 {\nl1: sned 1b to 1\n}\n",
        3,
        "expected `send`, `recv` or `calc`",
    ),
    (
        "num_ranks 2\nrank 0 {\nl1: send 1xb to 1\n}\n",
        3,
        "bad size `1xb`",
    ),
    (
        "num_ranks 2\nrank 0 {\nl1: send 99999999999999999999b to 1\n}\n",
        3,
        "bad size",
    ),
    (
        "num_ranks 2\nrank 0 {\nl1: send 1b 1\n}\n",
        3,
        "expected `to`",
    ),
    (
        "num_ranks 2\nrank 0 {\nl1: send 1b to 5\n}\n",
        3,
        "rank 5 is not among the 2 ranks",
    ),
    ("num_ranks 2\nrank 2 {\n}\n", 2, "rank 2 is not among"),
    (
        "num_ranks 2\nrank 0 {\nl1: calc 1\nl1 requires l9\n}\n",
        4,
        "label `l9` is not defined",
    ),
    (
        "num_ranks 2\nrank 0 {\nl2 requires l1\nl1: calc 1\n}\n",
        3,
        "label `l2` is not defined",
    ),
    (
        "num_ranks 2\nrank 0 {\nl1: calc 1\nl1: calc 2\n}\n",
        4,
        "already defined on line 3",
    ),
    (
        "num_ranks 2\nrank 0 {\n}\nrank 0 {\n}\n",
        4,
        "rank 0 already has a block",
    ),
    (
        "num_ranks 2\nrank 0 {\ncalc 1\n\nsend 1b to 1\n}\n",
        5,
        "this send has no matching recv",
    ),
    (
        "num_ranks 2\nrank 0 {\n}\nrank 1 {\nrecv 1b from 0\nrecv 1b from 0 tag 1\n}\n",
        5,
        "this recv has no matching send",
    ),
    (
        "num_ranks 2\nrank 0 {\nsend 1b to 1 tag 1\n}\nrank 1 {\nrecv 1b from 0 tag 2\n}\n",
        3,
        "no matching",
    ),
    (
        "num_ranks 2\nrank 0 {\na: recv 1b from 1\nb: send 1b to 1\nb requires a\n}\n\
         rank 1 {\na: recv 1b from 0\nb: send 1b to 0\nb requires a\n}\n",
        3,
        "dependency cycle",
    ),
    (
        "num_ranks 1\nrank 0 {\na: calc 1\na irequires a\n}\n",
        3,
        "dependency cycle",
    ),
    // c (line 3) only waits for the cycle of a and b; the error names a line in the cycle.
    (
        "num_ranks 1\nrank 0 {\nc: calc 1\na: calc 2\nb: calc 3\nc requires a\na requires b\n\
         b requires a\n}\n",
        4,
        "dependency cycle",
    ),
    (
        "num_ranks 2\nrank 1 {\nrecv 8b from -1 tag 3\n}\n",
        3,
        "wildcard source",
    ),
    (
        "num_ranks 2\nrank 1 {\nrecv 8b from 0 tag -1\n}\n",
        3,
        "wildcard tag",
    ),
    (
        "num_ranks 2\nrank 1 {\nl0: put 1b to 0 tag 10\n}\n",
        3,
        "extension",
    ),
    (
        "num_ranks 2\nrank 1 {\ncalc 1\n",
        2,
        "rank block is never closed",
    ),
    (
        "num_ranks 2\n/* open\nrank 1 {\n}\n",
        2,
        "comment is never closed",
    ),
    (
        "rank 0 {\n}\n",
        1,
        "`num_ranks` before the first rank block",
    ),
    ("num_ranks 0\n", 1, "bad num_ranks"),
    ("num_ranks 2\nnum_ranks 2\n", 2, "one `num_ranks` line"),
    ("num_ranks 2\ncalc 5\n", 2, "`rank <r> {` before the ops"),
    ("num_ranks 2\n}\n", 2, "found `}`"),
    ("num_ranks 2\nrank 0\n{\n}\n", 2, "`{` after the rank"),
    (
        "num_ranks 2\nrank 0 { calc 1\n}\n",
        2,
        "end of line after `{`",
    ),
    (
        "num_ranks 2\nrank 0 {\ncalc 1 nic 0\n}\n",
        3,
        "`cpu` or end of line",
    ),
    (
        "num_ranks 2\nrank 0 {\nsend 1b to 1 nic 0 cpu 0\n}\n",
        3,
        "end of line",
    ),
    (
        "num_ranks 2\nrank 0 {\nsend 1b to 1 tag 4294967296\n}\n",
        3,
        "bad tag",
    ),
    ("num_ranks 2\nrank 0 {\n1a: calc 1\n}\n", 3, "a label"),
];

#[test]
fn errors_name_the_line() {
    for &(text, line, piece) in BROKEN {
        let e = read(text).expect_err(text);
        let msg = e.to_string();
        assert_eq!(line_of(&e), line, "{text:?}: {msg}");
        assert!(msg.contains(piece), "{text:?}: {msg} lacks {piece:?}");
    }
    assert_eq!(read(""), Err(GoalError::NoNumRanks));
    // The mismatch names both lines and texts.
    let text = "num_ranks 2\nrank 0 {\nsend 8b to 1\n}\nrank 1 {\nrecv 9b from 0\n}\n";
    assert_eq!(
        read(text).unwrap_err().to_string(),
        "line 3 sends 8 bytes but its matching receive on line 6 expects 9: `send 8b to 1` / \
         `recv 9b from 0`"
    );
    let zero = GoalOptions {
        empty_message_bytes: 0,
        ..GoalOptions::default()
    };
    let text = "num_ranks 2\nrank 0 {\nsend 0b to 1\n}\nrank 1 {\nrecv 0b from 0\n}\n";
    let e = read_goal(text, &zero).unwrap_err();
    assert!(matches!(e, GoalError::Schedule { line: 3, .. }), "{e}");
}

#[test]
fn a_long_line_is_shortened_in_errors() {
    let text = format!("num_ranks 1\nrank 0 {{\n{}\n}}\n", "é".repeat(1000));
    let GoalError::Syntax { text, .. } = read(&text).unwrap_err() else {
        panic!()
    };
    assert_eq!(text.chars().count(), TEXT_MAX + 3);
}

/// A ring all-reduce over `ranks` ranks in `2 (ranks - 1)` steps, as schedgen would write it:
/// each step a rank sends a chunk to its right neighbour, receives one from its left, and
/// reduces (calc) before the next send.
fn ring_trace(ranks: u32, chunk: u64) -> String {
    let mut t = format!("num_ranks {ranks}\n");
    for r in 0..ranks {
        let (right, left) = ((r + 1) % ranks, (r + ranks - 1) % ranks);
        t += &format!("rank {r} {{\n");
        for k in 0..2 * (ranks - 1) {
            t += &format!(
                "s{k}: send {chunk}b to {right} tag {k}\nr{k}: recv {chunk}b from {left} tag {k}\n"
            );
            t += &format!("c{k}: calc 1000\nc{k} requires r{k}\n");
            if k > 0 {
                t += &format!("s{k} requires c{}\n", k - 1);
            }
        }
        t += "}\n";
    }
    t
}

#[test]
fn a_ring_allreduce_trace_of_many_ops() {
    let ranks = 64;
    let text = ring_trace(ranks, 4096);
    let s = read(&text).unwrap();
    let steps = 2 * (ranks - 1);
    let transfers = (ranks * steps) as usize;
    // Per rank and step: a transfer, a calc, and no join (the receives have no dependencies).
    assert_eq!(s.len(), 2 * transfers);
    assert_eq!(s.transfer_depth(), steps);
    assert_eq!(
        s.bytes_sent_per_rank(),
        vec![4096 * steps as u64; ranks as usize]
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Lines put together from pieces of the grammar (and some garbage) never panic.
    #[test]
    fn random_lines_never_panic(lines in prop::collection::vec(line(), 0..40)) {
        let text = lines.join("\n");
        let _ = read(&text);
    }

    /// The published trace with lines dropped, repeated or moved never panics, and stays
    /// readable when only blank lines were touched.
    #[test]
    fn mangled_published_trace_never_panics(
        edits in prop::collection::vec((0usize..400, 0usize..400, 0u8..3), 1..8)
    ) {
        let mut lines: Vec<&str> = DISSEMINATION_16.lines().collect();
        let mut only_blank = true;
        for (a, b, how) in edits {
            let (a, b) = (a % lines.len(), b % lines.len());
            only_blank &= lines[a].is_empty() && how == 0;
            match how {
                0 => { lines.remove(a); }
                1 => { let l = lines[a]; lines.insert(b, l); }
                _ => lines.swap(a, b),
            }
            if lines.is_empty() { break; }
        }
        let result = read(&lines.join("\n"));
        if only_blank {
            prop_assert!(result.is_ok());
        }
    }

    /// Any text never panics.
    #[test]
    fn random_text_never_panics(text in ".{0,400}") {
        let _ = read(&text);
    }

    /// A valid ring of any size reads, with one transfer per send.
    #[test]
    fn rings_read(ranks in 2u32..12, chunk in 0u64..100_000) {
        let s = read(&ring_trace(ranks, chunk)).unwrap();
        let steps = 2 * (ranks - 1);
        prop_assert_eq!(s.transfer_depth(), steps);
        prop_assert_eq!(s.bytes_sent_per_rank(), vec![chunk.max(1) * steps as u64; ranks as usize]);
    }
}

fn line() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec![
        "num_ranks",
        "rank",
        "{",
        "}",
        "send",
        "recv",
        "calc",
        "to",
        "from",
        "tag",
        "cpu",
        "nic",
        "requires",
        "irequires",
        "l1",
        "l2",
        "l3",
        ":",
        "b",
        "0",
        "1",
        "2",
        "3",
        "1b",
        "8b",
        "0b",
        "-1",
        "//",
        "/*",
        "*/",
        "x",
        "é",
        "18446744073709551616",
        "4294967295",
    ]);
    prop_oneof![
        prop::collection::vec(word, 0..9).prop_map(|w| w.join(" ")),
        Just("num_ranks 3".to_string()),
        (0u32..4).prop_map(|r| format!("rank {r} {{")),
        Just("}".to_string()),
        (1u32..4, 0u32..4, 0u64..3).prop_map(|(l, p, s)| format!("l{l}: send {s}b to {p} tag 0")),
        (1u32..4, 0u32..4, 0u64..3).prop_map(|(l, p, s)| format!("l{l}: recv {s}b from {p} tag 0")),
        (1u32..4, 0u64..10).prop_map(|(l, c)| format!("l{l}: calc {c}")),
        (1u32..4, 1u32..4, any::<bool>())
            .prop_map(|(a, b, i)| format!("l{a} {}requires l{b}", if i { "i" } else { "" })),
    ]
}

/// Timing on a trace of millions of ops: `cargo test -p incastsim-collective --release
/// goal::tests::a_trace_of_millions_of_ops -- --ignored --nocapture`.
#[test]
#[ignore = "takes seconds; run by hand to time the reader"]
fn a_trace_of_millions_of_ops() {
    let ranks = 512;
    let text = ring_trace(ranks, 1 << 20);
    let started = std::time::Instant::now();
    let s = read(&text).unwrap();
    let took = started.elapsed();
    let ops = 3 * ranks as usize * 2 * (ranks as usize - 1);
    println!(
        "{ops} ops, {} MB of text, {} nodes: {took:?} ({:.0} ns per op)",
        text.len() >> 20,
        s.len(),
        took.as_nanos() as f64 / ops as f64
    );
    assert_eq!(s.transfer_depth(), 2 * (ranks - 1));
}
