//! The one error type of config loading and checking.

use std::fmt;

/// A configuration error: which key, what value, what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// Reading the config file failed.
    #[error("cannot read {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's error.
        message: String,
    },
    /// The YAML does not parse; the message has the line and column.
    #[error("YAML syntax error: {0}")]
    Syntax(String),
    /// A key's value breaks a rule that is not a simple range (cross-key checks, topology).
    #[error("{key}: {message}")]
    Key {
        /// The full key path.
        key: String,
        /// What is wrong and what would be allowed.
        message: String,
    },
    /// A key has a value outside what it allows.
    #[error("{key} = {value}: {allowed}")]
    Invalid {
        /// The full key path (`tcp.rto_min`, `traffic[1].load`).
        key: String,
        /// The value given (at most [`MAX_ECHO_CHARS`] characters).
        value: String,
        /// What is allowed, in words.
        allowed: String,
    },
    /// A `--set` argument is malformed or names no key.
    #[error("--set {:?}: {message}", shorten(.arg))]
    Override {
        /// The argument as given.
        arg: String,
        /// What is wrong.
        message: String,
    },
    /// A sweep config given to a single-run command.
    #[error(
        "this config has a `sweep:` section: run it with `{} sweep`, or run its base point with --set sweep=null",
        crate::program::name()
    )]
    HasSweep,
}

/// Most characters of a value echoed back in an error.
pub const MAX_ECHO_CHARS: usize = 80;

/// `text` cut to [`MAX_ECHO_CHARS`] characters (with "..." and the full length when cut).
pub fn shorten(text: &str) -> String {
    let n = text.chars().count();
    if n <= MAX_ECHO_CHARS {
        return text.to_string();
    }
    let head: String = text.chars().take(MAX_ECHO_CHARS - 3).collect();
    format!("{head}... ({n} characters)")
}

/// A parser's message in the user's words: its option names and internals left out, and any
/// quoted value longer than [`MAX_ECHO_CHARS`] shortened.
pub fn plain_words(message: &str) -> String {
    let message = message.strip_prefix("error: ").unwrap_or(message);
    let mut m = message
        .replace(", set DuplicateKeyPolicy in Options if acceptable", "")
        .replace(
            "duplicate mapping key",
            "a key appears twice in the same section",
        );
    // The parser's resource limits, in words (serde-saphyr: "budget breached: Depth { depth: 65 }").
    if let Some(i) = m.find("budget breached: ") {
        let what = m[i + "budget breached: ".len()..]
            .split(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or("")
            .to_lowercase();
        let limit: String = m[i..]
            .chars()
            .skip_while(|c| !c.is_ascii_digit())
            .take_while(char::is_ascii_digit)
            .collect();
        m = format!(
            "{}the YAML is beyond what a config may hold ({what}: at most {limit})",
            &m[..i]
        );
    }
    // Serde's untagged enums: name the accepted forms, not the internal type.
    for (internal, words) in [
        (
            "data did not match any variant of untagged enum OneOrManyDur",
            "expected a duration or a list of durations",
        ),
        (
            "data did not match any variant of untagged enum OneOrMany",
            "expected one value or a list of values",
        ),
    ] {
        m = m.replace(internal, words);
    }
    if let Some(i) = m.find("data did not match any variant of untagged enum") {
        m.truncate(i);
        m.push_str("not one of the forms this key accepts");
    }
    m = did_you_mean(&m);
    m = integer_range(&m);
    if let Some(i) = m.find("from_str_multiple") {
        m.truncate(i);
        m = m.trim_end_matches([' ', ':', ',', '(']).to_string();
        m.push_str(" (one YAML document per file)");
    }
    // Shorten long quoted values ("..." or `...`).
    let mut out = String::with_capacity(m.len().min(4096));
    let mut rest = m.as_str();
    while let Some(start) = rest.find(['"', '`']) {
        let quote = rest[start..].chars().next().unwrap_or('"');
        out.push_str(&rest[..=start]);
        let after = &rest[start + 1..];
        match after.find(quote) {
            Some(end) => {
                out.push_str(&shorten(&after[..end]));
                out.push(quote);
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&shorten(after));
                rest = "";
            }
        }
    }
    out.push_str(rest);
    // Lines (code excerpts of the parser) cut as well.
    out.lines().map(shorten_line).collect::<Vec<_>>().join("\n")
}

/// Serde's "unknown field `link_rtae`, expected one of `link_rate`, ..." with the closest
/// allowed name first: "unknown field `link_rtae` (did you mean `link_rate`?), expected one
/// of ..." (at most two edits away, a typo's distance; nothing otherwise).
fn did_you_mean(m: &str) -> String {
    let Some(i) = m.find("unknown field `") else {
        return m.to_string();
    };
    let start = i + "unknown field `".len();
    let Some(len) = m[start..].find('`') else {
        return m.to_string();
    };
    let unknown = &m[start..start + len];
    let Some(j) = m.find("expected one of ") else {
        return m.to_string();
    };
    let best = m[j..]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|name| (edit_distance(unknown, name), name))
        .filter(|&(d, _)| d <= 2)
        .min_by_key(|&(d, _)| d);
    match best {
        Some((_, name)) => {
            let at = start + len + 1;
            format!("{} (did you mean `{name}`?){}", &m[..at], &m[at..])
        }
        None => m.to_string(),
    }
}

/// Levenshtein distance (short names only: a config key).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut row = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            row[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(row[j] + 1);
        }
        prev = row;
    }
    prev[b.len()]
}

/// Serde's "invalid value: integer `-1`, expected u32" in words: the allowed range.
fn integer_range(m: &str) -> String {
    for (ty, range) in [
        ("u8", "0 to 255"),
        ("u16", "0 to 65535"),
        ("u32", "0 to 4294967295"),
        ("u64", "0 to 18446744073709551615"),
        ("usize", "0 to 18446744073709551615"),
    ] {
        let suffix = format!(", expected {ty}");
        if let Some(i) = m.find(&suffix)
            && m[..i].contains("invalid value: integer")
            && m[i + suffix.len()..].is_empty()
        {
            let value = m[..i].rsplit('`').nth(1).unwrap_or("");
            let head = &m[..m.find("invalid value: integer").unwrap_or(0)];
            return format!("{head}{value} is out of range: a whole number from {range}");
        }
    }
    m.to_string()
}

/// A line of a parser's excerpt (which may quote a 100 KB line of the file); lists of allowed
/// keys stay whole.
fn shorten_line(line: &str) -> String {
    if line.chars().count() <= 1000 {
        line.to_string()
    } else {
        shorten(line)
    }
}

/// A [`ConfigError::Invalid`]: `key = value: allowed` (the value shortened to
/// [`MAX_ECHO_CHARS`]).
pub fn invalid(key: &str, value: impl fmt::Display, allowed: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_string(),
        value: shorten(&value.to_string()),
        allowed: allowed.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 39, item 6: a typo gets a suggestion, a negative count the allowed range.
    #[test]
    fn typos_get_a_suggestion_and_integers_a_range() {
        let m = plain_words(
            "unknown field `link_rtae`, expected one of `link_rate`, `link_delay`, `switch_buffer`",
        );
        assert!(
            m.starts_with("unknown field `link_rtae` (did you mean `link_rate`?), expected one of"),
            "{m}"
        );
        let far = plain_words("unknown field `banana`, expected one of `link_rate`");
        assert!(!far.contains("did you mean"), "{far}");
        assert_eq!(
            plain_words("invalid value: integer `-1`, expected u32"),
            "-1 is out of range: a whole number from 0 to 4294967295"
        );
        assert_eq!(edit_distance("link_rtae", "link_rate"), 2);
    }
}
