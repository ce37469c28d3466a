//! The crate's one error type.

use std::path::PathBuf;

/// Everything that can go wrong in lane-send, apart from a held delivery (which is an
/// [`Outcome`](crate::Outcome), not an error).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A built-in frame table does not parse or compile.
    #[error("frame table {file} is invalid: {problem}; fix the table and add a fixture")]
    FrameSpec {
        /// The table file.
        file: String,
        /// What is wrong.
        #[source]
        problem: Box<FrameSpecProblem>,
    },
    /// The message is not signed `sender: text`.
    #[error("message is not signed: {message:?}; write it as `sender: text`, where sender is your lane name")]
    Unsigned {
        /// The message as given (shortened).
        message: String,
    },
    /// An argument is not acceptable.
    #[error("invalid {what} {value:?}: {reason}")]
    Invalid {
        /// Which argument.
        what: &'static str,
        /// The value given.
        value: String,
        /// Why, and what to give instead.
        reason: &'static str,
    },
    /// Neither the XDG directory nor `HOME` is set, so there is nowhere to keep files.
    #[error("neither {variable} nor HOME is set; set LANE_SEND_HOME to choose where lane-send keeps files")]
    NoHome {
        /// The XDG variable that was looked up.
        variable: &'static str,
    },
    /// A file or directory could not be used.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being done (`create`, `open`, `write` …).
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The lane's lock is held by another sender for longer than the timeout.
    #[error("lane {lane} is locked by another sender (waited {waited_ms} ms); retry later")]
    LockTimeout {
        /// The lane.
        lane: String,
        /// How long we waited.
        waited_ms: u64,
    },
    /// The registry file is malformed.
    #[cfg(feature = "coordination")]
    #[error("lane registry {path} is invalid: {problem}; fix the YAML (see docs/lane-send.md)")]
    Registry {
        /// The registry file.
        path: PathBuf,
        /// What is wrong.
        #[source]
        problem: Box<crate::registry::RegistryProblem>,
    },
    /// The mailbox database failed.
    #[cfg(feature = "coordination")]
    #[error("mailbox {path}: {source}")]
    Mailbox {
        /// The database file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: rusqlite::Error,
    },
    /// A tmux call failed.
    #[error("tmux: {0}")]
    Tmux(#[from] tmux_habitat::Error),
    /// A dialog's choice could not be picked; nothing that would answer the dialog was sent.
    #[error("cannot pick a choice in lane {lane}: {reason}")]
    Choice {
        /// The lane.
        lane: String,
        /// Why (no dialog open, no such choice, the selection did not move there).
        reason: String,
    },
    /// A JSON file (a saved frame's meta) could not be read.
    #[error("{path} is not valid: {source}")]
    Decode {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// Output could not be encoded.
    #[error("cannot encode {what}: {source}")]
    Encode {
        /// What was being encoded.
        what: &'static str,
        /// Why it failed.
        #[source]
        source: serde_json::Error,
    },
}

/// What is wrong with a frame table.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FrameSpecProblem {
    /// The YAML does not have the table's shape.
    #[error("{0}")]
    Yaml(#[from] serde_saphyr::Error),
    /// A pattern is not a valid regular expression.
    #[error("pattern {pattern:?}: {source}")]
    Pattern {
        /// The pattern.
        pattern: String,
        /// Why it does not compile.
        #[source]
        source: regex::Error,
    },
    /// A `rules` variant lacks its top or bottom rule pattern.
    #[error("variant {variant} has layout rules but no top/bottom pattern")]
    RulesWithoutPatterns {
        /// The variant.
        variant: String,
    },
    /// A clear key is not a tmux key name.
    #[error("clear key {key:?} is not a tmux key name (such as End, C-u, BSpace)")]
    UnknownKey {
        /// The key as written.
        key: String,
    },
    /// No table is built in for the agent.
    #[error("no built-in table")]
    Missing,
}

impl Error {
    /// Shorthand for an [`Error::Io`].
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { action, path: path.into(), source }
    }

    /// Whether the caller gave something unusable (a usage error, exit code 2), rather than something
    /// failing around it.
    pub fn is_usage(&self) -> bool {
        matches!(self, Error::Unsigned { .. } | Error::Invalid { .. } | Error::NoHome { .. })
    }
}
