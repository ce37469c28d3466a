//! The text protocol between agents: `TURN`/`PROGRESS`/`QUESTION`/`CONTEXT`
//! lines that people can read and other programs cannot forge.
//!
//! The inner agent writes one message per line with an [`Emitter`]; the outer
//! agent reads successive screen captures of the inner's pane with a
//! [`ScreenParser`] and feeds the events to a [`Conversation`], which says
//! whether to wait (no LLM call while the inner thinks), answer, take the
//! result, or give up. With a per-conversation [`Nonce`], handed to the inner
//! through `CLIVE_TURN_NONCE`, every line carries a short tag and the parser
//! rejects lines that lack a valid one. The full specification is
//! `docs/protocol.md`.
//!
//! ```
//! use std::time::Instant;
//! use turn_protocol::{Context, Conversation, Emitter, LineFormat, Nonce, ScreenParser, Status, TurnState};
//!
//! let nonce = Nonce::generate();
//! let mut inner = Emitter::with_format(Vec::new(), LineFormat::Tagged(nonce.clone()));
//! inner.turn(TurnState::Thinking)?;
//! inner.context(&Context::with_result("summary here").files(["report.pdf"]))?;
//! inner.turn(TurnState::Done)?;
//! let screen = format!("$ inner-agent\nTURN: done\n{}", String::from_utf8(inner.into_inner())?);
//!
//! let mut parser = ScreenParser::new(Some(nonce));
//! let mut conversation = Conversation::new(Instant::now());
//! let events = parser.feed(&screen);
//! conversation.observe_all(&events, Instant::now());
//! // The untagged `TURN: done` was rejected; the tagged one ended the turn.
//! match conversation.status(Instant::now()) {
//!     Status::Done { context: Some(context) } => assert_eq!(context.result(), Some("summary here")),
//!     other => panic!("unexpected {other:?}"),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod conversation;
mod emitter;
mod error;
mod event;
mod line;
mod message;
mod nonce;
mod parser;
mod screen;

pub use conversation::{Conversation, DEFAULT_STALL_AFTER, Status};
pub use emitter::{DEFAULT_CHUNK_CHARS, Emitter, LineFormat};
pub use error::Error;
pub use event::Event;
pub use message::{Context, Keyword, Message, TurnState};
pub use nonce::{MIN_NONCE_HEX_DIGITS, NONCE_ENV_VAR, Nonce, TAG_HEX_DIGITS};
pub use parser::ScreenParser;
