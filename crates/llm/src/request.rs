//! What is sent to a chat model.

use serde::{Deserialize, Serialize};

use crate::config::ModelTier;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human or the calling program.
    User,
    /// The model. A final assistant message is a prefill that the reply continues (Anthropic) or context (others).
    Assistant,
}

impl Role {
    /// The role's name on every provider's wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One turn of the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its text.
    pub content: String,
}

impl Message {
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message { role: Role::User, content: content.into() }
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message { role: Role::Assistant, content: content.into() }
    }
}

/// Ask for a reply that is JSON valid against a schema (OpenAI `response_format: json_schema`, Ollama `format`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonSchemaFormat {
    /// A short name for the schema (OpenAI requires one; `[a-zA-Z0-9_-]`, at most 64 characters).
    pub name: String,
    /// The JSON Schema the reply must satisfy.
    pub schema: serde_json::Value,
}

/// A chat request, independent of the provider.
///
/// ```
/// use clive_models::{ChatRequest, ModelTier};
/// let request = ChatRequest::new("List the files in /tmp")
///     .system("You are a shell expert.")
///     .tier(ModelTier::Fast)
///     .max_tokens(200)
///     .temperature(0.0);
/// assert_eq!(request.messages.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// An explicit model name; when `None` the provider's model for [`ChatRequest::tier`] is used.
    pub model: Option<String>,
    /// Which of the provider's two models to use when no explicit model is given.
    pub tier: ModelTier,
    /// The system prompt. Anthropic caches it (`cache_control: ephemeral`) so that long prompts are cheap to repeat.
    pub system: Option<String>,
    /// The conversation, oldest first.
    pub messages: Vec<Message>,
    /// The most tokens the reply may have.
    pub max_tokens: u32,
    /// Sampling temperature; when `None` it is not sent and the provider's default applies (some OpenAI reasoning
    /// models accept no other).
    pub temperature: Option<f32>,
    /// Stop sequences (OpenAI accepts at most 4).
    pub stop: Vec<String>,
    /// Constrain the reply to JSON valid against a schema.
    pub json_schema: Option<JsonSchemaFormat>,
}

impl ChatRequest {
    /// The default `max_tokens`.
    pub const DEFAULT_MAX_TOKENS: u32 = 1024;

    /// A request with one user message and default settings.
    pub fn new(prompt: impl Into<String>) -> Self {
        Self::from_messages(vec![Message::user(prompt)])
    }

    /// A request with the given conversation and default settings.
    pub fn from_messages(messages: Vec<Message>) -> Self {
        ChatRequest {
            model: None,
            tier: ModelTier::Default,
            system: None,
            messages,
            max_tokens: Self::DEFAULT_MAX_TOKENS,
            temperature: None,
            stop: Vec::new(),
            json_schema: None,
        }
    }

    /// Sets the system prompt.
    pub fn system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }

    /// Uses this model instead of the provider's tier model.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Chooses the provider's fast or default model.
    pub fn tier(mut self, tier: ModelTier) -> Self {
        self.tier = tier;
        self
    }

    /// Sets `max_tokens`.
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// Sets the sampling temperature.
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Adds a stop sequence.
    pub fn stop_sequence(mut self, stop: impl Into<String>) -> Self {
        self.stop.push(stop.into());
        self
    }

    /// Appends a message to the conversation.
    pub fn message(mut self, message: Message) -> Self {
        self.messages.push(message);
        self
    }

    /// Constrains the reply to JSON valid against `schema`.
    pub fn json_schema(mut self, name: impl Into<String>, schema: serde_json::Value) -> Self {
        self.json_schema = Some(JsonSchemaFormat { name: name.into(), schema });
        self
    }
}
