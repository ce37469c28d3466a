//! Tasks in words through the real `clive` binary: the model tiers answer the scripted fake server (real
//! OpenAI wire format, `OPENAI_BASE_URL`), commands run in real tmux.

// Test helpers: a panic is a test failure.
#![allow(clippy::unwrap_used)]

mod support;

use llm::ProviderKind;
use llm::testing::{FakeServer, Reply, Tokens, wire};
use support::{World, look_yes, text};

/// A fake model server, served by its own runtime thread while the test waits on the binary.
struct Model {
    server: FakeServer,
    _runtime: tokio::runtime::Runtime,
}

impl Model {
    fn start() -> Model {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let server = runtime.block_on(FakeServer::start()).unwrap();
        Model { server, _runtime: runtime }
    }

    fn reply(&self, text: &str) -> &Self {
        self.server.push(Reply::json(200, wire::openai::completion(text, "stop", Tokens::new(320, 11))));
        self
    }

    fn classify(&self, kind: &str, text: &str) -> &Self {
        self.reply(&serde_json::json!({"kind": kind, "text": text}).to_string())
    }

    fn url(&self) -> String {
        self.server.base_url(ProviderKind::OpenAiCompatible)
    }
}

fn clive(world: &World, model: &Model, args: &[&str]) -> std::process::Output {
    world.command(args).env("OPENAI_BASE_URL", model.url()).current_dir(world.dir.path()).output().unwrap()
}

/// `clive` with the fake model as a hosted provider's (OpenAI's, with a key), not a local server's.
fn clive_hosted(world: &World, model: &Model, args: &[&str]) -> std::process::Output {
    world
        .command(args)
        .env("OPENAI_API_KEY", "test-key")
        .env("OPENAI_BASE_URL", model.url())
        .current_dir(world.dir.path())
        .output()
        .unwrap()
}

#[test]
fn a_question_is_answered_and_nothing_runs() {
    let world = World::new();
    let model = Model::start();
    model.classify("answer", "4");
    let out = clive_hosted(&world, &model, &["how many legs does a dog have"]);
    assert_eq!((out.status.code(), text(&out.stdout).as_str()), (Some(0), "4\n"), "{}", text(&out.stderr));
    assert!(world.tmux_sessions().is_empty(), "an answer opens no session");

    // A small model's answer (a local server's, by default) is no evidence and nothing checked it: unchecked.
    model.classify("answer", "4");
    let out = clive(&world, &model, &["how many legs does a dog have"]);
    assert_eq!((out.status.code(), text(&out.stdout).as_str()), (Some(6), "4\n"), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("clive: unchecked: a small model answered"), "{}", text(&out.stderr));

    model.classify("answer", "4");
    let out = clive(&world, &model, &["--json", "-v", "how many legs does a dog have"]);
    assert_eq!(out.status.code(), Some(6));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((report["answer"].as_str(), report["route"]["route"].as_str()), (Some("4"), Some("answer")));
    assert_eq!((report["verified"].as_bool(), report["exit_code"].as_i64()), (Some(false), Some(6)));
    assert_eq!(report["routing"]["tier"], "classifier");
    assert_eq!(
        (report["routing"]["input_tokens"].as_u64(), report["routing"]["output_tokens"].as_u64()),
        (Some(320), Some(11))
    );
    let stderr = text(&out.stderr);
    assert!(stderr.contains("routing: tier 1 (classifier): gpt-fake-1, 1 call(s), 320 tokens in / 11 out"), "{stderr}");
    assert!(
        stderr.contains("routing: tier 0 (direct)")
            && stderr.contains("passed on: `how` is neither a known direct command nor an installed program"),
        "{stderr}"
    );
}

#[test]
fn a_vague_task_gets_one_question_and_exit_5() {
    let world = World::new();
    let model = Model::start();
    model.classify("ask", "What should I fix?");
    let out = clive(&world, &model, &["fix it"]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "What should I fix?\n");
    assert!(world.tmux_sessions().is_empty());
}

#[test]
fn the_classifiers_command_runs_in_tmux() {
    let world = World::new();
    std::fs::write(world.dir.path().join("notes.txt"), "a\nb\nc\n").unwrap();
    let model = Model::start();
    model.classify("command", "wc -l < notes.txt");
    model.reply(&look_yes());
    let out = clive_hosted(&world, &model, &["--json", "count the lines of notes.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // A model's command is the first attempt of a script subtask: it ran, was checked, and cost no other call than
    // the final look at its result.
    assert_eq!(report["answer"].as_str().map(str::trim), Some("3"), "{report}");
    assert_eq!(
        (report["route"]["route"].as_str(), report["route"]["command"].as_str()),
        (Some("direct"), Some("wc -l < notes.txt"))
    );
    assert_eq!((report["modes"][0].as_str(), report["model_calls"].as_u64()), (Some("script"), Some(2)));
    assert_eq!(report["routing"]["tier"], "classifier");
    let request = &model.server.requests()[0].body;
    assert!(
        request["messages"][0]["content"].as_str().unwrap().contains(r#"Files in "#),
        "the directory listing is context"
    );

    model.classify("command", "rm -rf ~");
    let out = clive_hosted(&world, &model, &["free up my home directory"]);
    assert_eq!(out.status.code(), Some(77), "a model's command passes the gate: {}", text(&out.stderr));

    // A local model's command is not the first attempt: the script writer, shown its worked examples, writes it
    // (and, its result being a number only its shape vouches for, a second script that must agree).
    model.classify("command", "wc -l notes.txt");
    model.reply("```bash\nwc -l < notes.txt\n```");
    model.reply("```bash\ngrep -c '' notes.txt\n```");
    let out = clive(&world, &model, &["--json", "count the lines of notes.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["answer"].as_str().map(str::trim), Some("3"), "{report}");
    assert_eq!((report["modes"][0].as_str(), report["model_calls"].as_u64()), (Some("script"), Some(3)));
    let requests = model.server.requests();
    let writer = requests.last().unwrap().body["messages"][0]["content"].as_str().unwrap().to_owned();
    assert!(writer.starts_with("You write a short bash script"), "{writer}");
    assert_eq!(
        (report["model"]["profile"].as_str(), report["model"]["profile_source"].as_str()),
        (Some("small"), Some("default"))
    );
}

#[test]
fn a_large_model_behind_a_local_server_keeps_its_command() {
    let world = World::new();
    std::fs::write(world.dir.path().join("notes.txt"), "a\nb\nc\n").unwrap();
    std::fs::create_dir_all(&world.home).unwrap();
    std::fs::write(world.home.join("config.yaml"), "providers:\n  openai-compatible:\n    models: {default: large}\n")
        .unwrap();
    let model = Model::start();
    // The profile, not the transport: its command is the first attempt, as a hosted model's is, and the final
    // look's yes checks it.
    model.classify("command", "wc -l < notes.txt");
    model.reply(&look_yes());
    let out = clive(&world, &model, &["--json", "count the lines of notes.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["answer"].as_str().map(str::trim), Some("3"), "{report}");
    assert_eq!((report["modes"][0].as_str(), report["model_calls"].as_u64()), (Some("script"), Some(2)));
    assert_eq!(
        (report["model"]["profile"].as_str(), report["model"]["profile_source"].as_str()),
        (Some("large"), Some("config"))
    );
    let requests = model.server.requests();
    assert!(requests.iter().all(|r| !r.text().contains("You write a short bash script")), "no script was asked for");

    // Configured `small`, the same server's model gets the small treatment again: the script writer writes it.
    std::fs::write(world.home.join("config.yaml"), "providers:\n  openai-compatible:\n    models: {default: small}\n")
        .unwrap();
    model.classify("command", "wc -l < notes.txt");
    model.reply("```bash\nwc -l < notes.txt\n```");
    model.reply("```bash\ngrep -c '' notes.txt\n```");
    let out = clive(&world, &model, &["--json", "count the lines of notes.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (report["model"]["profile"].as_str(), report["model"]["profile_source"].as_str()),
        (Some("small"), Some("config"))
    );
    let writer = model.server.requests().last().unwrap().text();
    assert!(writer.contains("You write a short bash script"), "{writer}");
}

#[test]
fn dry_run_json_is_a_plan_file_that_plan_run_runs() {
    let world = World::new();
    let model = Model::start();
    model.classify("plan", "");
    model.reply(
        r#"{"subtasks":[
            {"id":"write","pane":"shell","mode":"direct","description":"write a.txt","command":"printf 'x\\ny\\n' > a.txt","depends_on":[]},
            {"id":"count","pane":"shell","mode":"direct","description":"count a.txt","command":"wc -l < a.txt","depends_on":["write"]}]}"#,
    );
    let out = clive(&world, &model, &["--dry-run", "--json", "write two lines to a.txt, then count them"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(world.tmux_sessions().is_empty(), "a dry run runs nothing");
    let plan_file = world.dir.path().join("plan.json");
    std::fs::write(&plan_file, &out.stdout).unwrap();
    let run = world.run_in(world.dir.path(), &["--json", "plan", "run", plan_file.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(report["succeeded"], true, "{report}");
    assert_eq!(report["subtasks"][1]["output_excerpt"].as_str().map(str::trim), Some("2"));
}

#[test]
fn dry_run_text_shows_route_cost_and_plan() {
    let world = World::new();
    let model = Model::start();
    model.classify("write", "");
    let out = clive(&world, &model, &["--dry-run", "summarise notes.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for needle in ["route:   plan, decided by tier 1 (classifier)", "320 tokens in / 11 out", "\"mode\": \"llm\""] {
        assert!(stdout.contains(needle), "{needle} missing:\n{stdout}");
    }
}

#[test]
fn plans_the_planner_cannot_fix_are_a_clear_error_and_a_program_runs_as_a_script() {
    let world = World::new();
    let model = Model::start();
    model.classify("plan", "");
    for _ in 0..3 {
        model.reply(r#"{"subtasks":[{"id":"a","pane":"shell","mode":"llm","description":"x","command":"","depends_on":["b"]}]}"#);
    }
    let out = clive_hosted(&world, &model, &["--json", "do three things"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("did not write a valid plan in 3 attempt(s)") && stderr.contains("depends on `b`"),
        "{stderr}"
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["routing"]["steps"][2]["calls"], 3, "{report}");

    // A program the classifier chose runs as a script subtask (crates/agent); its output is the answer.
    model.classify("program", "");
    model.reply("```bash\nset -euo pipefail\necho 42\n```");
    model.reply(&look_yes());
    let out = clive_hosted(&world, &model, &["sum the sizes of the log files"]);
    assert_eq!((out.status.code(), text(&out.stdout).as_str()), (Some(0), "42\n"), "{}", text(&out.stderr));
}

/// A small model's planner splits one step into several: a task that names no steps of its own goes to one script
/// subtask when the classifier passes it on (no planner call); one that orders its steps still gets a plan. File
/// work named by its files is one script subtask without asking the classifier at all (and a goal that sets one
/// key is the shell's edit: no call at all).
#[test]
fn a_small_model_plans_only_a_task_that_names_its_steps() {
    let world = World::new();
    std::fs::write(world.dir.path().join("kiosk.ini"), "volume=3\nbrightness=9\n").unwrap();
    let model = Model::start();
    model.reply("```bash\nsed -i 's/^volume=.*/volume=7/' kiosk.ini\n```");
    let goal = "In kiosk.ini set volume to 7 unless it is 7 already";
    let out = clive(&world, &model, &["--json", goal]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["routing"]["tier"], "classifier", "{report}");
    assert_eq!(report["routing"]["steps"][1]["calls"], 0, "{report}");
    assert_eq!(report["routing"]["steps"][1]["rule"], "file_work", "{report}");
    assert_eq!(report["subtasks"][0]["mode"], "script", "{report}");
    assert_eq!(std::fs::read_to_string(world.dir.path().join("kiosk.ini")).unwrap(), "volume=7\nbrightness=9\n");
    let requests = model.server.requests();
    assert_eq!(requests.len(), 1, "only the script writer was asked");
    assert!(requests[0].text().contains("short bash script"), "{}", requests[0].text());
    std::fs::write(world.dir.path().join("kiosk.ini"), "volume=3\nbrightness=9\n").unwrap();
    let out = clive(&world, &model, &["--json", "In kiosk.ini set volume to 7 and leave every other line as it is"]);
    assert_eq!(std::fs::read_to_string(world.dir.path().join("kiosk.ini")).unwrap(), "volume=7\nbrightness=9\n");
    assert_eq!(model.server.requests().len(), 1, "no call: {}", text(&out.stdout));
    std::fs::write(world.dir.path().join("kiosk.ini"), "volume=7\nbrightness=9\n").unwrap();

    // Naming no file, the classifier is asked; its plan for one step is one script subtask, no planner call.
    model.classify("plan", "");
    model.reply("```bash\nsed -i 's/^brightness=.*/brightness=5/' kiosk.ini\n```");
    let out =
        clive(&world, &model, &["--json", "Set the kiosk brightness to 5 and leave every other setting as it is"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (report["routing"]["tier"].as_str(), report["subtasks"][0]["mode"].as_str()),
        (Some("classifier"), Some("script")),
        "{report}"
    );
    assert_eq!(std::fs::read_to_string(world.dir.path().join("kiosk.ini")).unwrap(), "volume=7\nbrightness=5\n");
    let requests = model.server.requests();
    assert!(requests.iter().all(|r| !r.text().contains("subtasks")), "the planner was asked");

    model.classify("plan", "");
    model.reply(r#"{"subtasks":[{"id":"a","pane":"shell","mode":"direct","description":"list","command":"ls","depends_on":[]}]}"#);
    let out = clive(&world, &model, &["--dry-run", "list the files, then count them"]);
    assert!(text(&out.stdout).contains("decided by tier 2 (planner)"), "{}", text(&out.stdout));
}

/// Arithmetic is tier 0's: computed exactly, with no provider configured and no model call.
#[test]
fn arithmetic_is_answered_without_a_model() {
    let world = World::new();
    let out = world
        .command(&["--json", "What is 17 times 23? Reply with the number only."])
        .current_dir(world.dir.path())
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert_eq!(
        (report["answer"].as_str(), report["route"]["route"].as_str()),
        (Some("391"), Some("answer")),
        "{}",
        text(&out.stderr)
    );
    assert_eq!((report["routing"]["tier"].as_str(), report["model_calls"].as_u64()), (Some("direct"), Some(0)));
    assert!(world.tmux_sessions().is_empty(), "an answer opens no session");
}

#[test]
fn a_failing_provider_is_exit_69() {
    let world = World::new();
    let model = Model::start();
    for _ in 0..2 {
        model.server.push(Reply::json(401, wire::openai::error_body("invalid_api_key", "bad key")));
    }
    let out = clive(&world, &model, &["how many legs does a dog have"]);
    assert_eq!(out.status.code(), Some(69), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("the tier 2 (planner) model call failed"), "{}", text(&out.stderr));
}

/// A classifier call that fails (a fast model the provider does not know) is a warning on stderr without `-v`:
/// the planner takes the task, but a fast tier silently off would cost a planner call on every task.
#[test]
fn a_failing_classifier_call_is_a_warning_and_the_planner_takes_the_task() {
    let world = World::new();
    let model = Model::start();
    model.server.push(Reply::json(404, wire::openai::error_body("model_not_found", "no model named fast-typo")));
    model.reply(r#"{"subtasks":[{"id":"a","pane":"shell","mode":"llm","description":"summarise notes.txt","command":"","depends_on":[]}]}"#);
    let out = clive(&world, &model, &["--dry-run", "summarise notes.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("decided by tier 2 (planner)"), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("WARN") && stderr.contains("the classifier call failed"), "{stderr}");
    assert!(stderr.contains("fast-typo") && stderr.contains("_FAST_MODEL"), "{stderr}");
    assert_eq!(model.server.requests().len(), 2);
}

/// A command the classifier wrote runs in the sandbox (writes outside the working directory stay inside it);
/// `--no-sandbox` runs it unconfined; a command the user typed always runs as typed.
#[test]
fn the_models_command_runs_sandboxed_and_the_users_as_typed() {
    if toolbox::find_on_path("bwrap", &std::env::var_os("PATH").unwrap_or_default()).is_none() {
        assert!(
            std::env::var_os("CLIVE_REQUIRE_SANDBOX").is_none(),
            "CLIVE_REQUIRE_SANDBOX is set but bwrap is missing"
        );
        eprintln!("skipped: bwrap is not installed");
        return;
    }
    let world = World::new();
    let work = world.dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let outside = world.dir.path().join("outside.txt");
    let command = format!("echo made > inside.txt; echo x > '{}'; echo \"sandbox=$CLIVE_SANDBOX\"", outside.display());
    let model = Model::start();
    let run = |extra: &[&str]| {
        model.classify("command", &command);
        let mut args = vec!["--json", "-C", work.to_str().unwrap()];
        args.extend(extra);
        args.push("make a file here");
        let out = clive_hosted(&world, &model, &args);
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap_or_else(|_| panic!("{}", text(&out.stderr)))
    };

    let report = run(&[]);
    let prompt = model.server.requests()[0].body["messages"][0]["content"].as_str().unwrap().to_owned();
    assert!(prompt.contains("Tools: bash"), "the installed tools of the toolset are context: {prompt}");
    assert!(report["answer"].as_str().unwrap().contains("sandbox=1"), "{report}");
    assert_eq!(std::fs::read_to_string(work.join("inside.txt")).unwrap(), "made\n");
    assert!(!outside.exists(), "a write outside the working directory stayed in the sandbox's private /tmp");

    let report = run(&["--no-sandbox"]);
    assert!(report["answer"].as_str().unwrap().contains("sandbox=\n"), "{report}");
    assert!(outside.exists());

    let out = world.command(&["--json", "printenv CLIVE_SANDBOX"]).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((report["sandboxed"].as_bool(), report["exit_code"].as_i64()), (Some(false), Some(1)));
}
