//! clive's eval harness: does the agent get real work done, and what does each success cost?
//!
//! A task is a directory under `evals/tasks/` (see [`task`]): the task text and limits in `task.toml`,
//! `fixtures/` copied into a fresh working directory, a deterministic `check` run there afterwards (it trusts
//! files and the saved answer, never what the agent says), and a known-good `solution.sh`. The runner
//! ([`run_suite`]) runs the real `clive` binary on each task with a wall-time limit, its own tmux socket and
//! `CLIVE_HOME`, against the environment's model, a scripted fake ([`replies`]) or the local model; it records
//! pass/fail/timeout, route and modes, turns, model calls, tokens, wall time, clive's own overhead and false
//! completions (success claimed, check failed), and compares a run with a saved baseline ([`baseline`]) or
//! several runs with each other ([`spread`]: which passes are the usual ones).
//!
//! ```no_run
//! # async fn demo() -> Result<(), clive_eval::Error> {
//! use clive_eval::{Agent, Filter, RunOptions, Suite, run_suite};
//!
//! let suite = Suite::load("evals/tasks".as_ref())?;
//! let tasks = suite.select(&Filter { names: vec![], tags: vec!["smoke".into()] })?;
//! let options = RunOptions::new(Agent::Clive("target/debug/clive".into()));
//! let report = run_suite(&tasks, &options, |run, done, total| eprintln!("[{done}/{total}] {}", run.task)).await?;
//! print!("{}", clive_eval::table::render(&report));
//! # Ok(()) }
//! ```

pub mod agent_report;
pub mod baseline;
pub mod cli;
mod error;
pub mod process;
pub mod replies;
pub mod report;
pub mod run;
pub mod spread;
pub mod table;
pub mod task;

pub use agent_report::AgentReport;
pub use baseline::{Comparison, compare};
pub use error::Error;
pub use report::{Report, RunRecord, Status, Summary};
pub use run::{Agent, Backend, RunOptions, run_suite};
pub use task::{Filter, Suite, Task, TaskSpec};
