//! What comes back from a chat model.

use std::pin::Pin;

use futures_util::{Stream, StreamExt};
use serde::{Deserialize, Serialize};

use crate::error::Result;

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished its turn (Anthropic `end_turn`, OpenAI and Ollama `stop`).
    EndTurn,
    /// The reply hit `max_tokens` (Anthropic `max_tokens`, OpenAI and Ollama `length`).
    MaxTokens,
    /// A stop sequence was generated (Anthropic `stop_sequence`; OpenAI reports this as `stop`, i.e. `EndTurn`).
    StopSequence,
    /// The model wants to call a tool.
    ToolUse,
    /// The provider's content filter cut the reply (OpenAI `content_filter`).
    ContentFilter,
    /// The model refused (Anthropic `refusal`).
    Refusal,
    /// Any other reason, as the provider spelled it.
    Other(String),
}

impl StopReason {
    /// Maps a provider's stop or finish reason to a [`StopReason`].
    pub fn from_wire(reason: &str) -> Self {
        match reason {
            "end_turn" | "stop" => StopReason::EndTurn,
            "max_tokens" | "length" => StopReason::MaxTokens,
            "stop_sequence" => StopReason::StopSequence,
            "tool_use" | "tool_calls" | "function_call" => StopReason::ToolUse,
            "content_filter" => StopReason::ContentFilter,
            "refusal" => StopReason::Refusal,
            other => StopReason::Other(other.to_owned()),
        }
    }
}

/// Token counts of one call (or a sum of calls).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// All input tokens, cached ones included (Anthropic's `input_tokens` excludes them; this adds them back).
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens read from the provider's prompt cache (part of `input_tokens`).
    pub cached_input_tokens: u64,
    /// Input tokens written to the prompt cache (Anthropic `cache_creation_input_tokens`; part of `input_tokens`).
    pub cache_write_tokens: u64,
}

impl Usage {
    /// Input tokens billed at the full input price: neither read from nor written to the cache.
    pub fn uncached_input_tokens(&self) -> u64 {
        self.input_tokens.saturating_sub(self.cached_input_tokens).saturating_sub(self.cache_write_tokens)
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cached_input_tokens += other.cached_input_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
    }
}

/// A complete reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The reply's text (all text blocks joined).
    pub text: String,
    /// Why the model stopped.
    pub stop_reason: StopReason,
    /// Token counts.
    pub usage: Usage,
    /// The model that answered, as the provider named it (or as requested, if the provider did not say).
    pub model: String,
}

/// The end of a streamed reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamEnd {
    /// Why the model stopped.
    pub stop_reason: StopReason,
    /// Token counts of the whole call.
    pub usage: Usage,
    /// The model that answered.
    pub model: String,
}

/// One item of a streamed reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum StreamEvent {
    /// The next piece of the reply's text.
    TextDelta(String),
    /// The reply is complete; always the last item of a successful stream.
    End(StreamEnd),
}

/// A streamed reply: text deltas, then [`StreamEvent::End`]; or an error, after which the stream ends.
/// Dropping it closes the connection.
pub type ChatStream = Pin<Box<dyn Stream<Item = Result<StreamEvent>> + Send>>;

/// Reads a stream to its end and assembles the [`ChatResponse`].
pub async fn collect_stream(mut stream: ChatStream) -> Result<ChatResponse> {
    let mut text = String::new();
    while let Some(event) = stream.next().await {
        match event? {
            StreamEvent::TextDelta(delta) => text.push_str(&delta),
            StreamEvent::End(end) => {
                return Ok(ChatResponse { text, stop_reason: end.stop_reason, usage: end.usage, model: end.model });
            }
        }
    }
    // Streams built by this crate always end with `End` or an error; a hand-made one might not.
    Ok(ChatResponse {
        text,
        stop_reason: StopReason::Other("unknown".to_owned()),
        usage: Usage::default(),
        model: String::new(),
    })
}
