//! Anthropic Messages API (`POST {base}/v1/messages`).

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::config::{ProviderConfig, ProviderKind};
use crate::error::{Error, Result};
use crate::model::ChatModel;
use crate::request::ChatRequest;
use crate::response::{ChatResponse, ChatStream, StopReason, StreamEnd, StreamEvent, Usage};
use crate::sse::SseParser;
use crate::stream::{Decoder, decode_stream};
use crate::transport::{Transport, error_in_json};

/// The API version this client speaks.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// A client for Anthropic's Messages API (and servers that speak it: llama.cpp's server, Ollama's `/v1/messages`).
#[derive(Debug, Clone)]
pub struct AnthropicClient {
    config: ProviderConfig,
    transport: Transport,
    url: String,
}

impl AnthropicClient {
    /// Builds the client. Without an API key no `x-api-key` is sent, which suits local servers.
    pub fn new(config: ProviderConfig) -> Result<Self> {
        let base = config.base_url.clone().unwrap_or_else(|| "https://api.anthropic.com".to_owned());
        let mut secret = Vec::new();
        if let Some(key) = &config.api_key {
            secret.push(("x-api-key", key.expose().to_owned()));
        }
        let mut transport_config = config.clone();
        transport_config.extra_headers.insert(0, ("anthropic-version".to_owned(), ANTHROPIC_VERSION.to_owned()));
        let transport = Transport::new(&transport_config, &secret)?;
        Ok(AnthropicClient { url: format!("{base}/v1/messages"), config, transport })
    }

    /// The JSON body for `request`.
    pub fn request_body(&self, request: &ChatRequest, stream: bool) -> Value {
        let model = self.config.model_for(request.model.as_deref(), request.tier);
        let messages: Vec<Value> =
            request.messages.iter().map(|m| json!({"role": m.role.as_str(), "content": m.content})).collect();
        let mut body = json!({"model": model, "max_tokens": request.max_tokens, "messages": messages});
        if let Some(system) = &request.system {
            // A block with a cache breakpoint: the (long, repeated) system prompt is read from the cache at 0.1×.
            body["system"] = json!([{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]);
        }
        if let Some(temperature) = request.temperature {
            body["temperature"] = json!(temperature);
        }
        if !request.stop.is_empty() {
            body["stop_sequences"] = json!(request.stop);
        }
        if let Some(format) = &request.json_schema {
            body["output_config"] = json!({"format": {"type": "json_schema", "schema": format.schema}});
        }
        if stream {
            body["stream"] = json!(true);
        }
        body
    }
}

#[async_trait]
impl ChatModel for AnthropicClient {
    fn provider(&self) -> ProviderKind {
        self.config.kind
    }

    fn config(&self) -> &ProviderConfig {
        &self.config
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse> {
        let reply = self.transport.post_json(&self.url, &self.request_body(request, false)).await?;
        parse_message(self.config.kind, &reply, self.config.model_for(request.model.as_deref(), request.tier))
    }

    async fn chat_stream(&self, request: &ChatRequest) -> Result<ChatStream> {
        let response = self.transport.post_stream(&self.url, &self.request_body(request, true)).await?;
        let model = self.config.model_for(request.model.as_deref(), request.tier).to_owned();
        let decoder = AnthropicDecoder::new(self.config.kind, model);
        Ok(decode_stream(response, decoder, self.config.kind, self.transport.timeouts.stream_idle))
    }
}

/// Reads Anthropic's `usage` object, adding cached tokens back into the input count.
fn parse_usage(usage: &Value, into: &mut Usage) {
    let count = |name: &str| usage.get(name).and_then(Value::as_u64);
    // Each field may be absent from a later event (`message_delta`); keep what the earlier one said.
    let fresh = count("input_tokens").unwrap_or(into.uncached_input_tokens());
    into.cached_input_tokens = count("cache_read_input_tokens").unwrap_or(into.cached_input_tokens);
    into.cache_write_tokens = count("cache_creation_input_tokens").unwrap_or(into.cache_write_tokens);
    into.input_tokens = fresh + into.cached_input_tokens + into.cache_write_tokens;
    into.output_tokens = count("output_tokens").unwrap_or(into.output_tokens);
}

fn parse_message(provider: ProviderKind, reply: &Value, requested_model: &str) -> Result<ChatResponse> {
    let malformed = |reason: &str| Error::Protocol { provider, reason: reason.to_owned() };
    let content = reply.get("content").and_then(Value::as_array).ok_or_else(|| malformed("no content array"))?;
    let text: String = content
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect();
    let stop_reason = reply
        .get("stop_reason")
        .and_then(Value::as_str)
        .map(StopReason::from_wire)
        .ok_or_else(|| malformed("no stop_reason"))?;
    let mut usage = Usage::default();
    if let Some(wire) = reply.get("usage") {
        parse_usage(wire, &mut usage);
    }
    let model = reply.get("model").and_then(Value::as_str).unwrap_or(requested_model).to_owned();
    Ok(ChatResponse { text, stop_reason, usage, model })
}

/// Decodes the Messages SSE stream: `message_start`, `content_block_*`, `message_delta` (cumulative usage),
/// `message_stop`; `ping` ignored; `error` (possibly after HTTP 200) ends the stream with [`Error::StreamError`].
pub(crate) struct AnthropicDecoder {
    provider: ProviderKind,
    parser: SseParser,
    model: String,
    usage: Usage,
    stop_reason: Option<StopReason>,
}

impl AnthropicDecoder {
    pub(crate) fn new(provider: ProviderKind, model: String) -> Self {
        AnthropicDecoder { provider, parser: SseParser::default(), model, usage: Usage::default(), stop_reason: None }
    }
}

impl Decoder for AnthropicDecoder {
    fn feed(&mut self, bytes: &[u8], events: &mut Vec<StreamEvent>) -> Result<()> {
        for frame in self.parser.push(bytes) {
            let data: Value = serde_json::from_str(&frame.data).map_err(|error| Error::Protocol {
                provider: self.provider,
                reason: format!("event data is not JSON ({error}): {}", frame.data),
            })?;
            let kind = frame.event.as_deref().or_else(|| data.get("type").and_then(Value::as_str)).unwrap_or("");
            match kind {
                "message_start" => {
                    let message = &data["message"];
                    if let Some(model) = message.get("model").and_then(Value::as_str) {
                        self.model = model.to_owned();
                    }
                    if let Some(usage) = message.get("usage") {
                        parse_usage(usage, &mut self.usage);
                    }
                }
                "content_block_delta" => {
                    let delta = &data["delta"];
                    if delta.get("type").and_then(Value::as_str) == Some("text_delta")
                        && let Some(text) = delta.get("text").and_then(Value::as_str)
                        && !text.is_empty()
                    {
                        events.push(StreamEvent::TextDelta(text.to_owned()));
                    }
                }
                "message_delta" => {
                    if let Some(reason) = data["delta"].get("stop_reason").and_then(Value::as_str) {
                        self.stop_reason = Some(StopReason::from_wire(reason));
                    }
                    if let Some(usage) = data.get("usage") {
                        parse_usage(usage, &mut self.usage);
                    }
                }
                "message_stop" => {
                    let stop_reason = self.stop_reason.take().ok_or_else(|| Error::Protocol {
                        provider: self.provider,
                        reason: "message_stop before any message_delta with a stop_reason".to_owned(),
                    })?;
                    events.push(StreamEvent::End(StreamEnd {
                        stop_reason,
                        usage: self.usage,
                        model: self.model.clone(),
                    }));
                    return Ok(());
                }
                "error" => {
                    let (kind, message) = error_in_json(&data).unwrap_or(("error".to_owned(), frame.data.clone()));
                    return Err(Error::StreamError { provider: self.provider, kind, message });
                }
                // ping, content_block_start/stop and event types added later carry nothing we need.
                _ => {}
            }
        }
        Ok(())
    }

    fn finish(&mut self, _events: &mut Vec<StreamEvent>) -> Result<()> {
        Err(Error::StreamTruncated { provider: self.provider, expected: "message_stop" })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn later_usage_events_update_only_the_fields_they_carry() {
        let mut usage = Usage::default();
        parse_usage(
            &json!({"input_tokens": 10, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 5, "output_tokens": 1}),
            &mut usage,
        );
        assert_eq!(
            usage,
            Usage { input_tokens: 115, output_tokens: 1, cached_input_tokens: 100, cache_write_tokens: 5 }
        );
        parse_usage(&json!({"output_tokens": 42}), &mut usage);
        assert_eq!(
            usage,
            Usage { input_tokens: 115, output_tokens: 42, cached_input_tokens: 100, cache_write_tokens: 5 }
        );
        parse_usage(&json!({"cache_read_input_tokens": 0}), &mut usage);
        assert_eq!((usage.input_tokens, usage.cached_input_tokens), (15, 0));
    }
}
