//! A client for tmux control mode (`tmux -C`): a sans-IO parser of the
//! control-mode stream and a tokio driver that pairs commands with replies and
//! streams pane output.
//!
//! - [`Parser`] turns bytes from the control client into [`Event`]s: reply
//!   [`Block`]s, decoded pane output, `%pause`/`%continue`, `%exit`, other
//!   notifications. [`ReplyMatcher`] pairs blocks with sent commands (skipping
//!   flags-0 blocks, which the client did not send).
//! - [`Connection`] drives a control client its owner has already spawned
//!   (this crate never builds a tmux command line): pipelined
//!   [`Connection::command`]s with deadlines, bounded per-pane output
//!   subscriptions, flow control (`pause-after`), and a clear
//!   [`Error::ConnectionClosed`] for every pending and later command once the
//!   client exits. [`Connection::command_at`] places a command in a pane's
//!   stream: its reply says how many output bytes came before it, so a
//!   `capture-pane` and the stream fit together exactly.
//! - [`Command`], [`quote_arg`] and [`check_command_line`] build lines that
//!   tmux's parser reads back literally and refuse lines that would break a
//!   shared connection (empty lines detach; `;` makes two replies; `wait-for`
//!   blocks the queue).
//!
//! tmux only sends `%output` for panes in the session the control client is
//! attached to; attach with `-f ignore-size` so the client does not resize
//! windows.
//!
//! ```no_run
//! use std::process::Stdio;
//! use tmux_control::{Command, Connection, ConnectionOptions, PaneEvent, PaneId};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! // The owner spawns the control client (socket, config and environment are its business).
//! let child = tokio::process::Command::new("tmux")
//!     .args(["-S", "/tmp/my-sock", "-C", "attach", "-f", "ignore-size", "-t", "work"])
//!     .stdin(Stdio::piped())
//!     .stdout(Stdio::piped())
//!     .spawn()?;
//! let (conn, _events) = Connection::from_child(child, ConnectionOptions::default())?;
//!
//! let pane: PaneId = conn.command("display-message -p '#{pane_id}'").await?.text().parse()?;
//! let mut output = conn.subscribe_output(pane);
//! conn.command(Command::new("send-keys").args(["-t", &pane.to_string(), "-l", "echo hi"])).await?;
//! conn.command(Command::new("send-keys").args(["-t", &pane.to_string(), "Enter"])).await?;
//! while let Some(PaneEvent::Output(bytes)) = output.recv().await {
//!     if bytes.windows(2).any(|w| w == b"hi") {
//!         break;
//!     }
//! }
//! # Ok(())
//! # }
//! ```

mod command;
mod connection;
mod error;
mod events;
mod matcher;
mod octal;
mod parser;
mod reply;
mod subscription;
mod tasks;

pub use command::{Command, IntoCommandLine, check_command_line, quote_arg};
pub use connection::{Connection, ConnectionOptions};
pub use error::Error;
pub use events::{ConnectionEvent, Events};
pub use matcher::ReplyMatcher;
pub use octal::{decode_output, decode_output_into, encode_output};
pub use parser::{Block, BlockGuard, Event, PaneId, Parser};
pub use reply::Reply;
pub use subscription::{OutputSubscription, PaneEvent};
