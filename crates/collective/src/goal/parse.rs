//! Lines of a GOAL trace → flat ops and dependencies, checked against the grammar (no matching
//! or graph work here: that is [`super::build`]).

use std::collections::{HashMap, HashSet};

use super::{GoalError, shorten};

/// What an op does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Send,
    Recv,
    Calc,
}

/// One op, as read. `peer` is a send's destination or a receive's source (0 for a calc);
/// `size` is bytes, or a calc's cost in calc units.
#[derive(Clone, Copy, Debug)]
pub(super) struct OpLine {
    pub kind: Kind,
    pub rank: u32,
    pub peer: u32,
    pub tag: u32,
    pub size: u64,
    pub line: u32,
}

/// `op requires on` (`start` false) or `op irequires on` (`start` true), as op indices.
#[derive(Clone, Copy, Debug)]
pub(super) struct Dep {
    pub op: u32,
    pub on: u32,
    pub start: bool,
}

/// A whole trace: `ops` in file order (so a rank's ops are contiguous and in program order).
#[derive(Debug)]
pub(super) struct Trace {
    pub ranks: u32,
    pub ops: Vec<OpLine>,
    pub deps: Vec<Dep>,
}

/// Most ops a trace may hold: the graph has two vertices per op, indexed by `u32`.
const MAX_OPS: usize = 1 << 31;

/// Reads every line of `text`.
pub(super) fn parse(text: &str) -> Result<Trace, GoalError> {
    let mut p = Parser::default();
    let mut toks: Vec<&str> = Vec::with_capacity(16);
    let mut comment: Option<u32> = None;
    for (i, raw) in text.split('\n').enumerate() {
        let no = u32::try_from(i + 1).map_err(|_| GoalError::TooLarge)?;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        toks.clear();
        tokenize(raw, no, &mut comment, &mut toks);
        p.statement(Line { no, text: raw }, &toks)?;
    }
    if let Some(line) = comment {
        return Err(unclosed(text, line, "comment"));
    }
    if let Some(block) = p.block {
        return Err(unclosed(text, block.line, "rank block"));
    }
    let ranks = p.ranks.ok_or(GoalError::NoNumRanks)?;
    Ok(Trace {
        ranks,
        ops: p.ops,
        deps: p.deps,
    })
}

fn unclosed(text: &str, line: u32, what: &'static str) -> GoalError {
    GoalError::Unclosed {
        line,
        text: super::line_text(text, line),
        what,
    }
}

/// Splits `line` into words (runs of ASCII letters, digits and `_`; or `-` then digits) and
/// one-character symbols, dropping whitespace and comments. `comment` holds the line where an
/// open `/* */` comment began, across lines.
fn tokenize<'a>(line: &'a str, no: u32, comment: &mut Option<u32>, out: &mut Vec<&'a str>) {
    let bytes = line.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if comment.is_some() {
            match line[i..].find("*/") {
                Some(at) => {
                    i += at + 2;
                    *comment = None;
                    continue;
                }
                None => return,
            }
        }
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
        } else if line[i..].starts_with("//") {
            return;
        } else if line[i..].starts_with("/*") {
            *comment = Some(no);
            i += 2;
        } else if word(b) || (b == b'-' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let start = i;
            i += 1;
            while i < bytes.len() && word(bytes[i]) {
                i += 1;
            }
            out.push(&line[start..i]);
        } else {
            // One character (whole, so slices stay on character boundaries).
            let len = line[i..].chars().next().map_or(1, char::len_utf8);
            out.push(&line[i..i + len]);
            i += len;
        }
    }
}

/// A line being read: its number and text, for errors.
#[derive(Clone, Copy)]
struct Line<'a> {
    no: u32,
    text: &'a str,
}

impl Line<'_> {
    fn syntax(self, expected: &'static str, found: Option<&str>) -> GoalError {
        GoalError::Syntax {
            line: self.no,
            text: shorten(self.text),
            expected,
            found: found.map_or_else(|| "end of line".to_string(), |f| format!("`{f}`")),
        }
    }

    fn bad(self, what: &'static str, found: &str) -> GoalError {
        GoalError::BadNumber {
            line: self.no,
            text: shorten(self.text),
            what,
            found: shorten(found),
        }
    }

    fn unsupported(self, what: &'static str) -> GoalError {
        GoalError::Unsupported {
            line: self.no,
            text: shorten(self.text),
            what,
        }
    }

    /// A decimal number of up to 64 bits, `what` naming it in the error.
    fn number(self, what: &'static str, tok: Option<&str>) -> Result<u64, GoalError> {
        let tok = tok.ok_or_else(|| self.syntax(what_expected(what), None))?;
        if !tok
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_digit() || b == b'-')
        {
            return Err(self.syntax(what_expected(what), Some(tok)));
        }
        if !tok.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.bad(what, tok));
        }
        tok.parse().map_err(|_| self.bad(what, tok))
    }

    /// A rank below `ranks`.
    fn rank(self, tok: Option<&str>, ranks: u32) -> Result<u32, GoalError> {
        let rank = self.number("rank", tok)?;
        match u32::try_from(rank) {
            Ok(r) if r < ranks => Ok(r),
            _ => Err(GoalError::RankOutOfRange {
                line: self.no,
                text: shorten(self.text),
                rank,
                ranks,
            }),
        }
    }
}

fn what_expected(what: &'static str) -> &'static str {
    match what {
        "rank" => "a rank (a number)",
        "size" => "a size in bytes such as `64b`",
        "tag" => "a tag (a number)",
        "cost" => "a calc cost (a number)",
        "num_ranks" => "a rank count (a number)",
        _ => "a number",
    }
}

fn is_label(tok: &str) -> bool {
    tok.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
}

/// The reader's state between lines.
#[derive(Default)]
struct Parser<'a> {
    ranks: Option<u32>,
    /// The open rank block.
    block: Option<Block>,
    seen_ranks: HashSet<u32>,
    /// Labels of the open block: op index and line. Cleared per block (labels are local).
    labels: HashMap<&'a str, (u32, u32)>,
    ops: Vec<OpLine>,
    deps: Vec<Dep>,
}

#[derive(Clone, Copy)]
struct Block {
    rank: u32,
    line: u32,
}

impl<'a> Parser<'a> {
    fn statement(&mut self, line: Line<'a>, toks: &[&'a str]) -> Result<(), GoalError> {
        match toks {
            [] => Ok(()),
            ["num_ranks", rest @ ..] => self.num_ranks(line, rest),
            ["rank", rest @ ..] => self.open(line, rest),
            ["}", rest @ ..] => {
                if let Some(&t) = rest.first() {
                    return Err(line.syntax("end of line after `}`", Some(t)));
                }
                if self.block.take().is_none() {
                    return Err(line.syntax("`num_ranks` or `rank <r> {`", Some("}")));
                }
                Ok(())
            }
            [a, kind @ ("requires" | "irequires"), rest @ ..] => {
                self.dependency(line, a, *kind == "irequires", rest)
            }
            [label, ":", rest @ ..] => {
                if !is_label(label) {
                    return Err(line.syntax(LABEL, Some(label)));
                }
                self.op(line, Some(label), rest)
            }
            _ => self.op(line, None, toks),
        }
    }

    fn num_ranks(&mut self, line: Line<'a>, rest: &[&'a str]) -> Result<(), GoalError> {
        if self.ranks.is_some() {
            return Err(line.syntax("one `num_ranks` line, before the rank blocks", None));
        }
        let n = line.number("num_ranks", rest.first().copied())?;
        let n = match u32::try_from(n) {
            Ok(n) if n > 0 => n,
            _ => return Err(line.bad("num_ranks", rest.first().copied().unwrap_or(""))),
        };
        if let Some(&t) = rest.get(1) {
            return Err(line.syntax("end of line", Some(t)));
        }
        self.ranks = Some(n);
        Ok(())
    }

    fn open(&mut self, line: Line<'a>, rest: &[&'a str]) -> Result<(), GoalError> {
        if self.block.is_some() {
            return Err(line.syntax("`}` before the next rank block", Some("rank")));
        }
        let Some(ranks) = self.ranks else {
            return Err(line.syntax("`num_ranks` before the first rank block", Some("rank")));
        };
        let rank = line.rank(rest.first().copied(), ranks)?;
        match rest.get(1) {
            Some(&"{") => {}
            t => return Err(line.syntax("`{` after the rank", t.copied())),
        }
        if let Some(&t) = rest.get(2) {
            return Err(line.syntax("end of line after `{`", Some(t)));
        }
        if !self.seen_ranks.insert(rank) {
            return Err(GoalError::DuplicateRank {
                line: line.no,
                text: shorten(line.text),
                rank,
            });
        }
        self.labels.clear();
        self.block = Some(Block {
            rank,
            line: line.no,
        });
        Ok(())
    }

    fn dependency(
        &mut self,
        line: Line<'a>,
        a: &'a str,
        start: bool,
        rest: &[&'a str],
    ) -> Result<(), GoalError> {
        if self.block.is_none() {
            return Err(line.syntax(OUTSIDE, Some(a)));
        }
        if !is_label(a) {
            return Err(line.syntax(LABEL, Some(a)));
        }
        let b = match rest.first() {
            Some(&b) if is_label(b) => b,
            t => return Err(line.syntax(LABEL, t.copied())),
        };
        if let Some(&t) = rest.get(1) {
            return Err(line.syntax("end of line", Some(t)));
        }
        let op = self.label(line, a)?;
        let on = self.label(line, b)?;
        if self.deps.len() >= u32::MAX as usize {
            return Err(GoalError::TooLarge);
        }
        self.deps.push(Dep { op, on, start });
        Ok(())
    }

    fn label(&self, line: Line<'a>, label: &str) -> Result<u32, GoalError> {
        match self.labels.get(label) {
            Some(&(op, _)) => Ok(op),
            None => Err(GoalError::UndefinedLabel {
                line: line.no,
                text: shorten(line.text),
                label: shorten(label),
            }),
        }
    }

    fn op(
        &mut self,
        line: Line<'a>,
        label: Option<&'a str>,
        toks: &[&'a str],
    ) -> Result<(), GoalError> {
        let mut it = toks.iter().copied();
        let kw = it.next();
        let kind = match kw {
            Some("send") => Kind::Send,
            Some("recv") => Kind::Recv,
            Some("calc") => Kind::Calc,
            Some(w) if EXTENSIONS.contains(&w) => {
                return Err(line.unsupported("this LogGOPSim2 extension op"));
            }
            _ => {
                let expected = if label.is_some() {
                    "`send`, `recv` or `calc` after the label"
                } else {
                    "`num_ranks`, `rank`, `}`, an op (`send`, `recv`, `calc`, optionally \
                     labelled `l:`) or a dependency (`a requires b`, `a irequires b`)"
                };
                return Err(line.syntax(expected, kw));
            }
        };
        let Some(block) = self.block else {
            return Err(line.syntax(OUTSIDE, kw));
        };
        let ranks = self.ranks.unwrap_or(0);
        let (peer, tag, size) = match kind {
            Kind::Calc => {
                let cost = line.number("cost", it.next())?;
                match it.next() {
                    None => {}
                    Some("cpu") => {
                        line.number("cpu", it.next())?;
                    }
                    Some(t) => return Err(line.syntax("`cpu` or end of line", Some(t))),
                }
                (0, 0, cost)
            }
            Kind::Send | Kind::Recv => {
                let size = size(line, &mut it)?;
                let (word, dir) = if kind == Kind::Send {
                    ("to", "`to` after the size")
                } else {
                    ("from", "`from` after the size")
                };
                match it.next() {
                    Some(w) if w == word => {}
                    t => return Err(line.syntax(dir, t)),
                }
                let peer_tok = it.next();
                if kind == Kind::Recv && peer_tok == Some("-1") {
                    return Err(line.unsupported("a wildcard source (`from -1`, MPI_ANY_SOURCE)"));
                }
                let peer = line.rank(peer_tok, ranks)?;
                let (tag, next) = match it.next() {
                    Some("tag") => {
                        let t = it.next();
                        if t == Some("-1") {
                            return Err(line.unsupported("a wildcard tag (`tag -1`, MPI_ANY_TAG)"));
                        }
                        let tag = line.number("tag", t)?;
                        let tag =
                            u32::try_from(tag).map_err(|_| line.bad("tag", t.unwrap_or("")))?;
                        (tag, it.next())
                    }
                    t => (0, t),
                };
                let next = match next {
                    Some("cpu") => {
                        line.number("cpu", it.next())?;
                        it.next()
                    }
                    t => t,
                };
                match next {
                    None => {}
                    Some("nic") => {
                        line.number("nic", it.next())?;
                    }
                    Some(t) => {
                        return Err(line.syntax(
                            "`tag`, `cpu`, `nic` (in that order) or end of line",
                            Some(t),
                        ));
                    }
                }
                (peer, tag, size)
            }
        };
        if let Some(t) = it.next() {
            return Err(line.syntax("end of line", Some(t)));
        }
        if self.ops.len() >= MAX_OPS {
            return Err(GoalError::TooLarge);
        }
        let index = self.ops.len() as u32;
        if let Some(label) = label {
            if let Some(&(_, first)) = self.labels.get(label) {
                return Err(GoalError::DuplicateLabel {
                    line: line.no,
                    text: shorten(line.text),
                    label: shorten(label),
                    first,
                });
            }
            self.labels.insert(label, (index, line.no));
        }
        self.ops.push(OpLine {
            kind,
            rank: block.rank,
            peer,
            tag,
            size,
            line: line.no,
        });
        Ok(())
    }
}

/// `<n>b` or `<n> b`.
fn size<'a>(line: Line<'a>, it: &mut impl Iterator<Item = &'a str>) -> Result<u64, GoalError> {
    let tok = it.next();
    match tok.and_then(|t| t.strip_suffix('b')) {
        Some(digits) if !digits.is_empty() => line
            .number("size", Some(digits))
            .map_err(|_| line.bad("size", tok.unwrap_or(""))),
        _ => {
            let n = line.number("size", tok)?;
            match it.next() {
                Some("b") => Ok(n),
                t => Err(line.syntax("`b` after the size", t)),
            }
        }
    }
}

const LABEL: &str = "a label (a letter, then letters, digits or `_`)";
const OUTSIDE: &str = "`rank <r> {` before the ops of a rank";

/// Op keywords of LogGOPSim2's Portals 4 / sPIN extension, named so the error says why.
const EXTENSIONS: &[&str] = &[
    "put", "get", "append", "tput", "tget", "tappend", "test", "calcgem5",
];
