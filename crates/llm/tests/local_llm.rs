//! Integration tests against a real model server: llama.cpp's server with Qwen2.5-Coder-0.5B-Instruct (or
//! SmolLM2-135M-Instruct), started by `scripts/local-llm/start.sh`, which prints the URL to put in `LOCAL_LLM_URL`.
//! Skipped (passing, with a message) when `LOCAL_LLM_URL` is unset. The models are tiny, so these tests assert on the
//! protocol, never on content.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic on the unexpected

use std::time::Duration;

use futures_util::StreamExt;
use llm::{ChatModel, ChatRequest, ProviderConfig, ProviderKind, RetryPolicy, StopReason, StreamEvent, Timeouts};

/// The configured client for `kind`, or `None` (after saying why) when no local server is set.
fn local_model(kind: ProviderKind) -> Option<std::sync::Arc<dyn ChatModel>> {
    let Some(url) = std::env::var("LOCAL_LLM_URL").ok().filter(|url| !url.is_empty()) else {
        // Written to stderr directly, past the test harness's capture, so that a plain `cargo test` shows it.
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            let message = "local_llm: skipped, LOCAL_LLM_URL is unset (scripts/local-llm/setup.sh, then \
                           export LOCAL_LLM_URL=\"$(scripts/local-llm/start.sh)\" to test against a real model)\n";
            let _ = std::io::Write::write_all(&mut std::io::stderr(), message.as_bytes());
        });
        return None;
    };
    let base = match kind {
        ProviderKind::Anthropic => url,
        _ => format!("{}/v1", url.trim_end_matches('/')),
    };
    // Generous deadlines: a 2-core CI box may be busy.
    let timeouts = Timeouts {
        connect: Duration::from_secs(5),
        request: Duration::from_secs(120),
        stream_idle: Duration::from_secs(60),
    };
    let config = ProviderConfig::new(kind)
        .base_url(&base)
        .expect("LOCAL_LLM_URL is a URL")
        .timeouts(timeouts)
        .retry(RetryPolicy::fast_for_tests());
    Some(llm::connect(config).expect("client builds"))
}

fn short_request() -> ChatRequest {
    ChatRequest::new("What is the capital of France? One word.")
        .system("You answer briefly.")
        .max_tokens(24)
        .temperature(0.0)
}

fn assert_stop_reason(reason: &StopReason) {
    assert!(matches!(reason, StopReason::EndTurn | StopReason::MaxTokens), "{reason:?}");
}

async fn assert_chat(kind: ProviderKind) {
    let Some(model) = local_model(kind) else { return };
    let reply = model.chat(&short_request()).await.unwrap();
    assert!(!reply.text.trim().is_empty(), "{reply:?}");
    assert_stop_reason(&reply.stop_reason);
    assert!(reply.usage.input_tokens > 0 && reply.usage.output_tokens > 0, "{reply:?}");
    assert!(reply.usage.output_tokens <= 24, "{reply:?}");
}

async fn assert_stream(kind: ProviderKind) {
    let Some(model) = local_model(kind) else { return };
    // A reply of several tokens, so that it arrives in several deltas (a one-word answer may come as one).
    let request = ChatRequest::new("Name three colours, separated by commas.").max_tokens(24).temperature(0.0);
    let mut stream = model.chat_stream(&request).await.unwrap();
    let mut text = String::new();
    let mut deltas = 0;
    let end = loop {
        match stream.next().await.expect("stream ends with End") {
            Ok(StreamEvent::TextDelta(delta)) => {
                text.push_str(&delta);
                deltas += 1;
            }
            Ok(StreamEvent::End(end)) => break end,
            Err(error) => panic!("{error}"),
        }
    };
    assert!(stream.next().await.is_none());
    assert!(deltas > 1 && !text.trim().is_empty(), "{deltas} deltas: {text:?}");
    assert_stop_reason(&end.stop_reason);
    assert!(end.usage.input_tokens > 0 && end.usage.output_tokens > 0, "{end:?}");
}

#[tokio::test]
async fn openai_chat_completions_plain() {
    assert_chat(ProviderKind::OpenAiCompatible).await;
}

#[tokio::test]
async fn openai_chat_completions_streamed() {
    assert_stream(ProviderKind::OpenAiCompatible).await;
}

#[tokio::test]
async fn anthropic_messages_plain() {
    assert_chat(ProviderKind::Anthropic).await;
}

#[tokio::test]
async fn anthropic_messages_streamed() {
    assert_stream(ProviderKind::Anthropic).await;
}

#[tokio::test]
async fn max_tokens_stops_the_reply() {
    let Some(model) = local_model(ProviderKind::OpenAiCompatible) else { return };
    let request = ChatRequest::new("Write a long story about a lighthouse keeper.").max_tokens(5).temperature(0.0);
    let reply = model.chat(&request).await.unwrap();
    assert_eq!(reply.stop_reason, StopReason::MaxTokens, "{reply:?}");
    assert_eq!(reply.usage.output_tokens, 5, "{reply:?}");
}

#[tokio::test]
async fn json_schema_constrains_the_reply_to_valid_json() {
    let Some(model) = local_model(ProviderKind::OpenAiCompatible) else { return };
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"intent": {"type": "string", "enum": ["list_files", "make_directory", "other"]}},
        "required": ["intent"],
        "additionalProperties": false,
    });
    let request = ChatRequest::new("Classify the task: list files in /tmp")
        .system("Classify shell tasks.")
        .max_tokens(40)
        .temperature(0.0)
        .json_schema("intent", schema);
    let reply = model.chat(&request).await.unwrap();
    let value: serde_json::Value =
        serde_json::from_str(&reply.text).unwrap_or_else(|error| panic!("{error}: {:?}", reply.text));
    let intent = value["intent"].as_str().unwrap_or_default();
    assert!(["list_files", "make_directory", "other"].contains(&intent), "{value}");
}
