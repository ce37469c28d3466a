//! Gemini's API (`…/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`), as Gemini CLI
//! speaks it.

use serde_json::{Value, json};

use super::{Tokens, sse_frame};

fn usage(tokens: Tokens) -> Value {
    json!({
        "promptTokenCount": tokens.input,
        "candidatesTokenCount": tokens.output,
        "cachedContentTokenCount": tokens.cached,
        "totalTokenCount": tokens.input + tokens.output,
    })
}

/// One response (the whole body of `generateContent`, or one chunk of a stream) with the given parts;
/// `finish_reason` is `None` for a stream chunk that is not the last.
pub fn response(parts: Value, finish_reason: Option<&str>, tokens: Tokens) -> Value {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    if let Some(reason) = finish_reason {
        candidate["finishReason"] = json!(reason);
    }
    json!({"candidates": [candidate], "usageMetadata": usage(tokens), "modelVersion": "gemini-fake-1",
           "responseId": "fake01"})
}

/// A non-streamed text reply.
pub fn text(text: &str, tokens: Tokens) -> Value {
    response(json!([{"text": text}]), Some("STOP"), tokens)
}

/// A function-call part: the model asks to run tool `name` with `args`.
pub fn function_call_part(name: &str, args: &Value) -> Value {
    json!({"functionCall": {"name": name, "args": args}})
}

/// A stream of `data:` chunks, one per delta, the last with `finishReason: STOP`.
pub fn stream(deltas: &[&str], tokens: Tokens) -> Vec<String> {
    let last = deltas.len().saturating_sub(1);
    deltas
        .iter()
        .enumerate()
        .map(|(index, text)| {
            let finish = (index == last).then_some("STOP");
            sse_frame(None, &response(json!([{"text": text}]), finish, tokens))
        })
        .collect()
}

/// A one-chunk stream carrying `parts` (e.g. a function call) and `finishReason: STOP`.
pub fn parts_stream(parts: Value, tokens: Tokens) -> Vec<String> {
    vec![sse_frame(None, &response(parts, Some("STOP"), tokens))]
}
