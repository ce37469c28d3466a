//! Thin, reliable chat-model clients for Anthropic, OpenAI, OpenRouter, Ollama and any OpenAI-compatible server.
//!
//! One async trait, [`ChatModel`], with a plain and a streaming call. Each provider is a small client over the
//! workspace's one `reqwest`: it speaks the provider's own wire format (Anthropic Messages SSE, OpenAI
//! chat-completion SSE, Ollama NDJSON), retries transient failures with jittered exponential backoff honouring
//! `retry-after`, enforces connect, request and stream-idle deadlines, and reports usage (input, output and cached
//! tokens). [`Metered`] adds every call to a [`UsageLedger`] with an estimated cost from a [`PriceTable`];
//! [`Budgeted`] draws every call of a run from one [`TokenBudget`], counting calls in flight and failed ones.
//!
//! Configuration follows each ecosystem's variables (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `OPENAI_API_KEY`,
//! `OPENAI_BASE_URL`, `OPENROUTER_API_KEY`, `OLLAMA_HOST`) or is set explicitly; see [`ProviderConfig`]. Keys never
//! appear in `Debug` output or logs.
//!
//! A model's [`ModelProfile`] (`small`, `standard`, `large`) says how much help it needs; [`ProfileChoice`] chooses
//! it from the caller's configuration, the model's name and the provider.
//!
//! ```no_run
//! use futures_util::StreamExt;
//! use clive_models::{ChatRequest, ModelTier, ProviderConfig, StreamEvent};
//!
//! # async fn demo() -> Result<(), clive_models::Error> {
//! let model = clive_models::connect(ProviderConfig::detect_from_env()?)?;
//! let request = ChatRequest::new("Name one Unix shell.").tier(ModelTier::Fast).max_tokens(50);
//! let reply = model.chat(&request).await?;
//! println!("{} ({:?}, {} tokens out)", reply.text, reply.stop_reason, reply.usage.output_tokens);
//!
//! let mut stream = model.chat_stream(&request).await?;
//! while let Some(event) = stream.next().await {
//!     match event? {
//!         StreamEvent::TextDelta(text) => print!("{text}"),
//!         StreamEvent::End(end) => println!("\n[{:?}, {:?}]", end.stop_reason, end.usage),
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! With the `testing` feature, `clive_models::testing::FakeServer` is a scripted local server speaking every wire format,
//! for tests of this crate and of the crates that use it.

mod budget;
mod config;
mod error;
mod metered;
mod model;
mod pricing;
mod profile;
pub mod providers;
mod request;
mod response;
mod retry;
mod sse;
mod stream;
#[cfg(feature = "testing")]
pub mod testing;
mod transport;

pub use budget::{BudgetState, Budgeted, TokenBudget, estimate_prompt_tokens};
pub use config::{ApiKey, ModelTier, ModelTiers, PROVIDER_VARIABLES, ProviderConfig, ProviderKind};
pub use error::{Error, Result};
pub use metered::{Metered, UsageLedger, UsageTotals};
pub use model::{ChatModel, connect};
pub use pricing::{ModelPrice, PriceTable};
pub use profile::{
    LARGE_FROM_BILLIONS, ModelProfile, ProfileChoice, ProfileSource, SMALL_BELOW_BILLIONS, parameters_in_name,
    profile_from_name,
};
pub use providers::anthropic::AnthropicClient;
pub use providers::ollama::OllamaClient;
pub use providers::openai::OpenAiClient;
pub use request::{ChatRequest, JsonSchemaFormat, Message, Role};
pub use response::{ChatResponse, ChatStream, StopReason, StreamEnd, StreamEvent, Usage, collect_stream};
pub use retry::{RetryPolicy, Timeouts};
