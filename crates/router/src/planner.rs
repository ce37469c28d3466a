//! Tier 2: a planner model writes a plan in the dag-sched format; an invalid plan goes back to it with the
//! exact problems, a bounded number of times.
//!
//! The reply is read leniently (JSON in prose or fences, a bare list of subtasks, `depends`/`deps` for
//! `depends_on`, ids as numbers), then validated by [`dag_sched::ValidatedPlan::new`], whose problems name
//! each subtask and what to do: that text is what the planner gets back.

use dag_sched::{Mode, PLAN_VERSION, Plan, Subtask, ValidatedPlan};
use llm::{ChatRequest, Message, ModelTier, StopReason};
use serde_json::{Value, json};

use crate::context::RouteContext;
use crate::model_command;
use crate::prompt;
use crate::reply_json;

/// The modes a planner may use.
const PLANNER_MODES: [Mode; 4] = [Mode::Direct, Mode::Script, Mode::Interactive, Mode::Llm];

/// The JSON schema of the planner's reply (strict-mode friendly: every field required, `command` empty
/// when unused).
pub(crate) fn reply_schema() -> Value {
    let modes: Vec<&str> = PLANNER_MODES.iter().map(|m| m.as_str()).collect();
    let subtask = json!({
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "pane": {"type": "string"},
            "mode": {"type": "string", "enum": modes},
            "description": {"type": "string"},
            "command": {"type": "string"},
            "depends_on": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["id", "pane", "mode", "description", "command", "depends_on"],
        "additionalProperties": false
    });
    json!({
        "type": "object",
        "properties": {"subtasks": {"type": "array", "items": subtask}},
        "required": ["subtasks"],
        "additionalProperties": false
    })
}

/// The planner's first request.
pub(crate) fn request(task: &str, context: &RouteContext, max_tokens: u32) -> ChatRequest {
    let context_text = prompt::render_context(context, true, prompt::PLANNER_LIMITS);
    let user = format!("{context_text}\nTask: {}", task.trim());
    ChatRequest::new(user)
        .system(prompt::PLANNER.trim_end())
        .tier(ModelTier::Default)
        .max_tokens(max_tokens)
        .temperature(0.0)
        .json_schema("plan", reply_schema())
}

/// Appends the planner's reply and the problems found in it, so the next call corrects its own output.
pub(crate) fn add_correction(request: &mut ChatRequest, reply: &str, problems: &[String]) {
    let reply = if reply.trim().is_empty() { "(an empty reply)" } else { reply };
    let listed: Vec<String> = problems.iter().map(|p| format!("- {p}")).collect();
    request.messages.push(Message::assistant(reply));
    request
        .messages
        .push(Message::user(prompt::render(prompt::PLANNER_REPAIR, &[("problems", &listed.join("\n"))]).trim_end()));
}

/// Reads a planner reply into a valid plan, or lists what is wrong with it.
pub(crate) fn parse(reply: &str, stop_reason: &StopReason, context: &RouteContext) -> Result<Plan, Vec<String>> {
    let Some(value) = reply_json::extract(reply) else {
        let mut problems = vec![r#"the reply is not JSON; reply with {"subtasks":[...]} only"#.to_owned()];
        if *stop_reason == StopReason::MaxTokens {
            problems.push("the reply was cut off at the token limit; write fewer, shorter subtasks".to_owned());
        }
        return Err(problems);
    };
    let items = match &value {
        Value::Array(items) => items,
        Value::Object(object) => match object.get("subtasks").or_else(|| object.get("plan")?.get("subtasks")) {
            Some(Value::Array(items)) => items,
            _ => return Err(vec![r#"the reply has no "subtasks" list; reply with {"subtasks":[...]}"#.to_owned()]),
        },
        _ => return Err(vec![r#"the reply is not a JSON object; reply with {"subtasks":[...]}"#.to_owned()]),
    };
    let mut problems = Vec::new();
    let mut subtasks = Vec::new();
    for (index, item) in items.iter().enumerate() {
        match read_subtask(index, item, context) {
            Ok(subtask) => subtasks.push(subtask),
            Err(problem) => problems.push(problem),
        }
    }
    for subtask in &subtasks {
        if let Some(reason) = subtask.command.as_deref().and_then(model_command::prose_reason) {
            problems.push(format!(
                "subtask `{}` has a command that is not a shell command line ({reason}); write the command \
                 itself, or use mode script and say the goal in the description",
                subtask.id
            ));
        }
    }
    let plan = Plan { version: PLAN_VERSION, panes: None, subtasks };
    if let Err(error) = ValidatedPlan::new(plan.clone()) {
        match error {
            dag_sched::DagError::InvalidPlan { problems: found } => {
                problems.extend(found.iter().map(ToString::to_string))
            }
            other => problems.push(other.to_string()),
        }
    }
    if problems.is_empty() { Ok(plan) } else { Err(problems) }
}

fn read_subtask(index: usize, item: &Value, context: &RouteContext) -> Result<Subtask, String> {
    let Some(object) = item.as_object() else {
        return Err(format!("subtask #{index} is not a JSON object"));
    };
    let text = |names: &[&str]| reply_json::string_field(item, names).map(str::to_owned);
    let id = match object.get("id") {
        Some(Value::Number(number)) => number.to_string(),
        _ => text(&["id"]).unwrap_or_default(),
    };
    let command = text(&["command", "cmd"]);
    let mode = match text(&["mode"]) {
        Some(name) => match PLANNER_MODES.iter().find(|m| m.as_str() == name.to_ascii_lowercase()) {
            Some(mode) => *mode,
            None => {
                return Err(format!(
                    "subtask `{id}` has the mode `{name}`; use one of direct, script, interactive, llm"
                ));
            }
        },
        None if command.is_some() => Mode::Direct,
        None => Mode::Interactive,
    };
    let depends_on = ["depends_on", "depends", "dependencies", "deps", "after"]
        .iter()
        .find_map(|name| object.get(*name))
        .map(|value| match value {
            Value::Array(ids) => ids.iter().filter_map(id_text).collect(),
            other => id_text(other).into_iter().collect(),
        })
        .unwrap_or_default();
    Ok(Subtask {
        id,
        description: text(&["description", "goal", "task"]).unwrap_or_default(),
        pane: text(&["pane"]).unwrap_or_else(|| context.default_pane()),
        mode,
        // A command means something only to a direct subtask; elsewhere a model's stray command is dropped.
        command: if mode == Mode::Direct { command } else { None },
        depends_on,
        timeout: object.get("timeout").and_then(Value::as_f64),
        host: None,
    })
}

fn id_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) if !text.trim().is_empty() => Some(text.trim().to_owned()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(reply: &str) -> Result<Plan, Vec<String>> {
        parse(reply, &StopReason::EndTurn, &RouteContext::new())
    }

    #[test]
    fn a_good_plan_parses_with_version_and_without_stray_commands() {
        let plan = parse_text(
            r#"{"subtasks":[
                {"id":"count","pane":"shell","mode":"direct","description":"count","command":"wc -l a > n.txt","depends_on":[]},
                {"id":"say","pane":"shell","mode":"llm","description":"summarise n.txt","command":"cat n.txt","depends_on":["count"]}]}"#,
        )
        .unwrap();
        assert_eq!(plan.version, PLAN_VERSION);
        assert_eq!(plan.subtasks[0].command.as_deref(), Some("wc -l a > n.txt"));
        assert_eq!(plan.subtasks[1].command, None);
        assert_eq!(plan.subtasks[1].depends_on, ["count"]);
    }

    #[test]
    fn lenient_shapes_are_read() {
        let plan =
            parse_text(r#"Here: [{"id":1,"description":"look around"},{"id":2,"command":"ls","deps":1}]"#).unwrap();
        assert_eq!(plan.subtasks[0].id, "1");
        assert_eq!(plan.subtasks[0].mode, Mode::Interactive);
        assert_eq!(plan.subtasks[0].pane, "shell");
        assert_eq!((plan.subtasks[1].mode, plan.subtasks[1].depends_on.clone()), (Mode::Direct, vec!["1".to_string()]));
    }

    #[test]
    fn problems_name_what_to_fix() {
        let problems = parse_text(
            r#"{"subtasks":[{"id":"a","pane":"p","mode":"direct","command":"","depends_on":["b"]},
                            {"id":"b","pane":"p","mode":"magic","command":"","depends_on":["a"]},
                            {"id":"a","pane":"p","mode":"llm","command":"","depends_on":["ghost"]}]}"#,
        )
        .unwrap_err();
        let text = problems.join("\n");
        for needle in ["mode `magic`", "both have the id `a`", "depends on `ghost`", "mode direct but no `command`"] {
            assert!(text.contains(needle), "{needle} missing from:\n{text}");
        }
        assert!(parse_text("no plan").is_err());
        let prose = parse_text(r#"[{"id":"a","mode":"direct","command":"Count the lines of the file"}]"#).unwrap_err();
        assert!(prose[0].contains("not a shell command line (it starts like a sentence"), "{prose:?}");
        let cut = parse(r#"{"subtasks":[{"id":"#, &StopReason::MaxTokens, &RouteContext::new()).unwrap_err();
        assert!(cut.iter().any(|p| p.contains("token limit")), "{cut:?}");
        assert!(parse_text(r#"{"steps":[]}"#).unwrap_err()[0].contains("no \"subtasks\""));
        assert!(parse_text(r#"{"subtasks":[]}"#).unwrap_err()[0].contains("no subtasks"));
    }
}
