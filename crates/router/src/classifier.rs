//! Tier 1: a small, fast model decides how a task is done — answer it, ask one question, run one command,
//! run one subtask, or hand it to the planner.
//!
//! The reply is a flat JSON object `{"kind","text"[,"pane"]}`, constrained by a JSON schema where the
//! provider supports it and read leniently otherwise. Any reply that cannot be used escalates the task to
//! the planner with the reason; nothing is dropped.
//!
//! The kinds on the wire are plain words (`answer ask command program drive write plan`) rather than the
//! route and mode names: measured with Qwen2.5-Coder-0.5B, the word `script` in the list drew nearly every
//! task to it, and the examples sent as earlier turns of the conversation made the difference between a
//! model that labels everything alike and one that tells a question from a command (docs/router.md).

use dag_sched::{Mode, Subtask, ValidatedPlan};
use llm::{ChatRequest, Message, ModelTier, StopReason};
use serde_json::{Value, json};

use crate::context::RouteContext;
use crate::error::RouterError;
use crate::model_command;
use crate::prompt;
use crate::reply_json;
use crate::route::{Answer, Clarification, DirectRoute, PlanRoute, Route, single_subtask_plan};
use crate::safety::{self, GatePolicy};

/// The id of the one subtask a classifier route runs.
pub const SINGLE_SUBTASK_ID: &str = "task";

/// What the classifier's reply asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Answer,
    Ask,
    Command,
    Program,
    Drive,
    Write,
    Plan,
}

impl Kind {
    const ALL: [Kind; 7] =
        [Kind::Answer, Kind::Ask, Kind::Command, Kind::Program, Kind::Drive, Kind::Write, Kind::Plan];

    fn wire_name(self) -> &'static str {
        match self {
            Kind::Answer => "answer",
            Kind::Ask => "ask",
            Kind::Command => "command",
            Kind::Program => "program",
            Kind::Drive => "drive",
            Kind::Write => "write",
            Kind::Plan => "plan",
        }
    }

    /// The wire name, or the names of routes and modes a model may use instead.
    fn parse(word: &str) -> Option<Kind> {
        Some(match word.trim().to_ascii_lowercase().as_str() {
            "answer" | "reply" => Kind::Answer,
            "ask" | "clarify" | "question" => Kind::Ask,
            "command" | "direct" | "shell" => Kind::Command,
            "program" | "script" => Kind::Program,
            "drive" | "interactive" | "explore" => Kind::Drive,
            "write" | "llm" => Kind::Write,
            "plan" | "steps" => Kind::Plan,
            _ => return None,
        })
    }

    fn mode(self) -> Option<Mode> {
        match self {
            Kind::Program => Some(Mode::Script),
            Kind::Drive => Some(Mode::Interactive),
            Kind::Write => Some(Mode::Llm),
            _ => None,
        }
    }
}

/// What the router does with a classifier reply.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// The classifier decided.
    Decided(Route),
    /// The planner takes the task; the reason is recorded.
    Escalate(String),
}

/// Whether the reply names a pane: only when there is more than one to choose from.
fn asks_for_pane(context: &RouteContext) -> bool {
    context.effective_panes().len() > 1
}

/// The JSON schema of the reply.
pub(crate) fn reply_schema(context: &RouteContext) -> Value {
    let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.wire_name()).collect();
    let mut properties = json!({"kind": {"type": "string", "enum": kinds}, "text": {"type": "string"}});
    let mut required = vec!["kind", "text"];
    if asks_for_pane(context) {
        properties["pane"] = json!({"type": "string", "enum": context.pane_names()});
        required.push("pane");
    }
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

/// The classifier's request: instructions and context as the system prompt, the examples as earlier turns,
/// the task last.
pub(crate) fn request(task: &str, context: &RouteContext, max_tokens: u32) -> ChatRequest {
    let with_pane = asks_for_pane(context);
    let fields = if with_pane { r#"{"kind","text","pane"}"# } else { r#"{"kind","text"}"# };
    let pane_rule = if with_pane { "pane: the pane it runs in.\n" } else { "" };
    let context_text = prompt::render_context(context, with_pane, prompt::CLASSIFIER_LIMITS);
    let system =
        prompt::render(prompt::CLASSIFIER, &[("fields", fields), ("pane_rule", pane_rule), ("context", &context_text)]);
    let default_pane = context.default_pane();
    let mut messages = Vec::new();
    for example in prompt::classifier_examples() {
        let mut reply = json!({"kind": example.kind, "text": example.text});
        if with_pane {
            reply["pane"] = json!(default_pane);
        }
        messages.push(Message::user(example.task));
        messages.push(Message::assistant(reply.to_string()));
    }
    messages.push(Message::user(task.trim()));
    ChatRequest::from_messages(messages)
        .system(system.trim_end())
        .tier(ModelTier::Fast)
        .max_tokens(max_tokens)
        .temperature(0.0)
        .json_schema("route", reply_schema(context))
}

/// Reads the classifier's reply. A direct command passes the safety gate before anything else looks at
/// it; a refusal is an error (the task asked for something destructive), not an escalation.
pub(crate) fn interpret(
    reply: &str,
    stop_reason: &StopReason,
    task: &str,
    context: &RouteContext,
    gate: GatePolicy,
) -> Result<Verdict, RouterError> {
    let escalate = |reason: String| Ok(Verdict::Escalate(reason));
    let Some(object) = reply_json::extract(reply).filter(Value::is_object) else {
        let cut = if *stop_reason == StopReason::MaxTokens { " (cut off at max_tokens)" } else { "" };
        return escalate(format!("the classifier's reply is not a JSON object{cut}: {}", excerpt(reply)));
    };
    let Some(word) = reply_json::string_field(&object, &["kind", "route", "mode"]) else {
        return escalate(format!("the classifier's reply has no kind: {}", excerpt(reply)));
    };
    let Some(kind) = Kind::parse(word) else {
        return escalate(format!("the classifier answered with an unknown kind `{}`", excerpt(word)));
    };
    match kind {
        Kind::Answer => match reply_json::string_field(&object, &["text", "answer"]) {
            // A model cannot know this machine: such an answer is a guess, so a tier that runs commands decides.
            // A model cannot know this machine: such an answer is a guess, so a script looks and prints the answer.
            Some(_) if local_reference(task, context).is_some() => Ok(one_subtask(task, context, Mode::Script, None)),
            Some(text) => Ok(Verdict::Decided(Route::Answer(Answer { text: text.to_owned() }))),
            None => escalate("the classifier chose to answer but gave no answer".to_owned()),
        },
        Kind::Ask => match reply_json::string_field(&object, &["text", "question"]) {
            Some(question) => Ok(Verdict::Decided(Route::Clarify(Clarification { question: question.to_owned() }))),
            None => escalate("the classifier chose to ask but gave no question".to_owned()),
        },
        Kind::Command => {
            let Some(text) = reply_json::string_field(&object, &["text", "command"]) else {
                return escalate("the classifier chose a command but gave none".to_owned());
            };
            let command = unwrap_command(text);
            // The gate sees the model's command first, before it is judged or described in any other way.
            safety::check(&command, gate)?;
            if command.is_empty() || command.contains('\n') {
                return escalate(format!("the classifier's command is not one line: {}", excerpt(&command)));
            }
            if let Some(reason) = model_command::prose_reason(&command) {
                return escalate(format!(
                    "the classifier's command is not a command line ({reason}): {}",
                    excerpt(&command)
                ));
            }
            // `./build.sh` for "run ./build.sh first, then list what it made": one program does one step of a task
            // that names several (a pipeline or a list of commands may do them all).
            if crate::steps::names_several_steps(task) && crate::shell_syntax::parse(&command).commands().count() == 1 {
                return escalate(format!(
                    "the task names several steps and the classifier's command is one program: {}",
                    excerpt(&command)
                ));
            }
            Ok(Verdict::Decided(Route::Direct(DirectRoute::describe(&command))))
        }
        Kind::Program | Kind::Drive | Kind::Write => {
            let pane = reply_json::string_field(&object, &["pane"]);
            Ok(one_subtask(task, context, kind.mode().unwrap_or_default(), pane))
        }
        Kind::Plan => escalate("the classifier chose a plan".to_owned()),
    }
}

/// The route of `task` as one subtask in `mode`, on `pane` when the context knows it (else the default pane).
pub(crate) fn one_subtask(task: &str, context: &RouteContext, mode: Mode, pane: Option<&str>) -> Verdict {
    let pane = pane
        .filter(|name| context.pane_names().iter().any(|known| known == name))
        .map_or_else(|| context.default_pane(), str::to_owned);
    let plan = single_subtask_plan(Subtask {
        id: SINGLE_SUBTASK_ID.to_owned(),
        description: task.trim().to_owned(),
        pane,
        mode,
        command: None,
        depends_on: Vec::new(),
        timeout: None,
        host: None,
    });
    match ValidatedPlan::new(plan.clone()) {
        Ok(_) => Verdict::Decided(Route::Plan(PlanRoute { plan })),
        Err(error) => Verdict::Escalate(format!("the one-subtask plan is not valid: {error}")),
    }
}

/// Words that make a question about this machine rather than about the world.
const LOCAL_WORDS: [&str; 10] =
    ["my", "mine", "here", "this", "these", "local", "installed", "running", "current", "our"];

/// The first word of `task` that refers to this machine: a word of [`LOCAL_WORDS`], a path, or a name in the
/// working directory's listing.
fn local_reference<'t>(task: &'t str, context: &RouteContext) -> Option<&'t str> {
    task.split_whitespace().map(|word| word.trim_matches(|c: char| ",.;:!?()'\"`".contains(c))).find(|word| {
        LOCAL_WORDS.contains(&word.to_ascii_lowercase().as_str())
            || word.starts_with(['/', '~', '$'])
            || word.starts_with("./")
            || context.lists(word)
            || file_name(word)
            || directory_name(word)
    })
}

/// A word that names a file: letters before a dot and a short extension with a letter (`hosts.cfg`,
/// `parcels.json`), not a number (`2.5`) or a host (`example.com` is taken too: asking about it is local work).
pub(crate) fn file_name(word: &str) -> bool {
    let Some((stem, extension)) = word.rsplit_once('.') else { return false };
    !stem.is_empty()
        && stem.chars().all(|c| c.is_ascii_alphanumeric() || "_-/.".contains(c))
        && (1..=5).contains(&extension.len())
        && extension.chars().all(|c| c.is_ascii_alphanumeric())
        && extension.chars().any(|c| c.is_ascii_alphabetic())
}

/// A word that names a directory by its trailing slash (`logs/`, `data/raw/`), as people write one they mean here.
pub(crate) fn directory_name(word: &str) -> bool {
    word.len() > 1
        && word.ends_with('/')
        && word.chars().any(|c| c.is_ascii_alphanumeric())
        && word.chars().all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c))
}

/// The command without the decoration models add: a code fence, backticks, a `$ ` prompt.
fn unwrap_command(text: &str) -> String {
    let mut command = text.trim();
    if let Some(fenced) = command.strip_prefix("```") {
        let body = fenced.split_once('\n').map_or(fenced, |(_language, body)| body);
        command = body.trim_end().strip_suffix("```").unwrap_or(body).trim();
    }
    if let Some(inner) = command.strip_prefix('`').and_then(|rest| rest.strip_suffix('`'))
        && !inner.contains('`')
    {
        command = inner;
    }
    command.strip_prefix("$ ").unwrap_or(command).trim().to_owned()
}

/// At most 80 characters of a reply, for a reason line.
fn excerpt(text: &str) -> String {
    let text = text.trim();
    if text.chars().count() <= 80 {
        text.to_owned()
    } else {
        format!("{}…", text.chars().take(79).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::PaneInfo;

    fn verdict(reply: &str) -> Verdict {
        interpret(reply, &StopReason::EndTurn, "the task", &RouteContext::new(), GatePolicy::default()).unwrap()
    }

    #[test]
    fn each_kind_maps_to_its_route() {
        assert_eq!(
            verdict(r#"{"kind":"answer","text":"4"}"#),
            Verdict::Decided(Route::Answer(Answer { text: "4".into() }))
        );
        assert!(
            matches!(verdict(r#"{"kind":"ask","text":"Which file?"}"#), Verdict::Decided(Route::Clarify(c)) if c.question == "Which file?")
        );
        assert!(matches!(verdict(r#"{"kind":"command","text":"wc -l /etc/passwd"}"#),
            Verdict::Decided(Route::Direct(d)) if d.command == "wc -l /etc/passwd" && d.programs == ["wc"]));
        for (kind, mode) in [("program", Mode::Script), ("drive", Mode::Interactive), ("write", Mode::Llm)] {
            let Verdict::Decided(Route::Plan(route)) = verdict(&format!(r#"{{"kind":"{kind}","text":""}}"#)) else {
                panic!("{kind}")
            };
            let subtask = &route.plan.subtasks[0];
            assert_eq!(
                (subtask.mode, subtask.description.as_str(), subtask.pane.as_str()),
                (mode, "the task", "shell")
            );
        }
        assert_eq!(verdict(r#"{"kind":"plan","text":""}"#), Verdict::Escalate("the classifier chose a plan".into()));
    }

    #[test]
    fn one_program_is_no_route_for_a_task_of_several_steps() {
        let verdict = |task: &str, command: &str| {
            let reply = serde_json::json!({"kind": "command", "text": command}).to_string();
            interpret(&reply, &StopReason::EndTurn, task, &RouteContext::new(), GatePolicy::default()).unwrap()
        };
        let steps = "Run ./tally.sh first, then write the three biggest totals to top.txt.";
        assert!(matches!(verdict(steps, "./tally.sh"), Verdict::Escalate(reason) if reason.contains("several steps")));
        // Commands that may do every step, and one program for a task of one step, stand.
        assert!(matches!(verdict(steps, "./tally.sh && sort -rn totals | head -3 > top.txt"), Verdict::Decided(_)));
        assert!(matches!(verdict("list the files, then count them", "ls | wc -l"), Verdict::Decided(_)));
        assert!(matches!(verdict("Run ./tally.sh", "./tally.sh"), Verdict::Decided(Route::Direct(_))));
    }

    #[test]
    fn route_and_mode_names_are_understood_too() {
        assert!(matches!(verdict(r#"{"route":"direct","command":"ls"}"#), Verdict::Decided(Route::Direct(_))));
        assert!(matches!(verdict(r#"{"kind":"Interactive"}"#), Verdict::Decided(Route::Plan(_))));
        assert!(matches!(
            verdict("```json\n{\"kind\":\"clarify\",\"question\":\"Which?\"}\n```"),
            Verdict::Decided(Route::Clarify(_))
        ));
    }

    #[test]
    fn answers_about_this_machine_are_not_trusted() {
        let context = RouteContext::new().workdir(crate::context::WorkDir {
            name: "proj".into(),
            entries: vec!["Cargo.toml".into(), "src/".into()],
            more: 0,
        });
        let reply = r#"{"kind":"answer","text":"42"}"#;
        for task in [
            "what is my hostname",
            "how many CPU cores does this machine have",
            "how big is /var/log",
            "which version is in Cargo.toml?",
            "what is in src",
            "What does the second line of hosts.cfg say?",
            // A directory named with its slash, listed (`src/`) or not (`logs/`).
            "How many files are in src/, counting subfolders?",
            "Which folder inside logs/ is the biggest?",
        ] {
            // A script looks instead (a planner call would cost more than the question needs).
            let verdict = interpret(reply, &StopReason::EndTurn, task, &context, GatePolicy::default()).unwrap();
            let Verdict::Decided(Route::Plan(route)) = verdict else { panic!("{task}: {verdict:?}") };
            let subtask = &route.plan.subtasks[0];
            assert_eq!((subtask.mode, subtask.description.as_str()), (Mode::Script, task));
        }
        for task in ["what is 2+2", "what does the -p flag of mkdir do", "who wrote Hamlet", "what is TCP/IP"] {
            let verdict = interpret(reply, &StopReason::EndTurn, task, &context, GatePolicy::default()).unwrap();
            assert!(matches!(verdict, Verdict::Decided(Route::Answer(_))), "{task}");
        }
    }

    #[test]
    fn unusable_replies_escalate_with_a_reason() {
        for (reply, reason) in [
            ("I think you should run ls", "not a JSON object"),
            (r#"{"text":"4"}"#, "no kind"),
            (r#"{"kind":"dance","text":""}"#, "unknown kind `dance`"),
            (r#"{"kind":"answer","text":"  "}"#, "gave no answer"),
            (r#"{"kind":"ask"}"#, "gave no question"),
            (r#"{"kind":"command","text":""}"#, "gave none"),
            (r#"{"kind":"command","text":"cd /tmp\nls"}"#, "not one line"),
            (r#"{"kind":"command","text":"echo 'oops"}"#, "quote is left open"),
            (r#"{"kind":"command","text":"find the largest file in this directory"}"#, "English words"),
            (r#"{"kind":"command","text":"Use wc -l on the file"}"#, "starts like a sentence (`Use`)"),
        ] {
            match verdict(reply) {
                Verdict::Escalate(text) => assert!(text.contains(reason), "{reply}: {text}"),
                other => panic!("{reply}: {other:?}"),
            }
        }
        let cut = interpret(
            r#"{"kind":"answer","text":"a very lo"#,
            &StopReason::MaxTokens,
            "t",
            &RouteContext::new(),
            GatePolicy::default(),
        );
        assert!(matches!(cut, Ok(Verdict::Escalate(reason)) if reason.contains("max_tokens")));
    }

    #[test]
    fn model_commands_pass_the_gate_first() {
        let reply = r#"{"kind":"command","text":"rm -rf ~"}"#;
        let refused = interpret(reply, &StopReason::EndTurn, "t", &RouteContext::new(), GatePolicy::default());
        assert!(matches!(refused, Err(RouterError::Refused { .. })), "{refused:?}");
        // Even a command that is no usable route is judged: a second line does not hide `rm -rf /`.
        let hidden = r#"{"kind":"command","text":"ls\nrm -rf /"}"#;
        assert!(interpret(hidden, &StopReason::EndTurn, "t", &RouteContext::new(), GatePolicy::default()).is_err());
        let allowed =
            interpret(reply, &StopReason::EndTurn, "t", &RouteContext::new(), GatePolicy { allow_destructive: true });
        assert!(matches!(allowed, Ok(Verdict::Decided(Route::Direct(_)))));
    }

    #[test]
    fn decorations_around_commands_are_removed() {
        assert_eq!(unwrap_command("```bash\nls -la\n```"), "ls -la");
        assert_eq!(unwrap_command("`df -h`"), "df -h");
        assert_eq!(unwrap_command("$ du -sh ."), "du -sh .");
        assert_eq!(unwrap_command("echo `date`"), "echo `date`");
    }

    #[test]
    fn a_pane_is_asked_for_only_when_there_is_a_choice() {
        let one = RouteContext::new();
        assert!(reply_schema(&one)["properties"].get("pane").is_none());
        let two = RouteContext::new().pane(PaneInfo::new("shell", "shell")).pane(PaneInfo::new("web", "browser"));
        assert_eq!(reply_schema(&two)["properties"]["pane"]["enum"], json!(["shell", "web"]));
        let reply = r#"{"kind":"drive","text":"","pane":"web"}"#;
        let Ok(Verdict::Decided(Route::Plan(route))) =
            interpret(reply, &StopReason::EndTurn, "t", &two, GatePolicy::default())
        else {
            panic!()
        };
        assert_eq!(route.plan.subtasks[0].pane, "web");
        let unknown = r#"{"kind":"drive","text":"","pane":"mars"}"#;
        let Ok(Verdict::Decided(Route::Plan(route))) =
            interpret(unknown, &StopReason::EndTurn, "t", &two, GatePolicy::default())
        else {
            panic!()
        };
        assert_eq!(route.plan.subtasks[0].pane, "shell", "an unknown pane falls back to the default one");
    }
}
