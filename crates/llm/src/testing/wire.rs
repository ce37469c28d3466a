//! Exact replies of each provider's wire format, for scripting a [`FakeServer`](super::FakeServer).

use crate::response::Usage;

/// Token counts to put on the wire, translated to each dialect (Anthropic's `input_tokens` excludes cached
/// tokens; OpenAI's `prompt_tokens` includes them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    /// All input tokens, cached included.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from the cache.
    pub cached: u64,
}

impl Tokens {
    /// `input` and `output` tokens, none cached.
    pub fn new(input: u64, output: u64) -> Self {
        Tokens { input, output, cached: 0 }
    }

    /// Marks `cached` of the input tokens as read from the cache.
    pub fn cached(mut self, cached: u64) -> Self {
        self.cached = cached;
        self
    }

    /// The [`Usage`] a client should report for these counts.
    pub fn usage(&self) -> Usage {
        Usage {
            input_tokens: self.input,
            output_tokens: self.output,
            cached_input_tokens: self.cached,
            cache_write_tokens: 0,
        }
    }
}

/// One SSE frame: optional `event:` line, one `data:` line, blank line.
pub fn sse_frame(event: Option<&str>, data: &serde_json::Value) -> String {
    match event {
        Some(event) => format!("event: {event}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// The Anthropic Messages API.
pub mod anthropic {
    use serde_json::{Value, json};

    use super::{Tokens, sse_frame};

    fn usage(tokens: Tokens, output: u64) -> Value {
        json!({
            "input_tokens": tokens.input - tokens.cached,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": tokens.cached,
            "output_tokens": output,
        })
    }

    /// A non-streamed message reply.
    pub fn message(text: &str, stop_reason: &str, tokens: Tokens) -> Value {
        json!({
            "id": "msg_fake01",
            "type": "message",
            "role": "assistant",
            "model": "claude-fake-1",
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop_reason,
            "stop_sequence": null,
            "usage": usage(tokens, tokens.output),
        })
    }

    /// A whole stream: `message_start`, `content_block_start`, `ping`, one `content_block_delta` per delta,
    /// `content_block_stop`, `message_delta` (stop reason, cumulative usage), `message_stop`.
    pub fn stream(deltas: &[&str], stop_reason: &str, tokens: Tokens) -> Vec<String> {
        let mut frames = vec![
            sse_frame(
                Some("message_start"),
                &json!({"type": "message_start", "message": {
                    "id": "msg_fake01", "type": "message", "role": "assistant", "model": "claude-fake-1",
                    "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage(tokens, 1)}}),
            ),
            sse_frame(
                Some("content_block_start"),
                &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            ),
            sse_frame(Some("ping"), &json!({"type": "ping"})),
        ];
        frames.extend(deltas.iter().map(|text| {
            sse_frame(
                Some("content_block_delta"),
                &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
            )
        }));
        frames.push(sse_frame(Some("content_block_stop"), &json!({"type": "content_block_stop", "index": 0})));
        frames.push(sse_frame(
            Some("message_delta"),
            &json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                    "usage": usage(tokens, tokens.output)}),
        ));
        frames.push(sse_frame(Some("message_stop"), &json!({"type": "message_stop"})));
        frames
    }

    /// An error body (`{"type":"error","error":{"type","message"}}`), for an error status or an `error` event.
    pub fn error_body(kind: &str, message: &str) -> Value {
        json!({"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_fake01"})
    }

    /// An `error` event, as sent mid-stream after HTTP 200.
    pub fn error_event(kind: &str, message: &str) -> String {
        sse_frame(Some("error"), &error_body(kind, message))
    }
}

/// OpenAI chat completions (and OpenRouter, Ollama `/v1`, llama.cpp, vLLM, LM Studio).
pub mod openai {
    use serde_json::{Value, json};

    use super::{Tokens, sse_frame};

    fn usage(tokens: Tokens) -> Value {
        json!({
            "prompt_tokens": tokens.input,
            "completion_tokens": tokens.output,
            "total_tokens": tokens.input + tokens.output,
            "prompt_tokens_details": {"cached_tokens": tokens.cached, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0},
        })
    }

    /// A non-streamed completion.
    pub fn completion(text: &str, finish_reason: &str, tokens: Tokens) -> Value {
        json!({
            "id": "chatcmpl-fake01",
            "object": "chat.completion",
            "created": 1_764_460_800,
            "model": "gpt-fake-1",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text, "refusal": null},
                         "finish_reason": finish_reason, "logprobs": null}],
            "usage": usage(tokens),
            "system_fingerprint": "fp_fake",
        })
    }

    fn chunk(delta: Value, finish_reason: Option<&str>) -> String {
        sse_frame(
            None,
            &json!({"id": "chatcmpl-fake01", "object": "chat.completion.chunk", "created": 1_764_460_800,
                    "model": "gpt-fake-1", "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
                    "usage": null}),
        )
    }

    /// A whole stream: a role chunk, one chunk per delta, a chunk with `finish_reason`, the `include_usage` chunk
    /// (`choices: []`), then `data: [DONE]`.
    pub fn stream(deltas: &[&str], finish_reason: &str, tokens: Tokens) -> Vec<String> {
        let mut frames = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
        frames.extend(deltas.iter().map(|text| chunk(json!({"content": text}), None)));
        frames.push(chunk(json!({}), Some(finish_reason)));
        frames.push(sse_frame(
            None,
            &json!({"id": "chatcmpl-fake01", "object": "chat.completion.chunk", "created": 1_764_460_800,
                    "model": "gpt-fake-1", "choices": [], "usage": usage(tokens)}),
        ));
        frames.push(done());
        frames
    }

    /// The stream's end marker, `data: [DONE]`.
    pub fn done() -> String {
        "data: [DONE]\n\n".to_owned()
    }

    /// An SSE comment line, like OpenRouter's `: OPENROUTER PROCESSING` keep-alive.
    pub fn comment(text: &str) -> String {
        format!(": {text}\n\n")
    }

    /// An error body (`{"error":{"message","type","param","code"}}`).
    pub fn error_body(kind: &str, message: &str) -> Value {
        json!({"error": {"message": message, "type": kind, "param": null, "code": null}})
    }

    /// A mid-stream error chunk (`data: {"error": …}` after HTTP 200, as OpenRouter sends).
    pub fn error_chunk(kind: &str, message: &str) -> String {
        sse_frame(None, &error_body(kind, message))
    }
}

/// Ollama's native `/api/chat`.
pub mod ollama {
    use serde_json::{Value, json};

    use super::Tokens;

    fn line(content: &str, done: bool) -> Value {
        json!({"model": "qwen-fake:1b", "created_at": "2026-11-30T12:00:00Z",
               "message": {"role": "assistant", "content": content}, "done": done})
    }

    fn last_line(content: &str, done_reason: &str, tokens: Tokens) -> Value {
        let mut last = line(content, true);
        for (name, value) in [
            ("done_reason", json!(done_reason)),
            ("total_duration", json!(120_000_000)),
            ("load_duration", json!(1_000_000)),
            ("prompt_eval_count", json!(tokens.input)),
            ("prompt_eval_duration", json!(20_000_000)),
            ("eval_count", json!(tokens.output)),
            ("eval_duration", json!(90_000_000)),
        ] {
            last[name] = value;
        }
        last
    }

    /// A non-streamed reply (`stream: false`).
    pub fn chat(text: &str, done_reason: &str, tokens: Tokens) -> Value {
        last_line(text, done_reason, tokens)
    }

    /// A whole NDJSON stream: one line per delta, then the `done: true` line with counts.
    pub fn stream(deltas: &[&str], done_reason: &str, tokens: Tokens) -> Vec<Value> {
        let mut lines: Vec<Value> = deltas.iter().map(|text| line(text, false)).collect();
        lines.push(last_line("", done_reason, tokens));
        lines
    }

    /// An error (`{"error": "…"}`), as a body or a mid-stream line.
    pub fn error(message: &str) -> Value {
        json!({"error": message})
    }
}

pub mod gemini;
pub mod responses;
pub mod tools;
