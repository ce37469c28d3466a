//! Ollama's native chat API (`POST {host}/api/chat`), streamed as newline-delimited JSON.

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::config::{ProviderConfig, ProviderKind};
use crate::error::{Error, Result};
use crate::model::ChatModel;
use crate::request::ChatRequest;
use crate::response::{ChatResponse, ChatStream, StopReason, StreamEnd, StreamEvent, Usage};
use crate::sse::LineBuffer;
use crate::stream::{Decoder, decode_stream};
use crate::transport::{Transport, error_in_json};

/// A client for Ollama's native `/api/chat`.
#[derive(Debug, Clone)]
pub struct OllamaClient {
    config: ProviderConfig,
    transport: Transport,
    url: String,
}

impl OllamaClient {
    /// Builds the client (Ollama needs no key).
    pub fn new(config: ProviderConfig) -> Result<Self> {
        let base = config.base_url.clone().unwrap_or_else(|| "http://127.0.0.1:11434".to_owned());
        let transport = Transport::new(&config, &[])?;
        Ok(OllamaClient { url: format!("{base}/api/chat"), config, transport })
    }

    /// The JSON body for `request`. `stream` is always sent, because Ollama streams by default.
    pub fn request_body(&self, request: &ChatRequest, stream: bool) -> Value {
        let model = self.config.model_for(request.model.as_deref(), request.tier);
        let mut messages = Vec::new();
        if let Some(system) = &request.system {
            messages.push(json!({"role": "system", "content": system}));
        }
        messages.extend(request.messages.iter().map(|m| json!({"role": m.role.as_str(), "content": m.content})));
        let mut options = json!({"num_predict": request.max_tokens});
        if let Some(temperature) = request.temperature {
            options["temperature"] = json!(temperature);
        }
        if !request.stop.is_empty() {
            options["stop"] = json!(request.stop);
        }
        let mut body = json!({"model": model, "messages": messages, "stream": stream, "options": options});
        if let Some(format) = &request.json_schema {
            body["format"] = format.schema.clone();
        }
        body
    }
}

#[async_trait]
impl ChatModel for OllamaClient {
    fn provider(&self) -> ProviderKind {
        self.config.kind
    }

    fn config(&self) -> &ProviderConfig {
        &self.config
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse> {
        let reply = self.transport.post_json(&self.url, &self.request_body(request, false)).await?;
        let model = self.config.model_for(request.model.as_deref(), request.tier).to_owned();
        let mut decoder = OllamaDecoder::new(self.config.kind, model);
        let mut text = String::new();
        match decoder.line(&reply, &mut text)? {
            Some(end) => Ok(ChatResponse { text, stop_reason: end.stop_reason, usage: end.usage, model: end.model }),
            None => Err(Error::Protocol { provider: self.config.kind, reason: "reply without done: true".into() }),
        }
    }

    async fn chat_stream(&self, request: &ChatRequest) -> Result<ChatStream> {
        let response = self.transport.post_stream(&self.url, &self.request_body(request, true)).await?;
        let model = self.config.model_for(request.model.as_deref(), request.tier).to_owned();
        let decoder = OllamaDecoder::new(self.config.kind, model);
        Ok(decode_stream(response, decoder, self.config.kind, self.transport.timeouts.stream_idle))
    }
}

/// Decodes `/api/chat` NDJSON: `{message:{content}, done:false}` lines, then `{done:true, done_reason,
/// prompt_eval_count, eval_count}`. An `{"error": …}` line (after HTTP 200) ends with [`Error::StreamError`].
pub(crate) struct OllamaDecoder {
    provider: ProviderKind,
    lines: LineBuffer,
    model: String,
}

impl OllamaDecoder {
    pub(crate) fn new(provider: ProviderKind, model: String) -> Self {
        OllamaDecoder { provider, lines: LineBuffer::default(), model }
    }

    /// Handles one JSON line: appends its text to `text`, returns the end if it is the last line.
    fn line(&mut self, value: &Value, text: &mut String) -> Result<Option<StreamEnd>> {
        if let Some((kind, message)) = error_in_json(value) {
            return Err(Error::StreamError { provider: self.provider, kind, message });
        }
        if let Some(model) = value.get("model").and_then(Value::as_str) {
            self.model = model.to_owned();
        }
        if let Some(content) = value.pointer("/message/content").and_then(Value::as_str) {
            text.push_str(content);
        }
        if value.get("done").and_then(Value::as_bool) != Some(true) {
            return Ok(None);
        }
        let count = |name: &str| value.get(name).and_then(Value::as_u64).unwrap_or(0);
        let reason = value.get("done_reason").and_then(Value::as_str).unwrap_or("stop");
        Ok(Some(StreamEnd {
            stop_reason: StopReason::from_wire(reason),
            usage: Usage {
                input_tokens: count("prompt_eval_count"),
                output_tokens: count("eval_count"),
                ..Usage::default()
            },
            model: self.model.clone(),
        }))
    }

    fn text_line(&mut self, line: &str, events: &mut Vec<StreamEvent>) -> Result<bool> {
        if line.trim().is_empty() {
            return Ok(false);
        }
        let value: Value = serde_json::from_str(line).map_err(|error| Error::Protocol {
            provider: self.provider,
            reason: format!("line is not JSON ({error}): {line}"),
        })?;
        let mut text = String::new();
        let end = self.line(&value, &mut text)?;
        if !text.is_empty() {
            events.push(StreamEvent::TextDelta(text));
        }
        match end {
            Some(end) => {
                events.push(StreamEvent::End(end));
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

impl Decoder for OllamaDecoder {
    fn feed(&mut self, bytes: &[u8], events: &mut Vec<StreamEvent>) -> Result<()> {
        for line in self.lines.push(bytes) {
            if self.text_line(&line, events)? {
                return Ok(());
            }
        }
        Ok(())
    }

    fn finish(&mut self, events: &mut Vec<StreamEvent>) -> Result<()> {
        if let Some(rest) = self.lines.take_rest()
            && self.text_line(&rest, events)?
        {
            return Ok(());
        }
        Err(Error::StreamTruncated { provider: self.provider, expected: "a line with done: true" })
    }
}
