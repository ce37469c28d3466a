//! The script runner checks a script's result against the goal, not only its exit code: a file the goal names that
//! is missing is a failure to repair; a yes/no question the goal answers is answered; a command the subtask came
//! with is the first attempt, without a model call; plain failures do not fall back to the interactive runner.
//! Real tmux and the scripted fake model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use clive_agent::AgentConfig;
use dag_sched::SubtaskStatus;
use support::{World, look_yes};

fn plan(description: &str, command: Option<&str>) -> String {
    let mut subtask = serde_json::json!({"id": "s", "pane": "shell", "mode": "script", "description": description});
    if let Some(command) = command {
        subtask["command"] = command.into();
    }
    serde_json::json!({"version": 1, "subtasks": [subtask]}).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_that_exits_0_without_writing_the_named_file_is_repaired() {
    let world = World::new().await;
    // The first script prints nothing, so the shell has nothing to write for it: the model repairs it.
    world.replies(&["```bash\ntrue\n```", "```bash\necho 12 > count.txt\n```", &look_yes()]);
    // Greedy, as clive runs a local model; the repair is sampled (greedy repairs repeat the failed script).
    let agent = world.agent_with(AgentConfig { temperature: Some(0.0), ..AgentConfig::default() }, None);
    let summary = world.run(&agent, &plan("Count the lines of a.txt and write the number to count.txt.", None)).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded);
    assert_eq!(world.read("count.txt"), "12\n");
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 2, "{prompts:?}");
    assert!(prompts[1].contains("count.txt was not written") && prompts[1].contains("`> count.txt`"), "{}", prompts[1]);
    let temperatures: Vec<f64> = world
        .model
        .requests()
        .iter()
        .filter(|r| !support::is_look(r))
        .map(|r| r.body["temperature"].as_f64().unwrap())
        .collect();
    assert_eq!(temperatures.len(), 2);
    assert!(temperatures[0] == 0.0 && (temperatures[1] - 0.9).abs() < 1e-6, "{temperatures:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_printed_instead_of_written_is_written_by_the_shell_without_a_call() {
    let world = World::new().await;
    std::fs::write(world.work.path().join("a.txt"), "x\ny\n").unwrap();
    // `wc -l a.txt` is read on stdin before it runs (the name would follow the count); its output then goes to the
    // one file the goal names, with `mkdir -p` for its directory: one call in all.
    world.replies(&["```bash\nwc -l a.txt\n```"]);
    let agent = world.agent();
    let summary =
        world.run(&agent, &plan("Count the lines of a.txt and write the number to out/count.txt.", None)).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded, "{:?}", summary.result("s"));
    assert_eq!(world.read("out/count.txt"), "2\n");
    assert_eq!(world.prompts().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_given_command_is_the_first_attempt_and_its_question_is_answered() {
    let world = World::new().await;
    let script = "read -rp 'Delete the cache? [y/N] ' a; printf '%s\\n' \"$a\" > answer.txt";
    std::fs::write(world.work.path().join("ask.sh"), script).unwrap();
    // The task's words do not settle the question: one call answers it (constrained by a schema). The command
    // itself costs no call.
    world.replies(&[r#"{"answer":"no"}"#, &look_yes()]);
    let agent = world.agent();
    let summary = world
        .run(&agent, &plan("Run ask.sh; the cache is still in use by the nightly build.", Some("bash ask.sh")))
        .await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded, "{:?}", summary.result("s"));
    assert_eq!(world.read("answer.txt"), "n\n");
    let requests: Vec<_> = world.model.requests().into_iter().filter(|r| !support::is_look(r)).collect();
    assert_eq!((requests.len(), world.looks().len()), (1, 1));
    assert_eq!(
        requests[0].body["response_format"]["json_schema"]["schema"]["properties"]["answer"]["enum"],
        serde_json::json!(["yes", "no"])
    );
    assert!(support::user_message(&requests[0]).contains("Delete the cache? [y/N]"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_the_task_answers_in_so_many_words_costs_no_call() {
    let world = World::new().await;
    let script = "read -rp 'Delete the cache? [y/N] ' a; printf '%s\\n' \"$a\" > answer.txt";
    std::fs::write(world.work.path().join("ask.sh"), script).unwrap();
    world.replies(&[&look_yes()]);
    let agent = world.agent();
    let summary = world.run(&agent, &plan("Run ask.sh and answer no to its question.", Some("bash ask.sh"))).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded, "{:?}", summary.result("s"));
    assert_eq!(world.read("answer.txt"), "n\n");
    let requests: Vec<_> = world.model.requests().into_iter().filter(|r| !support::is_look(r)).collect();
    assert!(requests.is_empty(), "{} calls", requests.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripts_that_fail_without_a_prompt_do_not_fall_back_to_the_interactive_runner() {
    let world = World::new().await;
    world.replies(&["```bash\nexit 3\n```", "```bash\nexit 4\n```"]);
    let config = AgentConfig { script_attempts: 2, ..AgentConfig::default() };
    let agent = world.agent_with(config, None);
    let summary = world.run(&agent, &plan("make it", None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Failed, "{result:?}");
    assert!(result.reason.as_deref().unwrap().starts_with("2 scripts failed"), "{result:?}");
    assert_eq!(world.model.requests().len(), 2);
    assert!(!agent.ledger().get("s").unwrap().fell_back);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_script_allowed_is_one_call_and_its_failure_says_so() {
    let world = World::new().await;
    world.replies(&["```bash\nexit 4\n```", "```bash\necho never > done.txt\n```"]);
    let agent = world.agent_with(AgentConfig { script_attempts: 1, ..AgentConfig::default() }, None);
    let summary = world.run(&agent, &plan("Write ok to done.txt.", None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Failed, "{result:?}");
    assert!(result.reason.as_deref().unwrap().starts_with("1 script failed; the last: exit code 4"), "{result:?}");
    assert_eq!(world.model.requests().len(), 1);
    assert!(!world.work.path().join("done.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repair_that_returns_the_failed_script_is_not_run_again() {
    let world = World::new().await;
    world.replies(&[
        "```bash\necho ran >> runs.txt\nexit 3\n```",
        "```bash\necho ran >> runs.txt\nexit 3\n```",
        "```bash\necho ok > done.txt\n```",
    ]);
    let agent = world.agent();
    let summary = world.run(&agent, &plan("Write ok to done.txt.", None)).await;
    // No temperature configured: none is sent, not even for a repair (some models accept no other than their own).
    assert!(world.model.requests().iter().all(|r| r.body.get("temperature").is_none()));
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded);
    // A failed attempt leaves nothing behind: what it wrote was staged, then thrown away.
    assert!(!world.work.path().join("runs.txt").exists(), "the failed attempt's write was discarded");
    assert_eq!(world.read("done.txt"), "ok\n");
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 3);
    assert!(prompts[2].contains("did not run again; write a different one. It failed: exit code 3"), "{}", prompts[2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_never_pages_and_a_program_it_only_runs_is_not_shown() {
    let world = World::new().await;
    let report: String = (1..=200).map(|n| format!("line {n}\n")).collect::<String>() + "TOTAL 4711\n";
    std::fs::write(world.work.path().join("report.txt"), report).unwrap();
    let show = world.work.path().join("show.sh");
    std::fs::write(&show, "#!/usr/bin/env bash\nless report.txt\n").unwrap();
    std::fs::set_permissions(&show, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // `less` on the pane's terminal would wait for a person until the deadline; in a script it is `cat`.
    world.replies(&["```bash\n./show.sh\n```"]);
    let agent = world.agent();
    let summary = world.run(&agent, &plan("Run ./show.sh and show me its TOTAL line.", None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert!(world.history("shell").await.contains("TOTAL 4711"));
    let prompts = world.prompts();
    assert!(!prompts[0].contains("less report.txt"), "a program the goal runs is not shown: {}", prompts[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_input_ends_the_subtask_with_its_name_at_once() {
    let world = World::new().await;
    world.replies(&["```bash\nhead -n 1 settings.ini\n```", "```bash\ncat settings.ini\n```"]);
    let agent = world.agent();
    let summary = world.run(&agent, &plan("What is the first line of settings.ini?", None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Failed, "{result:?}");
    assert!(result.reason.as_deref().unwrap().starts_with("settings.ini does not exist (in "), "{result:?}");
    assert_eq!(world.prompts().len(), 1, "no repair: no script makes the file appear");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_asking_into_a_file_is_seen_waiting_not_left_to_the_limit() {
    let world = World::new().await;
    // Its question goes where its output goes: into the file, so the screen shows nothing while it waits.
    std::fs::write(world.work.path().join("tint.py"), "colour = input('Colour? ')\nprint(f'tint={colour}')\n").unwrap();
    let hidden = "```bash\npython3 tint.py > tint.txt\n```";
    let answered = "```bash\nprintf 'teal\\n' | python3 tint.py > tint.txt\n```";
    world.replies(&[hidden, answered, &look_yes()]);
    let agent = world.agent();
    let started = std::time::Instant::now();
    let goal = "Run tint.py with the colour teal and keep what it prints in tint.txt.";
    let summary = world.run(&agent, &plan(goal, None)).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded, "{:?}", summary.result("s"));
    assert_eq!(world.read("tint.txt"), "Colour? tint=teal\n");
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "waited {:?}", started.elapsed());
    let prompts = world.prompts();
    assert!(
        prompts[1].contains(
            "it waited for a line typed on the terminal (no question on the screen: what it asked went \
                             to a file or a pipe)"
        ),
        "{}",
        prompts[1]
    );
}

/// A tally program with a misspelt name in its last line: it fails with a message of its own (no traceback naming
/// the line), or (`quiet`) prints nothing and exits 0.
fn tally_world(world: &World, quiet: bool) {
    let last = if quiet {
        "if False: print(totl)"
    } else {
        "try:\n    print(totl)\nexcept NameError:\n    sys.exit('tally: the total could not be printed')"
    };
    let program =
        format!("import sys\ntotal = 0\nfor line in open(sys.argv[1]):\n    total += int(line.split()[1])\n{last}\n");
    std::fs::write(world.work.path().join("tally.py"), program).unwrap();
    std::fs::write(world.work.path().join("votes.txt"), "ann 3\nbo 4\n").unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_that_only_runs_the_program_to_fix_is_told_to_change_it() {
    let goal = "Running `python3 tally.py votes.txt` should print the sum of the votes. Fix tally.py so that command \
                works.";
    let world = World::new().await;
    tally_world(&world, false);
    world.replies(&[
        "```bash\npython3 tally.py votes.txt\n```",
        "```bash\nsed -i 's/totl/total/' tally.py\npython3 tally.py votes.txt\n```",
    ]);
    let agent = world.agent();
    let summary = world.run(&agent, &plan(goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert!(world.read("tally.py").contains("    print(total)\n") && !world.read("tally.py").contains("totl"));
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 2, "{prompts:?}");
    assert!(prompts[1].contains("exit code 1, and it left tally.py as it was"), "{}", prompts[1]);

    // A clean run of the program is not second-guessed ("fix it if it fails" may need nothing): one call.
    let world = World::new().await;
    tally_world(&world, true);
    world.replies(&["```bash\npython3 tally.py votes.txt\n```"]);
    let agent = world.agent();
    let summary = world.run(&agent, &plan("Run `python3 tally.py votes.txt`; fix tally.py if it fails.", None)).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded, "{:?}", summary.result("s"));
    assert_eq!(world.prompts().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_only_runs_the_program_again_hands_it_to_the_fix_and_rerun_loop() {
    let goal = "Running `python3 tally.py votes.txt` should print the sum of the votes. Fix tally.py so that command \
                works.";
    let world = World::new().await;
    tally_world(&world, false);
    world.replies(&[
        "```bash\npython3 tally.py votes.txt\n```",
        // Told it left tally.py as it was, the model runs it again: the loop takes over, and asks for one change.
        "```bash\n#!/bin/bash\npython3 tally.py votes.txt 2>&1\n```",
        r#"{"command": "sed -i 's/print(totl)/print(total)/' tally.py"}"#,
    ]);
    let agent = world.agent();
    let summary = world.run(&agent, &plan(goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(result.summary, "7");
    assert!(world.read("tally.py").contains("    print(total)\n") && !world.read("tally.py").contains("totl"));
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 3, "{prompts:?}");
    assert!(prompts[2].contains("The program: `python3 tally.py votes.txt`"), "{}", prompts[2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_to_fix_whose_error_names_its_line_is_fixed_at_that_line() {
    let goal = "Running `python3 tally.py votes.txt` should print the sum of the votes. Fix tally.py so that command \
                works.";
    let world = World::new().await;
    let program =
        "import sys\ntotal = 0\nfor line in open(sys.argv[1]):\n    total += int(line.split()[1])\nprint(totl)\n";
    std::fs::write(world.work.path().join("tally.py"), program).unwrap();
    std::fs::write(world.work.path().join("votes.txt"), "ann 3\nbo 4\n").unwrap();
    world.replies(&[
        // The script only runs the program: the traceback names tally.py's line 5, which the fix loop asks for.
        "```bash\npython3 tally.py votes.txt\n```",
        r#"{"line": 5, "text": "print(total)"}"#,
    ]);
    let agent = world.agent();
    let summary = world.run(&agent, &plan(goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(result.summary, "7");
    assert_eq!(world.read("tally.py"), program.replace("totl", "total"));
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 2, "{prompts:?}");
    assert!(prompts[1].contains("tally.py, around line 5:\n<file>\n1: import sys\n"), "{}", prompts[1]);
}

/// A small model's configuration, with no final look: its results are checked by a second script.
fn checked_by_a_second_script() -> AgentConfig {
    AgentConfig { consensus: true, final_look: false, temperature: Some(0.0), ..AgentConfig::default() }
}

const FOUND_NOTHING: &str = "```bash\nawk '/FATAL/{n++} END{print n+0}' app.log > n.txt\n```";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_of_nothing_is_sent_back_once_and_a_new_script_finds_it() {
    let world = World::new().await;
    std::fs::write(world.work.path().join("app.log"), "ERROR disk\nINFO ok\nERROR net\n").unwrap();
    world.replies(&[
        FOUND_NOTHING,
        "```bash\nawk '/ERROR/{n++} END{print n+0}' app.log > n.txt\n```",
        // The second script that checks the result, written apart.
        "```bash\ngrep -c ERROR app.log > n.txt\n```",
    ]);
    let agent = world.agent_with(checked_by_a_second_script(), None);
    let goal = "How many ERROR lines does app.log have? Write the number to n.txt.";
    let summary = world.run(&agent, &plan(goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(world.read("n.txt"), "2\n");
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 3, "{prompts:#?}");
    assert!(prompts[1].contains("it exited 0, but it found nothing (the result is 0"), "{}", prompts[1]);
    assert_eq!(agent.ledger().get("s").unwrap().verified, Some(true));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_of_nothing_is_kept_when_the_new_script_fails() {
    let world = World::new().await;
    std::fs::write(world.work.path().join("app.log"), "INFO ok\n").unwrap();
    world.replies(&[FOUND_NOTHING, "```bash\nawk '{' app.log > n.txt\n```"]);
    let agent = world.agent_with(checked_by_a_second_script(), None);
    let goal = "How many FATAL lines does app.log have? Write the number to n.txt.";
    let summary = world.run(&agent, &plan(goal, None)).await;
    let result = summary.result("s").unwrap();
    // The script that found nothing ran again, without a call; a zero stays unchecked.
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(world.read("n.txt"), "0\n");
    assert_eq!(world.prompts().len(), 2, "{:#?}", world.prompts());
    assert_eq!(agent.ledger().get("s").unwrap().verified, Some(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_of_nothing_on_the_last_attempt_is_kept_when_the_new_script_fails() {
    let world = World::new().await;
    std::fs::write(world.work.path().join("app.log"), "INFO ok\n").unwrap();
    // Two attempts: the first fails, the second finds nothing and is sent back, the one after it fails too: the
    // script that found nothing runs again, without a call.
    world.replies(&["```bash\nexit 3\n```", FOUND_NOTHING, "```bash\nawk '{' app.log > n.txt\n```"]);
    let agent = world.agent_with(AgentConfig { script_attempts: 2, ..checked_by_a_second_script() }, None);
    let goal = "How many FATAL lines does app.log have? Write the number to n.txt.";
    let summary = world.run(&agent, &plan(goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(world.read("n.txt"), "0\n");
    assert_eq!(world.prompts().len(), 3, "{:#?}", world.prompts());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_goal_that_sets_one_key_is_edited_by_the_shell_without_a_call() {
    let ini = "; mill settings\n[web]\nport = 8080 ; public\n\n[cache]\nport = 6379\nttl = 300\n";
    let world = World::new().await;
    std::fs::write(world.work.path().join("mill.ini"), ini).unwrap();
    world.replies(&[]);
    let agent = world.agent();
    let goal = "In mill.ini, change the cache port to 6380. Leave everything else exactly as it is.";
    let summary = world.run(&agent, &plan(goal, None)).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded, "{:?}", summary.result("s"));
    assert_eq!(world.read("mill.ini"), ini.replace("port = 6379", "port = 6380"));
    assert!(world.prompts().is_empty(), "{:?}", world.prompts());
    // Without the shell's fixes, the model writes the edit.
    let world = World::new().await;
    std::fs::write(world.work.path().join("mill.ini"), ini).unwrap();
    world.replies(&["```bash\nsed -i '6s/6379/6380/' mill.ini\n```"]);
    let agent = world.agent_with(AgentConfig { shell_fixes: false, ..AgentConfig::default() }, None);
    let summary = world.run(&agent, &plan(goal, None)).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded, "{:?}", summary.result("s"));
    assert_eq!(world.prompts().len(), 1);
}
