//! End to end, with real tmux and the scripted fake model: a task never damages what it only reads, a failed
//! attempt leaves nothing behind, and success means checked (docs/agent.md, "Trust").

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use clive_agent::AgentConfig;
use clive_agent::changes::{ChangeKind, Journal};
use dag_sched::SubtaskStatus;
use support::{World, look, look_yes};

fn plan(goal: &str) -> String {
    serde_json::json!({"version": 1, "subtasks": [{"id": "s", "pane": "shell", "mode": "script", "description": goal}]})
        .to_string()
}

fn write(world: &World, name: &str, text: &str) {
    std::fs::write(world.work.path().join(name), text).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comparing_two_files_never_writes_the_difference_into_either() {
    let world = World::new().await;
    write(&world, "a.txt", "one\ntwo\n");
    write(&world, "b.txt", "one\nthree\n");
    // What a small model writes: `diff` exits 1 when the files differ; its repair prints the difference.
    world.replies(&["```bash\ndiff a.txt b.txt\n```", "```bash\ndiff a.txt b.txt || true\n```", &look_yes()]);
    let agent = world.agent();
    let summary = world.run(&agent, &plan("Compare a.txt to b.txt and show the differences")).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert!(result.summary.contains("> three"), "{result:?}");
    assert_eq!(world.read("b.txt"), "one\nthree\n", "the input b.txt was overwritten");
    assert_eq!(world.read("a.txt"), "one\ntwo\n");
    let stats = agent.ledger().get("s").unwrap();
    assert!(stats.changes.is_empty(), "{:?}", stats.changes);
    assert_eq!((stats.staged, stats.verified), (Some(true), Some(true)), "{stats:?}");
}

/// Goals that only read `a.txt` and `b.txt`, in many words.
const READ_ONLY: &[&str] = &[
    "Compare a.txt to b.txt and show the differences",
    "Compare a.txt with b.txt.",
    "Is a.txt the same as b.txt?",
    "Does a.txt match b.txt?",
    "Check whether a.txt is identical to b.txt.",
    "a.txt differs from the copy in b.txt; show how.",
    "Show how a.txt differs from b.txt",
    "Diff a.txt against b.txt.",
    "Tell me if a.txt is equal to b.txt",
    "Which lines of a.txt are missing in b.txt?",
    "Are a.txt and b.txt different?",
    "How does a.txt compare to b.txt?",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_goals_never_change_their_inputs_whatever_the_script_does() {
    let world = World::new().await;
    write(&world, "a.txt", "one\ntwo\n");
    write(&world, "b.txt", "one\nthree\n");
    // Each goal gets one script that damages both inputs, then prints something.
    let damaging = "```bash\ndiff a.txt b.txt > b.txt; sort -r -o a.txt a.txt; echo compared\n```";
    world.replies(&vec![damaging; READ_ONLY.len()]);
    let config = AgentConfig { script_attempts: 1, final_look: false, ..AgentConfig::default() };
    let agent = world.agent_with(config, None);
    for goal in READ_ONLY {
        let summary = world.run(&agent, &plan(goal)).await;
        let result = summary.result("s").unwrap();
        assert_eq!(result.status, SubtaskStatus::Failed, "{goal}: {result:?}");
        let reason = result.reason.clone().unwrap_or_default();
        assert!(
            reason.contains("which the goal only reads") && reason.contains("nothing was applied"),
            "{goal}: {reason}"
        );
        assert_eq!(world.read("b.txt"), "one\nthree\n", "{goal}: b.txt changed");
        assert_eq!(world.read("a.txt"), "one\ntwo\n", "{goal}: a.txt changed");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unstaged_attempts_still_restore_what_the_goal_only_reads() {
    let world = World::new().await;
    write(&world, "a.txt", "one\ntwo\n");
    write(&world, "b.txt", "one\nthree\n");
    world.replies(&[
        "```bash\ndiff a.txt b.txt > b.txt; echo scratch > tmp.txt; true\n```",
        "```bash\ndiff a.txt b.txt || true\n```",
        &look_yes(),
    ]);
    let agent = world.agent_with(AgentConfig { stage: false, ..AgentConfig::default() }, None);
    let summary = world.run(&agent, &plan("Is a.txt the same as b.txt?")).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded);
    assert_eq!(world.read("b.txt"), "one\nthree\n", "the input was not restored");
    assert!(!world.work.path().join("tmp.txt").exists(), "the refused attempt's scratch file stayed");
    let prompts = world.prompts();
    assert!(prompts[1].contains("it changed b.txt, which the goal only reads"), "{}", prompts[1]);
    assert_eq!(agent.ledger().get("s").unwrap().staged, Some(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_attempt_leaves_nothing_behind() {
    let world = World::new().await;
    write(&world, "log.txt", "kept\n");
    world.replies(&[
        // Half the work, then a failure: a new file, an appended line, a deleted file, a new directory.
        "```bash\necho partial > out.txt\necho more >> log.txt\nmkdir -p build/x\nexit 2\n```",
        "```bash\necho done > out.txt\n```",
        &look_yes(),
    ]);
    let agent = world.agent();
    let summary = world.run(&agent, &plan("Write done to out.txt.")).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded);
    assert_eq!(world.read("out.txt"), "done\n");
    assert_eq!(world.read("log.txt"), "kept\n", "the failed attempt's append stayed");
    assert!(!world.work.path().join("build").exists(), "the failed attempt's directory stayed");
    let stats = agent.ledger().get("s").unwrap();
    let changes: Vec<String> = stats.changes.iter().map(ToString::to_string).collect();
    assert_eq!(changes, ["created out.txt (5 bytes)"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unstaged_failed_attempt_is_taken_back_whole_files_the_goal_never_names_included() {
    let world = World::new().await;
    write(&world, "ledger.dat", "alpha 1\n");
    std::fs::create_dir_all(world.work.path().join("keep")).unwrap();
    write(&world, "keep/card.txt", "card\n");
    world.replies(&[
        // What a program the goal runs may do on its way to failing: edit its own data, remove a directory.
        "```bash\necho 'alpha 0' > ledger.dat\nrm -r keep\necho partial > out.txt\nexit 2\n```",
        "```bash\necho done > out.txt\n```",
        &look_yes(),
    ]);
    let agent = world.agent_with(AgentConfig { stage: false, ..AgentConfig::default() }, None);
    let summary = world.run(&agent, &plan("Write done to out.txt.")).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded);
    assert_eq!(world.read("out.txt"), "done\n");
    assert_eq!(world.read("ledger.dat"), "alpha 1\n", "the failed attempt's edit stayed (half undone)");
    assert_eq!(world.read("keep/card.txt"), "card\n", "the failed attempt's deletion stayed");
    let stats = agent.ledger().get("s").unwrap();
    assert_eq!(stats.staged, Some(false));
    let changes: Vec<String> = stats.changes.iter().map(ToString::to_string).collect();
    assert_eq!(changes, ["created out.txt (5 bytes)"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn applied_changes_are_in_a_journal_that_undoes_them_and_refuses_a_file_changed_since() {
    let world = World::new().await;
    write(&world, "notes.txt", "b\na\n");
    world.replies(&["```bash\nsort -o notes.txt notes.txt\necho 2 > count.txt\n```", &look_yes()]);
    let agent = world.agent();
    let summary = world.run(&agent, &plan("Sort notes.txt in place and write its line count to count.txt.")).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded, "{:?}", summary.result("s"));
    assert_eq!(world.read("notes.txt"), "a\nb\n");
    let stats = agent.ledger().get("s").unwrap();
    let kinds: Vec<(String, ChangeKind, Option<u64>, Option<u64>)> =
        stats.changes.iter().map(|c| (c.path.display().to_string(), c.kind, c.bytes_before, c.bytes_after)).collect();
    assert_eq!(
        kinds,
        [
            ("count.txt".into(), ChangeKind::Created, None, Some(2)),
            ("notes.txt".into(), ChangeKind::Modified, Some(4), Some(4))
        ]
    );
    let journal_dir = stats.journal.expect("a journal");
    // Changed since: refused, naming the file, nothing restored.
    write(&world, "count.txt", "edited\n");
    let error = Journal::load(&journal_dir).unwrap().undo().unwrap_err().to_string();
    assert!(error.contains("count.txt has changed since clive created it"), "{error}");
    assert_eq!(world.read("notes.txt"), "a\nb\n");
    write(&world, "count.txt", "2\n");
    Journal::load(&journal_dir).unwrap().undo().unwrap();
    assert_eq!(world.read("notes.txt"), "b\na\n");
    assert!(!world.work.path().join("count.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_no_from_the_final_look_is_a_repair_and_its_result_is_taken_back() {
    let world = World::new().await;
    write(&world, "access.log", "10.0.0.1 GET /\n10.0.0.2 GET /\n10.0.0.1 GET /a\n");
    world.replies(&[
        // The right shape, the wrong thing: a count of requests where the goal asks for the address.
        "```bash\nwc -l < access.log > top.txt\n```",
        &look(false, "top.txt holds a count, not an address"),
        "```bash\nawk '{print $1}' access.log | sort | uniq -c | sort -rn | head -1 | awk '{print $2}' > top.txt\n```",
        &look_yes(),
    ]);
    let agent = world.agent();
    let summary =
        world.run(&agent, &plan("Write the address that made the most requests in access.log to top.txt.")).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded);
    assert_eq!(world.read("top.txt"), "10.0.0.1\n");
    let prompts = world.prompts();
    assert!(prompts[1].contains("a look at the result says it is wrong: top.txt holds a count"), "{}", prompts[1]);
    let looks = world.looks();
    assert!(
        looks[0].contains("created top.txt (2 bytes)") && looks[0].contains("<file name=\"top.txt\">\n3\n"),
        "{}",
        looks[0]
    );
    let stats = agent.ledger().get("s").unwrap();
    assert_eq!(stats.verified, Some(true));
    assert!(stats.checks.iter().any(|c| c.starts_with("the final look")), "{:?}", stats.checks);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_nothing_could_check_is_unverified() {
    let world = World::new().await;
    world.replies(&["```bash\necho hello\n```"]);
    let agent = world.agent_with(AgentConfig { final_look: false, ..AgentConfig::default() }, None);
    let summary = world.run(&agent, &plan("Say hello.")).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded);
    assert_eq!(agent.ledger().get("s").unwrap().verified, Some(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_goal_that_changes_nothing_gets_no_scratch_files() {
    let world = World::new().await;
    write(&world, "n.txt", "1\n2\n3\n");
    world.replies(&["```bash\nwc -l < n.txt > scratch.txt; cat scratch.txt\n```", &look_yes()]);
    let agent = world.agent();
    let summary = world.run(&agent, &plan("How many lines does n.txt have?")).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded);
    assert!(!world.work.path().join("scratch.txt").exists());
    assert!(agent.ledger().get("s").unwrap().changes.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_of_the_wrong_shape_is_repaired_and_the_right_one_is_checked() {
    let world = World::new().await;
    write(&world, "users.csv", "name,age\nann,31\nbob,42\n");
    world.replies(&[
        "```bash\ncut -d, -f1 users.csv > names.txt\n```",
        "```bash\ntail -n +2 users.csv | cut -d, -f1 > names.txt\n```",
        &look_yes(),
    ]);
    let agent = world.agent();
    let goal = "Write the names in users.csv, without the header, one per line, to names.txt.";
    let summary = world.run(&agent, &plan(goal)).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded);
    assert_eq!(world.read("names.txt"), "ann\nbob\n");
    let prompts = world.prompts();
    assert!(
        prompts[1].contains("names.txt is not as the goal asks") && prompts[1].contains("header"),
        "{}",
        prompts[1]
    );
    let stats = agent.ledger().get("s").unwrap();
    assert!(stats.checks.iter().any(|c| c.starts_with("names.txt:")), "{:?}", stats.checks);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fix_of_the_file_an_earlier_sentence_names_is_kept() {
    let world = World::new().await;
    write(&world, "palette.json", "{\"bg\": \"black\",}\n");
    // The sentence that asks for the fix says "it"; the file is named in the sentence before.
    world.replies(&["```bash\nprintf '{\"bg\": \"black\"}\\n' > palette.json\n```", &look_yes()]);
    let agent = world.agent();
    let summary = world.run(&agent, &plan("palette.json no longer parses. Fix it so that it does.")).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(world.read("palette.json"), "{\"bg\": \"black\"}\n");
    let stats = agent.ledger().get("s").unwrap();
    let changes: Vec<String> = stats.changes.iter().map(|c| c.path.display().to_string()).collect();
    assert_eq!(changes, ["palette.json"], "{:?}", stats.changes);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_after_unpacking_keeps_what_was_unpacked() {
    let world = World::new().await;
    let site = world.work.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    for name in ["a.html", "b.html", "style.css"] {
        std::fs::write(site.join(name), "x\n").unwrap();
    }
    let tar = std::process::Command::new("tar")
        .args(["czf", "site.tar.gz", "site"])
        .current_dir(world.work.path())
        .status()
        .unwrap();
    assert!(tar.success());
    std::fs::remove_dir_all(&site).unwrap();
    world.replies(&["```bash\ntar xzf site.tar.gz && find site -name '*.html' | wc -l\n```", &look_yes()]);
    let agent = world.agent();
    // No destination named: only the verb says that files are made, and the question must not discard them.
    let goal = "Extract site.tar.gz, then tell me how many .html files it holds.";
    let summary = world.run(&agent, &plan(goal)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert!(result.summary.contains('2'), "{result:?}");
    assert!(world.work.path().join("site/a.html").is_file(), "what was unpacked was not kept");
    assert!(!agent.ledger().get("s").unwrap().changes.is_empty());
}
