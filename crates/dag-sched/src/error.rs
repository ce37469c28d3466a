//! The scheduler's errors.

use std::path::PathBuf;

use crate::plan::{Mode, PLAN_VERSION};

/// Errors of the dag-sched crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DagError {
    /// The plan is not valid JSON or does not have the plan's shape.
    #[error(
        "the plan is not a valid plan at line {line}, column {column}: {source}; fix the JSON (docs/plan.md has the schema)"
    )]
    MalformedPlan {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the JSON reader said.
        #[source]
        source: serde_json::Error,
    },
    /// The plan's `version` is not one this crate reads (a plan without `version` is read as
    /// [`PLAN_VERSION`]).
    #[error("{}", unsupported_version(*found))]
    UnsupportedVersion {
        /// The version found (`None` is no longer produced: a missing version reads as the current one).
        found: Option<u32>,
    },
    /// The plan parsed but is not a runnable DAG; nothing was run.
    #[error("the plan has {} problem(s), nothing was run:\n{}", problems.len(), list(problems))]
    InvalidPlan {
        /// Every problem found.
        problems: Vec<PlanProblem>,
    },
    /// Subtasks use a mode that no runner was registered for; nothing was run.
    #[error("no runner for mode `{mode}` (used by {}); this build cannot run such subtasks yet", ids(subtasks))]
    NoRunner {
        /// The mode.
        mode: Mode,
        /// The subtasks that use it.
        subtasks: Vec<String>,
    },
    /// A file in the run directory could not be read or written.
    #[error("cannot write the run directory file {path}: {source}; check that the directory is writable")]
    RunDirectory {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A pane could not be created or made ready.
    #[error("cannot open the pane `{pane}`: {source}")]
    Pane {
        /// The plan's pane name.
        pane: String,
        /// What went wrong (from the [`crate::PaneLauncher`]).
        #[source]
        source: crate::LaunchError,
    },
    /// A runner failed to run a subtask (the subtask is marked failed with this message).
    #[error("subtask `{subtask}` could not be run: {source}")]
    Runner {
        /// The subtask id.
        subtask: String,
        /// What went wrong, with its own source chain.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl DagError {
    /// A runner's failure to run `subtask`, keeping the underlying error (a tmux error, a model error, …)
    /// as the source.
    pub fn runner(subtask: impl Into<String>, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        DagError::Runner { subtask: subtask.into(), source: source.into() }
    }
}

/// One thing wrong with a plan, named so a person can fix it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanProblem {
    /// `subtasks` is empty.
    #[error("the plan has no subtasks; add at least one")]
    NoSubtasks,
    /// An id does not have the allowed form.
    #[error(
        "subtask #{index} has the id {id:?}, which is not allowed; use 1-64 letters, digits, `_` or `-`, starting with a letter or digit"
    )]
    MalformedId {
        /// 0-based position in `subtasks`.
        index: usize,
        /// The id.
        id: String,
    },
    /// Two subtasks share an id.
    #[error("subtasks #{first} and #{second} both have the id `{id}`; give each subtask its own id")]
    DuplicateId {
        /// The id.
        id: String,
        /// 0-based position of the first.
        first: usize,
        /// 0-based position of the second.
        second: usize,
    },
    /// A pane name does not have the allowed form.
    #[error(
        "subtask `{subtask}` names the pane {pane:?}, which is not allowed; use 1-64 letters, digits, `_` or `-`, starting with a letter or digit"
    )]
    MalformedPaneName {
        /// The subtask id (empty for the `panes` declaration).
        subtask: String,
        /// The pane name.
        pane: String,
    },
    /// A subtask names a pane missing from the declared `panes`.
    #[error(
        "subtask `{subtask}` runs in the pane `{pane}`, which the plan's `panes` does not declare ({}); add it to `panes` or use a declared one",
        ids(declared)
    )]
    UnknownPane {
        /// The subtask id.
        subtask: String,
        /// The pane.
        pane: String,
        /// The declared panes.
        declared: Vec<String>,
    },
    /// A dependency names no subtask.
    #[error(
        "subtask `{subtask}` depends on `{dependency}`, which is not a subtask of this plan; fix the id or remove it from depends_on"
    )]
    UnknownDependency {
        /// The subtask id.
        subtask: String,
        /// The missing id.
        dependency: String,
    },
    /// A dependency is listed twice.
    #[error("subtask `{subtask}` lists `{dependency}` twice in depends_on; list it once")]
    RepeatedDependency {
        /// The subtask id.
        subtask: String,
        /// The repeated id.
        dependency: String,
    },
    /// Dependencies form a cycle.
    #[error(
        "the dependencies form a cycle: {} (each must run after the one before it); remove one of these dependencies",
        cycle_text(ids)
    )]
    Cycle {
        /// The ids on the cycle, in dependency order (each depends on the one before it).
        ids: Vec<String>,
    },
    /// A direct subtask has no command.
    #[error("subtask `{subtask}` has mode direct but no `command`; add the command line to run")]
    MissingCommand {
        /// The subtask id.
        subtask: String,
    },
    /// A remote subtask has no host, or its host is not a host name.
    #[error(
        "subtask `{subtask}` has mode remote but {}; set `host` to the agent's SSH host name or alias (letters, digits, `.`, `_`, `-`)",
        match host { Some(host) => format!("the host {host:?} is not a host name"), None => "no `host`".to_owned() }
    )]
    BadHost {
        /// The subtask id.
        subtask: String,
        /// The host given, if any.
        host: Option<String>,
    },
    /// A subtask that is not remote names a host.
    #[error("subtask `{subtask}` has a `host` but mode {mode}; only mode remote runs on another host")]
    HostWithoutRemote {
        /// The subtask id.
        subtask: String,
        /// Its mode.
        mode: Mode,
    },
    /// A model-driven subtask has no goal.
    #[error("subtask `{subtask}` has mode {mode} but no `description`; say in words what it should achieve")]
    MissingGoal {
        /// The subtask id.
        subtask: String,
        /// Its mode.
        mode: Mode,
    },
    /// A timeout is zero, negative or not a number.
    #[error("subtask `{subtask}` has the timeout {timeout}, which is not a positive number of seconds")]
    BadTimeout {
        /// The subtask id.
        subtask: String,
        /// The value given.
        timeout: f64,
    },
}

fn unsupported_version(found: Option<u32>) -> String {
    match found {
        Some(v) if v > PLAN_VERSION => format!(
            "the plan has \"version\": {v}, newer than this version of clive reads ({PLAN_VERSION}); \
             update clive, or write the plan for version {PLAN_VERSION}"
        ),
        Some(v) => {
            format!("the plan has \"version\": {v}; this version of clive reads plans with \"version\": {PLAN_VERSION}")
        }
        None => format!(
            "the plan has no usable `version`; this version of clive reads plans with \"version\": {PLAN_VERSION}"
        ),
    }
}

fn list(problems: &[PlanProblem]) -> String {
    let lines: Vec<String> = problems.iter().map(|p| format!("  - {p}")).collect();
    lines.join("\n")
}

fn ids(ids: &[String]) -> String {
    let quoted: Vec<String> = ids.iter().map(|i| format!("`{i}`")).collect();
    quoted.join(", ")
}

fn cycle_text(ids: &[String]) -> String {
    let mut parts: Vec<String> = ids.iter().map(|i| format!("`{i}`")).collect();
    if let Some(first) = parts.first().cloned() {
        parts.push(first);
    }
    parts.join(" -> ")
}
