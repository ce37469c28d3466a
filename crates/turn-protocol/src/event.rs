//! What the parser reports for each new line.

use serde_json::{Value, json};

use crate::message::Message;

/// One thing the parser found new on the screen.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A message from the inner agent.
    Message(Message),
    /// A line that looks like the protocol but was not accepted: no tag or a
    /// wrong tag while a nonce is set, an unknown TURN state, bad JSON, …
    Rejected {
        /// The line as seen on the screen.
        line: String,
        /// Why it was not accepted.
        why: String,
    },
    /// Messages that were emitted but could not be received whole: numbered
    /// lines that scrolled away between two captures, or an interrupted
    /// chunked CONTEXT. Reported so that nothing is ever lost silently.
    Lost {
        /// What was lost.
        why: String,
    },
}

impl Event {
    /// The event as one JSON object with a `kind` field, e.g.
    /// `{"kind":"turn","state":"done"}` or `{"kind":"rejected","line":"…","why":"…"}`.
    pub fn to_json(&self) -> Value {
        match self {
            Event::Message(message) => message.to_json(),
            Event::Rejected { line, why } => json!({"kind": "rejected", "line": line, "why": why}),
            Event::Lost { why } => json!({"kind": "lost", "why": why}),
        }
    }

    /// The message, if this event is one.
    pub fn message(&self) -> Option<&Message> {
        match self {
            Event::Message(message) => Some(message),
            _ => None,
        }
    }
}
