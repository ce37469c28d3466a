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

/// The modes a planner may use in `context`: `remote` too when the task addresses agents.
fn modes(context: &RouteContext) -> Vec<Mode> {
    let mut modes = PLANNER_MODES.to_vec();
    if !context.agents.is_empty() {
        modes.push(Mode::Remote);
    }
    modes
}

/// The JSON schema of the planner's reply (strict-mode friendly: every field required, `command` empty
/// when unused; `host`, empty when unused, only when the task addresses agents).
pub(crate) fn reply_schema(context: &RouteContext) -> Value {
    let modes: Vec<&str> = modes(context).iter().map(|m| m.as_str()).collect();
    let mut subtask = json!({
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
    if !context.agents.is_empty() {
        subtask["properties"]["host"] = json!({"type": "string"});
        if let Some(required) = subtask["required"].as_array_mut() {
            required.push(json!("host"));
        }
    }
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
    let mut system = prompt::PLANNER.trim_end().to_owned();
    if !context.agents.is_empty() {
        let agents: Vec<String> = context.agents.iter().map(|host| format!("clive@{host}")).collect();
        system.push('\n');
        system.push_str(prompt::render(prompt::PLANNER_AGENTS, &[("agents", &agents.join(", "))]).trim_end());
    }
    ChatRequest::new(user)
        .system(system)
        .tier(ModelTier::Default)
        .max_tokens(max_tokens)
        .temperature(0.0)
        .json_schema("plan", reply_schema(context))
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
    let allowed = modes(context);
    // A host the task addresses, as the model wrote it (`b`, `clive@b`).
    let host = text(&["host", "agent"])
        .map(|host| host.trim().trim_start_matches("clive@").to_owned())
        .filter(|host| !host.is_empty());
    let mode = match text(&["mode"]) {
        Some(name) => match allowed.iter().find(|m| m.as_str() == name.to_ascii_lowercase()) {
            Some(mode) => *mode,
            None => {
                let names: Vec<&str> = allowed.iter().map(|m| m.as_str()).collect();
                return Err(format!("subtask `{id}` has the mode `{name}`; use one of {}", names.join(", ")));
            }
        },
        None if command.is_some() => Mode::Direct,
        None if host.is_some() && allowed.contains(&Mode::Remote) => Mode::Remote,
        None => Mode::Interactive,
    };
    if mode == Mode::Remote {
        return match host {
            Some(host) if context.agents.contains(&host) => Ok(Subtask {
                description: text(&["description", "goal", "task"]).unwrap_or_default(),
                // Each agent's conversation has a window of its own.
                pane: format!("agent-{id}"),
                mode,
                command: None,
                depends_on: depends_on(object),
                timeout: object.get("timeout").and_then(Value::as_f64),
                host: Some(host),
                id,
            }),
            other => Err(format!(
                "subtask `{id}` has the mode remote and the host `{}`; the host must be one the task addresses: {}",
                other.unwrap_or_default(),
                context.agents.join(", ")
            )),
        };
    }
    let depends_on = depends_on(object);
    Ok(Subtask {
        id,
        description: text(&["description", "goal", "task"]).unwrap_or_default(),
        pane: text(&["pane"]).unwrap_or_else(|| context.default_pane()),
        mode,
        // A command means something only to a direct subtask; elsewhere a model's stray command is dropped.
        command: if mode == Mode::Direct { command } else { None },
        depends_on,
        timeout: object.get("timeout").and_then(Value::as_f64),
        // Only a remote subtask has a host; elsewhere a model's stray host is dropped.
        host: None,
    })
}

/// The ids a subtask depends on, under any of the names models use.
fn depends_on(object: &serde_json::Map<String, Value>) -> Vec<String> {
    ["depends_on", "depends", "dependencies", "deps", "after"]
        .iter()
        .find_map(|name| object.get(*name))
        .map(|value| match value {
            Value::Array(ids) => ids.iter().filter_map(id_text).collect(),
            other => id_text(other).into_iter().collect(),
        })
        .unwrap_or_default()
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
    fn remote_subtasks_are_placed_among_local_ones_for_the_agents_the_task_addresses() {
        let context = RouteContext::new().agent("b");
        let plan = parse(
            r#"{"subtasks":[
                {"id":"count","pane":"shell","mode":"direct","description":"count","command":"ls | wc -l","depends_on":[],"host":""},
                {"id":"sum","pane":"shell","mode":"remote","description":"sum them","command":"x","depends_on":["count"],"host":"clive@b"},
                {"id":"say","pane":"shell","mode":"llm","description":"say it","command":"","depends_on":["sum"],"host":"b"}]}"#,
            &StopReason::EndTurn,
            &context,
        )
        .unwrap();
        let sum = &plan.subtasks[1];
        assert_eq!((sum.mode, sum.host.as_deref(), sum.pane.as_str()), (Mode::Remote, Some("b"), "agent-sum"));
        assert_eq!((sum.command.as_deref(), sum.depends_on.clone()), (None, vec!["count".to_owned()]));
        // A stray host elsewhere is dropped.
        assert_eq!((plan.subtasks[0].host.as_deref(), plan.subtasks[2].host.as_deref()), (None, None));
        // Only the hosts the task addresses, and only when it addresses any.
        let other = parse(
            r#"[{"id":"x","mode":"remote","description":"x","host":"elsewhere"}]"#,
            &StopReason::EndTurn,
            &context,
        )
        .unwrap_err();
        assert!(other[0].contains("the host must be one the task addresses: b"), "{other:?}");
        let none = parse_text(r#"[{"id":"x","mode":"remote","description":"x","host":"b"}]"#).unwrap_err();
        assert!(none[0].contains("use one of direct, script, interactive, llm"), "{none:?}");
        // The schema asks for a host only when there are agents.
        assert!(reply_schema(&context).to_string().contains(r#""host""#));
        assert!(!reply_schema(&RouteContext::new()).to_string().contains(r#""host""#));
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
