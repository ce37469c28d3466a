//! The model tiers against the scripted fake server (real wire formats): each classifier outcome, escalation
//! of unusable replies, the planner's corrections, the plan cache, the safety gate, every provider.

// Test helpers: a panic is a test failure.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use clive_router::{PaneInfo, Route, RouteContext, Router, RouterError, Tier};
use dag_sched::Mode;
use llm::testing::{FakeServer, RecordedRequest, Reply, Tokens, wire};
use llm::{ChatModel, ProviderKind};
use serde_json::{Value, json};

const FAST: &str = "fast-model";
const DEFAULT: &str = "default-model";

async fn fake(kind: ProviderKind) -> (FakeServer, Router) {
    let server = FakeServer::start().await.unwrap();
    let model = llm::connect(server.config(kind).fast_model(FAST).default_model(DEFAULT)).unwrap();
    (server, Router::new(model))
}

/// Queues an OpenAI-style completion with `text`.
fn reply(server: &FakeServer, text: &str) {
    server.push(Reply::json(200, wire::openai::completion(text, "stop", Tokens::new(300, 12))));
}

fn classifier_reply(kind: &str, text: &str) -> String {
    json!({"kind": kind, "text": text}).to_string()
}

/// The messages of a recorded OpenAI request, as (role, content).
fn messages(request: &RecordedRequest) -> Vec<(String, String)> {
    request.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["role"].as_str().unwrap().to_owned(), m["content"].as_str().unwrap_or_default().to_owned()))
        .collect()
}

const VALID_PLAN: &str = r#"{"subtasks":[
  {"id":"count","pane":"shell","mode":"direct","description":"count the lines of /etc/passwd into n.txt","command":"wc -l < /etc/passwd > n.txt","depends_on":[]},
  {"id":"say","pane":"shell","mode":"llm","description":"summarise n.txt in one sentence","command":"","depends_on":["count"]}]}"#;

#[tokio::test]
async fn shell_commands_never_reach_a_model() {
    let (server, router) = fake(ProviderKind::OpenAiCompatible).await;
    let routed = router.route("ls -la | wc -l", &RouteContext::new()).await.unwrap();
    assert_eq!(routed.tier, Tier::Direct);
    assert_eq!(routed.route.as_direct().unwrap().command, "ls -la | wc -l");
    assert_eq!((routed.steps.len(), routed.model_calls()), (1, 0));
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn the_classifier_answers_asks_and_writes_one_command() {
    let (server, router) = fake(ProviderKind::OpenAiCompatible).await;
    let context = RouteContext::new();

    reply(&server, &classifier_reply("answer", "4"));
    let routed = router.route("who wrote Hamlet", &context).await.unwrap();
    assert_eq!((routed.tier, routed.route.kind()), (Tier::Classifier, "answer"));
    assert!(matches!(&routed.route, Route::Answer(a) if a.text == "4"));
    let step = &routed.steps[1];
    assert_eq!(
        (step.model.as_deref(), step.calls, step.usage.input_tokens, step.usage.output_tokens),
        (Some("gpt-fake-1"), 1, 300, 12)
    );
    assert!(routed.steps[0].declined.as_deref().unwrap().contains("`who`"), "{:?}", routed.steps[0]);
    let request = &server.requests()[0];
    assert_eq!(request.body["model"], FAST, "the classifier runs on the fast tier");
    assert_eq!(request.body["response_format"]["type"], "json_schema");
    assert_eq!(messages(request).last().unwrap(), &("user".to_owned(), "who wrote Hamlet".to_owned()));

    reply(&server, &classifier_reply("ask", "Which file should I fix?"));
    let routed = router.route("fix it", &context).await.unwrap();
    assert!(matches!(&routed.route, Route::Clarify(c) if c.question == "Which file should I fix?"));

    reply(&server, &classifier_reply("command", "wc -l /etc/passwd"));
    let routed = router.route("count the lines of /etc/passwd", &context).await.unwrap();
    let direct = routed.route.as_direct().unwrap();
    assert_eq!((direct.command.as_str(), routed.tier), ("wc -l /etc/passwd", Tier::Classifier));
    assert_eq!(server.requests().len(), 3, "one call per task");
}

#[tokio::test]
async fn the_classifier_picks_one_subtask_with_mode_and_pane() {
    let (server, router) = fake(ProviderKind::OpenAiCompatible).await;
    let context = RouteContext::new().pane(PaneInfo::new("shell", "shell")).pane(PaneInfo::new("web", "browser"));
    for (kind, pane, mode) in
        [("program", "shell", Mode::Script), ("drive", "web", Mode::Interactive), ("write", "shell", Mode::Llm)]
    {
        reply(&server, &json!({"kind": kind, "text": "", "pane": pane}).to_string());
        let routed = router.route("look at the release notes page of example.org", &context).await.unwrap();
        let Route::Plan(route) = &routed.route else { panic!("{kind}: {:?}", routed.route) };
        let subtask = &route.plan.subtasks[0];
        assert_eq!((subtask.mode, subtask.pane.as_str()), (mode, pane), "{kind}");
        assert_eq!(
            subtask.description, "look at the release notes page of example.org",
            "the task itself, never a paraphrase"
        );
        assert!(dag_sched::ValidatedPlan::new(route.plan.clone()).is_ok());
    }
    let request = &server.requests()[0];
    assert_eq!(
        request.body["response_format"]["json_schema"]["schema"]["properties"]["pane"]["enum"],
        json!(["shell", "web"])
    );
    assert!(messages(request)[0].1.contains("Panes: shell (shell), web (browser)"));
}

#[tokio::test]
async fn a_drive_for_file_work_is_one_script_when_drives_need_a_program() {
    let server = FakeServer::start().await.unwrap();
    let model = llm::connect(server.config(ProviderKind::OpenAiCompatible).fast_model(FAST).default_model(DEFAULT));
    let router = Router::new(model.unwrap()).drives_need_a_program(true);
    let context = RouteContext::new().pane(PaneInfo::new("shell", "shell")).pane(PaneInfo::new("web", "browser"));
    let mode_of = |routed: &clive_router::Routed| match &routed.route {
        Route::Plan(route) => (route.plan.subtasks[0].mode, route.plan.subtasks[0].pane.clone()),
        other => panic!("{other:?}"),
    };
    // File work named by its files alone: the script writer does it, on the same pane.
    reply(&server, &classifier_reply("drive", ""));
    let routed = router.route("rename every file in scans/ to lower case", &context).await.unwrap();
    assert_eq!(mode_of(&routed), (Mode::Script, "shell".to_owned()));
    // A program to run, or a pane the classifier chose, is still driven.
    reply(&server, &classifier_reply("drive", ""));
    let routed = router.route("run ./setup.sh and answer its questions", &context).await.unwrap();
    assert_eq!(mode_of(&routed), (Mode::Interactive, "shell".to_owned()));
    reply(&server, &json!({"kind": "drive", "text": "", "pane": "web"}).to_string());
    let routed = router.route("rename every file in scans/ to lower case", &context).await.unwrap();
    assert_eq!(mode_of(&routed), (Mode::Interactive, "web".to_owned()));
    // Naming no file or directory, it is no file work: driven.
    reply(&server, &classifier_reply("drive", ""));
    let routed = router.route("wait for a long time", &context).await.unwrap();
    assert_eq!(mode_of(&routed), (Mode::Interactive, "shell".to_owned()));
    // Off by default: the classifier's drive stands.
    let (server, router) = fake(ProviderKind::OpenAiCompatible).await;
    reply(&server, &classifier_reply("drive", ""));
    let routed = router.route("rename every file in scans/ to lower case", &context).await.unwrap();
    assert_eq!(mode_of(&routed), (Mode::Interactive, "shell".to_owned()));
}

#[tokio::test]
async fn file_work_is_one_script_without_a_classifier_call_when_file_work_is_scripted() {
    let server = FakeServer::start().await.unwrap();
    let model = llm::connect(server.config(ProviderKind::OpenAiCompatible).fast_model(FAST).default_model(DEFAULT));
    let router = Router::new(model.unwrap()).file_work_scripted(true);
    let context = RouteContext::new();
    let routed = router.route("sum the second column of data.csv per month into sums.txt", &context).await.unwrap();
    let Route::Plan(route) = &routed.route else { panic!("{:?}", routed.route) };
    assert_eq!((route.plan.subtasks.len(), route.plan.subtasks[0].mode), (1, Mode::Script));
    assert_eq!(route.plan.subtasks[0].description, "sum the second column of data.csv per month into sums.txt");
    assert_eq!((routed.tier, routed.model_calls()), (Tier::Classifier, 0));
    assert!(routed.steps[1].to_string().contains("no model call: file work named by its files"), "{}", routed.steps[1]);
    assert!(server.requests().is_empty());
    // A program to drive, prose to write, steps of its own: the classifier decides.
    for task in [
        "run ./setup.sh and answer its questions",
        "Summarise minutes.md in three sentences",
        "Sort names.txt, then count the lines of sorted.txt",
    ] {
        reply(&server, &classifier_reply("program", ""));
        let routed = router.route(task, &context).await.unwrap();
        assert_eq!(routed.model_calls(), 1, "{task}");
    }
    // Off by default: the classifier is asked.
    let (server, router) = fake(ProviderKind::OpenAiCompatible).await;
    reply(&server, &classifier_reply("program", ""));
    let routed = router.route("sum the second column of data.csv per month into sums.txt", &context).await.unwrap();
    assert_eq!(routed.model_calls(), 1);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_planned_drive_for_file_work_is_a_script_when_drives_need_a_program() {
    let server = FakeServer::start().await.unwrap();
    let model = llm::connect(server.config(ProviderKind::OpenAiCompatible).fast_model(FAST).default_model(DEFAULT));
    let router = Router::new(model.unwrap()).drives_need_a_program(true);
    let plan = json!({"subtasks": [
        {"id": "tally", "pane": "shell", "mode": "interactive", "description": "run ./tally.sh", "command": "",
         "depends_on": []},
        {"id": "top", "pane": "shell", "mode": "interactive",
         "description": "write the three largest totals of totals.csv to top.txt", "command": "",
         "depends_on": ["tally"]}]});
    reply(&server, &classifier_reply("plan", ""));
    reply(&server, &plan.to_string());
    let task = "Run ./tally.sh, then write the three largest totals of totals.csv to top.txt.";
    let routed = router.route(task, &RouteContext::new()).await.unwrap();
    let Route::Plan(route) = &routed.route else { panic!("{:?}", routed.route) };
    let modes: Vec<Mode> = route.plan.subtasks.iter().map(|s| s.mode).collect();
    // The program to run is still driven; the file work after it is a script.
    assert_eq!(modes, [Mode::Interactive, Mode::Script]);
    // A step addressed to the program running there is typed into it: it stays.
    let driven = json!({"subtasks": [
        {"id": "setup", "pane": "shell", "mode": "interactive", "description": "run ./setup.sh", "command": "",
         "depends_on": []},
        {"id": "folder", "pane": "shell", "mode": "interactive", "description": "give it data/ as the data folder",
         "command": "", "depends_on": ["setup"]}]});
    reply(&server, &classifier_reply("plan", ""));
    reply(&server, &driven.to_string());
    let routed = router.route("Run ./setup.sh, then give it data/ as the data folder.", &RouteContext::new()).await;
    let Route::Plan(route) = &routed.unwrap().route else { panic!() };
    assert!(route.plan.subtasks.iter().all(|s| s.mode == Mode::Interactive));
    // Off by default: the planner's modes stand.
    let (server, router) = fake(ProviderKind::OpenAiCompatible).await;
    reply(&server, &classifier_reply("plan", ""));
    reply(&server, &plan.to_string());
    let routed = router.route(task, &RouteContext::new()).await.unwrap();
    let Route::Plan(route) = &routed.route else { panic!("{:?}", routed.route) };
    assert_eq!(route.plan.subtasks[1].mode, Mode::Interactive);
}

#[tokio::test]
async fn malformed_or_failed_classifier_replies_escalate_to_the_planner() {
    let (server, router) = fake(ProviderKind::OpenAiCompatible).await;
    reply(&server, "I would run wc on it {not json");
    reply(&server, VALID_PLAN);
    let routed = router.route("count the lines of /etc/passwd and summarise", &RouteContext::new()).await.unwrap();
    assert_eq!(routed.tier, Tier::Planner);
    assert_eq!(
        routed.steps.iter().map(|s| s.tier).collect::<Vec<_>>(),
        [Tier::Direct, Tier::Classifier, Tier::Planner]
    );
    assert!(routed.steps[1].declined.as_deref().unwrap().contains("not a JSON object"), "{:?}", routed.steps[1]);
    let Route::Plan(route) = &routed.route else { panic!() };
    assert_eq!(route.plan.subtasks.len(), 2);
    let requests = server.requests();
    assert_eq!(requests[1].body["model"], DEFAULT, "the planner runs on the default tier");
    assert!(messages(&requests[1])[1].1.ends_with("Task: count the lines of /etc/passwd and summarise"));
    assert_eq!(routed.usage().input_tokens, 600);

    // A provider error (401 is not retried) is no reason to drop the task either.
    server.push(Reply::json(401, wire::openai::error_body("invalid_api_key", "bad key")));
    reply(&server, VALID_PLAN);
    let routed = router
        .route("count the lines of /etc/passwd and summarise", &RouteContext::new().past_task("x", None))
        .await
        .unwrap();
    assert_eq!(routed.tier, Tier::Planner);
    assert!(routed.steps[1].declined.as_deref().unwrap().contains("classifier call failed"), "{:?}", routed.steps[1]);

    reply(&server, &classifier_reply("plan", ""));
    reply(&server, VALID_PLAN);
    let routed = router.route("count lines and summarise them", &RouteContext::new()).await.unwrap();
    assert_eq!(routed.steps[1].declined.as_deref(), Some("the classifier chose a plan"));
}

#[tokio::test]
async fn the_planner_corrects_its_plan_from_the_exact_problems() {
    let (server, router) = fake(ProviderKind::OpenAiCompatible).await;
    let cycle = r#"{"subtasks":[{"id":"a","pane":"shell","mode":"script","description":"x","command":"","depends_on":["b"]},{"id":"b","pane":"shell","mode":"llm","description":"y","command":"","depends_on":["a"]}]}"#;
    let unknown_and_duplicate = r#"{"subtasks":[{"id":"a","pane":"shell","mode":"script","description":"x","command":"","depends_on":["ghost"]},{"id":"a","pane":"shell","mode":"llm","description":"y","command":"","depends_on":[]}]}"#;
    reply(&server, cycle);
    reply(&server, unknown_and_duplicate);
    reply(&server, VALID_PLAN);
    let (plan, step) =
        router.plan("count the lines of /etc/passwd, then summarise", &RouteContext::new()).await.unwrap();
    assert_eq!(plan.subtasks.len(), 2);
    assert_eq!((step.calls, step.usage.input_tokens), (3, 900), "failed attempts count");

    let requests = server.requests();
    let second = messages(&requests[1]);
    assert_eq!(second[2], ("assistant".to_owned(), cycle.to_owned()), "the model gets its own output back");
    assert!(second[3].1.contains("the dependencies form a cycle: `a` -> `b` -> `a`"), "{}", second[3].1);
    let third = messages(&requests[2]);
    assert_eq!(third.len(), 6, "system, task, and two corrections");
    assert!(third[5].1.contains("depends on `ghost`") && third[5].1.contains("both have the id `a`"), "{}", third[5].1);
}

#[tokio::test]
async fn three_bad_plans_end_in_a_clear_error() {
    let (server, router) = fake(ProviderKind::OpenAiCompatible).await;
    reply(&server, &classifier_reply("plan", ""));
    for _ in 0..3 {
        reply(
            &server,
            r#"{"subtasks":[{"id":"a","pane":"shell","mode":"direct","description":"x","command":"","depends_on":["a"]}]}"#,
        );
    }
    let error = router.route("do several things", &RouteContext::new()).await.unwrap_err();
    let text = error.to_string();
    assert!(text.starts_with("the planner did not write a valid plan in 3 attempt(s)"), "{text}");
    assert!(text.contains("mode direct but no `command`") && text.contains("cycle"), "{text}");
    let RouterError::PlanRejected { attempts, steps, .. } = &error else { panic!("{error:?}") };
    assert_eq!(*attempts, 3);
    assert_eq!(steps.iter().map(|s| s.calls).collect::<Vec<_>>(), [0, 1, 3], "the cost of every attempt is kept");
    assert_eq!(server.unserved(), 0);
}

#[tokio::test]
async fn two_tasks_a_path_apart_get_two_plans_and_a_repeat_comes_from_the_cache() {
    let (server, router) = fake(ProviderKind::OpenAiCompatible).await;
    let plan_for = |path: &str| {
        json!({"subtasks":[{"id":"count","pane":"shell","mode":"direct","description":format!("count the lines in {path}"),
                            "command":format!("wc -l {path}"),"depends_on":[]},
                           {"id":"say","pane":"shell","mode":"llm","description":"summarise","command":"","depends_on":["count"]}]})
        .to_string()
    };
    let context = RouteContext::new();
    let syslog = "count the lines in /var/log/syslog and summarise them";
    let passwd = "count the lines in /etc/passwd and summarise them";
    reply(&server, &plan_for("/var/log/syslog"));
    reply(&server, &plan_for("/etc/passwd"));
    let (first, _) = router.plan(syslog, &context).await.unwrap();
    let (second, step) = router.plan(passwd, &context).await.unwrap();
    assert_eq!(server.requests().len(), 2, "a different task never reuses another task's plan");
    assert!(!step.cached);
    assert_eq!(first.subtasks[0].command.as_deref(), Some("wc -l /var/log/syslog"));
    assert_eq!(second.subtasks[0].command.as_deref(), Some("wc -l /etc/passwd"));

    let (again, step) = router.plan(passwd, &context).await.unwrap();
    assert_eq!((again, step.cached, step.calls), (second, true, 0));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn model_written_commands_pass_the_safety_gate() {
    let (server, router) = fake(ProviderKind::OpenAiCompatible).await;
    reply(&server, &classifier_reply("command", "rm -rf ~"));
    let error = router.route("free some space in my home", &RouteContext::new()).await.unwrap_err();
    assert!(matches!(error, RouterError::Refused { .. }), "{error:?}");

    reply(&server, &classifier_reply("plan", ""));
    reply(
        &server,
        r#"{"subtasks":[{"id":"wipe","pane":"shell","mode":"direct","description":"x","command":"sudo rm -rf /","depends_on":[]}]}"#,
    );
    let error = router.route("reset this machine", &RouteContext::new()).await.unwrap_err();
    assert!(error.to_string().contains("refused to run `sudo rm -rf /`"), "{error}");

    let error = router.route("rm -rf /", &RouteContext::new()).await.unwrap_err();
    assert!(matches!(error, RouterError::Refused { .. }), "tier 0 commands too: {error:?}");
    assert_eq!(server.unserved(), 0);
}

#[tokio::test]
async fn a_provider_that_refuses_json_schemas_is_asked_without() {
    let (server, router) = fake(ProviderKind::OpenAiCompatible).await;
    server
        .push(Reply::json(400, wire::openai::error_body("invalid_request_error", "response_format is not supported")));
    reply(&server, &classifier_reply("answer", "Paris"));
    reply(&server, &classifier_reply("answer", "Berlin"));
    let routed = router.route("what is the capital of France", &RouteContext::new()).await.unwrap();
    assert!(matches!(&routed.route, Route::Answer(a) if a.text == "Paris"));
    assert_eq!(routed.steps[1].calls, 2);
    router.route("what is the capital of Germany", &RouteContext::new()).await.unwrap();
    let requests = server.requests();
    assert!(requests[0].body.get("response_format").is_some());
    assert!(requests[1].body.get("response_format").is_none() && requests[2].body.get("response_format").is_none());
}

#[tokio::test]
async fn every_provider_runs_the_classifier_on_its_fast_model() {
    for kind in ProviderKind::ALL {
        let (server, router) = fake(kind).await;
        let text = classifier_reply("answer", "4");
        server.push(match kind {
            ProviderKind::Anthropic => {
                Reply::json(200, wire::anthropic::message(&text, "end_turn", Tokens::new(250, 9)))
            }
            ProviderKind::OllamaNative => Reply::json(200, wire::ollama::chat(&text, "stop", Tokens::new(250, 9))),
            _ => Reply::json(200, wire::openai::completion(&text, "stop", Tokens::new(250, 9))),
        });
        let routed = router.route("who wrote Hamlet", &RouteContext::new()).await.unwrap();
        assert_eq!(routed.tier, Tier::Classifier, "{kind}: the classifier must work on every provider");
        assert_eq!(routed.usage().input_tokens, 250, "{kind}");
        let body: &Value = &server.requests()[0].body;
        assert_eq!(body["model"], FAST, "{kind}");
    }
}

#[tokio::test]
async fn the_router_embeds_with_any_chat_model() {
    // The trait object another agent hands over, wrapped in llm's accounting.
    let (server, _) = fake(ProviderKind::OpenAiCompatible).await;
    let ledger = Arc::new(llm::UsageLedger::default());
    let inner = llm::connect(server.config(ProviderKind::OpenAiCompatible)).unwrap();
    let model: Arc<dyn ChatModel> = Arc::new(llm::Metered::new(inner, ledger.clone()));
    reply(&server, &classifier_reply("answer", "4"));
    let routed = Router::new(model).route("who wrote Hamlet", &RouteContext::new()).await.unwrap();
    assert_eq!(ledger.totals().usage, routed.usage());
}

#[tokio::test]
async fn a_local_model_server_that_is_down_fails_routing_at_once() {
    // A loopback port where nothing listens: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut config = llm::ProviderConfig::new(ProviderKind::OpenAiCompatible).fast_model(FAST).default_model(DEFAULT);
    config.base_url = Some(format!("http://127.0.0.1:{port}/v1"));
    let router = Router::new(llm::connect(config).unwrap());
    let started = std::time::Instant::now();
    let error = router.route("who wrote Hamlet", &RouteContext::new()).await.unwrap_err();
    assert!(started.elapsed() < std::time::Duration::from_millis(400), "{:?}", started.elapsed());
    let RouterError::Model { tier: Tier::Classifier, source, steps } = &error else { panic!("{error:?}") };
    assert!(matches!(source, llm::Error::LocalServerDown { .. }), "{source:?}");
    // Tier 0 and the classifier; no planner call.
    assert_eq!(steps.iter().map(|s| s.tier).collect::<Vec<_>>(), [Tier::Direct, Tier::Classifier]);
    assert!(error.to_string().contains("start the model server OPENAI_BASE_URL names"), "{error}");
}
