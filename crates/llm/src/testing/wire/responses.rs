//! The OpenAI Responses API (`POST /v1/responses`, SSE), as Codex CLI speaks it.

use serde_json::{Value, json};

use super::{Tokens, sse_frame};

fn usage(tokens: Tokens) -> Value {
    json!({
        "input_tokens": tokens.input,
        "input_tokens_details": {"cached_tokens": tokens.cached},
        "output_tokens": tokens.output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": tokens.input + tokens.output,
    })
}

fn response(status: &str, output: &[Value], tokens: Option<Tokens>) -> Value {
    json!({
        "id": "resp_fake01", "object": "response", "created_at": 1_764_460_800, "status": status,
        "model": "gpt-fake-1", "output": output, "usage": tokens.map(usage),
    })
}

fn event(data: &Value) -> String {
    sse_frame(data["type"].as_str(), data)
}

/// A message output item holding `text`.
pub fn message_item(text: &str) -> Value {
    json!({"type": "message", "id": "msg_fake01", "role": "assistant", "status": "completed",
           "content": [{"type": "output_text", "text": text, "annotations": []}]})
}

/// A function-call output item: the model asks to run tool `name` with JSON `arguments` (call id `call_id`, item
/// id `fc_` and the call id's digits).
pub fn function_call_item(call_id: &str, name: &str, arguments: &Value) -> Value {
    let digits: String = call_id.chars().filter(char::is_ascii_digit).collect();
    json!({"type": "function_call", "id": format!("fc_fake{digits}"), "call_id": call_id, "name": name,
           "arguments": arguments.to_string(), "status": "completed"})
}

/// A whole stream around finished output items: `response.created`, per item `output_item.added` (text items
/// also get one `output_text.delta` per delta) and `output_item.done`, then `response.completed` with usage.
pub fn stream(items: &[Value], deltas: &[&str], tokens: Tokens) -> Vec<String> {
    let mut frames = vec![
        event(&json!({"type": "response.created", "response": response("in_progress", &[], None)})),
        event(&json!({"type": "response.in_progress", "response": response("in_progress", &[], None)})),
    ];
    for (index, item) in items.iter().enumerate() {
        let mut added = item.clone();
        if item["type"] == "message" {
            added["content"] = json!([]);
            added["status"] = json!("in_progress");
        }
        frames.push(event(&json!({"type": "response.output_item.added", "output_index": index, "item": added})));
        if item["type"] == "message" {
            for delta in deltas {
                frames.push(event(&json!({"type": "response.output_text.delta", "item_id": item["id"],
                                          "output_index": index, "content_index": 0, "delta": delta})));
            }
        }
        frames.push(event(&json!({"type": "response.output_item.done", "output_index": index, "item": item})));
    }
    frames.push(event(&json!({"type": "response.completed", "response": response("completed", items, Some(tokens))})));
    frames
}

/// A stream that answers with text only.
pub fn text_stream(deltas: &[&str], tokens: Tokens) -> Vec<String> {
    stream(&[message_item(&deltas.concat())], deltas, tokens)
}
