//! The fix-and-rerun loop and a program's successive questions answered from the task: real tmux, the scripted fake
//! model over the real wire format.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::os::unix::fs::PermissionsExt as _;
use std::time::{Duration, Instant};

use clive_agent::AgentConfig;
use dag_sched::SubtaskStatus;
use support::{World, look_yes};

fn plan(mode: &str, goal: &str, command: Option<&str>) -> String {
    let mut subtask = serde_json::json!({"id": "s", "pane": "shell", "mode": mode, "description": goal, "timeout": 40});
    if let Some(command) = command {
        subtask["command"] = command.into();
    }
    serde_json::json!({"version": 1, "subtasks": [subtask]}).to_string()
}

fn program(world: &World, name: &str, text: &str) {
    let path = world.work.path().join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn fix(command: &str) -> String {
    serde_json::json!({"command": command}).to_string()
}

fn answer(text: &str) -> String {
    serde_json::json!({"answer": text}).to_string()
}

/// Fails, naming the file it needs, until that file exists.
const PACK: &str = "#!/bin/bash\nif [ ! -f manifest.lst ]; then\n  echo \"pack.sh: manifest.lst is missing: list the \
                    files to pack in it, one per line\" >&2\n  exit 2\nfi\necho \"packed $(wc -l < manifest.lst) \
                    entries\"\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_program_is_fixed_one_action_at_a_time_and_run_again_until_it_succeeds() {
    let world = World::new().await;
    program(&world, "pack.sh", PACK);
    world.replies(&[
        // Running the program itself is the shell's job, not a fix.
        &fix("touch manifest.lst; ./pack.sh"),
        // Nor is writing the program out again.
        &fix("cat > pack.sh <<'EOF'\n#!/bin/bash\necho packed 0 entries\nEOF"),
        &fix("printf 'index.html\\nstyle.css\\n' > manifest.lst"),
    ]);
    let agent = world.agent();
    // Given as an interactive subtask: the loop takes a goal like this whatever its mode.
    let goal = "Start ./pack.sh and keep repairing whatever it reports until it works.";
    let summary = world.run(&agent, &plan("interactive", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(result.summary, "packed 2 entries");
    assert_eq!(world.read("manifest.lst"), "index.html\nstyle.css\n");
    assert_eq!(world.read("pack.sh"), PACK, "the program was not rewritten");
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 3, "{prompts:#?}");
    assert!(prompts[0].contains("The program: `./pack.sh`"), "{}", prompts[0]);
    assert!(prompts[0].contains("It failed (exit code 2)"), "{}", prompts[0]);
    assert!(prompts[0].contains("manifest.lst is missing"), "{}", prompts[0]);
    assert!(prompts[1].contains("Your last reply was not run: `touch manifest.lst; ./pack.sh` runs the program"));
    assert!(prompts[2].contains("Your last reply was not run: it writes pack.sh out again"), "{}", prompts[2]);
    let stats = agent.ledger().get("s").unwrap();
    assert_eq!((stats.model_calls, stats.turns, stats.refused_commands), (3, 3, 2), "{stats:?}");
    assert_eq!(stats.verified, Some(true));
    assert!(stats.changes.iter().any(|c| c.path.ends_with("manifest.lst")), "{:?}", stats.changes);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clean_run_does_not_vouch_for_a_result_the_task_wants_right() {
    let world = World::new().await;
    program(&world, "tally.py", "import json\nvotes = json.load(open('votes.json'))\nprint(sum(votes.values()))\n");
    std::fs::write(world.work.path().join("votes.json"), "{\"ana\": 3,\n \"ben\": 4,\n}\n").unwrap();
    // A reply in JSON without a command is not typed into the shell: asked again.
    world.replies(&[r#"{"action":"done"}"#, &fix("sed -i 's/4,$/4/' votes.json")]);
    let agent = world.agent();
    let goal = "Run python3 tally.py and fix whatever it complains about until it works: it should print the right \
                total.";
    let summary = world.run(&agent, &plan("script", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(result.summary, "7");
    let stats = agent.ledger().get("s").unwrap();
    assert_eq!(stats.verified, Some(false), "{stats:?}");
    assert!(stats.checks.iter().any(|c| c.contains("is right was not checked")), "{:?}", stats.checks);
    assert!(world.prompts()[1].contains("Your last reply was not run: it held no command"), "{:?}", world.prompts());
    assert!(!world.history("agent:shell").await.contains("action"), "the JSON was never typed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_success_resting_on_a_guessed_fix_is_unchecked_where_fixes_are_traced() {
    let config = || AgentConfig { trace_fixes: true, ..AgentConfig::default() };
    let goal = "Run ./pack.sh; fix what it complains about and run it again until it succeeds.";
    // The fix lists files that are there: nothing guessed, and the program's exit 0 is the check.
    let world = World::new().await;
    program(&world, "pack.sh", PACK);
    std::fs::write(world.work.path().join("index.html"), "<p>hi</p>\n").unwrap();
    world.replies(&[&fix("ls *.html > manifest.lst")]);
    let agent = world.agent_with(config(), None);
    let summary = world.run(&agent, &plan("script", goal, None)).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Succeeded);
    let stats = agent.ledger().get("s").unwrap();
    assert_eq!(stats.verified, Some(true), "{stats:?}");
    // The fix makes up what to pack: the program accepts it, which checks nothing.
    let world = World::new().await;
    program(&world, "pack.sh", PACK);
    world.replies(&[&fix("printf 'notes.txt\\nphoto.jpg\\n' > manifest.lst")]);
    let agent = world.agent_with(config(), None);
    let summary = world.run(&agent, &plan("script", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!((result.status, result.summary.as_str()), (SubtaskStatus::Succeeded, "packed 2 entries"));
    assert_eq!(world.read("manifest.lst"), "notes.txt\nphoto.jpg\n", "the fix is kept");
    let stats = agent.ledger().get("s").unwrap();
    assert_eq!(stats.verified, Some(false), "{stats:?}");
    let guess = stats.checks.iter().find(|c| c.contains("a fix wrote")).expect("the guess is named");
    assert!(guess.contains("`notes`, `txt`, `photo`, `jpg`"), "{guess}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fix_to_the_program_the_goal_says_not_to_change_is_taken_back() {
    let world = World::new().await;
    program(&world, "pack.sh", PACK);
    world.replies(&[
        // Deleting the program's own check makes it exit 0, and the goal said not to change it.
        &fix("sed -i '2,5d' pack.sh"),
        &fix("printf 'a.txt\\n' > manifest.lst"),
    ]);
    let agent = world.agent();
    let goal = "Run ./pack.sh and fix whatever it complains about (not the script itself) until it works.";
    let summary = world.run(&agent, &plan("script", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(world.read("pack.sh"), PACK, "the program is as it was");
    assert_eq!(result.summary, "packed 1 entries");
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 2, "{prompts:#?}");
    assert!(prompts[1].contains("pack.sh, which the goal only reads"), "{}", prompts[1]);
}

/// Exits 0 having copied nothing until target.cfg names a folder.
const SYNC: &str = "#!/bin/bash\ntarget=$(grep -v '^#' target.cfg)\nif [ -z \"$target\" ]; then\n  echo \"sync: \
                    target.cfg names no folder; nothing copied\"\n  exit 0\nfi\nmkdir -p \"$target\"\ncp files/* \
                    \"$target\"/\necho \"copied $(ls files | wc -l) files\"\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exit_0_that_made_nothing_the_goal_says_the_program_makes_is_no_success() {
    let world = World::new().await;
    program(&world, "sync.sh", SYNC);
    std::fs::write(world.work.path().join("target.cfg"), "# the folder to copy into\n").unwrap();
    std::fs::create_dir(world.work.path().join("files")).unwrap();
    std::fs::write(world.work.path().join("files/a.txt"), "a\n").unwrap();
    world.replies(&[
        // Matches no line: exit 0, and nothing changed.
        &fix("sed -i 's/^$/mirror/' target.cfg"),
        &fix("printf 'mirror\\n' >> target.cfg"),
    ]);
    let agent = world.agent();
    let goal = "Run ./sync.sh. It should copy the files in files/ into mirror/. Fix what it complains about and run it \
                again until it works.";
    let summary = world.run(&agent, &plan("script", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(world.read("mirror/a.txt"), "a\n");
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 2, "{prompts:#?}");
    assert!(
        prompts[0]
            .contains("It failed (it exited 0, but mirror/ is not there, and the task says the program makes it)"),
        "{}",
        prompts[0]
    );
    assert!(
        prompts[1].contains("- `sed -i 's/^$/mirror/' target.cfg`: exit 0, but it changed no file"),
        "{}",
        prompts[1]
    );
    let stats = agent.ledger().get("s").unwrap();
    assert_eq!(stats.verified, Some(true));
    assert!(stats.checks.iter().any(|c| c == "it made mirror/"), "{:?}", stats.checks);
}

/// Fails until app.ini has a port in its [server] section; a real INI parser reads it.
const SERVE: &str = "import configparser, sys\nc = configparser.ConfigParser()\nc.read('app.ini')\nif not \
                     c.has_option('server', 'port'):\n    sys.exit(\"serve: app.ini has no 'port' in [server]\")\n\
                     print('serving on', c.get('server', 'port'))\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_setting_the_error_names_is_set_in_its_section_by_a_set_reply() {
    let world = World::new().await;
    program(&world, "serve.py", SERVE);
    let ini = "[server]\nhost = example.org\n\n[log]\nlevel = info\n";
    std::fs::write(world.work.path().join("app.ini"), ini).unwrap();
    world.replies(&[
        // Two sections: which one is for the reply to say.
        &fix("set app.ini port 8080"),
        // Not a file here, nor one the error or the task names.
        &fix("set server port 8080"),
        &fix("set app.ini [server] port 8080"),
    ]);
    let agent = world.agent();
    let goal = "Run python3 serve.py. It should serve on port 8080. Fix what it complains about, without editing \
                serve.py, and run it again until it works.";
    let summary = world.run(&agent, &plan("script", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(result.summary, "serving on 8080");
    assert_eq!(world.read("app.ini"), "[server]\nhost = example.org\nport = 8080\n\n[log]\nlevel = info\n");
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 3, "{prompts:#?}");
    assert!(
        prompts[1].contains(
            "Your last reply was not run: app.ini has the sections [server], [log]: say which one port goes in \
             (`set app.ini [SECTION] port 8080`)"
        ),
        "{}",
        prompts[1]
    );
    assert!(
        prompts[2].contains(
            "there is no file server here: [server] is a section of app.ini, so write `set app.ini [server] port 8080`"
        ),
        "{}",
        prompts[2]
    );
    let stats = agent.ledger().get("s").unwrap();
    assert_eq!((stats.turns, stats.refused_commands), (3, 2), "{stats:?}");
    assert_eq!(stats.verified, Some(true));
    assert!(stats.changes.iter().any(|c| c.path.ends_with("app.ini")), "{:?}", stats.changes);
    assert!(!world.work.path().join("server").exists());
}

/// Fails until its config holds two lines, a filter can run and its output directory exists; each error says what to
/// do.
const PRESS: &str = r#"#!/bin/bash
[ -f press.conf ] || { echo "press: press.conf not found; create it with the line: paper=a4" >&2; exit 1; }
grep -q '^ink=' press.conf || { echo "press: press.conf has no ink setting (add the line: ink=black)" >&2; exit 1; }
[ -x filters/trim.sh ] || { echo "press: filters/trim.sh is not executable" >&2; exit 1; }
[ -d proofs ] || { echo "press: output directory proofs/ does not exist" >&2; exit 1; }
echo "press: printed on $(sed -n 's/^paper=//p' press.conf) in $(sed -n 's/^ink=//p' press.conf)"
"#;

/// A world for `PRESS`: the program and its filter, not executable.
async fn press_world() -> World {
    let world = World::new().await;
    program(&world, "press.sh", PRESS);
    std::fs::create_dir(world.work.path().join("filters")).unwrap();
    std::fs::write(world.work.path().join("filters/trim.sh"), "#!/bin/bash\ncat\n").unwrap();
    world
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixes_the_errors_state_are_made_by_the_shell_without_a_call() {
    let world = press_world().await;
    world.replies(&[]);
    let agent = world.agent_with(AgentConfig { trace_fixes: true, ..AgentConfig::default() }, None);
    let goal = "Run ./press.sh; if it fails, fix what it complains about (not the script) and run it again until it \
                succeeds.";
    let summary = world.run(&agent, &plan("script", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(result.summary, "press: printed on a4 in black");
    assert_eq!(world.read("press.conf"), "paper=a4\nink=black\n");
    let mode = std::fs::metadata(world.work.path().join("filters/trim.sh")).unwrap().permissions().mode();
    assert_eq!(mode & 0o100, 0o100, "the filter can run");
    assert!(world.work.path().join("proofs").is_dir());
    assert_eq!(world.read("press.sh"), PRESS);
    assert!(world.prompts().is_empty(), "{:#?}", world.prompts());
    let stats = agent.ledger().get("s").unwrap();
    assert_eq!((stats.model_calls, stats.refused_commands), (0, 0), "{stats:?}");
    // Every value written came from the errors: the program's exit 0 is the check.
    assert_eq!(stats.verified, Some(true), "{stats:?}");
}

/// Reads `$SCR` where it sets `SRC`: the loop runs over `/*.md`, and `cp` names no line.
const SHELVE: &str = "#!/bin/bash\nset -e\nSRC=drafts\nDEST=shelf\nmkdir -p \"$DEST\"\nfor f in \"$SCR\"/*.md; do\n  \
                      cp \"$f\" \"$DEST/\"\ndone\necho \"shelved $(ls \"$DEST\" | wc -l) drafts\"\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variable_read_under_a_misspelled_name_is_corrected_without_a_call() {
    let world = World::new().await;
    program(&world, "shelve.sh", SHELVE);
    std::fs::create_dir(world.work.path().join("drafts")).unwrap();
    for name in ["a.md", "b.md"] {
        std::fs::write(world.work.path().join("drafts").join(name), "draft\n").unwrap();
    }
    world.replies(&[]);
    let agent = world.agent();
    let goal = "shelve.sh is meant to copy the drafts onto the shelf, but running ./shelve.sh fails. Fix the script so \
                it works.";
    let summary = world.run(&agent, &plan("script", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(result.summary, "shelved 2 drafts");
    assert_eq!(world.read("shelve.sh"), SHELVE.replace("$SCR", "$SRC"));
    assert!(world.prompts().is_empty(), "{:#?}", world.prompts());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_allowed_value_the_task_names_is_set_by_the_shell_without_a_call() {
    let world = World::new().await;
    let ship = "#!/bin/bash\n. ./ship.conf\ncase \"$CARRIER\" in courier|freight) ;; *) echo \"ship: CARRIER in \
                ship.conf must be courier or freight (it is '$CARRIER')\" >&2; exit 2;; esac\necho \"ship: sent by \
                $CARRIER\"\n";
    program(&world, "ship.sh", ship);
    std::fs::write(world.work.path().join("ship.conf"), "# shipping\nCARRIER=post\n").unwrap();
    world.replies(&[]);
    let agent = world.agent_with(AgentConfig { trace_fixes: true, ..AgentConfig::default() }, None);
    let goal = "Run ./ship.sh. The parcels go by courier. Fix what it complains about (not the script) and run it \
                again until it succeeds.";
    let summary = world.run(&agent, &plan("script", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(result.summary, "ship: sent by courier");
    assert_eq!(world.read("ship.conf"), "# shipping\nCARRIER=courier\n");
    assert!(world.prompts().is_empty(), "{:#?}", world.prompts());
    assert_eq!(agent.ledger().get("s").unwrap().verified, Some(true));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stated_line_setting_what_the_task_names_is_left_to_the_model() {
    let world = press_world().await;
    world.replies(&[&fix("set press.conf ink blue")]);
    // The default configuration has the shell make the fixes the errors state.
    let agent = world.agent();
    let goal = "Run ./press.sh, printing in blue ink; fix what it complains about and run it again until it succeeds.";
    let summary = world.run(&agent, &plan("script", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(result.summary, "press: printed on a4 in blue");
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 1, "{prompts:#?}");
    assert!(prompts[0].contains("(add the line: ink=black)"), "{}", prompts[0]);
    assert!(prompts[0].contains("- `printf '%s\\n' paper=a4 > press.conf`: exit 0"), "{}", prompts[0]);
    // Off, the shell makes none of them.
    let world = press_world().await;
    world.replies(&[]);
    let agent = world.agent_with(AgentConfig { shell_fixes: false, max_turns: 1, ..AgentConfig::default() }, None);
    let summary = world.run(&agent, &plan("script", goal, None)).await;
    assert_eq!(summary.result("s").unwrap().status, SubtaskStatus::Failed);
    assert!(!world.work.path().join("press.conf").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixes_that_do_not_help_end_the_loop_when_its_calls_run_out() {
    let world = World::new().await;
    program(&world, "pack.sh", PACK);
    world.replies(&[&fix("touch manifest"), &fix("touch manifest"), &fix("mkdir -p cache"), &fix("ls manifest.lst")]);
    let agent = world.agent_with(AgentConfig { max_turns: 4, ..AgentConfig::default() }, None);
    let goal = "Run pack.sh with bash; if it fails, fix the problem and run it again.";
    let summary = world.run(&agent, &plan("script", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Failed, "{result:?}");
    let reason = result.reason.as_deref().unwrap();
    assert!(reason.starts_with("`bash pack.sh` still fails after 4 fixes (exit code 2)"), "{reason}");
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 4, "{prompts:#?}");
    assert!(prompts[1].contains("Fixes so far:\n- `touch manifest`: exit 0"), "{}", prompts[1]);
    assert!(prompts[2].contains("`touch manifest` was done already"), "{}", prompts[2]);
    // A fix that names nothing the error does (a small model copies an example's) is not run.
    assert!(
        prompts[3].contains("`mkdir -p cache` acts on nothing the error names (it names pack.sh, manifest.lst)"),
        "{}",
        prompts[3]
    );
    assert!(!world.work.path().join("cache").exists());
    // What the fixes made stays (each exited 0); the failing runs left nothing.
    assert!(world.work.path().join("manifest").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixes_that_change_nothing_three_times_in_a_row_end_the_loop_before_its_calls_run_out() {
    let world = World::new().await;
    program(&world, "pack.sh", PACK);
    world.replies(&[
        &fix("touch manifest"),
        &fix("mkdir -p cache"),
        &fix("ls manifest.lst"),
        &fix("cat manifest"),
        &fix("touch manifest.lst"),
    ]);
    let agent = world.agent_with(AgentConfig { max_turns: 8, ..AgentConfig::default() }, None);
    let goal = "Run pack.sh with bash; if it fails, fix the problem and run it again.";
    let summary = world.run(&agent, &plan("script", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Failed, "{result:?}");
    let reason = result.reason.as_deref().unwrap();
    assert!(reason.contains("the last 3 fixes offered changed nothing"), "{reason}");
    // The first fix kept a change; the three after it (refused, failed, changing no file) kept none.
    assert_eq!(world.prompts().len(), 4);
    assert!(world.work.path().join("manifest").exists());
    assert!(!world.work.path().join("manifest.lst").exists(), "the fifth reply was never asked for");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fix_that_runs_past_its_limit_is_stopped_and_the_loop_goes_on() {
    let world = World::new().await;
    program(&world, "pack.sh", PACK);
    world.replies(&[&fix("sleep 30; touch manifest.lst"), &fix("printf 'a.txt\\n' > manifest.lst")]);
    let config = AgentConfig { fix_wait: Duration::from_secs(1), ..AgentConfig::default() };
    let agent = world.agent_with(config, None);
    let started = Instant::now();
    let goal = "Run pack.sh with bash; if it fails, fix the problem and run it again.";
    let summary = world.run(&agent, &plan("script", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(result.summary, "packed 1 entries");
    assert!(started.elapsed() < Duration::from_secs(25), "the slow fix was waited out: {:?}", started.elapsed());
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 2, "{prompts:#?}");
    assert!(
        prompts[1].contains("`sleep 30; touch manifest.lst`: it ran past 1s and was stopped; nothing kept"),
        "{}",
        prompts[1]
    );
}

/// A program asking its questions one after the other with `read -p`, recording the answers.
fn asking(questions: &[&str]) -> String {
    let mut text = String::from("#!/bin/bash\n");
    for (i, question) in questions.iter().enumerate() {
        text.push_str(&format!("read -r -p '{question} ' a{i}\n"));
    }
    let all: Vec<String> = (0..questions.len()).map(|i| format!("$a{i}")).collect();
    text.push_str(&format!("printf '%s\\n' \"{}\" > answers.log\necho registered\n", all.join("|")));
    text
}

/// Runs `./enrol.sh` asking `questions` for `task`; the model answers the first `asked` of them (a question listing
/// its answers, one of which the task names, takes no call), and the program gets `answers`.
async fn questions_in_turn(questions: &[&str], task: &str, answers: &[&str], asked: usize) {
    let world = World::new().await;
    program(&world, "enrol.sh", &asking(questions));
    let mut replies: Vec<String> = answers[..asked].iter().map(|a| answer(a)).collect();
    replies.push(look_yes());
    world.replies(&replies.iter().map(String::as_str).collect::<Vec<_>>());
    let agent = world.agent();
    let started = Instant::now();
    let summary = world.run(&agent, &plan("script", task, Some("./enrol.sh"))).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(world.read("answers.log"), format!("{}\n", answers.join("|")));
    let prompts = world.prompts();
    assert_eq!(prompts.len(), asked, "one call per question: {prompts:#?}");
    for (i, question) in questions[..asked].iter().enumerate() {
        assert!(prompts[i].trim_end().ends_with(&format!("{question}\n</screen>")), "{}", prompts[i]);
    }
    assert!(prompts[1].contains(&format!("Answered already:\n- `{}` {}", questions[0], answers[0])), "{}", prompts[1]);
    // Each question is seen when the program sits at it, not at the subtask's time limit.
    assert!(started.elapsed() < Duration::from_secs(25), "{:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn questions_the_task_answers_as_their_subjects_values_cost_no_call() {
    let world = World::new().await;
    program(&world, "enrol.sh", &asking(&["Owner:", "Shop name (lowercase):"]));
    world.replies(&[&look_yes()]);
    let agent = world.agent();
    let task = "Run ./enrol.sh: the owner is Dara Quinn and the shop is called owl-books.";
    let summary = world.run(&agent, &plan("script", task, Some("./enrol.sh"))).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(world.read("answers.log"), "Dara Quinn|owl-books\n");
    assert!(world.prompts().is_empty(), "{:#?}", world.prompts());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_questions_in_a_row_are_each_answered_from_the_task() {
    questions_in_turn(
        &["Planet name:", "Moons?"],
        "Run ./enrol.sh for Kepler-22b, a planet with 3 moons.",
        &["Kepler-22b", "3"],
        2,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_questions_in_a_row_are_each_answered_from_the_task() {
    questions_in_turn(
        &["Full name:", "Favourite editor:", "Office [north/south]?"],
        "Run ./enrol.sh for Ines Duarte, who uses helix and sits in the south office.",
        &["Ines Duarte", "helix", "south"],
        2,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keeping_what_a_program_suggests_is_enter_and_what_it_writes_is_kept() {
    let world = World::new().await;
    program(&world, "enrol.sh", &asking(&["Observer:", "Telescope [dobsonian]:"]));
    // "Keep whatever telescope it suggests" names the question's subject: Enter, without a call.
    world.replies(&[&answer("Wen Li"), &look_yes()]);
    let agent = world.agent();
    let task = "Log it with ./enrol.sh: Wen Li saw the comet; keep whatever telescope it suggests.";
    let summary = world.run(&agent, &plan("script", task, Some("./enrol.sh"))).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    // Doing something "with ./enrol.sh" runs it: what it writes is kept.
    assert_eq!(world.read("answers.log"), "Wen Li|\n");
    let prompts = world.prompts();
    assert!(
        !prompts.iter().any(|p| p.trim_end().ends_with("Telescope [dobsonian]:\n</screen>")),
        "the telescope's question was asked of the model: {prompts:#?}"
    );
    assert!(!world.history("agent:shell").await.contains("keep whatever"), "the words were typed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sed_fix_copied_from_the_program_matches_the_text_it_copied() {
    let world = World::new().await;
    let text = "#!/usr/bin/env python3\nrow = {\"amount\": \"34.99\"}\nprint(int(row[\"amount\"]) * 2)\n";
    program(&world, "price.py", text);
    // Read as sed reads it, `["amount"]` is one character of a set: the line would be left as it was.
    world.replies(&[&fix("sed -i 's/int(row[\"amount\"])/float(row[\"amount\"])/' price.py")]);
    let agent = world.agent();
    let goal = "Run ./price.py; if it fails, fix price.py and run it again until it works.";
    let summary = world.run(&agent, &plan("interactive", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(result.summary, "69.98");
    assert_eq!(world.read("price.py"), text.replace("int(row", "float(row"));
    assert_eq!(world.prompts().len(), 1, "{:#?}", world.prompts());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_in_a_line_of_the_program_to_fix_is_fixed_by_its_corrected_line() {
    let world = World::new().await;
    let text = "#!/usr/bin/env python3\nrows = [{\"grams\": \"120\"}, {\"grams\": \"80\"}]\nweight = 0\nfor row in \
                rows:\n    weight += row[\"grams\"]\nprint(weight)\n";
    program(&world, "weigh.py", text);
    // The first reply names a line that is not there; the second drops the line's indentation, which is kept.
    world.replies(&[
        r#"{"line": 50, "text": "weight += int(row[\"grams\"])"}"#,
        r#"{"line": 5, "text": "weight += int(row[\"grams\"])"}"#,
    ]);
    let agent = world.agent();
    let goal = "`python3 weigh.py` should print the total weight but it crashes. Fix weigh.py and run it again until \
                it works.";
    let summary = world.run(&agent, &plan("interactive", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(result.summary, "200");
    assert_eq!(world.read("weigh.py"), text.replace("+= row[\"grams\"]", "+= int(row[\"grams\"])"));
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 2, "{prompts:#?}");
    assert!(prompts[0].contains("weigh.py, around line 5:\n<file>\n1: #!/usr/bin/env python3\n"), "{}", prompts[0]);
    assert!(prompts[0].contains("5:     weight += row[\"grams\"]\n6: print(weight)\n</file>"), "{}", prompts[0]);
    assert!(prompts[1].contains("Your last reply was not run: weigh.py has no line 50"), "{}", prompts[1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_that_fails_in_a_line_of_the_program_to_fix_hands_it_to_the_fix_loop() {
    let world = World::new().await;
    let text = "#!/bin/bash\ntotal=0\nfor f in \"$1\"/*.txt do\n  n=$(wc -l < \"$f\")\n  total=$((total + n))\ndone\n\
                echo \"$total\"\n";
    program(&world, "tally.sh", text);
    std::fs::create_dir(world.work.path().join("letters")).unwrap();
    std::fs::write(world.work.path().join("letters/a.txt"), "one\ntwo\n").unwrap();
    std::fs::write(world.work.path().join("letters/b.txt"), "three\n").unwrap();
    // The script only makes the program executable and runs it: its syntax error points into tally.sh, where the
    // loop's head lacks its `;` before `do`: the fix loop puts it there without a call (`LineSite::evident`).
    world.replies(&["```bash\nchmod +x tally.sh\n./tally.sh letters\n```"]);
    let agent = world.agent();
    let goal = "./tally.sh letters should print how many lines the .txt files in letters/ have in all, but it errors \
                out. Fix the script so that command works.";
    let summary = world.run(&agent, &plan("script", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(result.summary, "3");
    assert_eq!(world.read("tally.sh"), text.replace("*.txt do", "*.txt; do"));
    let prompts = world.prompts();
    assert_eq!(prompts.len(), 1, "{prompts:#?}");
}

/// A menu that comes back after each action, until Quit.
const KENNEL: &str = "#!/bin/bash\nwhile true; do\n  printf '1) Feed the dogs\\n2) Walk the dogs\\n3) Bathe the dogs\\n4) \
                      Quit\\n'\n  read -r -p 'Pick [1-4]: ' c\n  case $c in\n    1) echo fed >> done.log ;;\n    2) echo \
                      walked >> done.log ;;\n    3) echo bathed >> done.log ;;\n    4) exit 0 ;;\n  esac\ndone\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_menu_that_comes_back_is_quit_once_what_the_task_asks_is_done() {
    let world = World::new().await;
    program(&world, "kennel.sh", KENNEL);
    // The model picks the one item the task names; the menu comes back, and its quit item is typed without a call.
    world.replies(&[&answer("2) Walk the dogs"), &look_yes()]);
    let agent = world.agent();
    let task = "Use ./kennel.sh to walk the dogs, then quit.";
    let summary = world.run(&agent, &plan("script", task, Some("./kennel.sh"))).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(world.read("done.log"), "walked\n");
    assert_eq!(world.prompts().len(), 1, "{:#?}", world.prompts());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_the_task_does_not_answer_is_reported_not_guessed() {
    let world = World::new().await;
    program(&world, "enrol.sh", &asking(&["Planet name:", "Access token:"]));
    // The second answer is a guess: no word of the task.
    world.replies(&[&answer("Kepler-22b"), &answer("tok-1234")]);
    let agent = world.agent();
    let started = Instant::now();
    let task = "Run ./enrol.sh for the planet Kepler-22b.";
    let summary = world.run(&agent, &plan("script", task, Some("./enrol.sh"))).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Failed, "{result:?}");
    assert_eq!(
        result.reason.as_deref().unwrap(),
        "`./enrol.sh` asks `Access token:` and the task does not say what to answer: say it in the task"
    );
    assert!(!world.work.path().join("answers.log").exists(), "the program was stopped at the question");
    assert!(!world.history("agent:shell").await.contains("tok-1234"), "the guess was typed");
    assert_eq!(world.prompts().len(), 2);
    assert!(started.elapsed() < Duration::from_secs(25), "{:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_program_line_a_subtask_came_with_passes_the_gate_like_any_command() {
    let world = World::new().await;
    program(&world, "pack.sh", PACK);
    std::fs::write(world.work.path().join("keep.txt"), "kept\n").unwrap();
    let agent = world.agent();
    // A model's command that names the program but also removes the directory it works in (were it ever run,
    // it would run staged: only an overlay of the directory would go).
    let goal = "Start ./pack.sh and keep repairing whatever it reports until it works.";
    let command = "rm -rf . ; ./pack.sh";
    let summary = world.run(&agent, &plan("script", goal, Some(command))).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Failed, "{result:?}");
    assert!(result.reason.as_deref().unwrap_or_default().contains("was refused"), "{result:?}");
    assert_eq!(world.read("keep.txt"), "kept\n", "nothing ran");
    assert!(world.prompts().is_empty(), "no call was made");
    assert_eq!(agent.ledger().get("s").unwrap().refused_commands, 1);
}

/// Fails until its config has an ink line and its output directory exists.
const STAMP: &str = r#"#!/bin/bash
grep -q '^ink=' stamp.conf || { echo "stamp: stamp.conf has no ink setting" >&2; exit 1; }
[ -d out ] || { echo "stamp: output directory out/ does not exist" >&2; exit 1; }
echo "stamp: inked $(sed -n 's/^ink=//p' stamp.conf)"
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unstaged_a_failed_fix_goes_back_to_the_fixes_kept_before_it_not_to_the_start() {
    let world = World::new().await;
    program(&world, "stamp.sh", STAMP);
    std::fs::write(world.work.path().join("stamp.conf"), "paper=a4\n").unwrap();
    world.replies(&[
        &fix("echo ink=black >> stamp.conf"),
        // Half a fix, then a failure: taken back to where the first fix left things.
        &fix("mkdir out && echo size=9 >> stamp.conf && false"),
        &fix("mkdir out"),
    ]);
    let config = AgentConfig { stage: false, shell_fixes: false, ..AgentConfig::default() };
    let agent = world.agent_with(config, None);
    let goal = "Run ./stamp.sh; if it fails, fix what it complains about and run it again until it succeeds.";
    let summary = world.run(&agent, &plan("script", goal, None)).await;
    let result = summary.result("s").unwrap();
    assert_eq!(result.status, SubtaskStatus::Succeeded, "{result:?}");
    assert_eq!(result.summary, "stamp: inked black");
    assert_eq!(world.read("stamp.conf"), "paper=a4\nink=black\n", "the failed fix undid the kept one, or stayed");
    assert_eq!(agent.ledger().get("s").unwrap().staged, Some(false));
}
