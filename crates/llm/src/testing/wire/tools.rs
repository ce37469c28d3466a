//! Replies in which the model calls a tool, for the dialects whose text replies live in [`anthropic`](super::anthropic)
//! and [`openai`](super::openai). (Responses and Gemini keep theirs in their own modules.)

use serde_json::{Value, json};

use super::{Tokens, sse_frame};

/// An Anthropic Messages stream whose only content block is a `tool_use` (id `id`) of tool `name` with `input`,
/// ending with stop reason `tool_use`.
pub fn anthropic_tool_use_stream(id: &str, name: &str, input: &Value, tokens: Tokens) -> Vec<String> {
    let usage = |output: u64| {
        json!({"input_tokens": tokens.input - tokens.cached, "cache_creation_input_tokens": 0,
               "cache_read_input_tokens": tokens.cached, "output_tokens": output})
    };
    vec![
        sse_frame(
            Some("message_start"),
            &json!({"type": "message_start", "message": {
                "id": "msg_fake02", "type": "message", "role": "assistant", "model": "claude-fake-1",
                "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage(1)}}),
        ),
        sse_frame(
            Some("content_block_start"),
            &json!({"type": "content_block_start", "index": 0,
                    "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
        ),
        sse_frame(
            Some("content_block_delta"),
            &json!({"type": "content_block_delta", "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}),
        ),
        sse_frame(Some("content_block_stop"), &json!({"type": "content_block_stop", "index": 0})),
        sse_frame(
            Some("message_delta"),
            &json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null},
                    "usage": usage(tokens.output)}),
        ),
        sse_frame(Some("message_stop"), &json!({"type": "message_stop"})),
    ]
}

/// An OpenAI chat-completion stream with one tool call (id `id`) of function `name` with JSON `arguments`,
/// ending with finish reason `tool_calls`.
pub fn openai_tool_call_stream(id: &str, name: &str, arguments: &Value, tokens: Tokens) -> Vec<String> {
    let chunk = |delta: Value, finish: Option<&str>| {
        sse_frame(
            None,
            &json!({"id": "chatcmpl-fake02", "object": "chat.completion.chunk", "created": 1_764_460_800,
                    "model": "gpt-fake-1", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}),
        )
    };
    vec![
        chunk(json!({"role": "assistant", "content": null}), None),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
                                   "function": {"name": name, "arguments": arguments.to_string()}}]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
        sse_frame(
            None,
            &json!({"id": "chatcmpl-fake02", "object": "chat.completion.chunk", "created": 1_764_460_800,
                    "model": "gpt-fake-1", "choices": [],
                    "usage": {"prompt_tokens": tokens.input, "completion_tokens": tokens.output,
                              "total_tokens": tokens.input + tokens.output}}),
        ),
        super::openai::done(),
    ]
}
