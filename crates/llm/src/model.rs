//! The one trait every provider implements, and the function that picks the implementation for a configuration.

use std::sync::Arc;

use async_trait::async_trait;

use crate::config::{ProviderConfig, ProviderKind};
use crate::error::Result;
use crate::providers::anthropic::AnthropicClient;
use crate::providers::ollama::OllamaClient;
use crate::providers::openai::OpenAiClient;
use crate::request::ChatRequest;
use crate::response::{ChatResponse, ChatStream};

/// A chat model behind some provider. Calls are cancelled by dropping their future (or the stream).
#[async_trait]
pub trait ChatModel: Send + Sync {
    /// Which provider this is.
    fn provider(&self) -> ProviderKind;

    /// The configuration in use (its key prints as `***`).
    fn config(&self) -> &ProviderConfig;

    /// Sends `request` and waits for the whole reply.
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse>;

    /// Sends `request` and streams the reply: text deltas, then the stop reason and usage. Failures before the
    /// first byte are retried like [`ChatModel::chat`]; a stream that breaks later is not (text was delivered).
    async fn chat_stream(&self, request: &ChatRequest) -> Result<ChatStream>;

    /// The model name `request` will run on.
    fn model_for(&self, request: &ChatRequest) -> String {
        self.config().model_for(request.model.as_deref(), request.tier).to_owned()
    }
}

/// Builds the client for `config`'s provider.
///
/// ```no_run
/// # async fn demo() -> Result<(), clive_models::Error> {
/// let model = clive_models::connect(clive_models::ProviderConfig::detect_from_env()?)?;
/// let reply = model.chat(&clive_models::ChatRequest::new("Say hi").max_tokens(20)).await?;
/// println!("{}", reply.text);
/// # Ok(()) }
/// ```
pub fn connect(config: ProviderConfig) -> Result<Arc<dyn ChatModel>> {
    Ok(match config.kind {
        ProviderKind::Anthropic => Arc::new(AnthropicClient::new(config)?),
        ProviderKind::OllamaNative => Arc::new(OllamaClient::new(config)?),
        ProviderKind::OpenAi | ProviderKind::OpenRouter | ProviderKind::Ollama | ProviderKind::OpenAiCompatible => {
            Arc::new(OpenAiClient::new(config)?)
        }
    })
}
