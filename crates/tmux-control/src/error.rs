//! The crate's one error type.

use std::time::Duration;

/// Everything that can go wrong talking to tmux in control mode.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The control connection ended (`%exit`, end of file, the tmux client or
    /// server died, or a write failed). Every pending and later command fails
    /// with this; open a new connection to carry on.
    #[error("tmux control connection closed: {reason}; start a new control client to reconnect")]
    ConnectionClosed {
        /// What ended it, for example `tmux sent %exit (server exited)`.
        reason: String,
    },
    /// No reply came within the deadline. The connection stays usable: the late
    /// reply is matched and discarded.
    #[error("tmux command `{command}` got no reply within {timeout:?}; the server may be busy or the command blocked")]
    Timeout {
        /// The command line sent.
        command: String,
        /// The deadline that passed.
        timeout: Duration,
    },
    /// tmux answered with `%error`.
    #[error("tmux command `{command}` failed: {message}")]
    CommandFailed {
        /// The command line sent.
        command: String,
        /// tmux's error output, lines joined with newlines.
        message: String,
    },
    /// The command line cannot be sent on a shared control connection.
    #[error("refusing to send tmux command {command:?}: {problem}")]
    BadCommand {
        /// The offending line.
        command: String,
        /// Why, and what to do instead.
        problem: String,
    },
    /// An argument cannot be quoted for tmux's parser.
    #[error("cannot quote tmux argument {arg:?}: {problem}")]
    UnquotableArgument {
        /// The offending argument.
        arg: String,
        /// Why, and what to do instead.
        problem: String,
    },
    /// Text that should be a pane id (`%N`) is not one.
    #[error("{text:?} is not a tmux pane id; expected `%` followed by digits, such as %3")]
    BadPaneId {
        /// The offending text.
        text: String,
    },
    /// A child process given to [`crate::Connection::from_child`] lacks a pipe.
    #[error("the tmux control client process has no piped {stream}; spawn it with Stdio::piped() for stdin and stdout")]
    MissingPipe {
        /// `stdin` or `stdout`.
        stream: &'static str,
    },
}
