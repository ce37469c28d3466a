//! Pane control for agents: an isolated tmux server, panes pinned to their ids, capture with attributes,
//! literal keys and bracketed paste, and commands whose end is signalled, never guessed.
//!
//! # Brief overview
//!
//! - [`Server`]: a tmux server of our own (private socket, our config, `TMUX` scrubbed from every call), or
//!   one we only talk to ([`Server::existing`]). Every tmux command is a typed [`Command`] (chains are an
//!   [`Invocation`]) that goes through [`Server::tmux`] with a deadline; failures come back typed
//!   ([`Error::NoServer`], [`Error::NotFound`], …). Session user options: [`Server::set_user_options`],
//!   [`Server::list_sessions_with`].
//! - [`Session`] and [`Pane`]: created detached, `remain-on-exit` on, a pane handle pinned to `%N`.
//! - [`Pane::run`]: types a command and returns its exit code, its own output and its duration once the
//!   shell signals the end, uniquely for that command; the echo of the typed line can never end it.
//! - [`Pane::send_text`], [`Pane::send_keys`], [`Pane::paste`]: typing into a program adds nothing to what is
//!   typed.
//! - [`Pane::capture`] and [`Pane::capture_state`] (styled cells, so ghost text can be told from input, with
//!   the pane's mode and dead flag from the same moment), [`ScreenDiff`] for what changed,
//!   [`detect_intervention`] for a program that waits for a person.
//! - [`Pane::lock`]: one in-process lock per pane; [`shell_quote`] and [`shell_word`]: the one shell quoting.
//!
//! # Example
//!
//! ```no_run
//! use std::time::Duration;
//! use tmux_habitat::{Server, SessionOptions};
//!
//! # async fn demo() -> Result<(), tmux_habitat::Error> {
//! let server = Server::isolated().await?; // killed, socket removed, when dropped
//! let session = server.new_session(SessionOptions::new("demo")).await?;
//! let pane = session.first_pane();
//! pane.wait_ready(Duration::from_secs(10)).await?;
//! let out = pane.run("echo hello", Duration::from_secs(5)).await?;
//! assert_eq!((out.exit_code, out.output.as_str()), (0, "hello\n"));
//! # Ok(()) }
//! ```
//!
//! # Design
//!
//! The default transport is control mode: one persistent `tmux -C` connection per session carries
//! commands (about 0.1 ms each) and streams pane output, so completion, readiness and interventions are
//! seen when the bytes arrive, without polling ([`Pane::subscribe`], [`LiveScreen`]). [`PaneOutput::capture`]
//! captures a pane at an exact place of its stream, so a copy seeded from it never misses or repeats a byte. The subprocess
//! transport stays as the fallback: `TMUX_HABITAT_TRANSPORT=subprocess` or [`ServerBuilder::transport`].
//!
//! The subprocess transport runs one `tmux` process per command (about 1.6 ms). Waits that the pane can
//! signal never poll: a command's end and the shell's readiness arrive on FIFOs the shell writes with a
//! builtin (the shell never calls tmux, so it may run in a sandbox that hides the server), a dead pane (the
//! `pane-died` hook) on a `tmux wait-for` channel. Waits on a screen that cannot signal use exponential backoff
//! under a deadline.

#![deny(missing_docs)]

mod capture;
mod control;
mod diff;
mod duration;
mod end_signal;
mod error;
mod frame;
mod intervention;
mod keys;
mod live;
mod lock;
mod pane;
mod prompt_title;
mod quote;
mod reap;
mod run;
mod screen;
mod server;
mod session;
mod socket;
mod stream;
mod transport;
mod turn;
mod version;
mod wait;
mod waiting;

pub use capture::CaptureOptions;
pub use diff::{Hunk, ScreenDiff};
pub use duration::{InvalidDuration, parse_duration};
pub use error::{Error, Result};
pub use frame::without_markers;
pub use intervention::{Intervention, InterventionKind, detect_intervention};
pub use keys::Key;
pub use live::{LiveScreen, OutputEvent, PaneCapture, PaneOutput};
pub use pane::{Pane, PaneGuard, PaneId, PaneInfo, PaneState, WindowSize};
pub use prompt_title::{ShellPrompt, shell_prompt};
pub use quote::{shell_quote, shell_word};
pub use reap::kill_servers_on;
pub use run::{CommandOutput, RunningCommand};
pub use screen::{Cell, Color, Screen, Span, Style};
pub use server::{Server, ServerBuilder};
pub use session::{Session, SessionInfo, SessionOptions, WindowOptions};
pub use socket::{SocketSpec, socket_dir};
pub use tmux_control::Command;
pub use transport::{DEFAULT_COMMAND_DEADLINE, Invocation, TransportKind};
pub use version::TmuxVersion;
pub use wait::Backoff;
pub use waiting::reads_terminal;
