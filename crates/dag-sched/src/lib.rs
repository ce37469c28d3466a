//! Runs a plan of subtasks as a DAG over tmux panes: parallel where it can, one writer per pane.
//!
//! A [`Plan`] (JSON, versioned; `docs/plan.md` has the schema) lists subtasks, each in a named
//! pane, with dependencies. [`ValidatedPlan::new`] checks ids, dependencies, panes and cycles
//! and names what is wrong. An [`Executor`] runs it: every subtask whose dependencies
//! succeeded starts, subtasks on different panes run in parallel, one pane runs one subtask
//! at a time (so later ones inherit its shell state), a failure skips its dependents and
//! nothing else, and a [`CancelToken`] stops the run. How one subtask runs is a [`Runner`];
//! [`ShellRunner`] types `direct` commands into tmux panes through tmux-habitat. Runners share
//! the run's panes through a [`PanePool`], whose [`PaneLauncher`] decides how a named pane is
//! opened (a plain window by default; a sandbox or a tool's environment when an embedder says so).
//! Results pass between subtasks as files in the run directory ([`RunDir`]).
//!
//! ```
//! use std::sync::Arc;
//! use dag_sched::{Executor, Mode, RecordingRunner, RunOptions, SubtaskStatus, ValidatedPlan};
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let plan = ValidatedPlan::from_json(r#"{
//!   "version": 1,
//!   "subtasks": [
//!     {"id": "build", "pane": "build", "command": "cargo build"},
//!     {"id": "test",  "pane": "build", "command": "cargo test", "depends_on": ["build"]},
//!     {"id": "lint",  "pane": "lint",  "command": "cargo clippy"}
//!   ]
//! }"#).unwrap();
//! let runner = Arc::new(RecordingRunner::new().failing("build"));
//! let run_dir = tempfile::tempdir().unwrap();
//! let summary = Executor::new()
//!     .with_runner(Mode::Direct, runner)
//!     .run(&plan, RunOptions::new(run_dir.path()))
//!     .await
//!     .unwrap();
//! assert_eq!(summary.result("test").unwrap().status, SubtaskStatus::Skipped);
//! assert_eq!(summary.result("lint").unwrap().status, SubtaskStatus::Succeeded);
//! println!("{}", dag_sched::render_summary_table(&summary));
//! # });
//! ```

mod cancel;
mod error;
mod events;
mod executor;
mod pane_pool;
mod plan;
mod recording;
mod render;
mod result;
mod run_dir;
mod runner;
mod shell_runner;
mod summary_table;
mod validate;

pub use cancel::CancelToken;
pub use error::{DagError, PlanProblem};
pub use events::{Event, EventSink};
pub use executor::{Executor, RunOptions};
pub use pane_pool::{LaunchError, PaneLauncher, PanePool, WindowLauncher};
pub use plan::{Mode, PLAN_JSON_SCHEMA, PLAN_VERSION, Plan, Subtask};
pub use recording::{RecordingRunner, RunRecord};
pub use render::{render_dot, render_mermaid};
pub use result::{RunSummary, SubtaskResult, SubtaskStatus};
pub use run_dir::{RunDir, SubtaskContext};
pub use runner::{RunOutcome, RunRequest, Runner};
pub use shell_runner::{ShellRunner, export_run_dirs, interrupt};
pub use summary_table::render_summary_table;
pub use validate::{ValidatedPlan, is_host_name, is_valid_name};
