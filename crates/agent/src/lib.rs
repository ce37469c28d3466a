//! Model-driven runners for clive plans: a model writes scripts, drives panes turn by turn, writes text and
//! answers questions — each mode a [`dag_sched::Runner`], so a plan mixes them freely with `direct` commands.
//!
//! - [`ScriptRunner`] (`script`): one call writes a short script (after the worked examples that fit the goal,
//!   [`prompt::pick_examples`]; a subtask's own `command` is its first attempt, with no call); the shell tidies
//!   what cannot be meant (`wc -l file` where a number is wanted, missing imports), the safety gate checks it as a
//!   whole; it is saved in the subtask's run directory and run in the pane, without a pager, with signalled
//!   completion. Exit 0 is not the goal: the files the goal names must be there (a number where it asks for one),
//!   and a yes/no question on the way is answered by one constrained call. A result printed instead of written is
//!   written by the shell, with no call; other failures go back to the model with how it failed and the end of the
//!   output (bounded attempts; the same failed script is never run twice), and after a script stuck at a prompt
//!   may fall back once to the interactive runner.
//! - [`InteractiveRunner`] (`interactive`): the observe/act loop. Each turn the model sees what changed since its
//!   last action — including the whole output of a command that ended at once — and answers with one
//!   [`Action`]: run a command, press keys (text, Enter, C-c, arrows, a bare `y`), wait, done, fail. Prose is
//!   never typed; interventions (`[y/N]`, passwords, pagers) are judged on new output only.
//! - [`LlmRunner`] (`llm`) and [`AnswerRunner`] (`answer`): text work (written to the files the goal names) and
//!   direct answers; no command runs.
//!
//! Every command, script and keystroke a model writes goes through [`GatedPane`], which asks the router's safety
//! gate first: a refused command is reported back to the model and nothing is typed. Screen and file text go into
//! prompts fenced as untrusted data. Prompts are files in `prompts/`, rendered from typed inputs ([`prompt`]).
//! Each subtask's turns, calls, tokens, cost and time land in a [`RunLedger`]; the run's token budget is an
//! [`llm::TokenBudget`] shared with whoever else calls the model.
//!
//! ```no_run
//! use std::sync::Arc;
//! use clive_agent::Agent;
//! use dag_sched::{PanePool, RunOptions, ValidatedPlan};
//! use llm::{Budgeted, TokenBudget};
//!
//! # async fn demo(session: tmux_habitat::Session) -> Result<(), Box<dyn std::error::Error>> {
//! let budget = TokenBudget::new(50_000);
//! let model = Arc::new(Budgeted::new(llm::connect(llm::ProviderConfig::detect_from_env()?)?, budget.clone()));
//! let agent = Agent::builder(model).pool(Arc::new(PanePool::new(session))).budget(budget).build();
//! let plan = ValidatedPlan::from_json(r#"{"version":1,"subtasks":[
//!   {"id":"count","pane":"shell","mode":"interactive","description":"count the lines of README.md"}]}"#)?;
//! let summary = agent.executor().run(&plan, RunOptions::new("/tmp/run")).await?;
//! let answer = agent.final_answer("count the lines of README.md", &summary).await;
//! println!("{} ({} tokens)", answer.text, agent.ledger().totals().tokens.total());
//! # Ok(()) }
//! ```

mod action;
mod agent;
mod answer;
pub mod changes;
mod claims;
mod config;
mod config_line;
mod dates;
mod examples;
mod gate;
mod goal_protect;
mod goal_question;
mod goal_setting;
mod goal_shape;
mod goal_spec;
mod model;
pub mod observe;
mod patterns;
pub mod prompt;
mod runners;
pub mod stage;
mod stats;
pub mod text;

pub use action::{Action, ActionError, KeyInput, MAX_WAIT_SECONDS, action_schema, parse_action};
pub use agent::{Agent, AgentBuilder};
pub use answer::{AnswerSource, FINAL_ANSWER_ID, FinalAnswer, bool_goal, leading_yes_no};
pub use claims::{claimed_files, goal_destinations};
pub use config::{AgentConfig, ReplyFormat};
pub use gate::{GatedPane, TypeError, endangered_workplace};
pub use goal_spec::{GoalSpec, all_named_files};
pub use model::CallError;
pub use prompt::{Input, PaneProfile};
pub use runners::{AnswerRunner, InteractiveRunner, LlmRunner, ScriptRunner, named_files};
pub use stats::{RunLedger, SubtaskStats, Tokens};
