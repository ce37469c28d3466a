//! Each provider against the scripted fake server: exact request headers and bodies, replies, streams, usage.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic on the unexpected

use std::sync::Arc;
use std::time::Duration;

use clive_models::testing::{FakeServer, RecordedRequest, Reply, Tokens, wire};
use clive_models::{
    ChatModel, ChatRequest, ChatStream, Message, Metered, ModelTier, PriceTable, ProviderKind, StopReason, StreamEnd,
    StreamEvent, UsageLedger,
};
use futures_util::StreamExt;
use serde_json::json;

/// Reads a stream to its end: the text deltas and the end (or the error).
async fn drain(mut stream: ChatStream) -> (Vec<String>, Result<StreamEnd, clive_models::Error>) {
    let mut deltas = Vec::new();
    while let Some(event) = stream.next().await {
        match event {
            Ok(StreamEvent::TextDelta(text)) => deltas.push(text),
            Ok(StreamEvent::End(end)) => {
                assert!(stream.next().await.is_none(), "nothing may follow End");
                return (deltas, Ok(end));
            }
            Err(error) => {
                assert!(stream.next().await.is_none(), "nothing may follow an error");
                return (deltas, Err(error));
            }
        }
    }
    panic!("stream ended without End or an error");
}

fn only_request(server: &FakeServer) -> RecordedRequest {
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    requests.into_iter().next().unwrap()
}

fn schema() -> serde_json::Value {
    json!({"type": "object", "properties": {"intent": {"type": "string", "enum": ["list_files", "other"]}},
           "required": ["intent"], "additionalProperties": false})
}

fn full_request() -> ChatRequest {
    ChatRequest::new("List /tmp")
        .system("You classify shell tasks.")
        .message(Message::assistant("{"))
        .max_tokens(64)
        .temperature(0.0)
        .stop_sequence("\n\n")
        .json_schema("intent", schema())
}

#[tokio::test]
async fn anthropic_chat_sends_the_messages_wire_format() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::json(
        200,
        wire::anthropic::message("{\"intent\":\"list_files\"}", "end_turn", Tokens::new(2100, 9).cached(2048)),
    ));
    let model = clive_models::connect(server.config(ProviderKind::Anthropic)).unwrap();

    let reply = model.chat(&full_request()).await.unwrap();

    assert_eq!(reply.text, "{\"intent\":\"list_files\"}");
    assert_eq!(reply.stop_reason, StopReason::EndTurn);
    assert_eq!(reply.usage, Tokens::new(2100, 9).cached(2048).usage());
    assert_eq!(reply.model, "claude-fake-1");
    let request = only_request(&server);
    assert_eq!((request.method.as_str(), request.path.as_str()), ("POST", "/v1/messages"));
    assert_eq!(request.header("x-api-key"), Some("test-key"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("authorization"), None);
    assert_eq!(
        request.body,
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 64,
            "system": [{"type": "text", "text": "You classify shell tasks.", "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": "List /tmp"}, {"role": "assistant", "content": "{"}],
            "temperature": 0.0,
            "stop_sequences": ["\n\n"],
            "output_config": {"format": {"type": "json_schema", "schema": schema()}},
        })
    );
}

#[tokio::test]
async fn anthropic_stream_yields_deltas_then_stop_reason_and_cumulative_usage() {
    let server = FakeServer::start().await.unwrap();
    let frames = wire::anthropic::stream(&["Hel", "lo, ", "wörld"], "max_tokens", Tokens::new(30, 5).cached(8));
    // Split frames at arbitrary byte offsets (inside the multi-byte ö too), with a pause between chunks.
    server.push(Reply::sse(frames).rechunk(7).chunk_delay(Duration::from_millis(1)));
    let model = clive_models::connect(server.config(ProviderKind::Anthropic)).unwrap();

    let (deltas, end) = drain(model.chat_stream(&ChatRequest::new("hi").tier(ModelTier::Fast)).await.unwrap()).await;

    assert_eq!(deltas.concat(), "Hello, wörld");
    let end = end.unwrap();
    assert_eq!(end.stop_reason, StopReason::MaxTokens);
    assert_eq!(end.usage, Tokens::new(30, 5).cached(8).usage());
    let request = only_request(&server);
    assert_eq!(request.body["stream"], json!(true));
    assert_eq!(request.body["model"], json!("claude-haiku-4-5"));
}

#[tokio::test]
async fn openai_chat_sends_the_chat_completions_wire_format() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::json(
        200,
        wire::openai::completion("{\"intent\":\"other\"}", "stop", Tokens::new(1500, 7).cached(1024)),
    ));
    let model = clive_models::connect(server.config(ProviderKind::OpenAi)).unwrap();

    let reply = model.chat(&full_request()).await.unwrap();

    assert_eq!((reply.text.as_str(), &reply.stop_reason), ("{\"intent\":\"other\"}", &StopReason::EndTurn));
    assert_eq!(reply.usage, Tokens::new(1500, 7).cached(1024).usage());
    let request = only_request(&server);
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), Some("Bearer test-key"));
    assert_eq!(
        request.body,
        json!({
            "model": "gpt-5",
            "messages": [
                {"role": "system", "content": "You classify shell tasks."},
                {"role": "user", "content": "List /tmp"},
                {"role": "assistant", "content": "{"},
            ],
            "max_completion_tokens": 64,
            "temperature": 0.0,
            "stop": ["\n\n"],
            "response_format": {"type": "json_schema", "json_schema": {"name": "intent", "schema": schema(), "strict": true}},
        })
    );
}

#[tokio::test]
async fn openai_stream_reads_the_include_usage_chunk_and_done() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::sse(wire::openai::stream(&["ls", " -la"], "length", Tokens::new(20, 2))).rechunk(11));
    let model = clive_models::connect(server.config(ProviderKind::OpenAi)).unwrap();

    let (deltas, end) = drain(model.chat_stream(&ChatRequest::new("hi").tier(ModelTier::Fast)).await.unwrap()).await;

    assert_eq!(deltas, vec!["ls", " -la"]);
    let end = end.unwrap();
    assert_eq!((end.stop_reason, end.usage), (StopReason::MaxTokens, Tokens::new(20, 2).usage()));
    let body = only_request(&server).body;
    assert_eq!((&body["stream"], &body["stream_options"]), (&json!(true), &json!({"include_usage": true})));
    assert_eq!(body["model"], json!("gpt-5-mini"));
}

#[tokio::test]
async fn openrouter_skips_comment_keepalives_and_sends_attribution_headers() {
    let server = FakeServer::start().await.unwrap();
    let mut frames = vec![wire::openai::comment("OPENROUTER PROCESSING")];
    frames.extend(wire::openai::stream(&["ok"], "stop", Tokens::new(5, 1)));
    server.push(Reply::sse(frames));
    let config = server
        .config(ProviderKind::OpenRouter)
        .header("HTTP-Referer", "https://clive.invalid")
        .header("X-Title", "clive");
    let model = clive_models::connect(config).unwrap();

    let (deltas, end) = drain(model.chat_stream(&ChatRequest::new("hi").max_tokens(5)).await.unwrap()).await;

    assert_eq!((deltas, end.unwrap().stop_reason), (vec!["ok".to_owned()], StopReason::EndTurn));
    let request = only_request(&server);
    assert_eq!(request.path, "/api/v1/chat/completions");
    assert_eq!(request.header("authorization"), Some("Bearer test-key"));
    assert_eq!(request.header("http-referer"), Some("https://clive.invalid"));
    assert_eq!(request.header("x-title"), Some("clive"));
    assert_eq!(request.body["model"], json!("anthropic/claude-sonnet-4.5"));
    assert_eq!(request.body["max_tokens"], json!(5));
}

#[tokio::test]
async fn ollama_openai_endpoint_and_compatible_servers_need_no_key() {
    for kind in [ProviderKind::Ollama, ProviderKind::OpenAiCompatible] {
        let server = FakeServer::start().await.unwrap();
        server.push(Reply::json(200, wire::openai::completion("hi", "stop", Tokens::new(3, 1))));
        let mut config = server.config(kind);
        config.api_key = None;
        let model = clive_models::connect(config).unwrap();

        assert_eq!(model.chat(&ChatRequest::new("hi")).await.unwrap().text, "hi");
        let request = only_request(&server);
        assert_eq!(request.path, "/v1/chat/completions", "{kind}");
        assert_eq!(request.header("authorization"), None, "{kind}");
        assert_eq!(request.body["max_tokens"], json!(1024), "{kind}");
    }
}

#[tokio::test]
async fn ollama_native_chat_and_ndjson_stream() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::json(200, wire::ollama::chat("{\"intent\":\"other\"}", "stop", Tokens::new(40, 6))));
    server.push(Reply::ndjson(wire::ollama::stream(&["a", "b", "c"], "length", Tokens::new(40, 3))).rechunk(13));
    let model = clive_models::connect(server.config(ProviderKind::OllamaNative)).unwrap();

    let reply = model.chat(&full_request()).await.unwrap();
    assert_eq!((reply.stop_reason, reply.usage), (StopReason::EndTurn, Tokens::new(40, 6).usage()));
    let (deltas, end) = drain(model.chat_stream(&ChatRequest::new("x").model("llama3.2")).await.unwrap()).await;
    assert_eq!(deltas.concat(), "abc");
    assert_eq!(end.unwrap().stop_reason, StopReason::MaxTokens);

    let requests = server.requests();
    assert_eq!(requests[0].path, "/api/chat");
    assert_eq!(
        requests[0].body,
        json!({
            "model": "qwen2.5-coder:7b",
            "messages": [
                {"role": "system", "content": "You classify shell tasks."},
                {"role": "user", "content": "List /tmp"},
                {"role": "assistant", "content": "{"},
            ],
            "stream": false,
            "options": {"num_predict": 64, "temperature": 0.0, "stop": ["\n\n"]},
            "format": schema(),
        })
    );
    assert_eq!((&requests[1].body["stream"], &requests[1].body["model"]), (&json!(true), &json!("llama3.2")));
}

#[tokio::test]
async fn metered_model_totals_usage_and_cost_of_plain_and_streamed_calls() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::json(200, wire::openai::completion("a", "stop", Tokens::new(1_000_000, 0))));
    server.push(Reply::sse(wire::openai::stream(&["b"], "stop", Tokens::new(0, 1_000_000))));
    let mut prices = PriceTable::empty();
    prices.merge_json(r#"{"gpt-fake-1": {"input": 2.0, "output": 8.0, "cached_input": 0.5}}"#).unwrap();
    let ledger = Arc::new(UsageLedger::new(prices));
    let model = Metered::new(clive_models::connect(server.config(ProviderKind::OpenAi)).unwrap(), ledger.clone());

    model.chat(&ChatRequest::new("a")).await.unwrap();
    drain(model.chat_stream(&ChatRequest::new("b")).await.unwrap()).await.1.unwrap();

    let totals = ledger.totals();
    assert_eq!((totals.calls, totals.unpriced_calls), (2, 0));
    assert_eq!((totals.usage.input_tokens, totals.usage.output_tokens), (1_000_000, 1_000_000));
    assert!((totals.cost_usd - 10.0).abs() < 1e-9, "{}", totals.cost_usd);
}

#[tokio::test]
async fn keys_never_show_in_debug_output() {
    let server = FakeServer::start().await.unwrap();
    for kind in ProviderKind::ALL {
        let config = server.config(kind).api_key("sk-very-secret");
        assert!(!format!("{config:?}").contains("sk-very-secret"), "{kind}");
        let client = format!(
            "{:?} {:?}",
            clive_models::AnthropicClient::new(config.clone()).unwrap(),
            clive_models::OpenAiClient::new(config.clone()).unwrap()
        );
        assert!(!client.contains("sk-very-secret"), "{kind}: {client}");
    }
}

/// The replies that end one plain and one streamed call in `kind`'s dialect.
fn replies(kind: ProviderKind) -> [Reply; 2] {
    let tokens = Tokens::new(10, 2);
    match kind {
        ProviderKind::Anthropic => [
            Reply::json(200, wire::anthropic::message("ok", "end_turn", tokens)),
            Reply::sse(wire::anthropic::stream(&["o", "k"], "end_turn", tokens)),
        ],
        ProviderKind::OllamaNative => [
            Reply::json(200, wire::ollama::chat("ok", "stop", tokens)),
            Reply::ndjson(wire::ollama::stream(&["o", "k"], "stop", tokens)),
        ],
        _ => [
            Reply::json(200, wire::openai::completion("ok", "stop", tokens)),
            Reply::sse(wire::openai::stream(&["o", "k"], "stop", tokens)),
        ],
    }
}

/// What each provider puts on the wire for one full request, plain and streamed: insta snapshots of the
/// bodies, so any change to what a provider is sent shows up in review.
#[tokio::test]
async fn every_provider_sends_the_bodies_in_its_snapshot() {
    for kind in ProviderKind::ALL {
        let server = FakeServer::start().await.unwrap();
        for reply in replies(kind) {
            server.push(reply);
        }
        let model = clive_models::connect(server.config(kind)).unwrap();
        model.chat(&full_request()).await.unwrap();
        let mut stream = model.chat_stream(&full_request()).await.unwrap();
        while let Some(event) = stream.next().await {
            event.unwrap();
        }
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{kind}");
        let bodies: Vec<_> =
            requests.iter().map(|r| json!({"method": r.method, "path": r.path, "body": r.body})).collect();
        insta::assert_json_snapshot!(format!("{kind}"), bodies);
    }
}
