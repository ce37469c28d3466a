//! What can go wrong while serving, recording or replaying.

use std::path::PathBuf;

/// Errors of this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A tmux call failed.
    #[error(transparent)]
    Tmux(#[from] tmux_habitat::Error),
    /// Reading or writing a file, or a socket, failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The address to listen on could not be bound.
    #[error("cannot listen on {addr}: {source} (is another `clive serve` running? choose another --port)")]
    Bind {
        /// The address.
        addr: std::net::SocketAddr,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A recording is not a valid asciicast v2 file.
    #[error("not a valid asciicast v2 recording (line {line}): {reason}")]
    Cast {
        /// The 1-based line that is wrong.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// No recording with this id.
    #[error("no recording {id:?} in {dir}: `clive sessions` lists live sessions, `ls {dir}` the recordings")]
    NoRecording {
        /// The id asked for.
        id: String,
        /// Where recordings are kept.
        dir: PathBuf,
    },
    /// A setting or argument is not usable.
    #[error("invalid {what}: {reason}")]
    Invalid {
        /// What was given.
        what: &'static str,
        /// What is wrong and what to do.
        reason: String,
    },
    /// The `--on-waiting` command failed.
    #[error("--on-waiting command {command:?}: {reason}")]
    Hook {
        /// The command.
        command: String,
        /// How it failed (its exit status and the end of its stderr, or that it ran too long).
        reason: String,
    },
    /// A session catalog could not be read.
    #[error("listing sessions from {source_name}: {reason}")]
    Catalog {
        /// Which catalog.
        source_name: String,
        /// Why it failed.
        reason: String,
    },
}

impl Error {
    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io { what: what.into(), source }
    }
}

/// This crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
