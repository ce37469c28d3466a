//! Integration tests against a real model server: llama.cpp's server with Qwen2.5-Coder-0.5B-Instruct (or
//! SmolLM2-135M-Instruct), started by `scripts/local-llm/start.sh`, which prints the URL to put in `LOCAL_LLM_URL`.
//! Ignored by a plain `cargo test`; `cargo test -- --ignored` runs them and they fail, saying what to do, when
//! `LOCAL_LLM_URL` is unset (`.ci/run` starts the model and runs them). The models are tiny, so these tests
//! assert on the protocol, never on content.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic on the unexpected

use clive_models::{ChatModel, ChatRequest, ProviderKind, StopReason, StreamEvent};
use futures_util::StreamExt;

/// The client for the local model in the dialect `kind`; panics with what to do when `LOCAL_LLM_URL` is unset.
fn local_model(kind: ProviderKind) -> std::sync::Arc<dyn ChatModel> {
    clive_models::connect(clive_models::testing::local_model_config(kind)).expect("client builds")
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
    let model = local_model(kind);
    let reply = model.chat(&short_request()).await.unwrap();
    assert!(!reply.text.trim().is_empty(), "{reply:?}");
    assert_stop_reason(&reply.stop_reason);
    assert!(reply.usage.input_tokens > 0 && reply.usage.output_tokens > 0, "{reply:?}");
    assert!(reply.usage.output_tokens <= 24, "{reply:?}");
}

async fn assert_stream(kind: ProviderKind) {
    let model = local_model(kind);
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
#[ignore = "needs the local model: LOCAL_LLM_URL (scripts/local-llm)"]
async fn openai_chat_completions_plain() {
    assert_chat(ProviderKind::OpenAiCompatible).await;
}

#[tokio::test]
#[ignore = "needs the local model: LOCAL_LLM_URL (scripts/local-llm)"]
async fn openai_chat_completions_streamed() {
    assert_stream(ProviderKind::OpenAiCompatible).await;
}

#[tokio::test]
#[ignore = "needs the local model: LOCAL_LLM_URL (scripts/local-llm)"]
async fn anthropic_messages_plain() {
    assert_chat(ProviderKind::Anthropic).await;
}

#[tokio::test]
#[ignore = "needs the local model: LOCAL_LLM_URL (scripts/local-llm)"]
async fn anthropic_messages_streamed() {
    assert_stream(ProviderKind::Anthropic).await;
}

#[tokio::test]
#[ignore = "needs the local model: LOCAL_LLM_URL (scripts/local-llm)"]
async fn max_tokens_stops_the_reply() {
    let model = local_model(ProviderKind::OpenAiCompatible);
    let request = ChatRequest::new("Write a long story about a lighthouse keeper.").max_tokens(5).temperature(0.0);
    let reply = model.chat(&request).await.unwrap();
    assert_eq!(reply.stop_reason, StopReason::MaxTokens, "{reply:?}");
    assert_eq!(reply.usage.output_tokens, 5, "{reply:?}");
}

#[tokio::test]
#[ignore = "needs the local model: LOCAL_LLM_URL (scripts/local-llm)"]
async fn json_schema_constrains_the_reply_to_valid_json() {
    let model = local_model(ProviderKind::OpenAiCompatible);
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
