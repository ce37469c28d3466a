//! Why a tool call failed: each message names what was wrong and what to do, and says whether anything was
//! typed.

use std::time::Duration;

/// A tool call that did not do what it was asked. The client sees the message as a tool error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments do not fit the tool's schema, or say something impossible. Nothing was typed.
    #[error("bad arguments for `{tool}`: {reason}. Nothing was typed")]
    BadArguments {
        /// The tool.
        tool: &'static str,
        /// What was wrong.
        reason: String,
    },
    /// No pane of that name in this session.
    #[error("no pane named `{pane}` in this session (its panes: {known}); `run` and `start` open panes")]
    NoSuchPane {
        /// The name asked for.
        pane: String,
        /// The panes there are.
        known: String,
    },
    /// The pane runs a command already. Nothing was typed.
    #[error(
        "pane `{pane}` is busy: `{command}` has run there for {seconds} s. Nothing was typed; use another pane, \
         `wait` for it (for: \"exit\"), or stop it with `type` (keys: [\"C-c\"])"
    )]
    Busy {
        /// The pane.
        pane: String,
        /// What runs in it.
        command: String,
        /// For how long, in whole seconds.
        seconds: u64,
    },
    /// The safety gate (or the guard of the pane's directory) refused the text. Nothing was typed.
    #[error("refused by the safety gate, nothing was typed: {reasons}")]
    Refused {
        /// Why, one line.
        reasons: String,
    },
    /// The command outlived the call's deadline; it still runs.
    #[error(
        "`{command}` still runs in pane `{pane}` after {waited:?} (it was not stopped). `wait` for it (pane: \
         \"{pane}\", for: \"exit\"), read it with `screen`, or stop it with `type` (keys: [\"C-c\"]). Its output so \
         far:\n{output}"
    )]
    StillRunning {
        /// The pane.
        pane: String,
        /// The command.
        command: String,
        /// How long the call waited.
        waited: Duration,
        /// What it printed so far (bounded).
        output: String,
    },
    /// The pane's program (its shell) has exited: nothing can be typed there.
    #[error("the shell of pane `{pane}` has exited{}; open another pane", status.map(|s| format!(" (status {s})")).unwrap_or_default())]
    PaneDead {
        /// The pane.
        pane: String,
        /// Its exit status, if known.
        status: Option<i32>,
    },
    /// The command could not be followed to its end (its pane was killed, tmux went away).
    #[error("the command in pane `{pane}` could not be followed to its end: {reason}")]
    Lost {
        /// The pane.
        pane: String,
        /// What happened.
        reason: String,
    },
    /// tmux failed.
    #[error("tmux: {0}")]
    Tmux(#[from] tmux_habitat::Error),
    /// A pane could not be opened (the sandbox, the window).
    #[error("opening a pane: {0}")]
    Toolbox(#[from] toolbox::Error),
    /// lane-send could not attempt the delivery (unsigned message, unreachable tmux, unwritable log).
    #[error("send: {0}")]
    Lane(#[from] lane_send::Error),
}

impl ToolError {
    /// A [`ToolError::BadArguments`] for `tool`.
    pub(crate) fn bad(tool: &'static str, reason: impl Into<String>) -> ToolError {
        ToolError::BadArguments { tool, reason: reason.into() }
    }
}

impl From<agent::TypeError> for ToolError {
    fn from(error: agent::TypeError) -> ToolError {
        match error.refusal() {
            Some(reasons) => ToolError::Refused { reasons: reasons.to_owned() },
            None => match error {
                agent::TypeError::Pane(e) => ToolError::Tmux(e),
                other => ToolError::Refused { reasons: other.to_string() },
            },
        }
    }
}
