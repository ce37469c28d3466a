//! The crate's one error type.

use std::path::PathBuf;

/// Everything that can go wrong in lane-send, apart from a held delivery (which is an
/// [`Outcome`](crate::Outcome), not an error).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A built-in frame table does not parse or compile.
    #[error("frame table {file} is invalid: {detail}; fix the table and add a fixture")]
    FrameSpec {
        /// The table file.
        file: String,
        /// What is wrong.
        detail: String,
    },
    /// The message is not signed `sender: text`.
    #[error("message is not signed: {message:?}; write it as `sender: text`, where sender is your lane name")]
    Unsigned {
        /// The message as given (shortened).
        message: String,
    },
    /// Some argument is wrong.
    #[error("{0}")]
    Usage(String),
    /// A file or directory could not be used.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being done (`create`, `open`, `write` …).
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
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
    #[error("lane registry {path} is invalid: {detail}; fix the YAML (see docs/lane-send.md)")]
    Registry {
        /// The registry file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The mailbox database failed.
    #[error("mailbox {path}: {source}")]
    Mailbox {
        /// The database file.
        path: PathBuf,
        /// The underlying error.
        source: rusqlite::Error,
    },
    /// A tmux call failed.
    #[error("tmux: {0}")]
    Tmux(#[from] tmux_habitat::Error),
    /// Output could not be encoded.
    #[error("cannot encode {what}: {detail}")]
    Encode {
        /// What was being encoded.
        what: &'static str,
        /// Why it failed.
        detail: String,
    },
}

impl Error {
    /// Shorthand for an [`Error::Io`].
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { action, path: path.into(), source }
    }
}
