//! The final look: before a result counts as done, the model sees the goal, what changed and the first lines of
//! each result, and answers yes or no with a reason (one call constrained to a schema). A no is a failed attempt
//! whose reason the repair is told; a yes is a checked result.
//!
//! The shell's checks ([`super::result_check`]) catch results whose shape is wrong; the look catches the right
//! shape holding the wrong thing (the count of requests where the goal asked for the address, a level read from
//! the wrong column), which no rule can know.

use std::path::Path;

use serde_json::json;

use crate::changes::{Change, ChangeKind};
use crate::model::{CallShape, Caller};
use crate::prompt::final_look_request;

/// The most files whose first lines the look is shown.
const LOOK_FILES: usize = 3;
/// The largest file read for it.
const LOOK_FILE_BYTES: u64 = 64 * 1024;

/// What the look said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Look {
    /// Whether the result does what the goal asks.
    pub yes: bool,
    /// Why, in the model's words.
    pub reason: String,
}

/// The reply's schema: the answer first (what is read), then the reason.
fn look_schema() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {"answer": {"enum": ["yes", "no"]}, "reason": {"type": "string"}},
        "required": ["answer", "reason"],
        "additionalProperties": false
    })
}

/// The look's answer in a reply: `None` when it is neither yes nor no.
pub(crate) fn read_look(reply: &str) -> Option<Look> {
    let start = reply.find('{')?;
    let end = reply.rfind('}')?;
    let value: serde_json::Value = serde_json::from_str(reply.get(start..=end)?).ok()?;
    let yes = match value.get("answer")?.as_str()?.trim().to_ascii_lowercase().as_str() {
        "yes" => true,
        "no" => false,
        _ => return None,
    };
    let reason = value.get("reason").and_then(serde_json::Value::as_str).unwrap_or_default().trim().to_owned();
    Some(Look { yes, reason })
}

/// Looks at the result of `goal` in `cwd`: `changes` applied, `printed` the attempt's output. `None` when the call
/// failed or its reply said neither yes nor no (the result then stays unchecked).
pub(crate) async fn look(caller: &Caller, goal: &str, cwd: &Path, changes: &[Change], printed: &str) -> Option<Look> {
    let lines: Vec<String> = changes.iter().take(10).map(ToString::to_string).collect();
    let files: Vec<(String, String)> = changes
        .iter()
        .filter(|c| c.kind != ChangeKind::Deleted && !c.dir)
        .filter(|c| c.bytes_after.is_some_and(|b| b <= LOOK_FILE_BYTES))
        .take(LOOK_FILES)
        .filter_map(|c| Some((c.path.display().to_string(), std::fs::read_to_string(cwd.join(&c.path)).ok()?)))
        .collect();
    let prompt = final_look_request(goal, &lines, printed, &files);
    let schema = look_schema();
    let shape = CallShape {
        purpose: "final look",
        max_tokens: 80,
        schema: Some(("final_look", &schema)),
        stop: &[],
        temperature: None,
    };
    let reply = caller.call(&prompt, shape).await.ok()?;
    read_look(&reply.text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_read_leniently_and_neither_is_none() {
        assert_eq!(
            read_look(r#"{"answer":"no","reason":"it counted requests, not addresses"}"#),
            Some(Look { yes: false, reason: "it counted requests, not addresses".into() })
        );
        assert_eq!(read_look("Sure: {\"answer\": \"Yes\"}").map(|l| l.yes), Some(true));
        assert_eq!(read_look(r#"{"answer":"maybe"}"#), None);
        assert_eq!(read_look("yes"), None);
    }
}
