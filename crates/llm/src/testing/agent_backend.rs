//! A model backend for real agent CLIs running offline; see [`AgentBackend`].

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

use super::reply::Reply;
use super::server::{FakeServer, RecordedRequest};
use super::wire::{self, Tokens};

/// The wire format of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Api {
    /// Anthropic Messages (`/v1/messages`).
    Anthropic,
    /// OpenAI Responses (`/v1/responses`).
    Responses,
    /// Gemini (`…:generateContent`, `…:streamGenerateContent`).
    Gemini,
    /// OpenAI chat completions (`/v1/chat/completions`).
    ChatCompletions,
}

/// What the model does in one real turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    action: TurnAction,
    delay: Duration,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum TurnAction {
    Text(String),
    Shell(String),
    Tool(String, Value),
}

impl Turn {
    /// Answers with `text`.
    pub fn text(text: impl Into<String>) -> Self {
        Turn { action: TurnAction::Text(text.into()), delay: Duration::ZERO }
    }

    /// Asks to run `command` with the agent's own shell tool (so the agent shows its permission dialog).
    pub fn shell(command: impl Into<String>) -> Self {
        Turn { action: TurnAction::Shell(command.into()), delay: Duration::ZERO }
    }

    /// Calls the offered tool named `name` with `arguments`: the tool whose name is `name`, else one whose name
    /// ends in `name` after a separator (`_`, `.`, `/`, `:`, `-`), as agents name the tools of MCP servers
    /// (Claude Code `mcp__<server>__<tool>`).
    pub fn tool(name: impl Into<String>, arguments: Value) -> Self {
        Turn { action: TurnAction::Tool(name.into(), arguments), delay: Duration::ZERO }
    }

    /// Answers only after `delay` (the agent stays busy that long).
    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// One real turn an agent asked for (a request that carried tools).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentTurn {
    /// The wire format.
    pub api: Api,
    /// The model asked for, when the request names one.
    pub model: Option<String>,
    /// Every user message of the conversation so far, oldest first (agent-injected context in `<tag>…`
    /// blocks left out).
    pub user_messages: Vec<String>,
    /// The conversation ends in a tool result: this request continues an earlier turn.
    pub continued: bool,
    /// What the tool results that end the conversation say, one text each (every string in the result but ids
    /// and types, joined by newlines; an error flag or field shows as `is_error: true` / `error: …`).
    pub tool_results: Vec<String>,
}

#[derive(Debug)]
struct Rules {
    triggers: Vec<(String, Turn)>,
    default: Turn,
    /// Tool calls answered so far.
    calls: u64,
}

/// A model backend for real agent CLIs running offline: answers whatever they ask, in their own wire format,
/// and records what they submitted.
///
/// Claude Code speaks Anthropic Messages (plus `count_tokens`), Codex the OpenAI Responses API, Gemini CLI
/// Gemini's `generateContent`/`streamGenerateContent`, Grok CLI and Qwen Code OpenAI chat completions. An agent
/// makes requests no test can script in order (titles, quota probes, model routers, next-speaker checks), so
/// [`AgentBackend`] answers each request by its route instead of from a queue: a request that carries tools is
/// one of the agent's real turns and gets the [`Turn`] whose trigger its newest user message contains (default:
/// a short text); a side call gets a plain text, or JSON that fits the schema it asked for.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use clive_models::testing::{AgentBackend, Turn};
///
/// let backend = AgentBackend::start().await?;
/// backend.when("run the tests", Turn::shell("cargo test"));
/// // ANTHROPIC_BASE_URL=<backend.url()> claude …, then type into its box:
/// assert!(backend.submitted().is_empty());
/// # Ok(()) }
/// ```
///
/// Shut down when dropped.
#[derive(Debug)]
pub struct AgentBackend {
    server: FakeServer,
    rules: Arc<Mutex<Rules>>,
}

/// The reply to every real turn that no trigger matches.
pub const DEFAULT_REPLY: &str = "Noted.";

impl AgentBackend {
    /// Binds a free port on 127.0.0.1 and starts answering.
    pub async fn start() -> std::io::Result<AgentBackend> {
        let rules = Arc::new(Mutex::new(Rules { triggers: Vec::new(), default: Turn::text(DEFAULT_REPLY), calls: 0 }));
        let shared = rules.clone();
        let server = FakeServer::start_with(move |request| {
            let mut rules = shared.lock().unwrap_or_else(PoisonError::into_inner);
            answer(request, &mut rules)
        })
        .await?;
        Ok(AgentBackend { server, rules })
    }

    /// The root URL, `http://127.0.0.1:PORT` (Claude Code's and Gemini CLI's base URL; OpenAI-style clients
    /// take `{url}/v1`).
    pub fn url(&self) -> &str {
        self.server.url()
    }

    /// Answers real turns whose newest user message contains `trigger` with `turn` (the first matching trigger
    /// wins).
    pub fn when(&self, trigger: impl Into<String>, turn: Turn) -> &Self {
        self.lock().triggers.push((trigger.into(), turn));
        self
    }

    /// Every request received so far, in order (side calls included).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.server.requests()
    }

    /// The real turns so far, in order.
    pub fn turns(&self) -> Vec<AgentTurn> {
        self.requests().iter().filter_map(real_turn).collect()
    }

    /// What the agent submitted, in order: the newest user message of each real turn that a user started
    /// (a turn continued after a tool result repeats the conversation and adds nothing). Agents submit some
    /// messages of their own too (Qwen Code's context and memory prompts).
    pub fn submitted(&self) -> Vec<String> {
        submissions(self.turns())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Rules> {
        self.rules.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The newest user message of each turn that is not a continuation.
fn submissions(turns: impl IntoIterator<Item = AgentTurn>) -> Vec<String> {
    turns.into_iter().filter(|turn| !turn.continued).filter_map(|turn| turn.user_messages.last().cloned()).collect()
}

fn api_of(path: &str) -> Option<Api> {
    if path.ends_with("/messages") {
        Some(Api::Anthropic)
    } else if path.ends_with("/responses") {
        Some(Api::Responses)
    } else if path.ends_with(":generateContent") || path.ends_with(":streamGenerateContent") {
        Some(Api::Gemini)
    } else if path.ends_with("/chat/completions") {
        Some(Api::ChatCompletions)
    } else {
        None
    }
}

/// The tools a request offers, as (name, JSON schema of the arguments). A tool in a Responses `namespace` (Codex
/// groups each MCP server's tools in one, `mcp__<server>`) is named `<namespace>/<name>`: Responses names never
/// hold a `/`.
fn tools(api: Api, body: &Value) -> Vec<(String, Value)> {
    let list = body["tools"].as_array().cloned().unwrap_or_default();
    let named = |tool: &Value, schema: &Value| tool["name"].as_str().map(|name| (name.to_string(), schema.clone()));
    match api {
        Api::Anthropic => list.iter().filter_map(|tool| named(tool, &tool["input_schema"])).collect(),
        Api::Responses => list
            .iter()
            .flat_map(|tool| match (tool["type"].as_str(), tool["name"].as_str(), tool["tools"].as_array()) {
                (Some("namespace"), Some(namespace), Some(inner)) => inner
                    .iter()
                    .filter_map(|tool| named(tool, &tool["parameters"]))
                    .map(|(name, schema)| (format!("{namespace}/{name}"), schema))
                    .collect(),
                _ => named(tool, &tool["parameters"]).into_iter().collect::<Vec<_>>(),
            })
            .collect(),
        Api::ChatCompletions => {
            list.iter().filter_map(|tool| named(&tool["function"], &tool["function"]["parameters"])).collect()
        }
        Api::Gemini => list
            .iter()
            .flat_map(|tool| tool["functionDeclarations"].as_array().cloned().unwrap_or_default())
            .filter_map(|declaration| {
                let schema = if declaration["parametersJsonSchema"].is_null() {
                    &declaration["parameters"]
                } else {
                    &declaration["parametersJsonSchema"]
                };
                named(&declaration, schema)
            })
            .collect(),
    }
}

/// Agent-injected context (`<system-reminder>…`, `<environment_context>…`, Claude Code's `[Request
/// interrupted by user…]`) is not something a user typed.
fn is_injected(text: &str) -> bool {
    if text.starts_with("[Request interrupted by user") {
        return true;
    }
    let Some(rest) = text.trim_start().strip_prefix('<') else { return false };
    let tag: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-').collect();
    !tag.is_empty() && rest[tag.len()..].starts_with('>')
}

/// The user-typed texts of one message's content (a string, or blocks with `text`).
fn user_text(content: &Value, text_types: &[&str]) -> Option<String> {
    let texts: Vec<String> = match content {
        Value::String(text) => vec![text.clone()],
        Value::Array(blocks) => blocks
            .iter()
            .filter(|block| block["type"].as_str().is_none_or(|kind| text_types.contains(&kind)))
            .filter_map(|block| block["text"].as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    let texts: Vec<String> = texts.into_iter().filter(|text| !is_injected(text)).collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

fn user_messages(api: Api, body: &Value) -> Vec<String> {
    let messages = match api {
        Api::Anthropic | Api::ChatCompletions => body["messages"].as_array(),
        Api::Responses => body["input"].as_array(),
        Api::Gemini => body["contents"].as_array(),
    };
    messages
        .into_iter()
        .flatten()
        .filter(|message| message["role"] == "user")
        .filter(|message| api != Api::Responses || message["type"].as_str().is_none_or(|kind| kind == "message"))
        .filter_map(|message| match api {
            Api::Anthropic | Api::ChatCompletions => user_text(&message["content"], &["text"]),
            Api::Responses => user_text(&message["content"], &["input_text"]),
            Api::Gemini => {
                let parts = message["parts"].as_array().cloned().unwrap_or_default();
                let texts: Vec<Value> = parts.into_iter().filter(|part| part["text"].is_string()).collect();
                user_text(&Value::Array(texts), &[])
            }
        })
        .collect()
}

/// Whether the conversation ends in a tool result rather than in something the user submitted. (After an
/// interrupted tool call Claude Code sends the tool result and the user's next message together: that is a
/// new turn.)
fn continues_a_turn(api: Api, body: &Value) -> bool {
    let last = match api {
        Api::Anthropic | Api::ChatCompletions => body["messages"].as_array().and_then(|m| m.last()),
        Api::Responses => body["input"].as_array().and_then(|m| m.last()),
        Api::Gemini => body["contents"].as_array().and_then(|m| m.last()),
    };
    let Some(last) = last else { return false };
    let blocks = |key: &str| last[key].as_array().cloned().unwrap_or_default();
    match api {
        Api::Anthropic => {
            blocks("content").iter().any(|block| block["type"] == "tool_result")
                && user_text(&last["content"], &["text"]).is_none()
        }
        Api::ChatCompletions => last["role"] == "tool",
        Api::Responses => last["type"].as_str().is_some_and(|kind| kind.ends_with("_output")),
        Api::Gemini => {
            let parts = blocks("parts");
            let texts: Vec<Value> = parts.iter().filter(|part| part["text"].is_string()).cloned().collect();
            parts.iter().any(|part| !part["functionResponse"].is_null())
                && user_text(&Value::Array(texts), &[]).is_none()
        }
    }
}

/// The last message of the conversation.
fn last_message(api: Api, body: &Value) -> Option<&Value> {
    let key = match api {
        Api::Anthropic | Api::ChatCompletions => "messages",
        Api::Responses => "input",
        Api::Gemini => "contents",
    };
    body[key].as_array().and_then(|messages| messages.last())
}

/// The tool results that end the conversation, as texts (see [`AgentTurn::tool_results`]).
fn tool_results(api: Api, body: &Value) -> Vec<String> {
    let results: Vec<Value> = match api {
        Api::Anthropic => last_message(api, body)
            .and_then(|last| last["content"].as_array())
            .into_iter()
            .flatten()
            .filter(|block| block["type"] == "tool_result")
            .cloned()
            .collect(),
        Api::ChatCompletions => {
            let messages = body["messages"].as_array().cloned().unwrap_or_default();
            let tail = messages.iter().rev().take_while(|message| message["role"] == "tool");
            let mut results: Vec<Value> = tail.map(|message| message["content"].clone()).collect();
            results.reverse();
            results
        }
        Api::Responses => {
            let items = body["input"].as_array().cloned().unwrap_or_default();
            let is_output = |item: &&Value| item["type"].as_str().is_some_and(|kind| kind.ends_with("_output"));
            let mut results: Vec<Value> = items.iter().rev().take_while(is_output).cloned().collect();
            results.reverse();
            results
        }
        Api::Gemini => last_message(api, body)
            .and_then(|last| last["parts"].as_array())
            .into_iter()
            .flatten()
            .filter(|part| !part["functionResponse"].is_null())
            .map(|part| part["functionResponse"]["response"].clone())
            .collect(),
    };
    results.iter().map(texts_of).collect()
}

/// Every string in `value` but its ids and types, joined by newlines; `is_error: true` and `error` fields named as
/// such.
fn texts_of(value: &Value) -> String {
    const NOT_TEXT: [&str; 6] = ["type", "id", "tool_use_id", "call_id", "name", "cache_control"];
    fn walk(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(text) => out.push(text.clone()),
            Value::Array(items) => items.iter().for_each(|item| walk(item, out)),
            Value::Object(map) => {
                for (key, item) in map {
                    match (key.as_str(), item) {
                        ("is_error" | "isError", Value::Bool(true)) => out.push("is_error: true".to_string()),
                        ("error", Value::String(text)) => out.push(format!("error: {text}")),
                        (key, _) if NOT_TEXT.contains(&key) => {}
                        _ => walk(item, out),
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &mut out);
    out.join("\n")
}

fn real_turn(request: &RecordedRequest) -> Option<AgentTurn> {
    let api = api_of(&request.path)?;
    if tools(api, &request.body).is_empty() {
        return None;
    }
    let model = match api {
        Api::Gemini => request.path.rsplit('/').next().and_then(|last| last.split(':').next()).map(str::to_string),
        _ => request.body["model"].as_str().map(str::to_string),
    };
    Some(AgentTurn {
        api,
        model,
        user_messages: user_messages(api, &request.body),
        continued: continues_a_turn(api, &request.body),
        tool_results: tool_results(api, &request.body),
    })
}

const TOKENS: Tokens = Tokens { input: 100, output: 5, cached: 0 };

fn answer(request: &RecordedRequest, rules: &mut Rules) -> Reply {
    let path = request.path.as_str();
    if path.ends_with("/messages/count_tokens") {
        return Reply::json(200, json!({"input_tokens": 100}));
    }
    if path.ends_with(":countTokens") {
        return Reply::json(200, json!({"totalTokens": 100}));
    }
    if request.method == "GET" && path.ends_with("/models") {
        return Reply::json(200, json!({"object": "list", "data": [{"id": "fake-model", "object": "model"}]}));
    }
    let Some(api) = api_of(path) else {
        return Reply::json(404, json!({"error": {"message": format!("no such route: {path}"), "type": "not_found"}}));
    };
    let body = &request.body;
    let tools = tools(api, body);
    let turn = if tools.is_empty() {
        // A side call: titles, quota probes, routers. Answer with JSON when a schema was asked for.
        let schema = &body["generationConfig"];
        let schema = [&schema["responseJsonSchema"], &schema["responseSchema"]].into_iter().find(|s| !s.is_null());
        Turn::text(schema.map_or_else(|| DEFAULT_REPLY.to_string(), |schema| example(schema).to_string()))
    } else if continues_a_turn(api, body) {
        // The conversation ends in a tool result: the turn goes on, and ends here with a text (a trigger answers
        // only what a user submitted, or a shell turn would loop for ever).
        rules.default.clone()
    } else {
        let newest = user_messages(api, body).pop().unwrap_or_default();
        rules
            .triggers
            .iter()
            .find(|(trigger, _)| newest.contains(trigger.as_str()))
            .map_or_else(|| rules.default.clone(), |(_, turn)| turn.clone())
    };
    let streamed = match api {
        Api::Responses => true,
        Api::Gemini => path.ends_with(":streamGenerateContent"),
        Api::Anthropic | Api::ChatCompletions => body["stream"].as_bool().unwrap_or(false),
    };
    let reply = match &turn.action {
        TurnAction::Shell(command) => match shell_tool(&tools, command) {
            Some((name, arguments)) => {
                rules.calls += 1;
                tool_call(api, streamed, rules.calls, &name, &arguments)
            }
            None => text_reply(api, streamed, &format!("(no shell tool offered to run {command})")),
        },
        TurnAction::Tool(wanted, arguments) => match offered_tool(&tools, wanted) {
            Some(name) => {
                rules.calls += 1;
                tool_call(api, streamed, rules.calls, name, arguments)
            }
            None => text_reply(api, streamed, &format!("(no tool {wanted} offered)")),
        },
        TurnAction::Text(text) => text_reply(api, streamed, text),
    };
    reply.headers_delay(turn.delay)
}

fn text_reply(api: Api, streamed: bool, text: &str) -> Reply {
    match (api, streamed) {
        (Api::Anthropic, true) => Reply::sse(wire::anthropic::stream(&[text], "end_turn", TOKENS)),
        (Api::Anthropic, false) => Reply::json(200, wire::anthropic::message(text, "end_turn", TOKENS)),
        (Api::ChatCompletions, true) => Reply::sse(wire::openai::stream(&[text], "stop", TOKENS)),
        (Api::ChatCompletions, false) => Reply::json(200, wire::openai::completion(text, "stop", TOKENS)),
        (Api::Responses, _) => Reply::sse(wire::responses::text_stream(&[text], TOKENS)),
        (Api::Gemini, true) => Reply::sse(wire::gemini::stream(&[text], TOKENS)),
        (Api::Gemini, false) => Reply::json(200, wire::gemini::text(text, TOKENS)),
    }
}

/// Tool call number `call` of a backend: its id is unique (an agent takes a call whose id it saw before for one
/// already answered).
fn tool_call(api: Api, streamed: bool, call: u64, name: &str, arguments: &Value) -> Reply {
    match api {
        Api::Anthropic => {
            Reply::sse(wire::tools::anthropic_tool_use_stream(&format!("toolu_fake{call:02}"), name, arguments, TOKENS))
        }
        Api::ChatCompletions => {
            Reply::sse(wire::tools::openai_tool_call_stream(&format!("call_fake{call:02}"), name, arguments, TOKENS))
        }
        Api::Responses => {
            let item = match name.split_once('/') {
                Some((namespace, name)) => {
                    let mut item = wire::responses::function_call_item(&format!("call_fake{call:02}"), name, arguments);
                    item["namespace"] = json!(namespace);
                    item
                }
                None => wire::responses::function_call_item(&format!("call_fake{call:02}"), name, arguments),
            };
            Reply::sse(wire::responses::stream(&[item], &[], TOKENS))
        }
        Api::Gemini => {
            let parts = json!([wire::gemini::function_call_part(name, arguments)]);
            if streamed {
                Reply::sse(wire::gemini::parts_stream(parts, TOKENS))
            } else {
                Reply::json(200, wire::gemini::response(parts, Some("STOP"), TOKENS))
            }
        }
    }
}

/// The offered tool named `wanted`, or else the first whose name ends in `wanted` after a separator.
fn offered_tool<'a>(tools: &'a [(String, Value)], wanted: &str) -> Option<&'a str> {
    let exact = tools.iter().find(|(name, _)| name == wanted);
    let suffixed = || {
        tools.iter().find(|(name, _)| {
            name.strip_suffix(wanted).and_then(|head| head.chars().last()).is_some_and(|c| "_./:-".contains(c))
        })
    };
    exact.or_else(suffixed).map(|(name, _)| name.as_str())
}

/// The agent's shell tool and the arguments that ask it to run `command`.
fn shell_tool(tools: &[(String, Value)], command: &str) -> Option<(String, Value)> {
    const SHELL_TOOLS: [&str; 6] =
        ["bash", "exec_command", "shell", "run_shell_command", "shell_command", "execute_bash"];
    let (name, schema) =
        tools.iter().find(|(name, _)| SHELL_TOOLS.contains(&name.to_ascii_lowercase().as_str())).or_else(|| {
            tools.iter().find(|(name, _)| ["shell", "bash"].iter().any(|s| name.to_ascii_lowercase().contains(s)))
        })?;
    let mut arguments = example(schema);
    let properties = &schema["properties"];
    for key in ["command", "cmd"] {
        if properties[key].is_null() {
            continue;
        }
        arguments[key] =
            if type_of(&properties[key]) == "array" { json!(["bash", "-lc", command]) } else { json!(command) };
        break;
    }
    // Codex runs commands in its sandbox without asking; escalating out of it is what needs the user's yes.
    if properties["sandbox_permissions"]["enum"].as_array().is_some_and(|v| v.contains(&json!("require_escalated"))) {
        arguments["sandbox_permissions"] = json!("require_escalated");
        arguments["justification"] = json!("The test asks to run this outside the sandbox.");
    }
    Some((name.clone(), arguments))
}

fn type_of(schema: &Value) -> String {
    let kind = match &schema["type"] {
        Value::String(kind) => kind.clone(),
        Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).find(|k| *k != "null").unwrap_or("").to_string(),
        _ if !schema["properties"].is_null() => "object".to_string(),
        _ => String::new(),
    };
    kind.to_ascii_lowercase()
}

/// A value that fits a JSON schema (Gemini's upper-case types too): required properties filled, enums take
/// `user` when offered (Gemini CLI's next-speaker check) or their first value.
fn example(schema: &Value) -> Value {
    if let Some(values) = schema["enum"].as_array() {
        return values.iter().find(|value| *value == "user").or(values.first()).cloned().unwrap_or(Value::Null);
    }
    match type_of(schema).as_str() {
        "object" => {
            let properties = schema["properties"].as_object().cloned().unwrap_or_default();
            let required: Vec<&str> =
                schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            let mut object = serde_json::Map::new();
            for (key, property) in &properties {
                if required.is_empty() || required.contains(&key.as_str()) {
                    object.insert(key.clone(), example(property));
                }
            }
            Value::Object(object)
        }
        "array" => json!([]),
        "integer" | "number" => json!(0),
        "boolean" => json!(false),
        _ => json!("fake"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn injected_context_is_not_user_text() {
        assert!(is_injected("<system-reminder>\nstuff</system-reminder>"));
        assert!(is_injected("<environment_context>x"));
        assert!(!is_injected("ops: <b>bold</b>"));
        assert!(!is_injected("< not a tag"));
        assert!(is_injected("[Request interrupted by user for tool use]"));
    }

    #[test]
    fn schemas_get_fitting_examples() {
        let router = json!({"type": "OBJECT", "properties": {"reasoning": {"type": "STRING"},
                            "next_speaker": {"type": "STRING", "enum": ["model", "user"]}},
                            "required": ["reasoning", "next_speaker"]});
        assert_eq!(example(&router), json!({"reasoning": "fake", "next_speaker": "user"}));
        let tools = vec![(
            "Bash".to_string(),
            json!({"type": "object", "properties": {
            "command": {"type": "string"}, "timeout": {"type": "number"}}, "required": ["command"]}),
        )];
        assert_eq!(shell_tool(&tools, "ls"), Some(("Bash".to_string(), json!({"command": "ls"}))));
        let codex = vec![(
            "shell".to_string(),
            json!({"type": "object", "properties": {
            "command": {"type": "array", "items": {"type": "string"}}}, "required": ["command"]}),
        )];
        assert_eq!(shell_tool(&codex, "ls").unwrap().1, json!({"command": ["bash", "-lc", "ls"]}));
    }

    #[test]
    fn a_tool_is_found_by_its_name_or_its_last_part() {
        let offered = |names: &[&str]| names.iter().map(|n| (n.to_string(), json!({}))).collect::<Vec<_>>();
        let claude = offered(&["Bash", "mcp__clive__start", "mcp__clive__run"]);
        assert_eq!(offered_tool(&claude, "run"), Some("mcp__clive__run"));
        assert_eq!(offered_tool(&offered(&["mcp__clive__run", "run"]), "run"), Some("run"));
        assert_eq!(offered_tool(&offered(&["clive.run"]), "run"), Some("clive.run"));
        // A name that merely ends in the letters is another tool.
        assert_eq!(offered_tool(&offered(&["rerun", "dry-runner"]), "run"), None);
        // Codex offers an MCP server's tools in a Responses namespace, and a call names the namespace.
        let codex = json!({"tools": [{"type": "function", "name": "exec_command", "parameters": {}},
            {"type": "namespace", "name": "mcp__clive", "tools": [{"type": "function", "name": "run", "parameters": {}}]}]});
        let codex = tools(Api::Responses, &codex);
        assert_eq!(offered_tool(&codex, "run"), Some("mcp__clive/run"));
        let reply = tool_call(Api::Responses, true, 7, "mcp__clive/run", &json!({}));
        let body: String = reply.chunks.iter().map(|chunk| String::from_utf8_lossy(chunk).into_owned()).collect();
        assert!(
            body.contains(r#""name":"run""#)
                && body.contains(r#""namespace":"mcp__clive""#)
                && body.contains("call_fake07"),
            "{body}"
        );
    }

    #[test]
    fn tool_results_are_read_in_every_wire_format() {
        let anthropic = json!({"messages": [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "is_error": true,
             "content": [{"type": "text", "text": "refused"}]}]}]});
        assert_eq!(tool_results(Api::Anthropic, &anthropic), vec!["is_error: true\nrefused"]);
        let responses = json!({"input": [{"type": "message", "role": "user", "content": "x"},
            {"type": "function_call", "name": "run"},
            {"type": "function_call_output", "call_id": "c", "output": "out-1"}]});
        assert_eq!(tool_results(Api::Responses, &responses), vec!["out-1"]);
        let gemini = json!({"contents": [{"role": "user", "parts": [
            {"functionResponse": {"name": "run", "response": {"error": "refused"}}}]}]});
        assert_eq!(tool_results(Api::Gemini, &gemini), vec!["error: refused"]);
        let chat = json!({"messages": [{"role": "user", "content": "x"}, {"role": "tool", "content": "out"}]});
        assert_eq!(tool_results(Api::ChatCompletions, &chat), vec!["out"]);
        assert!(
            tool_results(Api::ChatCompletions, &json!({"messages": [{"role": "user", "content": "x"}]})).is_empty()
        );
    }

    #[test]
    fn a_tool_turn_calls_the_offered_tool() {
        let request = RecordedRequest {
            method: "POST".into(),
            path: "/v1/messages".into(),
            headers: Default::default(),
            body: json!({"model": "m", "stream": true,
                         "tools": [{"name": "mcp__clive__run", "input_schema": {"type": "object"}}],
                         "messages": [{"role": "user", "content": "go"}]}),
        };
        let mut rules = Rules {
            triggers: vec![("go".into(), Turn::tool("run", json!({"command": "echo hi"})))],
            default: Turn::text(DEFAULT_REPLY),
            calls: 0,
        };
        let reply = answer(&request, &mut rules);
        let body: String = reply.chunks.iter().map(|chunk| String::from_utf8_lossy(chunk).into_owned()).collect();
        assert!(body.contains("mcp__clive__run") && body.contains(r#"\"command\":\"echo hi\""#), "{body}");
    }

    #[test]
    fn submissions_are_counted_once_across_continued_turns() {
        let request = |messages: Value| RecordedRequest {
            method: "POST".into(),
            path: "/v1/chat/completions".into(),
            headers: Default::default(),
            body: json!({"model": "m", "tools": [{"type": "function", "function": {"name": "bash", "parameters": {}}}],
                         "messages": messages}),
        };
        let first = request(json!([{"role": "system", "content": "sys"}, {"role": "user", "content": "ops: one"}]));
        let continued = request(json!([{"role": "user", "content": "ops: one"}, {"role": "assistant", "content": "x"},
                                       {"role": "tool", "content": "out"}]));
        let second = request(json!([{"role": "user", "content": "ops: one"},
                                    {"role": "user", "content": [{"type": "text", "text": "ops: two"}]}]));
        let turns = [&first, &continued, &second].into_iter().filter_map(real_turn);
        assert_eq!(submissions(turns), vec!["ops: one", "ops: two"]);
    }
}
