//! The one error type of the crate.

use std::path::PathBuf;
use std::time::Duration;

/// Everything that can go wrong while driving tmux.
///
/// Messages name the thing that was wrong and, where there is one, what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The `tmux` binary could not be started at all.
    #[error("could not start tmux ({program}): {source}; install tmux 3.2 or newer (e.g. `apt-get install tmux`)")]
    Spawn {
        /// The program we tried to run.
        program: String,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A tmux command exited unsuccessfully.
    #[error("`{command}` failed (exit {status}): {stderr}")]
    Command {
        /// The command line, for the reader.
        command: String,
        /// Exit status, or -1 when killed by a signal.
        status: i32,
        /// What tmux wrote on stderr, trimmed.
        stderr: String,
    },
    /// A tmux command did not finish within its deadline and was killed.
    #[error("`{command}` did not finish within {deadline:?} and was killed (stderr so far: {stderr:?})")]
    Deadline {
        /// The command line, for the reader.
        command: String,
        /// The deadline that expired.
        deadline: Duration,
        /// What tmux wrote on stderr before it was killed.
        stderr: String,
    },
    /// Waiting for something in a pane took longer than allowed.
    #[error("pane {pane}: timed out after {waited:?} waiting for {what}; screen at that moment:\n{screen}")]
    Timeout {
        /// The pane id (`%N`).
        pane: String,
        /// What we were waiting for.
        what: String,
        /// How long we waited.
        waited: Duration,
        /// The visible screen when the wait gave up (may be empty if it could not be captured).
        screen: String,
    },
    /// The pane has exited (its program died); it can no longer take input.
    #[error("pane {pane} is dead (exit status {status:?}); its last screen is still readable with capture")]
    PaneDead {
        /// The pane id.
        pane: String,
        /// Exit status of the pane's program, when tmux knows it.
        status: Option<i32>,
    },
    /// A target (session name, pane id) does not exist on this server.
    #[error("no such {kind} `{name}` on tmux server {socket}")]
    NotFound {
        /// "session", "pane" or "window".
        kind: &'static str,
        /// The name or id that was looked for.
        name: String,
        /// The socket of the server that was asked.
        socket: PathBuf,
    },
    /// Input that cannot be sent as asked without losing or changing it.
    #[error("refused to send to pane {pane}: {reason}")]
    Refused {
        /// The pane id.
        pane: String,
        /// Why, and what to do instead.
        reason: String,
    },
    /// A name given by the caller is not acceptable to tmux.
    #[error("invalid {what} {value:?}: {reason}")]
    Invalid {
        /// Which argument.
        what: &'static str,
        /// The value given.
        value: String,
        /// Why it is rejected.
        reason: String,
    },
    /// tmux answered with something we could not understand.
    #[error("unexpected answer from tmux to `{command}`: {detail}")]
    Protocol {
        /// The command that was answered.
        command: String,
        /// What was wrong with the answer.
        detail: String,
    },
    /// The control-mode connection ended while a command that must not be repeated was in flight: it may or
    /// may not have run. Look at the pane before acting again.
    #[error(
        "the tmux connection ended while `{command}` was in flight ({reason}); it may or may not have run, so it was not repeated: look at the pane before trying again"
    )]
    ConnectionLost {
        /// The command.
        command: String,
        /// Why the connection ended.
        reason: String,
    },
    /// The operation needs the control-mode transport.
    #[error(
        "{what} needs the control-mode transport; this server uses subprocesses (unset TMUX_HABITAT_TRANSPORT or build the server with TransportKind::Control)"
    )]
    Unsupported {
        /// What was asked for.
        what: &'static str,
    },
    /// Local I/O (temporary files, directories) failed.
    #[error("{context}: {source}")]
    Io {
        /// What we were doing.
        context: String,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// Whether the error says no tmux server answers on the socket (never started, killed, or exiting).
    pub fn is_server_gone(&self) -> bool {
        match self {
            Error::Command { stderr, .. } => crate::server::no_server(stderr),
            _ => false,
        }
    }

    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io { context: context.into(), source }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
