//! `AgentBackend`, the backend real agent CLIs talk to: each route answered in its own wire format (snapshots of
//! what goes on the wire), our own clients reading its replies, and what it records as submitted.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic on the unexpected

use std::time::Duration;

use clive_models::testing::{AgentBackend, DEFAULT_REPLY, Turn};
use clive_models::{ChatRequest, ProviderConfig, ProviderKind};
use serde_json::{Value, json};

async fn post(backend: &AgentBackend, path: &str, body: Value) -> (String, String) {
    let response = reqwest::Client::new().post(format!("{}{path}", backend.url())).json(&body).send().await.unwrap();
    let kind = response.headers().get("content-type").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    (kind, response.text().await.unwrap())
}

fn bash_tool() -> Value {
    json!({"name": "Bash", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}},
           "required": ["command"]}})
}

#[tokio::test]
async fn every_route_answers_in_its_own_format() {
    let backend = AgentBackend::start().await.unwrap();
    backend.when("run it", Turn::shell("touch x"));
    let user = |text: &str| json!({"role": "user", "content": text});
    let mut wire = Vec::new();
    for (name, path, body) in [
        ("anthropic count_tokens", "/v1/messages/count_tokens", json!({"messages": [user("hi")]})),
        (
            "anthropic turn, tool call",
            "/v1/messages",
            json!({"model": "m", "stream": true, "tools": [bash_tool()], "messages": [user("ops: run it")]}),
        ),
        (
            "responses turn",
            "/v1/responses",
            json!({"model": "m", "stream": true,
                   "tools": [{"type": "function", "name": "exec_command", "parameters": {"type": "object",
                              "properties": {"cmd": {"type": "string"}}}}],
                   "input": [{"type": "message", "role": "user",
                              "content": [{"type": "input_text", "text": "<environment_context>x</environment_context>"}]},
                             {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "ops: hi"}]}]}),
        ),
        (
            "gemini router side call",
            "/v1beta/models/gemini-flash:generateContent",
            json!({"contents": [{"role": "user", "parts": [{"text": "route this"}]}],
                   "generationConfig": {"responseJsonSchema": {"type": "object",
                     "properties": {"reasoning": {"type": "string"}, "model_choice": {"type": "string", "enum": ["flash", "pro"]}},
                     "required": ["reasoning", "model_choice"]}}}),
        ),
        (
            "gemini turn",
            "/v1beta/models/gemini-pro:streamGenerateContent",
            json!({"contents": [{"role": "user", "parts": [{"text": "ops: hi"}]}],
                   "tools": [{"functionDeclarations": [{"name": "run_shell_command", "parameters": {}}]}]}),
        ),
        (
            "chat completions turn, tool call",
            "/v1/chat/completions",
            json!({"model": "m", "stream": true, "messages": [user("ops: run it")],
                   "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object",
                              "properties": {"command": {"type": "string"}}}}}]}),
        ),
    ] {
        let (kind, body) = post(&backend, path, body).await;
        wire.push(format!("## {name}: POST {path} -> {kind}\n{body}"));
    }
    insta::assert_snapshot!(wire.join("\n"));
    let turns = backend.turns();
    assert_eq!(turns.len(), 4, "the count_tokens and router calls are side calls: {turns:#?}");
    assert_eq!(backend.submitted(), ["ops: run it", "ops: hi", "ops: hi", "ops: run it"]);
}

#[tokio::test]
async fn our_own_clients_read_its_replies_and_a_slow_turn_is_slow() {
    let backend = AgentBackend::start().await.unwrap();
    backend.when("slowly", Turn::text("Late.").after(Duration::from_millis(300)));
    for kind in [ProviderKind::Anthropic, ProviderKind::OpenAiCompatible] {
        let mut config = ProviderConfig::new(kind).api_key("k");
        config.base_url = Some(match kind {
            ProviderKind::Anthropic => backend.url().to_string(),
            _ => format!("{}/v1", backend.url()),
        });
        let model = clive_models::connect(config).unwrap();
        // No tools: a side call, answered with the default text.
        assert_eq!(model.chat(&ChatRequest::new("ops: hi")).await.unwrap().text, DEFAULT_REPLY);
    }
    let started = std::time::Instant::now();
    let (_, body) = post(
        &backend,
        "/v1/chat/completions",
        json!({"model": "m", "messages": [{"role": "user", "content": "ops: answer slowly"}],
               "tools": [{"type": "function", "function": {"name": "bash", "parameters": {}}}]}),
    )
    .await;
    assert!(started.elapsed() >= Duration::from_millis(300), "{:?}", started.elapsed());
    assert!(body.contains("Late."), "{body}");
}
