//! What can go wrong before or around a run (a task that fails is a result, not an error).

use std::path::PathBuf;

/// An error of the eval harness itself.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A task directory is malformed.
    #[error("invalid task {}: {problem}", task.display())]
    InvalidTask {
        /// The task's directory.
        task: PathBuf,
        /// What is wrong and how to fix it.
        problem: String,
    },
    /// A reply script (`replies.toml`) is malformed.
    #[error("invalid reply script {}: {problem}", path.display())]
    InvalidReplies {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// The filter selected no task.
    #[error("no task in {} matches {filter} (try `clive-eval list`)", suite.display())]
    NothingSelected {
        /// The filter, as given.
        filter: String,
        /// The suite directory.
        suite: PathBuf,
    },
    /// The `clive` binary to evaluate is not there.
    #[error(
        "no clive binary at {}: build it (cargo build -p clive-cli) or name one with --clive PATH or CLIVE_EVAL_CLIVE",
        path.display()
    )]
    CliveNotFound {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// The local model backend was chosen but no server is named.
    #[error("--backend local needs LOCAL_LLM_URL (start one: export LOCAL_LLM_URL=\"$(scripts/local-llm/start.sh)\")")]
    NoLocalModel,
    /// A report (baseline) could not be read.
    #[error("cannot read the report {}: {problem}", path.display())]
    BadReport {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// A file or process operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file, directory or program involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// The process exit code for this error: 2 for bad input (tasks, filters, paths, reports), 125 when the
    /// harness itself failed.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Io { .. } => 125,
            _ => 2,
        }
    }
}
