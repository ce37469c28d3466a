//! End to end: the real `clive` binary, a real tmux server, and the scripted fake model as its provider.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use support::{FakeModel, World, done, look_yes, run, stable, text};

/// `list-panes` of every pane's foreground command.
fn current_commands() -> tmux_habitat::Command {
    tmux_habitat::Command::new("list-panes").args(["-a", "-F", "#{pane_current_command}"])
}

fn report(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}\n{}", text(&out.stdout), text(&out.stderr)))
}

/// The tasks a small model drives name a program to run: its classifier's `drive` for file work alone is a script
/// (`RouterOptions::drives_need_a_program`).
#[test]
fn a_task_in_words_drives_a_pane_and_prints_the_answer() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("notes.txt"), "a\nb\nc\n").unwrap();
    let model = FakeModel::start();
    model.drive().replies(&[&run("wc -l < notes.txt"), &done("notes.txt has 3 lines")]);
    let out = world.run_with_model(&model, work.path(), &["run wc to count the lines of notes.txt"]);
    // A local model's count, which only its shape vouches for, and no second result to compare: unchecked (exit 6).
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("the shell checked only its shape"), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "notes.txt has 3 lines\n");
    // The model saw the command's output, and worked in the caller's directory.
    let prompts = model.prompts();
    assert!(
        prompts[1].contains("`wc -l < notes.txt` finished with exit code 0. Its output:\n<output>\n3\n"),
        "{}",
        prompts[1]
    );
    // A success leaves no session behind; progress went to stderr.
    assert!(world.tmux_sessions().iter().all(|s| !s.starts_with("clive-")), "{:?}", world.tmux_sessions());
    assert!(text(&out.stderr).contains("task turn 1"), "{}", text(&out.stderr));
}

#[test]
fn a_local_model_is_not_given_the_shell_tool_cards_a_hosted_one_is() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    let turns = [r#"{"kind":"drive","text":""}"#.to_owned(), run("true"), done("ran true"), look_yes()];
    // The support's provider, an OpenAI-compatible server, counts as a local model.
    let local = FakeModel::start();
    local.replies(&turns.iter().map(String::as_str).collect::<Vec<_>>());
    let out = world.run_with_model(&local, work.path(), &["run true"]);
    // Nothing the shell can check, and a local model's yes is no check: done, unchecked.
    assert_eq!(out.status.code(), Some(6), "{}", text(&out.stderr));
    // The same task against a hosted provider (Anthropic's wire format).
    let hosted = FakeModel::start();
    for turn in &turns {
        let reply = llm::testing::wire::anthropic::message(turn, "end_turn", llm::testing::Tokens::new(100, 10));
        hosted.server.push(llm::testing::Reply::json(200, reply));
    }
    let out = world
        .command(&["run true"])
        .current_dir(work.path())
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("ANTHROPIC_BASE_URL", hosted.server.url())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The runner's first prompt (the classifier's is the first request).
    let first_turn = |model: &FakeModel| model.server.requests()[1].text();
    assert!(first_turn(&hosted).contains("### bash"), "{}", first_turn(&hosted));
    assert!(!first_turn(&local).contains("### bash"), "{}", first_turn(&local));
    assert!(first_turn(&local).contains("Goal: run true"), "{}", first_turn(&local));
}

#[test]
fn the_profile_not_the_transport_decides_the_tool_cards() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    let (ran, said, yes) = (run("true"), done("ran true"), look_yes());
    let turns: [&str; 4] = [r#"{"kind":"drive","text":""}"#, &ran, &said, &yes];
    // The same OpenAI-compatible server as a local model's, its model configured `large`: the shell's cards, and
    // the final look's yes is a check.
    std::fs::create_dir_all(&world.home).unwrap();
    std::fs::write(world.home.join("config.yaml"), "providers:\n  openai-compatible:\n    profile: large\n").unwrap();
    let large = FakeModel::start();
    large.replies(&turns);
    let out = world.run_with_model(&large, work.path(), &["--json", "run true"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let model = &report(&out)["model"];
    assert_eq!((model["provider"].as_str(), model["name"].as_str()), (Some("openai-compatible"), Some("default")));
    assert_eq!((model["profile"].as_str(), model["profile_source"].as_str()), (Some("large"), Some("config")));
    assert!(
        model["profile_reason"].as_str().unwrap().starts_with("providers.openai-compatible.profile in "),
        "{model}"
    );
    let first_turn = large.server.requests()[1].text();
    assert!(first_turn.contains("### bash"), "{first_turn}");

    // Without the file, the name decides: a 70B model behind the local server is large, a 1.5B one small.
    std::fs::remove_file(world.home.join("config.yaml")).unwrap();
    for (name, profile, cards) in [("llama3.3:70b", "large", true), ("qwen2.5-coder:1.5b", "small", false)] {
        let model = FakeModel::start();
        model.replies(&turns);
        let base = format!("{}/v1", model.server.url());
        let out = world
            .command(&["--json", "run true"])
            .current_dir(work.path())
            .env("OPENAI_BASE_URL", base)
            .env("OPENAI_MODEL", name)
            .output()
            .unwrap();
        let said = &report(&out)["model"];
        assert_eq!(
            (said["profile"].as_str(), said["profile_source"].as_str()),
            (Some(profile), Some("name")),
            "{said}"
        );
        let first_turn = model.server.requests()[1].text();
        assert_eq!(first_turn.contains("### bash"), cards, "{name}: {first_turn}");
        assert_eq!(model.server.requests()[1].body["model"], name);
    }
}

#[test]
fn json_reports_route_plan_costs_and_claims() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    let model = FakeModel::start();
    model.drive().replies(&[&run("echo 42 > answer.txt"), &done("wrote 42 to answer.txt"), &look_yes()]);
    let out = world.run_hosted(&model, work.path(), &["--json", "write the answer to answer.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = report(&out);
    let file = work.path().canonicalize().unwrap().join("answer.txt");
    assert_eq!(report["files_written"][0].as_str().map(std::path::PathBuf::from), Some(file));
    assert!(report["wall_ms"].as_u64().unwrap() >= report["overhead_ms"].as_u64().unwrap());
    insta::assert_json_snapshot!("model_task_report", stable(report));
}

#[test]
fn bool_prints_yes_or_no_and_exits_0_or_1() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("present.txt"), "").unwrap();
    let model = FakeModel::start();
    model.drive().replies(&[&run("test -e present.txt && echo present"), &done("YES, present.txt exists")]);
    let out = world.run_with_model(&model, work.path(), &["--bool", "run ls: does present.txt exist"]);
    assert_eq!((text(&out.stdout).as_str(), out.status.code()), ("YES\n", Some(0)), "{}", text(&out.stderr));
    assert!(model.prompts()[0].contains("start the summary with YES or NO"), "{}", model.prompts()[0]);

    model.drive().replies(&[&run("ls"), &done("No: there is no such file.")]);
    let out = world.run_with_model(&model, work.path(), &["--bool", "run ls: does missing.txt exist"]);
    assert_eq!((text(&out.stdout).as_str(), out.status.code()), ("NO\n", Some(1)), "{}", text(&out.stderr));

    // An answer that says neither is judged by one small call; "unknown" is no answer (exit 3).
    model.drive().replies(&[&run("ls"), &done("I looked around."), r#"{"answer":"unknown"}"#]);
    let out = world.run_with_model(&model, work.path(), &["--bool", "--json", "is it sunny"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert_eq!(report(&out)["verdict"], serde_json::Value::Null);
    let judge = model.server.requests().last().unwrap().body.clone();
    assert_eq!(judge["response_format"]["json_schema"]["name"], "verdict");
}

#[test]
fn oneline_collapses_the_answer() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    let model = FakeModel::start();
    model.drive().replies(&[&run("ls -a"), &done("two entries:\n  .\n  ..")]);
    let out = world.run_with_model(&model, work.path(), &["--oneline", "list this directory"]);
    assert_eq!(text(&out.stdout), "two entries: . ..\n", "{}", text(&out.stderr));
}

#[test]
fn a_claim_that_does_not_hold_is_a_failure_and_the_session_is_kept() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    let model = FakeModel::start();
    model.drive().replies(&[&run("cat missing.txt"), &done("printed it"), &done("printed it, really")]);
    let out = world.run_with_model(&model, work.path(), &["--json", "run cat to print missing.txt"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report = report(&out);
    assert_eq!(report["status"], "failed");
    // clive does not claim it; the model did, and why that was not believed is reported.
    assert_eq!(report["claimed_success"], false);
    let subtask = &report["subtasks"][0];
    assert_eq!(subtask["claimed_success"], true);
    assert!(subtask["false_completion"].as_str().unwrap().contains("exit code 1"), "{subtask}");
    assert_eq!(report["kept"], true);
    assert!(world.tmux_sessions().iter().any(|s| s.starts_with("clive-")));
}

#[test]
fn a_budget_too_small_for_one_call_stops_before_anything_runs() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    let model = FakeModel::start();
    let out = world.run_with_model(&model, work.path(), &["--json", "--max-tokens", "300", "list the files"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    let report = report(&out);
    assert!(report["error"].as_str().unwrap().contains("the token budget (--max-tokens) ran out"), "{report}");
    assert!(model.server.requests().is_empty(), "a call the budget refused reached the model");
    assert!(world.tmux_sessions().iter().all(|s| !s.starts_with("clive-")), "nothing ran");
}

#[test]
fn a_budget_spent_mid_task_stops_it_with_that_reason() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    let model = FakeModel::start();
    // Calls report 100 + 10 tokens, but each holds its estimated prompt plus `max_tokens` while in flight: the
    // budget admits a few turns, then refuses.
    let echoes: Vec<String> = (1..=8).map(|n| run(&format!("echo {n}"))).collect();
    model.drive().replies(&echoes.iter().map(String::as_str).collect::<Vec<_>>());
    let out = world.run_with_model(&model, work.path(), &["--json", "--max-tokens", "1800", "count slowly"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    let report = report(&out);
    let reason = report["subtasks"][0]["reason"].as_str().unwrap();
    assert!(reason.starts_with("stopped: the token budget ran out"), "{reason}");
    let calls = report["model_calls"].as_u64().unwrap();
    assert!((2..9).contains(&calls), "{report}");
    assert_eq!(report["budget"]["refused_calls"], 1);
    assert!(report["budget"]["spent"].as_u64().unwrap() <= 1800);
}

#[test]
fn plan_run_runs_model_modes_next_to_commands() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    let model = FakeModel::start();
    // A local model: no final look (docs/agent.md, "Trust").
    model.replies(&[&run("echo 7 > seven.txt"), &done("wrote seven.txt"), "Seven was written."]);
    let plan = work.path().join("plan.json");
    std::fs::write(
        &plan,
        r#"{"version":1,"subtasks":[
          {"id":"make","pane":"shell","mode":"interactive","description":"write 7 to seven.txt"},
          {"id":"check","pane":"shell","command":"cat seven.txt","depends_on":["make"]},
          {"id":"tell","pane":"writer","mode":"llm","description":"say what happened","depends_on":["check"]}]}"#,
    )
    .unwrap();
    let out = world.run_with_model(&model, work.path(), &["plan", "run", "--json", plan.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = report(&out);
    let subtasks = report["subtasks"].as_array().unwrap();
    let modes: Vec<&str> = subtasks.iter().map(|s| s["mode"].as_str().unwrap()).collect();
    assert_eq!(modes, ["interactive", "direct", "llm"]);
    assert_eq!(subtasks[1]["output_excerpt"], "7\n");
    assert_eq!(subtasks[0]["model_calls"], 2);
}

#[test]
fn ctrl_c_interrupts_the_busy_pane_and_keeps_the_session() {
    let world = World::new();
    let work = tempfile::tempdir().unwrap();
    let model = FakeModel::start();
    model.drive().replies(&[&run("sleep 1000")]);
    let base = format!("{}/v1", model.server.url());
    let child = world
        .command(&["--json", "wait for a long time"])
        .current_dir(work.path())
        .env("OPENAI_BASE_URL", base)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait (with a deadline) until the pane runs the command, then press Ctrl-C on clive.
    let running = world.block_on(async {
        let mut backoff = tmux_habitat::Backoff::new(Duration::from_secs(20));
        loop {
            let panes = world.server().tmux(current_commands()).await;
            if panes.is_ok_and(|p| p.lines().any(|l| l == "sleep")) {
                return true;
            }
            if !backoff.wait().await {
                return false;
            }
        }
    });
    assert!(running, "the command never started");
    let pid = child.id().to_string();
    assert!(std::process::Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    let report = report(&out);
    assert_eq!((report["status"].as_str(), report["kept"].as_bool()), (Some("cancelled"), Some(true)));
    assert!(report["subtasks"][0]["reason"].as_str().unwrap().contains("interrupted with C-c"), "{report}");
    // The pane is back at its shell, not running the command.
    let panes = world.block_on(world.server().tmux(current_commands())).unwrap();
    assert!(!panes.lines().any(|l| l == "sleep"), "{panes}");
}
