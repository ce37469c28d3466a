//! The engine of clive: everything `clive "<task>"` does, with no terminal of its own. A task is routed (tier 0
//! for a shell command, else the model tiers), then carried out: one command in a fresh session on clive's tmux
//! server, an answer, a question back, a plan for the model-driven runners, or a plan for remote agents
//! (`clive@host`). The caller renders the [`Event`]s it sends, owns the [`CancelToken`] that stops it, and gets
//! a [`TaskOutcome`] or an [`Error`] (which knows nothing of exit codes).
//!
//! The `clive` binary (crate `clive-cli`) is one caller: it adds the command line, text and JSON output, exit
//! codes, Ctrl-C and progress lines. Another program embeds the same engine:
//!
//! ```no_run
//! use clive_core::{Config, Event, Task, TaskOutcome};
//!
//! # async fn demo() -> Result<(), clive_core::Error> {
//! let config = Config::builder().state_dir("/tmp/clive-state").build()?;
//! let (events, mut received) = tokio::sync::mpsc::unbounded_channel();
//! let outcome = clive_core::run(&config, Task::new("echo hello").events(events)).await?;
//! while let Ok(Event::CommandStarted { session, .. }) = received.try_recv() {
//!     println!("ran in {session}");
//! }
//! if let TaskOutcome::Command(report) = outcome {
//!     assert_eq!((report.exit_code, report.output.as_str()), (0, "hello\n"));
//! }
//! # Ok(()) }
//! ```
//!
//! The parts:
//! - [`config`]: [`Config`] (settings, provider, options), built in code or loaded from the environment;
//! - [`mod@run`]: [`run()`], [`route`] and [`execute`]: the front door, and [`TaskOutcome`];
//! - [`event`]: what a run reports while it works;
//! - [`task_run`] (one command), [`model_task`] (a plan for the runners), [`remote_task`] (`clive@host`),
//!   [`plan_run`] (a plan file), all on [`engine::Engine`];
//! - [`session_record`], [`archive`] and [`recording`]: what clive keeps of its sessions; [`sessions`] lists them,
//!   reads their logs and sweeps them; [`undo`] takes a task's changes back;
//! - [`tools`]: the toolset and the sandbox of panes a model types into.

pub mod archive;
pub mod config;
pub mod engine;
mod error;
pub mod event;
pub mod exit_code;
pub mod model_task;
pub mod plan_run;
pub mod provider;
pub mod recording;
pub mod remote_runner;
pub mod remote_task;
pub mod run;
pub mod session_record;
pub mod sessions;
pub mod settings;
pub mod task_run;
pub mod tools;
pub mod undo;

pub use config::{Config, ConfigBuilder, ModelOptions, Provider, TaskOptions};
pub use dag_sched::CancelToken;
pub use error::Error;
pub use event::{Event, Events};
pub use model_task::ModelReport;
pub use run::{Task, TaskOutcome, execute, route, run};
pub use settings::Settings;
pub use task_run::{TaskReport, run_task};
pub use tools::{ToolsArgs, ToolsChoice};
