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
