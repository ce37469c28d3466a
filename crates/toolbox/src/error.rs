//! What can go wrong, and what to do about it.

use std::path::PathBuf;

use crate::sandbox::SandboxError;

/// Errors of this crate. Each names what was wrong and what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A value given by the user (a toolset, a pane kind) is not one we know.
    #[error("invalid {what} `{value}`: {reason}")]
    Invalid {
        /// What was being read.
        what: &'static str,
        /// The value as given.
        value: String,
        /// Why it is wrong and what would be right.
        reason: String,
    },
    /// A tool card (built in or the user's) cannot be read.
    #[error("tool card {file}: {reason}")]
    Card {
        /// The card's file.
        file: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The user's config file cannot be read.
    #[error("config file {}: {reason}", path.display())]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A file operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What we were doing.
        context: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The sandbox cannot be set up.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// tmux failed while opening or readying a pane.
    #[error("opening pane `{pane}`: {source}")]
    Pane {
        /// The pane's name.
        pane: String,
        /// The cause.
        #[source]
        source: tmux_habitat::Error,
    },
}

impl Error {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io { context: context.into(), source }
    }
}

/// This crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
