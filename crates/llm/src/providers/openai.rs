//! OpenAI chat completions, and everything that speaks it: OpenRouter, Ollama's `/v1`, LM Studio, vLLM, llama.cpp.

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

/// A client for `POST {base}/chat/completions` (OpenAI, OpenRouter, any OpenAI-compatible server) or
/// `POST {host}/v1/chat/completions` (Ollama).
#[derive(Debug, Clone)]
pub struct OpenAiClient {
    config: ProviderConfig,
    transport: Transport,
    url: String,
}

impl OpenAiClient {
    /// Builds the client. Without an API key no `Authorization` header is sent, which suits local servers.
    pub fn new(config: ProviderConfig) -> Result<Self> {
        let base = config.base_url.clone().ok_or_else(|| Error::InvalidSetting {
            setting: "base URL".to_owned(),
            value: String::new(),
            reason: format!("the {} provider needs a base URL, e.g. http://127.0.0.1:8080/v1", config.kind),
        })?;
        let url = match config.kind {
            ProviderKind::Ollama | ProviderKind::OllamaNative => format!("{base}/v1/chat/completions"),
            _ => format!("{base}/chat/completions"),
        };
        let mut secret = Vec::new();
        if let Some(key) = &config.api_key {
            secret.push(("authorization", format!("Bearer {}", key.expose())));
        }
        let transport = Transport::new(&config, &secret)?;
        Ok(OpenAiClient { config, transport, url })
    }

    /// The JSON body for `request`.
    pub fn request_body(&self, request: &ChatRequest, stream: bool) -> Value {
        let model = self.config.model_for(request.model.as_deref(), request.tier);
        let mut messages = Vec::new();
        if let Some(system) = &request.system {
            messages.push(json!({"role": "system", "content": system}));
        }
        messages.extend(request.messages.iter().map(|m| json!({"role": m.role.as_str(), "content": m.content})));
        let mut body = json!({"model": model, "messages": messages});
        // OpenAI deprecated `max_tokens` (o-series models reject it); the compatible servers know `max_tokens` best.
        let limit_field = if self.config.kind == ProviderKind::OpenAi { "max_completion_tokens" } else { "max_tokens" };
        body[limit_field] = json!(request.max_tokens);
        if let Some(temperature) = request.temperature {
            body["temperature"] = json!(temperature);
        }
        if !request.stop.is_empty() {
            body["stop"] = json!(request.stop);
        }
        if let Some(format) = &request.json_schema {
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": {"name": format.name, "schema": format.schema, "strict": true},
            });
        }
        if stream {
            body["stream"] = json!(true);
            body["stream_options"] = json!({"include_usage": true});
        }
        body
    }
}

#[async_trait]
impl ChatModel for OpenAiClient {
    fn provider(&self) -> ProviderKind {
        self.config.kind
    }

    fn config(&self) -> &ProviderConfig {
        &self.config
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse> {
        let reply = self.transport.post_json(&self.url, &self.request_body(request, false)).await?;
        parse_completion(self.config.kind, &reply, self.config.model_for(request.model.as_deref(), request.tier))
    }

    async fn chat_stream(&self, request: &ChatRequest) -> Result<ChatStream> {
        let response = self.transport.post_stream(&self.url, &self.request_body(request, true)).await?;
        let model = self.config.model_for(request.model.as_deref(), request.tier).to_owned();
        let decoder = OpenAiDecoder::new(self.config.kind, model);
        Ok(decode_stream(response, decoder, self.config.kind, self.transport.timeouts.stream_idle))
    }
}

fn parse_usage(usage: &Value) -> Usage {
    let count = |value: Option<&Value>| value.and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: count(usage.get("prompt_tokens")),
        output_tokens: count(usage.get("completion_tokens")),
        cached_input_tokens: count(usage.pointer("/prompt_tokens_details/cached_tokens")),
        cache_write_tokens: count(usage.pointer("/prompt_tokens_details/cache_write_tokens")),
    }
}

fn parse_completion(provider: ProviderKind, reply: &Value, requested_model: &str) -> Result<ChatResponse> {
    // OpenRouter can answer 200 with an error object.
    if let Some((kind, message)) = error_in_json(reply) {
        return Err(Error::Api { provider, status: 200, kind, message, request_id: None });
    }
    let malformed = |reason: &str| Error::Protocol { provider, reason: reason.to_owned() };
    let choice = reply.pointer("/choices/0").ok_or_else(|| malformed("no choices"))?;
    let text = choice.pointer("/message/content").and_then(Value::as_str).unwrap_or_default().to_owned();
    let stop_reason = choice
        .get("finish_reason")
        .and_then(Value::as_str)
        .map(StopReason::from_wire)
        .ok_or_else(|| malformed("no finish_reason"))?;
    let usage = reply.get("usage").map(parse_usage).unwrap_or_default();
    let model = reply.get("model").and_then(Value::as_str).unwrap_or(requested_model).to_owned();
    Ok(ChatResponse { text, stop_reason, usage, model })
}

/// Decodes the chat-completion SSE stream: `data:` chunks with `choices[0].delta.content`, `finish_reason` on the
/// last choice chunk, a final `choices: []` chunk with `usage`, then `data: [DONE]`. A `data: {"error": …}` chunk
/// (OpenRouter, after HTTP 200) ends the stream with [`Error::StreamError`].
pub(crate) struct OpenAiDecoder {
    provider: ProviderKind,
    parser: SseParser,
    model: String,
    usage: Usage,
    stop_reason: Option<StopReason>,
}

impl OpenAiDecoder {
    pub(crate) fn new(provider: ProviderKind, model: String) -> Self {
        OpenAiDecoder { provider, parser: SseParser::default(), model, usage: Usage::default(), stop_reason: None }
    }
}

impl Decoder for OpenAiDecoder {
    fn feed(&mut self, bytes: &[u8], events: &mut Vec<StreamEvent>) -> Result<()> {
        for frame in self.parser.push(bytes) {
            if frame.data.trim() == "[DONE]" {
                events.push(StreamEvent::End(StreamEnd {
                    // A server that never sent a finish_reason still ended the reply properly.
                    stop_reason: self.stop_reason.take().unwrap_or(StopReason::Other("unspecified".to_owned())),
                    usage: self.usage,
                    model: self.model.clone(),
                }));
                return Ok(());
            }
            let chunk: Value = serde_json::from_str(&frame.data).map_err(|error| Error::Protocol {
                provider: self.provider,
                reason: format!("chunk is not JSON ({error}): {}", frame.data),
            })?;
            if let Some((kind, message)) = error_in_json(&chunk) {
                return Err(Error::StreamError { provider: self.provider, kind, message });
            }
            if let Some(model) = chunk.get("model").and_then(Value::as_str) {
                self.model = model.to_owned();
            }
            if let Some(usage) = chunk.get("usage").filter(|usage| usage.is_object()) {
                self.usage = parse_usage(usage);
            }
            if let Some(choice) = chunk.pointer("/choices/0") {
                if let Some(text) = choice.pointer("/delta/content").and_then(Value::as_str)
                    && !text.is_empty()
                {
                    events.push(StreamEvent::TextDelta(text.to_owned()));
                }
                if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(StopReason::from_wire(reason));
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, _events: &mut Vec<StreamEvent>) -> Result<()> {
        Err(Error::StreamTruncated { provider: self.provider, expected: "data: [DONE]" })
    }
}
