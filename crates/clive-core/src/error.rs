//! The one error type of the engine: what a task can fail with, each variant with its source. It knows nothing
//! of exit codes: the `clive` binary maps each variant to one.

use std::path::PathBuf;
use std::time::Duration;

/// Everything running a task (or managing clive's sessions) can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The task needs a model (tier 1 or 2) and no provider is configured.
    #[error(
        "this task needs a language model ({reason}), and no provider is configured; set one of {}, or run \
         it as a shell command with no routing: `clive run -- <command>`",
        crate::provider::provider_variables_text()
    )]
    NoProvider {
        /// Why tier 0 declined the task.
        reason: String,
    },
    /// [`crate::run_task`] runs shell commands only; a task in words goes through `clive_core::run`.
    #[error(
        "this task needs a language model ({reason}); run_task runs shell commands only, route the task with \
         clive_core::run (as `clive \"<task>\"` does)"
    )]
    ModelTierUnavailable {
        /// Why tier 0 declined the task.
        reason: String,
    },
    /// The safety gate refused the command.
    #[error("{0}")]
    Refused(#[source] router::RouterError),
    /// The model tiers could not route the task (an invalid plan after the corrections, a failed provider).
    #[error("{0}")]
    Route(#[source] router::RouterError),
    /// The token budget (`--max-tokens`) ran out while the task was being routed; nothing was run.
    #[error("the token budget (--max-tokens) ran out while routing the task: {0}")]
    BudgetSpent(#[source] router::RouterError),
    /// The model provider's configuration is unusable (a missing key, a malformed URL).
    #[error("the model provider is not usable: {0}")]
    Provider(#[source] llm::Error),
    /// A task addressing agents (`clive@host`) that cannot be split into steps.
    #[error("{0}")]
    Address(#[from] remote::address::AddressError),
    /// The route needs runners this build does not have.
    #[error(
        "this task needs a plan with {modes} subtasks, and this build of clive cannot run them yet; \
         `clive --dry-run --json \"<task>\" > plan.json` writes the plan, `clive plan run plan.json` runs it \
         once it can"
    )]
    NeedsRunners {
        /// The modes without a runner, comma-separated.
        modes: String,
    },
    /// The command did not finish in time.
    #[error(
        "the command did not finish within {timeout:?}; it is still running in session {session} \
         (watch it: clive attach {session}; stop it: clive gc --all)"
    )]
    TimedOut {
        /// The session the command runs in.
        session: String,
        /// The timeout that passed.
        timeout: Duration,
    },
    /// The caller cancelled the task (its token) while it was being routed: nothing ran.
    #[error("cancelled while routing the task; nothing ran")]
    Cancelled,
    /// Ctrl-C during a run.
    #[error("interrupted; the command got Ctrl-C and its session {session} is kept (clive logs {session})")]
    Interrupted {
        /// The session the command ran in.
        session: String,
    },
    /// No session matches the id given.
    #[error("no clive session matches `{id}`; list them with `clive sessions`")]
    NoSuchSession {
        /// The id or name given.
        id: String,
    },
    /// Several sessions match the prefix given.
    #[error("`{id}` matches several sessions ({matches}); give more of the id")]
    AmbiguousSession {
        /// The id or prefix given.
        id: String,
        /// The names that match, comma-separated.
        matches: String,
    },
    /// No recording matches the id given.
    #[error("no recording matches `{id}` in {}; `ls` it to see the recordings", dir.display())]
    NoRecording {
        /// The id or name given.
        id: String,
        /// Where recordings are kept.
        dir: PathBuf,
    },
    /// No run directory with applied changes matches the id given.
    #[error(
        "no changes of `{id}` to undo in {}: the task changed nothing, its changes were undone already, or `clive gc`          removed its run directory",
        dir.display()
    )]
    NothingToUndo {
        /// The id or name given.
        id: String,
        /// Where run directories are kept.
        dir: PathBuf,
    },
    /// The changes could not be undone (a file changed since, or a file could not be written); nothing was restored
    /// when a file had changed.
    #[error(transparent)]
    Undo(#[from] agent::changes::UndoError),
    /// A value given in the environment or on the command line is malformed.
    #[error("invalid {what} {value:?}: {reason}")]
    Invalid {
        /// Which setting.
        what: &'static str,
        /// The value given.
        value: String,
        /// Why, and what is expected.
        reason: String,
    },
    /// A plan file cannot be read.
    #[error("cannot read the plan {path} ({source}); give the path of a plan JSON file")]
    UnreadablePlan {
        /// The plan file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A plan file is not a valid plan.
    #[error("invalid plan {path}: {source}")]
    InvalidPlan {
        /// The plan file.
        path: PathBuf,
        /// What dag-sched found wrong.
        #[source]
        source: Box<dag_sched::DagError>,
    },
    /// Running a plan failed as a whole (not a subtask).
    #[error("running the plan failed: {0}")]
    PlanRun(#[source] Box<dag_sched::DagError>),
    /// tmux failed.
    #[error("tmux: {0}")]
    Tmux(#[from] tmux_habitat::Error),
    /// A toolset, the config file or a tool card is wrong, or the sandbox cannot start.
    #[error("{0}")]
    Tools(#[from] toolbox::Error),
    /// Local I/O failed.
    #[error("{context} ({path}): {source}")]
    Io {
        /// What we were doing.
        context: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// Local I/O failed while `context`, on `path`.
    pub fn io(context: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io { context, path: path.into(), source }
    }
}

/// A router error where a task is refused or routed: the safety gate's refusal is [`Error::Refused`], any other
/// (an invalid plan, a failed provider) is [`Error::Route`].
impl From<router::RouterError> for Error {
    fn from(error: router::RouterError) -> Error {
        match error {
            router::RouterError::Refused { .. } => Error::Refused(error),
            other => Error::Route(other),
        }
    }
}
