//! The one structured action a model answers with each interactive turn, and a lenient parser that never turns
//! prose into something typed.

use serde::Serialize;
use serde_json::{Value, json};
use tmux_habitat::Key;

/// What the model wants done this turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// Type a shell command, run it and wait for it to finish.
    Run {
        /// The command line.
        command: String,
    },
    /// Press keys in order: literal text and named keys (Enter, C-c, arrows, …).
    Keys {
        /// The keys.
        keys: Vec<KeyInput>,
    },
    /// Wait for more output, or for a text to appear, up to some seconds.
    Wait {
        /// How long at most.
        seconds: f64,
        /// The text to wait for, if any.
        #[serde(rename = "for", skip_serializing_if = "Option::is_none")]
        pattern: Option<String>,
    },
    /// The goal is reached.
    Done {
        /// What was found or made.
        summary: String,
        /// Files the model says it wrote.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        files: Vec<String>,
    },
    /// The goal cannot be reached.
    Fail {
        /// Why.
        reason: String,
    },
}

/// One item of a `keys` action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum KeyInput {
    /// Typed as it is (`send-keys -l`): nothing is added, not even Enter.
    Text(String),
    /// A named key.
    #[serde(serialize_with = "serialize_key")]
    Key(Key),
}

fn serialize_key<S: serde::Serializer>(key: &Key, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&key.tmux_name())
}

impl std::fmt::Display for KeyInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyInput::Text(text) => write!(f, "{text:?}"),
            KeyInput::Key(key) => write!(f, "{key}"),
        }
    }
}

/// Why a reply is not an action. Nothing is typed; the model is told and the turn is spent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ActionError {
    /// The reply has no JSON object and no fenced shell command.
    #[error("the reply is not a JSON action")]
    NotAnAction,
    /// The JSON names no action this runner knows.
    #[error("unknown action {0:?}; use run, keys, wait, done or fail")]
    UnknownAction(String),
    /// The action lacks what it needs (a command, keys, a summary).
    #[error("the {action} action needs {field}")]
    Missing {
        /// The action.
        action: &'static str,
        /// What it needs.
        field: &'static str,
    },
}

/// The longest a `wait` may ask for, in seconds (a turn's deadline applies on top).
pub const MAX_WAIT_SECONDS: f64 = 120.0;
/// The wait when the model gives no length.
const DEFAULT_WAIT_SECONDS: f64 = 5.0;

/// The JSON Schema of an action, for providers that constrain replies to a schema.
pub fn action_schema() -> Value {
    let object = |name: &str, fields: Value, required: &[&str]| {
        let mut properties = json!({"action": {"const": name}});
        if let (Some(map), Some(extra)) = (properties.as_object_mut(), fields.as_object()) {
            map.extend(extra.clone());
        }
        let mut required_fields = vec!["action"];
        required_fields.extend_from_slice(required);
        json!({"type": "object", "properties": properties, "required": required_fields, "additionalProperties": false})
    };
    json!({"anyOf": [
        object("run", json!({"command": {"type": "string"}}), &["command"]),
        object("keys", json!({"keys": {"type": "array", "items": {"type": "string"}}}), &["keys"]),
        object("wait", json!({"seconds": {"type": "number"}, "for": {"type": "string"}}), &["seconds", "for"]),
        object("done", json!({"summary": {"type": "string"}}), &["summary"]),
        object("fail", json!({"reason": {"type": "string"}}), &["reason"]),
    ]})
}

/// Reads the model's reply as one action, leniently: a JSON object anywhere in it (fenced or not, with common
/// synonyms for names and fields), a reply starting `DONE:`, or a single fenced shell block. Anything else is an
/// error — prose is never typed.
pub fn parse_action(reply: &str) -> Result<Action, ActionError> {
    if let Some(value) = first_json_object(reply) {
        return from_json(&value);
    }
    let trimmed = reply.trim();
    if let Some(rest) = strip_prefix_ignore_case(trimmed, "done:") {
        return Ok(Action::Done { summary: rest.trim().to_owned(), files: Vec::new() });
    }
    if let Some(command) = fenced_shell_command(trimmed) {
        return Ok(Action::Run { command });
    }
    Err(ActionError::NotAnAction)
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &text[prefix.len()..])
}

/// The first JSON object in `text` that parses (fences and text around it are ignored).
fn first_json_object(text: &str) -> Option<serde_json::Map<String, Value>> {
    for (at, _) in text.match_indices('{').take(20) {
        let mut values = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Value>();
        if let Some(Ok(Value::Object(map))) = values.next() {
            return Some(map);
        }
    }
    None
}

/// The first string among `fields` in `map`.
fn string_field(map: &serde_json::Map<String, Value>, fields: &[&str]) -> Option<String> {
    fields.iter().find_map(|f| map.get(*f).and_then(Value::as_str)).map(str::to_owned)
}

fn from_json(map: &serde_json::Map<String, Value>) -> Result<Action, ActionError> {
    let named = string_field(map, &["action", "type", "tool", "name", "kind"]).map(|a| a.trim().to_ascii_lowercase());
    let kind = match named.as_deref() {
        Some("run" | "command" | "shell" | "exec" | "execute" | "bash" | "run_command" | "cmd") => "run",
        Some("keys" | "key" | "send_keys" | "sendkeys" | "press" | "type" | "input" | "send" | "keystrokes") => "keys",
        Some("wait" | "sleep" | "wait_for") => "wait",
        Some("done" | "finish" | "finished" | "complete" | "completed" | "success" | "answer") => "done",
        Some("fail" | "failed" | "error" | "give_up" | "abort") => "fail",
        Some(other) => return Err(ActionError::UnknownAction(other.to_owned())),
        // No name: judge by the fields.
        None if map.contains_key("command") || map.contains_key("cmd") => "run",
        None if map.contains_key("keys") => "keys",
        None if map.contains_key("summary") => "done",
        None if map.contains_key("reason") => "fail",
        None => return Err(ActionError::NotAnAction),
    };
    match kind {
        "run" => {
            let command = string_field(map, &["command", "cmd", "text", "arg", "input", "keys"])
                .filter(|c| !c.trim().is_empty())
                .ok_or(ActionError::Missing { action: "run", field: "a command" })?;
            Ok(Action::Run { command: command.trim().to_owned() })
        }
        "keys" => {
            let mut keys = match map.get("keys").or_else(|| map.get("text")).or_else(|| map.get("key")) {
                Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(key_item).collect(),
                Some(Value::String(text)) => keys_from_string(text),
                _ => Vec::new(),
            };
            if map.get("enter").and_then(Value::as_bool) == Some(true) {
                keys.push(KeyInput::Key(Key::Enter));
            }
            if keys.is_empty() {
                return Err(ActionError::Missing { action: "keys", field: "a list of keys" });
            }
            Ok(Action::Keys { keys })
        }
        "wait" => {
            let seconds = ["seconds", "timeout", "secs", "time"]
                .iter()
                .find_map(|f| map.get(*f).and_then(Value::as_f64))
                .filter(|s| s.is_finite() && *s > 0.0)
                .unwrap_or(DEFAULT_WAIT_SECONDS)
                .min(MAX_WAIT_SECONDS);
            let pattern = string_field(map, &["for", "pattern", "until", "text"]).filter(|p| !p.trim().is_empty());
            Ok(Action::Wait { seconds, pattern })
        }
        "done" => {
            let summary = string_field(map, &["summary", "result", "answer", "text", "message", "output"])
                .ok_or(ActionError::Missing { action: "done", field: "a summary" })?;
            let files = match map.get("files") {
                Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
                _ => Vec::new(),
            };
            Ok(Action::Done { summary: summary.trim().to_owned(), files })
        }
        _ => {
            let reason = string_field(map, &["reason", "summary", "error", "message", "text"])
                .unwrap_or_else(|| "no reason given".to_owned());
            Ok(Action::Fail { reason: reason.trim().to_owned() })
        }
    }
}

/// One list item: a key name (`Enter`, `C-c`, `ctrl+c`, `^C`, `up`) or literal text.
fn key_item(item: &str) -> KeyInput {
    named_key(item).map_or_else(|| KeyInput::Text(item.to_owned()), KeyInput::Key)
}

/// A key name as models write them.
fn named_key(name: &str) -> Option<Key> {
    if let Some(key) = Key::parse(name) {
        // A single letter is text (`y`), not a key; Key::parse accepts none anyway.
        return Some(key);
    }
    if name == "\n" || name == "\r" || name == "\r\n" {
        return Some(Key::Enter);
    }
    let lower = name.trim().to_ascii_lowercase();
    let ctrl = |c: &str| c.chars().next().filter(|ch| c.chars().count() == 1 && ch.is_ascii_alphabetic());
    if let Some(rest) =
        lower.strip_prefix("ctrl-").or_else(|| lower.strip_prefix("ctrl+")).or_else(|| lower.strip_prefix("c-"))
    {
        return ctrl(rest).map(Key::Ctrl);
    }
    if let Some(rest) = lower.strip_prefix('^') {
        return ctrl(rest).map(Key::Ctrl);
    }
    let key = match lower.as_str() {
        "enter" | "return" => Key::Enter,
        "esc" | "escape" => Key::Escape,
        "tab" => Key::Tab,
        "up" | "arrowup" | "up_arrow" => Key::Up,
        "down" | "arrowdown" | "down_arrow" => Key::Down,
        "left" | "arrowleft" => Key::Left,
        "right" | "arrowright" => Key::Right,
        "backspace" => Key::Backspace,
        "space" => Key::Space,
        "pageup" | "pgup" => Key::PageUp,
        "pagedown" | "pgdn" => Key::PageDown,
        "home" => Key::Home,
        "end" => Key::End,
        _ => return None,
    };
    Some(key)
}

/// Keys given as one string: a lone key name, or text followed by a key name (`y Enter`), or text alone.
fn keys_from_string(text: &str) -> Vec<KeyInput> {
    if text.is_empty() {
        return Vec::new();
    }
    if let Some(key) = named_key(text) {
        return vec![KeyInput::Key(key)];
    }
    if let Some((head, last)) = text.trim_end().rsplit_once(' ')
        && let Some(key) = named_key(last)
    {
        let mut keys = keys_from_string(head);
        keys.push(KeyInput::Key(key));
        return keys;
    }
    if let Some(head) = text.strip_suffix('\n') {
        let mut keys = keys_from_string(head);
        keys.push(KeyInput::Key(Key::Enter));
        return keys;
    }
    vec![KeyInput::Text(text.to_owned())]
}

/// The command of a reply that is one fenced shell block and nothing else but blank lines.
fn fenced_shell_command(reply: &str) -> Option<String> {
    let rest = reply.strip_prefix("```")?;
    let (tag, body) = rest.split_once('\n')?;
    let body = body.trim_end().strip_suffix("```")?;
    if !matches!(tag.trim(), "bash" | "sh" | "shell" | "console" | "zsh") || body.contains("```") {
        return None;
    }
    let lines: Vec<&str> = body
        .lines()
        .map(|l| l.trim().strip_prefix("$ ").unwrap_or(l.trim()))
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn run(command: &str) -> Action {
        Action::Run { command: command.into() }
    }

    #[test]
    fn plain_and_fenced_json() {
        assert_eq!(parse_action(r#"{"action":"run","command":"ls -la"}"#), Ok(run("ls -la")));
        assert_eq!(
            parse_action("```json\n{\"action\": \"run\", \"command\": \"mkdir build\"}\n```"),
            Ok(run("mkdir build"))
        );
        assert_eq!(parse_action("Sure! {\"cmd\": \"pwd\"} is it."), Ok(run("pwd")));
        assert_eq!(parse_action(r#"{"type":"shell","command":" wc -l a.txt "}"#), Ok(run("wc -l a.txt")));
    }

    #[test]
    fn keys_are_keys_and_text_is_text() {
        let keys = |items: Vec<KeyInput>| Ok(Action::Keys { keys: items });
        let text = |t: &str| KeyInput::Text(t.into());
        assert_eq!(
            parse_action(r#"{"action":"keys","keys":["y","Enter"]}"#),
            keys(vec![text("y"), KeyInput::Key(Key::Enter)])
        );
        assert_eq!(parse_action(r#"{"action":"keys","keys":["C-c"]}"#), keys(vec![KeyInput::Key(Key::CTRL_C)]));
        assert_eq!(parse_action(r#"{"action":"keys","keys":"ctrl+c"}"#), keys(vec![KeyInput::Key(Key::CTRL_C)]));
        assert_eq!(
            parse_action(r#"{"action":"keys","keys":"y Enter"}"#),
            keys(vec![text("y"), KeyInput::Key(Key::Enter)])
        );
        assert_eq!(parse_action(r#"{"action":"keys","keys":"y"}"#), keys(vec![text("y")]));
        assert_eq!(
            parse_action(r#"{"action":"keys","keys":["^C","up","q"]}"#),
            keys(vec![KeyInput::Key(Key::CTRL_C), KeyInput::Key(Key::Up), text("q")])
        );
        assert_eq!(
            parse_action(r#"{"keys": "mkdir build", "enter": true}"#),
            keys(vec![text("mkdir build"), KeyInput::Key(Key::Enter)])
        );
    }

    #[test]
    fn wait_done_and_fail() {
        assert_eq!(
            parse_action(r#"{"action":"wait","seconds":3,"for":"ready"}"#),
            Ok(Action::Wait { seconds: 3.0, pattern: Some("ready".into()) })
        );
        assert_eq!(
            parse_action(r#"{"action":"wait","seconds":9999,"for":""}"#),
            Ok(Action::Wait { seconds: MAX_WAIT_SECONDS, pattern: None })
        );
        assert_eq!(
            parse_action(r#"{"action":"done","summary":"42 lines","files":["out.txt"]}"#),
            Ok(Action::Done { summary: "42 lines".into(), files: vec!["out.txt".into()] })
        );
        assert_eq!(
            parse_action("DONE: created build"),
            Ok(Action::Done { summary: "created build".into(), files: vec![] })
        );
        assert_eq!(
            parse_action(r#"{"action":"fail","reason":"no such file"}"#),
            Ok(Action::Fail { reason: "no such file".into() })
        );
    }

    #[test]
    fn a_single_fenced_shell_block_is_a_command() {
        assert_eq!(parse_action("```bash\n$ ls -la\n```"), Ok(run("ls -la")));
        assert_eq!(parse_action("```python\nprint(1)\n```"), Err(ActionError::NotAnAction));
    }

    #[test]
    fn prose_is_never_an_action() {
        for reply in [
            "I will list the files now.",
            "ls -la",
            "Let me check the directory:\nls -la",
            "Here is the command: `rm -rf build`",
            "The answer is {not json}",
            "",
        ] {
            assert_eq!(parse_action(reply), Err(ActionError::NotAnAction), "{reply:?}");
        }
    }

    #[test]
    fn broken_actions_say_what_is_missing() {
        assert_eq!(
            parse_action(r#"{"action":"run"}"#),
            Err(ActionError::Missing { action: "run", field: "a command" })
        );
        assert_eq!(parse_action(r#"{"action":"dance"}"#), Err(ActionError::UnknownAction("dance".into())));
        assert_eq!(
            parse_action(r#"{"action":"keys","keys":[]}"#),
            Err(ActionError::Missing { action: "keys", field: "a list of keys" })
        );
    }

    #[test]
    fn the_schema_names_every_action() {
        let schema = action_schema().to_string();
        for action in ["run", "keys", "wait", "done", "fail"] {
            assert!(schema.contains(&format!("{{\"const\":\"{action}\"}}")), "{schema}");
        }
    }

    proptest! {
        #[test]
        fn never_panics_and_never_runs_prose(reply in "[a-zA-Z ,.:`'\"\\n-]{0,200}") {
            // Text without braces or fences is never a command.
            let typed = matches!(parse_action(&reply), Ok(Action::Run { .. } | Action::Keys { .. } | Action::Wait { .. }));
            prop_assert!(!typed, "{:?}", reply);
        }

        #[test]
        fn actions_round_trip_through_json(command in "[a-z0-9 ./|-]{1,40}") {
            let action = Action::Run { command: command.trim().to_owned() };
            prop_assume!(!command.trim().is_empty());
            let json = serde_json::to_string(&action).unwrap();
            prop_assert_eq!(parse_action(&json), Ok(action));
        }
    }
}
