//! Agents addressing agents: `clive "clive@devbox check disk usage and report"` hands the task to the clive on
//! `devbox` over ssh, follows it by its turn-protocol lines, and spends nothing while it thinks.
//!
//! - [`address`]: `clive@<host>` tokens in a task ([`address::find`]) and the task split into one
//!   [`address::Step`] per address with its dependency ([`address::split`]). E-mail addresses are not agents.
//! - [`Registry`]: where an address leads: the `agents:` section of the user's config file (crates/toolbox's
//!   [`toolbox::UserConfig`]), else a `Host` of `~/.ssh/config`, else plain `ssh <host>`.
//! - [`SshCommand`]: the typed `ssh` argv: `SendEnv` for the nonce and the provider keys (names only; the
//!   values stay in the pane's environment), host keys always checked, one shared connection per host
//!   (`ControlMaster`), a connect deadline, never a password prompt.
//! - [`connect_error::classify`]: why a connection failed, with what to do (unreachable, host key, auth,
//!   `AcceptEnv` missing: the `sshd_config` line to add).
//! - [`AgentSession`]: follows an agent pane with no model: woken by the pane's output (tmux-habitat's
//!   subscription), it reads the inner's `TURN`/`PROGRESS`/`QUESTION`/`CONTEXT` lines (tagged with the nonce, so
//!   a tool printing `TURN: done` changes nothing) and says what the outer must do ([`Update`]).
//! - [`RemoteRunner`]: dag-sched's runner for `remote` subtasks: opens the pane, types the task, gets answers
//!   from an [`Answerer`], copies the files the result names back, reconnects after a dropped connection.
//!
//! The crate knows nothing of models: answering a question is the [`Answerer`]'s business.
//!
//! ```
//! use clive_remote::{Registry, SshCommand, address};
//!
//! let steps = address::split("clive@gpu render the video then clive@web upload it")?.unwrap_or_default();
//! assert_eq!((steps[1].address.host(), steps[1].task.as_str(), steps[1].after_previous), ("web", "upload it", true));
//! let agent = Registry::default().resolve(&steps[0].address);
//! let argv = SshCommand::new(&agent, ["ANTHROPIC_API_KEY"]).remote(["clive", "--conversational"]).argv();
//! assert!(argv.contains(&"SendEnv=ANTHROPIC_API_KEY".to_owned()));
//! # Ok::<(), clive_remote::address::AddressError>(())
//! ```

pub mod address;
pub mod connect_error;
mod driver;
mod registry;
mod runner;
mod ssh;
#[cfg(feature = "testing")]
pub mod testing;

pub use connect_error::ConnectError;
pub use driver::{AgentSession, DriveError, DriveStats, EXIT_MARKER, PANE_HEIGHT, PANE_WIDTH, Update, open_agent_pane};
pub use registry::{AgentHost, DEFAULT_CONNECT_TIMEOUT, DEFAULT_REMOTE_COMMAND, Registry, Source};
pub use runner::{AnswerRequest, Answerer, PaneWatcher, RemoteOptions, RemoteRunner, task_line};
pub use ssh::{NONCE_ENV_VAR, SshCommand, accept_env_line, default_control_dir};
