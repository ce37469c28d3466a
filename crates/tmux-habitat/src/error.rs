//! The one error type of the crate.

use std::path::{Path, PathBuf};
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
    /// No tmux server answers on the socket: it was never started, was killed, or is exiting.
    #[error("no tmux server answers on {socket} ({detail}); start one (a new session starts it) or check the socket")]
    NoServer {
        /// The socket that was tried.
        socket: PathBuf,
        /// tmux's own words.
        detail: String,
    },
    /// A tmux command exited unsuccessfully for a reason that has no variant of its own.
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
    /// The control-mode connection failed a command (other than by tmux refusing it).
    #[error("`{command}` over the tmux control connection: {source}")]
    Control {
        /// The command.
        command: String,
        /// What the control-mode client reported.
        #[source]
        source: tmux_control::Error,
    },
    /// tmux answered with something we could not understand.
    #[error("unexpected answer from tmux to `{command}`: {detail}")]
    Protocol {
        /// The command that was answered.
        command: String,
        /// What was wrong with the answer.
        detail: String,
    },
    /// A capture and the cursor it goes with could not be read at one place of the pane's output stream: the
    /// pane printed between them every time. Nothing was skipped from the stream; capture again.
    #[error(
        "pane {pane}: its capture and its cursor were read at different places of its output stream {tries} times in a row (it prints without pause); capture again"
    )]
    CaptureUnplaced {
        /// The pane.
        pane: String,
        /// How many times both were asked for.
        tries: u32,
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
        matches!(self, Error::NoServer { .. })
    }

    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io { context: context.into(), source }
    }

    /// Turns a failed tmux command into the variant its message stands for. This is the one place that
    /// reads tmux's wording; everything else matches variants.
    pub(crate) fn from_failure(command: String, status: i32, stderr: &str, socket: &Path) -> Error {
        let stderr = stderr.trim();
        let socket = socket.to_owned();
        const NO_SERVER: [&str; 5] =
            ["no server running", "error connecting to", "No such file", "server exited unexpectedly", "lost server"];
        if NO_SERVER.iter().any(|words| stderr.contains(words)) {
            return Error::NoServer { socket, detail: stderr.to_owned() };
        }
        const MISSING: [(&str, &str); 5] = [
            ("can't find pane: ", "pane"),
            ("can't find session: ", "session"),
            ("no such session: ", "session"),
            ("can't find window: ", "window"),
            ("no such window: ", "window"),
        ];
        for (prefix, kind) in MISSING {
            if let Some(name) = stderr.lines().find_map(|line| line.strip_prefix(prefix)) {
                // "no such window: %3": a pane id whose window went with it (tmux's answer for a pane just killed).
                let kind = if kind == "window" && name.starts_with('%') { "pane" } else { kind };
                return Error::NotFound {
                    kind,
                    name: name.trim_start_matches('=').trim_end_matches(':').to_owned(),
                    socket,
                };
            }
        }
        Error::Command { command, status, stderr: stderr.to_owned() }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    fn classify(stderr: &str) -> Error {
        Error::from_failure("tmux x".into(), 1, stderr, Path::new("/s"))
    }

    /// tmux 3.3a's own words, as captured from a real server.
    #[test]
    fn tmux_messages_become_variants() {
        assert!(matches!(classify("no server running on /tmp/x"), Error::NoServer { .. }));
        assert!(matches!(classify("error connecting to /tmp/d/s (No such file or directory)"), Error::NoServer { .. }));
        for (stderr, want_kind, want_name) in [
            ("can't find pane: %99", "pane", "%99"),
            ("can't find session: zz", "session", "zz"),
            ("no such session: =zz:", "session", "zz"),
            ("can't find window: zz", "window", "zz"),
            ("no such window: %0", "pane", "%0"),
            ("no such window: main:2", "window", "main:2"),
        ] {
            match classify(stderr) {
                Error::NotFound { kind, name, .. } => assert_eq!((kind, name.as_str()), (want_kind, want_name)),
                other => panic!("{stderr}: {other:?}"),
            }
        }
        assert!(matches!(classify("unknown option -- z"), Error::Command { status: 1, .. }));
    }
}
