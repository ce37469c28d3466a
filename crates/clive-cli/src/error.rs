//! The one error type of clive-cli: the engine's errors, and `clive mcp`'s; each maps to an exit code
//! ([`CliError::exit_code`]).

use std::path::PathBuf;

use clive_core::Error;

use crate::exit_code;

/// Everything a `clive` invocation can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// The engine failed: routing, running, sessions, settings, tools.
    #[error(transparent)]
    Core(#[from] Error),
    /// `clive mcp` could not open its session.
    #[error("opening the MCP session: {0}")]
    McpSession(#[source] clive_mcp::ToolError),
    /// `clive mcp`'s connection failed.
    #[error("{0}")]
    McpConnection(#[from] clive_mcp::ServeError),
}

impl CliError {
    /// The process exit code for this error (see [`crate::exit_code`]).
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Core(error) => core_exit_code(error),
            CliError::McpSession(_) | CliError::McpConnection(_) => exit_code::INTERNAL,
        }
    }

    /// The engine's error, if it is one.
    pub fn core(&self) -> Option<&Error> {
        match self {
            CliError::Core(error) => Some(error),
            _ => None,
        }
    }

    pub(crate) fn io(context: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> CliError {
        CliError::Core(Error::io(context, path, source))
    }
}

macro_rules! from_core_sources {
    ($($source:ty),*) => {
        $(impl From<$source> for CliError {
            fn from(error: $source) -> CliError {
                CliError::Core(Error::from(error))
            }
        })*
    };
}

from_core_sources!(tmux_habitat::Error, toolbox::Error, router::RouterError, agent::changes::UndoError);

/// The exit code of an engine error.
fn core_exit_code(error: &Error) -> i32 {
    match error {
        Error::NoProvider { .. }
        | Error::ModelTierUnavailable { .. }
        | Error::Invalid { .. }
        | Error::UnreadablePlan { .. }
        | Error::InvalidPlan { .. }
        | Error::Address(_) => exit_code::USAGE,
        Error::Refused(_) => exit_code::REFUSED,
        Error::Route(error) => match error {
            router::RouterError::Refused { .. } => exit_code::REFUSED,
            router::RouterError::Model { .. } => exit_code::MODEL_UNAVAILABLE,
            _ => exit_code::USAGE,
        },
        Error::Provider(_) | Error::NeedsRunners { .. } => exit_code::USAGE,
        Error::BudgetSpent(_) => exit_code::BUDGET_SPENT,
        Error::TimedOut { .. } => exit_code::TIMED_OUT,
        Error::Interrupted { .. } | Error::Cancelled => exit_code::INTERRUPTED,
        Error::NoSuchSession { .. }
        | Error::AmbiguousSession { .. }
        | Error::NoRecording { .. }
        | Error::NothingToUndo { .. } => exit_code::NOT_FOUND,
        Error::Undo(_) => exit_code::TASK_FAILED,
        Error::Tools(toolbox::Error::Sandbox(_) | toolbox::Error::Pane { .. } | toolbox::Error::Io { .. }) => {
            exit_code::INTERNAL
        }
        Error::Tools(_) => exit_code::USAGE,
        Error::Tmux(_) | Error::Io { .. } | Error::PlanRun(_) => exit_code::INTERNAL,
        // A variant added to the engine later: clive itself failed until it says otherwise.
        _ => exit_code::INTERNAL,
    }
}
