//! The messages an inner agent sends to its outer agent.

use std::fmt;
use std::path::PathBuf;

use serde_json::{Map, Value};

/// One protocol message, as written by the inner agent and read by the outer one.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// `TURN: <state>`: whose turn it is.
    Turn(TurnState),
    /// `PROGRESS: <text>`: a status update while working.
    Progress(String),
    /// `QUESTION: "<text>"`: the inner needs an answer from the outer.
    Question(String),
    /// `CONTEXT: {json object}`: structured data, usually the result.
    Context(Context),
}

impl Message {
    /// The line keyword of this message (`TURN`, `PROGRESS`, `QUESTION` or `CONTEXT`).
    pub fn keyword(&self) -> Keyword {
        match self {
            Message::Turn(_) => Keyword::Turn,
            Message::Progress(_) => Keyword::Progress,
            Message::Question(_) => Keyword::Question,
            Message::Context(_) => Keyword::Context,
        }
    }

    /// The message as one JSON object, e.g. `{"kind":"turn","state":"done"}`.
    pub fn to_json(&self) -> Value {
        match self {
            Message::Turn(state) => serde_json::json!({"kind": "turn", "state": state.as_str()}),
            Message::Progress(text) => serde_json::json!({"kind": "progress", "text": text}),
            Message::Question(text) => serde_json::json!({"kind": "question", "text": text}),
            Message::Context(context) => {
                serde_json::json!({"kind": "context", "value": Value::Object(context.as_map().clone())})
            }
        }
    }
}

/// The four line keywords of the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keyword {
    /// `TURN`
    Turn,
    /// `PROGRESS`
    Progress,
    /// `QUESTION`
    Question,
    /// `CONTEXT`
    Context,
}

impl Keyword {
    /// All keywords, in the order they are tried when parsing.
    pub const ALL: [Keyword; 4] = [Keyword::Turn, Keyword::Progress, Keyword::Question, Keyword::Context];

    /// The keyword as written at the start of a line, without the colon.
    pub fn as_str(self) -> &'static str {
        match self {
            Keyword::Turn => "TURN",
            Keyword::Progress => "PROGRESS",
            Keyword::Question => "QUESTION",
            Keyword::Context => "CONTEXT",
        }
    }
}

/// The value of a `TURN:` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TurnState {
    /// The inner is working: the outer must not type and makes no LLM call.
    Thinking,
    /// The inner waits for input from the outer.
    Waiting,
    /// The inner has finished; the result is in the last `CONTEXT`.
    Done,
    /// The inner gave up; details may be in the last `CONTEXT`.
    Failed,
}

impl TurnState {
    /// All states.
    pub const ALL: [TurnState; 4] = [TurnState::Thinking, TurnState::Waiting, TurnState::Done, TurnState::Failed];

    /// The state as written after `TURN: `.
    pub fn as_str(self) -> &'static str {
        match self {
            TurnState::Thinking => "thinking",
            TurnState::Waiting => "waiting",
            TurnState::Done => "done",
            TurnState::Failed => "failed",
        }
    }

    /// Parses the word after `TURN: `; `None` for anything else.
    pub fn from_word(word: &str) -> Option<TurnState> {
        TurnState::ALL.into_iter().find(|state| state.as_str() == word)
    }
}

impl fmt::Display for TurnState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The payload of a `CONTEXT:` line: any JSON object, with typed access to the
/// conventional `result` and `files` fields.
///
/// ```
/// use turn_protocol::Context;
/// let context = Context::with_result("summary here").files(["report.pdf"]);
/// assert_eq!(context.result(), Some("summary here"));
/// assert_eq!(context.file_list(), vec![std::path::PathBuf::from("report.pdf")]);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Context(Map<String, Value>);

impl Context {
    /// An empty object.
    pub fn new() -> Context {
        Context(Map::new())
    }

    /// An object with only `result` set.
    pub fn with_result(result: impl Into<String>) -> Context {
        Context::new().insert("result", Value::String(result.into()))
    }

    /// Adds (or replaces) the `files` list.
    pub fn files<I, S>(self, files: I) -> Context
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let list = files.into_iter().map(|file| Value::String(file.into())).collect();
        self.insert("files", Value::Array(list))
    }

    /// Adds (or replaces) any field.
    pub fn insert(mut self, key: impl Into<String>, value: Value) -> Context {
        self.0.insert(key.into(), value);
        self
    }

    /// The `result` field when it is a string.
    pub fn result(&self) -> Option<&str> {
        self.0.get("result").and_then(Value::as_str)
    }

    /// The string entries of the `files` field (empty when absent).
    pub fn file_list(&self) -> Vec<PathBuf> {
        self.0
            .get("files")
            .and_then(Value::as_array)
            .map(|files| files.iter().filter_map(Value::as_str).map(PathBuf::from).collect())
            .unwrap_or_default()
    }

    /// Any field.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    /// The whole object.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.0
    }

    /// Consumes the context, giving the whole object.
    pub fn into_map(self) -> Map<String, Value> {
        self.0
    }
}

impl From<Map<String, Value>> for Context {
    fn from(map: Map<String, Value>) -> Context {
        Context(map)
    }
}

impl TryFrom<Value> for Context {
    type Error = Value;

    /// Succeeds for a JSON object; gives the value back otherwise.
    fn try_from(value: Value) -> Result<Context, Value> {
        match value {
            Value::Object(map) => Ok(Context(map)),
            other => Err(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_typed_access() {
        let context = Context::with_result("ok").files(["a.txt", "b/c.pdf"]);
        assert_eq!(context.result(), Some("ok"));
        assert_eq!(context.file_list(), vec![PathBuf::from("a.txt"), PathBuf::from("b/c.pdf")]);
        assert_eq!(Context::new().result(), None);
        assert!(Context::new().file_list().is_empty());
    }

    #[test]
    fn message_json_kinds() {
        assert_eq!(Message::Turn(TurnState::Done).to_json().to_string(), r#"{"kind":"turn","state":"done"}"#);
        assert_eq!(Message::Progress("step 2".into()).to_json().to_string(), r#"{"kind":"progress","text":"step 2"}"#);
    }

    #[test]
    fn turn_state_words_round_trip() {
        for state in TurnState::ALL {
            assert_eq!(TurnState::from_word(state.as_str()), Some(state));
        }
        assert_eq!(TurnState::from_word("Done"), None);
    }
}
