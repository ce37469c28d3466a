//! The script, llm and answer runners, the token budget, and a plan mixing modes on one pane; real tmux and the
//! scripted fake model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use clive_agent::{AgentConfig, FINAL_ANSWER_ID};
use dag_sched::{Mode, SubtaskStatus};
use llm::TokenBudget;
use support::{World, done, look_yes, run};

fn script_plan(goal: &str) -> String {
    serde_json::json!({"version": 1, "subtasks": [{"id": "s", "pane": "shell", "mode": "script", "description": goal}]})
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_script_is_repaired_with_its_error_text() {
    let world = World::new().await;
    world.replies(&[
        "```bash\nset -euo pipefail\ncat missing-input.txt\n```",
        "Fixed:\n```bash\nset -euo pipefail\necho fixed > result.txt\ncat result.txt\n```",
        &look_yes(),
    ]);
    let agent = world.agent();
    let summary = world.run(&agent, &script_plan("write result.txt")).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(result.summary, "fixed");
    assert_eq!(world.read("result.txt"), "fixed\n");
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 2);
    assert!(!prompts[0].contains("failed"), "{}", prompts[0]);
    assert!(prompts[1].starts_with("That failed: exit code 1."), "{}", prompts[1]);
    assert!(prompts[1].contains("missing-input.txt: No such file or directory"), "{}", prompts[1]);
    // The failed script is the model's own earlier turn of the conversation.
    let messages = world.model.requests()[1].body["messages"].as_array().unwrap().clone();
    let failed = &messages[messages.len() - 2];
    assert_eq!(failed["role"], "assistant");
    assert_eq!(failed["content"], "```bash\n#!/bin/bash\nset -euo pipefail\ncat missing-input.txt\n```");
    // Both scripts are kept in the subtask's records, not listed as its files.
    let records = world.run_dir.path().join("subtasks/s/.runner");
    assert!(records.join("script-1.sh").exists() && records.join("script-2.sh").exists());
    assert!(result.files.is_empty(), "{:?}", result.files);
    let stats = agent.ledger().get("s").unwrap();
    // Two scripts and the final look at the result.
    assert_eq!((stats.mode, stats.turns, stats.model_calls), (Some(Mode::Script), 2, 3));
    assert_eq!(stats.verified, Some(true), "{stats:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_reply_stops_after_its_block_and_a_block_cut_there_runs() {
    let world = World::new().await;
    // What a provider returns when the stop sequence ends the reply: the block without its closing fence.
    world.replies(&["```bash\nset -euo pipefail\necho 12 > lines.txt\ncat lines.txt\n"]);
    let agent = world.agent();
    let summary = world.run(&agent, &script_plan("write 12 to lines.txt")).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(world.read("lines.txt"), "12\n");
    let requests = world.model.requests();
    assert_eq!(requests[0].body["stop"], serde_json::json!(["```\n\n"]), "{}", requests[0].body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_script_writer_sees_the_first_lines_of_the_files_its_goal_names() {
    let world = World::new().await;
    let rows: String = (1..=9).map(|i| format!("2024-05-0{i},item{i},{i}.50\n")).collect();
    std::fs::write(world.work.path().join("sales.csv"), format!("date,item,amount\n{rows}")).unwrap();
    // A binary file (a gzip stream's first bytes) is named, not shown.
    std::fs::write(world.work.path().join("old.csv.gz"), b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xed\x9d").unwrap();
    world.replies(&[
        "```bash\nset -euo pipefail\nawk -F, 'NR > 1 { s += $3 } END { print s }' sales.csv > total.txt\n```",
    ]);
    let agent = world.agent();
    let goal = "write the total of the amount column of sales.csv to total.txt (old.csv.gz holds last year's)";
    let summary = world.run(&agent, &script_plan(goal)).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded);
    assert_eq!(world.read("total.txt"), "49.5\n");
    let prompt = &world.prompts()[0];
    // The header and the first rows, as data; not the rest, and nothing for total.txt, which does not exist yet.
    assert!(prompt.contains("<input from=\"sales.csv\">\ndate,item,amount\n2024-05-01,item1,1.50\n"), "{prompt}");
    assert!(!prompt.contains("item5,") && !prompt.contains("<input from=\"total.txt"), "{prompt}");
    assert!(prompt.contains("<input from=\"old.csv.gz\">\n(binary data, not shown)\n</input>"), "{prompt}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destructive_script_is_refused_whole_and_scripts_that_keep_failing_end_the_subtask() {
    let world = World::new().await;
    world.replies(&[
        "```bash\necho cleaning\nrm -rf ~\n```",
        "```python\nimport os\nos.system(\"rm -rf /\")\n```",
        "no script here, sorry",
    ]);
    let agent = world.agent();
    let summary = world.run(&agent, &script_plan("write done.txt")).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Failed, "{result:?}");
    assert!(result.reason.as_deref().unwrap().contains("the reply had no script"), "{result:?}");
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 3, "no interactive fallback after failures that were not a prompt: {prompts:?}");
    assert!(prompts[1].contains("refused by the safety gate: recursive removal of `~`"), "{}", prompts[1]);
    assert!(prompts[2].contains("refused by the safety gate: recursive removal of `/`"), "{}", prompts[2]);
    let stats = agent.ledger().get("s").unwrap();
    assert!(!stats.fell_back, "{stats:?}");
    assert_eq!(stats.refused_commands, 2);
    assert!(!world.work.path().join("cleaning").exists());
    let history = world.history("agent:shell").await;
    assert!(!history.contains("cleaning"), "a refused script ran: {history}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn script_and_interactive_subtasks_on_one_pane_share_its_shell() {
    let world = World::new().await;
    world.replies(&[
        &run("export SHARED_STATE=kept; mkdir -p made && cd made"),
        &done("prepared"),
        &look_yes(),
        "```bash\nset -euo pipefail\necho \"$SHARED_STATE $(basename \"$PWD\")\"\n```",
        &look_yes(),
    ]);
    let plan = r#"{"version":1,"subtasks":[
        {"id":"prepare","pane":"shell","mode":"interactive","description":"prepare the shell"},
        {"id":"check","pane":"shell","mode":"script","description":"show the state","depends_on":["prepare"]}]}"#;
    let agent = world.agent();
    let summary = world.run(&agent, plan).await;
    assert!(summary.all_succeeded(), "{summary:?}");
    // The script runs in the pane's shell (as a child: its own `set -e` cannot end the shell) and sees the
    // directory and variables the interactive subtask left there.
    assert_eq!(summary.result("check").unwrap().summary, "kept made");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_subtasks_write_their_text_from_the_dependencies_and_answers_need_no_pane() {
    let world = World::new().await;
    world.replies(&[
        &run("printf 'alpha\\nbeta\\n' > words.txt; wc -l < words.txt"),
        &done("2 words in words.txt; wrote words.txt"),
        &look_yes(),
        "```markdown\nTwo words: alpha, beta.\n```",
        "Paris",
    ]);
    let plan = r#"{"version":1,"subtasks":[
        {"id":"gather","pane":"shell","mode":"interactive","description":"write two words to words.txt"},
        {"id":"report","pane":"writer","mode":"llm","description":"summarise the words","depends_on":["gather"]},
        {"id":"capital","pane":"q","mode":"answer","description":"What is the capital of France?","depends_on":["report"]}]}"#;
    let agent = world.agent();
    let summary = world.run(&agent, plan).await;
    assert!(summary.all_succeeded(), "{summary:?}");
    let report = summary.result("report").unwrap();
    let written = world.run_dir.path().join("subtasks/report/result.md");
    assert_eq!(std::fs::read_to_string(&written).unwrap(), "Two words: alpha, beta.\n");
    assert!(report.files.contains(&written), "{:?}", report.files);
    let prompts = world.prompts();
    // The llm subtask sees the dependency's summary and the file it wrote, fenced as data.
    assert!(prompts[2].contains("<input from=\"gather\">\nSummary: 2 words in words.txt"), "{}", prompts[2]);
    assert!(prompts[2].contains("words.txt\">\nalpha\nbeta\n</input>"), "{}", prompts[2]);
    assert_eq!(summary.result("capital").unwrap().summary, "Paris");
    // No pane was opened for the text modes.
    let windows = world.windows().await;
    assert!(!windows.contains("writer") && !windows.contains('q'), "{windows}");
    // Several results: one summary call makes the final answer.
    world.replies(&["Two words were written; the capital is Paris."]);
    let answer = agent.final_answer("do three things", &summary).await;
    assert_eq!(answer.text, "Two words were written; the capital is Paris.");
    assert_eq!(agent.ledger().get(FINAL_ANSWER_ID).unwrap().model_calls, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spent_budget_stops_the_run_and_skips_what_is_pending() {
    let world = World::new().await;
    // Each call reports 500 tokens in and 10 out, and holds its estimated prompt plus 200 while in flight: three
    // calls fit in 2000 tokens, the fourth does not.
    world.replies_with_usage(&[&run("echo one"), &run("echo two"), &run("echo three")], 500, 10);
    let config = AgentConfig { action_tokens: 200, ..AgentConfig::default() };
    let budget = TokenBudget::new(2_000);
    let agent = world.agent_with(config, Some(budget.clone()));
    let plan = r#"{"version":1,"subtasks":[
        {"id":"first","pane":"shell","mode":"interactive","description":"echo things"},
        {"id":"next","pane":"shell","mode":"answer","description":"what is 2+2"},
        {"id":"after","pane":"other","mode":"answer","description":"what is 3+3","depends_on":["first"]}]}"#;
    let summary = world.run(&agent, plan).await;
    let first = summary.result("first").unwrap();
    assert_eq!(first.status, SubtaskStatus::Failed, "{first:?}");
    assert!(first.reason.as_deref().unwrap().starts_with("stopped: the token budget ran out"), "{first:?}");
    let next = summary.result("next").unwrap();
    assert_eq!(next.status, SubtaskStatus::Skipped, "{next:?}");
    assert!(next.reason.as_deref().unwrap().contains("the token budget is spent"), "{next:?}");
    assert_eq!(summary.result("after").unwrap().status, SubtaskStatus::Skipped);
    // Every call that reached the model was answered and counted; the refused one never left.
    let calls = world.model.requests().len() as u64;
    assert!((1..=3).contains(&calls), "{calls}");
    let state = budget.state();
    assert_eq!((state.spent, state.reserved, state.refused_calls), (510 * calls, 0, 1));
    assert!(budget.is_exhausted());
    assert_eq!(u64::from(agent.ledger().get("first").unwrap().model_calls), calls);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_llm_subtask_writes_its_text_to_the_file_its_goal_names() {
    let world = World::new().await;
    world.replies(&["hello clive"]);
    let agent = world.agent();
    let plan = r#"{"version":1,"subtasks":[{"id":"w","pane":"shell","mode":"llm",
        "description":"Write the line 'hello clive' to the file reports/2024/summary.txt."}]}"#;
    let summary = world.run(&agent, plan).await;
    let result = summary.result("w").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(world.read("reports/2024/summary.txt"), "hello clive\n");
    assert!(result.files.contains(&world.work.path().join("reports/2024/summary.txt")), "{:?}", result.files);

    world.replies(&["x"]);
    let plan = r#"{"version":1,"subtasks":[{"id":"o","pane":"shell","mode":"llm","description":"Write x to ../outside.txt."}]}"#;
    let summary = world.run(&agent, plan).await;
    assert!(
        summary.result("o").unwrap().reason.as_deref().unwrap_or_default().contains("outside the working directory")
    );
    assert!(!world.work.path().join("../outside.txt").exists());

    // A file changed in place is not replaced by the text: the subtask fails and the file stays as it was.
    std::fs::write(world.work.path().join("kiln.ini"), "; fired by hand\n[kiln]\npeak = 1200\n").unwrap();
    world.replies(&["In kiln.ini, set peak to 1240."]);
    let plan = r#"{"version":1,"subtasks":[{"id":"e","pane":"shell","mode":"llm","description":"In kiln.ini, set peak to 1240 and keep the comment."}]}"#;
    let summary = world.run(&agent, plan).await;
    let result = summary.result("e").unwrap();
    assert_eq!(result.status, SubtaskStatus::Failed, "{result:?}");
    assert!(result.reason.as_deref().unwrap_or_default().contains("not written to kiln.ini"), "{result:?}");
    assert_eq!(world.read("kiln.ini"), "; fired by hand\n[kiln]\npeak = 1200\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interactive_shell_a_script_starts_is_ended_and_never_typed_into() {
    let world = World::new().await;
    // `bash` alone on a line reads the terminal: an interactive shell inside the script (without the rc file, so its
    // prompt is bash's own, whatever this machine's ~/.bashrc makes it).
    world.replies(&["```bash\necho start > a.txt\nbash --norc\necho after > b.txt\n```", &look_yes()]);
    let agent = world.agent();
    let summary = world.run(&agent, &script_plan("write a.txt and b.txt")).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!((world.read("a.txt"), world.read("b.txt")), ("start\n".to_owned(), "after\n".to_owned()));
    // The shell's prompt was no question: no call was made to answer it, and nothing was typed at it.
    let requests = world.model.requests();
    assert!(requests.iter().all(|r| !support::user_message(r).contains("The program asks")), "{:?}", world.prompts());
    assert_eq!(agent.ledger().get("s").unwrap().model_calls, 2, "the script and the final look");
}
