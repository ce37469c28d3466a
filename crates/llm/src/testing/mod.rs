//! A scripted local server that speaks each provider's wire format, for tests (cargo feature `testing`), and
//! the real local model for smoke tests ([`local`]).
//!
//! [`FakeServer`] listens on `127.0.0.1`, records every request (method, path, headers, JSON body) and answers
//! each one with the next scripted [`Reply`]: a JSON body with any status and headers, or a stream (SSE or NDJSON)
//! sent chunk by chunk with optional delays and an optional connection cut. [`wire`] builds exact replies of each
//! dialect. [`AgentBackend`] answers by route instead of from a queue, for real agent CLIs (Claude Code, Codex,
//! Gemini CLI, Grok, Qwen Code) whose requests no test can predict, and records what they submitted. Tests in
//! other crates enable it with `llm = { workspace = true, features = ["testing"] }` in
//! `[dev-dependencies]`.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use clive_models::testing::{FakeServer, Reply, Tokens, wire};
//! use clive_models::{ChatModel, ChatRequest, ProviderKind, StopReason};
//!
//! let server = FakeServer::start().await?;
//! server.push(Reply::json(200, wire::anthropic::message("Hello", "end_turn", Tokens::new(12, 1))));
//! let model = clive_models::connect(server.config(ProviderKind::Anthropic))?;
//! let reply = model.chat(&ChatRequest::new("Hi").max_tokens(10)).await?;
//! assert_eq!((reply.text.as_str(), reply.stop_reason), ("Hello", StopReason::EndTurn));
//! assert_eq!(server.requests()[0].header("x-api-key"), Some("test-key"));
//! # Ok(()) }
//! ```

mod agent_backend;
pub mod local;
mod reply;
mod server;
pub mod wire;

pub use agent_backend::{AgentBackend, AgentTurn, Api, DEFAULT_REPLY, Turn};
pub use local::{local_llm_url, local_model_config};
pub use reply::Reply;
pub use server::{FakeServer, RecordedRequest};
pub use wire::Tokens;
