//! The harness itself: timeouts are reported and leave nothing running, the JSON report is stable, a
//! baseline comparison flags regressions, and `validate` catches a check that cannot fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Command;

use clive_eval::{Agent, Filter, Report, RunOptions, Status, Suite, run_suite};
use support::{TaskFiles, write_suite};

const BIN: &str = env!("CARGO_BIN_EXE_clive-eval");

/// A solution that prints what `clive --json` will print once the agent reports its figures.
const REPORTING_SOLUTION: &str = r#"echo done > out.txt
echo '{"route":{"tier":1,"decision":"script"},"status":"succeeded","turns":2,"model_calls":3,
"tokens":{"in":900,"out":120,"cached":300},"cost_usd":0.0021,"model_ms":40000,"command_ms":1,
"subtasks":[{"mode":"script"}],"files_written":["out.txt"],"answer":"done"}' | tr -d '\n'
"#;

fn small_suite(dir: &std::path::Path) -> std::path::PathBuf {
    write_suite(
        dir,
        &[
            TaskFiles {
                name: "passes",
                toml: "task = \"write done to out.txt\"\ntags = [\"a\"]\n[expect]\nroute = [\"script\"]\n",
                check: "file_is out.txt done\n",
                solution: REPORTING_SOLUTION,
            },
            TaskFiles {
                // Claims success (exit 0) but writes the wrong thing: a false completion.
                name: "claims-but-fails",
                toml: "task = \"write done to out.txt\"\ntags = [\"b\"]\n",
                check: "file_is out.txt done\n",
                solution: "echo nope > out.txt\n",
            },
            TaskFiles {
                name: "wrong-route",
                toml: "task = \"write done to out.txt\"\n[expect]\nroute = [\"answer\"]\n[limits]\nmax_tokens = 500\n",
                check: "file_is out.txt done\n",
                solution: REPORTING_SOLUTION,
            },
            TaskFiles {
                name: "hangs",
                toml: "task = \"never ends\"\ntags = [\"slow\"]\n[limits]\ntimeout_secs = 1\n",
                check: "file_is out.txt done\n",
                solution: "sleep 300\n",
            },
        ],
    )
}

#[tokio::test]
async fn a_task_that_runs_too_long_is_reported_as_a_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let suite = Suite::load(&small_suite(dir.path())).unwrap();
    let tasks = suite.select(&Filter { names: vec!["hangs".into()], tags: vec![] }).unwrap();
    let report = run_suite(&tasks, &RunOptions::new(Agent::Reference), |_, _, _| {}).await.unwrap();
    let run = &report.runs[0];
    assert_eq!(run.status, Status::Timeout, "{run:?}");
    assert!(run.reasons[0].starts_with("timed out after 1 s"), "{:?}", run.reasons);
    assert!((1000..10_000).contains(&run.wall_ms), "{}", run.wall_ms);
    assert_eq!((run.exit_code, run.reported.claimed_success, run.false_completion), (None, None, false));
    assert_eq!(report.summary.timed_out, 1);
}

#[tokio::test]
async fn a_clive_run_that_times_out_leaves_no_process_and_no_tmux_server() {
    let clive = support::clive_binary();
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(
        dir.path(),
        &[TaskFiles {
            name: "sleeps",
            // A tier-0 command: clive starts its tmux server and a pane, then waits for the command.
            toml: "task = \"sleep 300\"\n[limits]\ntimeout_secs = 2\n",
            check: "fail never\n",
            solution: "true\n",
        }],
    );
    let tasks = Suite::load(&suite).unwrap().tasks;
    let scratch = dir.path().join("scratch");
    std::fs::create_dir(&scratch).unwrap();
    let options = RunOptions { scratch: Some(scratch.clone()), ..RunOptions::new(Agent::Clive(clive)) };
    let report = run_suite(&tasks, &options, |_, _, _| {}).await.unwrap();
    assert_eq!(report.runs[0].status, Status::Timeout, "{:?}", report.runs[0]);
    // The tmux server (started with `-S <scratch>/…sock`) and the pane's `sleep` are gone: the harness waits
    // until the server's process has exited (killing it by pid when kill-server did not get through).
    let left = support::processes_mentioning(&scratch.to_string_lossy());
    assert!(left.is_empty(), "still running after the run: {left:?}");
    assert_eq!(std::fs::read_dir(&scratch).unwrap().count(), 0, "the scratch directory was not removed");
}

#[tokio::test]
async fn tier0_tasks_of_the_suite_pass_through_the_real_clive() {
    let clive = support::clive_binary();
    let suite = Suite::load(&support::repo_suite()).unwrap();
    let tasks = suite.select(&Filter { names: vec![], tags: vec!["tier0".into()] }).unwrap();
    let report = run_suite(&tasks, &RunOptions::new(Agent::Clive(clive)), |_, _, _| {}).await.unwrap();
    for run in &report.runs {
        assert_eq!(run.status, Status::Pass, "{run:?}");
        let expected = if run.task.starts_with("answer-") { "answer" } else { "direct" };
        assert_eq!(run.reported.route.as_deref(), Some(expected));
        assert_eq!((run.exit_code, run.reported.claimed_success), (Some(0), Some(true)));
        assert_eq!(run.reported.model_calls, Some(0), "{run:?}");
    }
}

/// The report with the figures that vary between runs (times) replaced.
fn stable(report: &Report) -> serde_json::Value {
    let mut value = serde_json::to_value(report).unwrap();
    value["summary"]["wall_ms"] = "[ms]".into();
    for run in value["runs"].as_array_mut().unwrap() {
        run["wall_ms"] = "[ms]".into();
        if !run["overhead_ms"].is_null() {
            run["overhead_ms"] = "[ms]".into();
        }
    }
    value
}

#[tokio::test]
async fn the_json_report_is_stable() {
    let dir = tempfile::tempdir().unwrap();
    let suite = Suite::load(&small_suite(dir.path())).unwrap();
    let options = RunOptions { repeats: 2, ..RunOptions::new(Agent::Reference) };
    let report = run_suite(&suite.tasks, &options, |_, _, _| {}).await.unwrap();
    // The agent's wall time includes a 40 s "model time" it never spent: the overhead saturates at 0.
    assert!(report.runs.iter().filter(|r| r.task == "passes").all(|r| r.overhead_ms == Some(0)));
    insta::assert_json_snapshot!(stable(&report));
}

fn eval(args: &[&str]) -> std::process::Output {
    Command::new(BIN).args(args).env_remove("RUST_LOG").output().unwrap()
}

#[test]
fn a_baseline_comparison_flags_regressions() {
    let dir = tempfile::tempdir().unwrap();
    let suite = small_suite(dir.path());
    let suite_arg = suite.to_str().unwrap();
    let base = dir.path().join("base.json");
    let out =
        eval(&["run", "--suite", suite_arg, "--agent", "reference", "passes", "-o", base.to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));

    // Same again: nothing regressed.
    let args =
        ["run", "--suite", suite_arg, "--agent", "reference", "passes", "--baseline", base.to_str().unwrap(), "-q"];
    let out = eval(&args);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no regressions"));

    // Now it spends more tokens and then fails its check.
    let solution = suite.join("passes/solution.sh");
    let more_tokens = std::fs::read_to_string(&solution).unwrap().replace("\"in\":900", "\"in\":1400");
    std::fs::write(&solution, &more_tokens).unwrap();
    let out = eval(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("REGRESSION passes: tokens per pass 1020 -> 1520 (+49%)"), "{stdout}");

    std::fs::write(&solution, more_tokens.replace("echo done > out.txt", "echo oops > out.txt")).unwrap();
    let new = dir.path().join("new.json");
    let out = eval(&["run", "--suite", suite_arg, "--agent", "reference", "passes", "-o", new.to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(1));
    // `compare` on two saved reports, as JSON.
    let out = eval(&["compare", base.to_str().unwrap(), new.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let regressions = &report["comparison"]["regressions"];
    assert_eq!(regressions[0]["metric"], "pass_rate", "{report}");
    assert_eq!((regressions[0]["before"].as_f64(), regressions[0]["after"].as_f64()), (Some(1.0), Some(0.0)));
    // A failed run has no tokens per pass, so only the pass rate is compared.
    assert_eq!(regressions.as_array().unwrap().len(), 1, "{report}");
}

#[test]
fn spread_tells_each_report_s_unusual_outcomes_and_names_no_held_out_task() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(
        dir.path(),
        &[
            TaskFiles {
                name: "steady",
                toml: "task = \"write done to out.txt\"\n",
                check: "file_is out.txt done\n",
                solution: "echo done > out.txt\n",
            },
            TaskFiles {
                name: "secret-flip",
                toml: "task = \"write done to out.txt\"\ntags = [\"heldout\"]\n",
                check: "file_is out.txt done\n",
                solution: "echo nope > out.txt\n",
            },
        ],
    );
    let suite_arg = suite.to_str().unwrap();
    let mut reports = Vec::new();
    // The held-out task fails, then passes once, then fails again: its pass in the second report is the rare one.
    for (n, answer) in ["nope", "done", "nope"].iter().enumerate() {
        std::fs::write(suite.join("secret-flip/solution.sh"), format!("echo {answer} > out.txt\n")).unwrap();
        let path = dir.path().join(format!("run{n}.json"));
        eval(&["run", "--suite", suite_arg, "--agent", "reference", "-o", path.to_str().unwrap(), "-q"]);
        reports.push(path.to_str().unwrap().to_owned());
    }
    let mut args = vec!["spread", "--suite", suite_arg];
    args.extend(reports.iter().map(String::as_str));
    let out = eval(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(!text.contains("secret"), "a held-out task was named:\n{text}");
    assert!(text.contains("3 reports · 2 tasks (1 held out: shown by pass rate only)"), "{text}");
    assert!(text.contains("passed at least once: 2 of 2 (100.0 %) · every time: 1 of 2 (50.0 %)"), "{text}");
    let second = text.lines().find(|l| l.contains("run1.json")).unwrap();
    assert!(second.contains("2/2") && second.contains("1/3"), "{second}");
    // Asked for, the names are shown; JSON keeps everything.
    args.push("--show-heldout");
    let shown = String::from_utf8_lossy(&eval(&args).stdout).into_owned();
    assert!(shown.contains("secret-flip 1/3"), "{shown}");
    args.pop();
    args.push("--json");
    let json: serde_json::Value = serde_json::from_slice(&eval(&args).stdout).unwrap();
    assert_eq!(json["reports"][1]["rare_passes"][0]["task"], "secret-flip", "{json}");
    // One report is not a spread; an unreadable one is named.
    let out = eval(&["spread", reports[0].as_str()]);
    assert_eq!(out.status.code(), Some(2));
    let out = eval(&["spread", reports[0].as_str(), "missing.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.json"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn validate_names_a_check_that_cannot_fail_and_a_solution_that_does_not_pass() {
    let dir = tempfile::tempdir().unwrap();
    write_suite(
        dir.path(),
        &[
            TaskFiles { name: "always-passes", toml: "task = \"x\"\n", check: "exit 0\n", solution: "true\n" },
            TaskFiles {
                name: "real",
                toml: "task = \"x\"\n",
                check: "file_is a.txt a\n",
                solution: "echo a > a.txt\n",
            },
            TaskFiles {
                name: "bad-solution",
                toml: "task = \"x\"\n",
                check: "file_is a.txt a\n",
                solution: "echo b > a.txt\n",
            },
        ],
    );
    // A relative suite path works too (checks run in other directories).
    let out = Command::new(BIN).args(["validate", "--suite", "tasks"]).current_dir(dir.path()).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert_eq!(
        stdout.trim(),
        "always-passes: the check does not fail on the untouched fixtures\n\
         bad-solution: after solution.sh: check: a.txt: expected 'a', got 'b'"
    );
}

#[test]
fn held_out_tasks_are_counted_but_not_shown_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(
        dir.path(),
        &[
            TaskFiles {
                name: "secret-trap",
                toml: "task = \"the hidden wording\"\ntags = [\"heldout\"]\n",
                check: "file_is a.txt a\n",
                solution: "echo wrong-value > a.txt\n",
            },
            TaskFiles {
                name: "visible",
                toml: "task = \"x\"\n",
                check: "file_is a.txt a\n",
                solution: "echo a > a.txt\n",
            },
        ],
    );
    let suite = suite.to_str().unwrap();
    let out = eval(&["run", "--suite", suite, "--agent", "reference"]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    for shown in [&stdout, &stderr] {
        assert!(!shown.contains("secret-trap") && !shown.contains("wrong-value"), "{shown}");
    }
    assert!(stdout.contains("1 of 2 runs passed"), "{stdout}");
    assert!(stdout.contains("1 held-out tasks (1 runs) counted above, not listed"), "{stdout}");
    assert!(stderr.contains("(a held-out task) #1 fail"), "{stderr}");
    // Listing hides its wording too; the JSON report keeps everything (baselines need it).
    let out = eval(&["list", "--suite", suite]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("hidden wording") && stdout.contains("1 held-out tasks not listed"), "{stdout}");
    let out = eval(&["run", "--suite", suite, "--agent", "reference", "--json", "-q"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("secret-trap"));
    // Asked for, they are shown.
    let out = eval(&["run", "--suite", suite, "--agent", "reference", "--show-heldout", "-q"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("secret-trap #1: check: a.txt: expected 'a', got 'wrong-value'"), "{stdout}");
    let out = eval(&["list", "--suite", suite, "--show-heldout"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("the hidden wording"));
    // Kept run directories would show the task: a held-out run's is kept only when asked for.
    let kept = dir.path().join("kept");
    let kept_arg = kept.to_str().unwrap();
    let out = eval(&["run", "--suite", suite, "--agent", "reference", "--artifacts", kept_arg, "-q"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--artifacts keeps no directory of the 1 held-out tasks selected"), "{stderr}");
    assert!(kept.join("visible/1/work/a.txt").is_file());
    assert!(!kept.join("secret-trap").exists(), "a held-out run's directory was kept");
    let out = eval(&["run", "--suite", suite, "--agent", "reference", "--artifacts", kept_arg, "--show-heldout", "-q"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(kept.join("secret-trap/1/work/a.txt").is_file());
}

#[test]
fn bad_input_is_named_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(
        dir.path(),
        &[TaskFiles { name: "typo", toml: "task = \"x\"\n[limits]\ntimeout = 5\n", check: "exit 1\n", solution: "" }],
    );
    let out = eval(&["list", "--suite", suite.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("typo") && stderr.contains("unknown field `timeout`"), "{stderr}");

    let out = eval(&["run", "--suite", support::repo_suite().to_str().unwrap(), "no-such-task"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no task in"), "{}", String::from_utf8_lossy(&out.stderr));

    let out = eval(&["run", "--suite", support::repo_suite().to_str().unwrap(), "--clive", "/nonexistent/clive", "-q"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cargo build -p clive-cli"));

    let out = Command::new(BIN)
        .args(["run", "--suite", support::repo_suite().to_str().unwrap(), "--backend", "local"])
        .env_remove("LOCAL_LLM_URL")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("LOCAL_LLM_URL"));
}

#[test]
fn runs_in_parallel_within_the_job_limit() {
    let dir = tempfile::tempdir().unwrap();
    // The two solutions meet at a FIFO: each blocks until the other opens it, so both pass only if they run
    // at the same time.
    let fifo = dir.path().join("meet");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let writer = format!("timeout 10 sh -c 'echo hi > {}' && echo a > a.txt\n", fifo.display());
    let reader = format!("timeout 10 cat {} > /dev/null && echo a > a.txt\n", fifo.display());
    let task = |name, solution| TaskFiles { name, toml: "task = \"x\"\n", check: "file_is a.txt a\n", solution };
    let suite = write_suite(dir.path(), &[task("one", &writer), task("two", &reader)]);
    let out = eval(&["run", "--suite", suite.to_str().unwrap(), "--agent", "reference", "--jobs", "2", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

#[tokio::test]
async fn the_check_reads_the_reports_answer_and_an_error_is_no_answer() {
    let dir = tempfile::tempdir().unwrap();
    let question =
        |name, solution| TaskFiles { name, toml: "task = \"17 * 23?\"\n", check: "answer_number_is 391\n", solution };
    let suite = write_suite(
        dir.path(),
        &[
            question(
                "json-answer",
                "echo '{\"route\":\"answer\",\"answer\":\"391\",\"tokens\":{\"in\":1,\"out\":1}}'\n",
            ),
            question("plain-answer", "echo 'It is 391.'\n"),
            question("error-report", "echo '{\"error\":\"could not compute 391\",\"exit_code\":2}'\n"),
        ],
    );
    let tasks = Suite::load(&suite).unwrap().tasks;
    let report = run_suite(&tasks, &RunOptions::new(Agent::Reference), |_, _, _| {}).await.unwrap();
    let status: Vec<(&str, Status)> = report.runs.iter().map(|r| (r.task.as_str(), r.status)).collect();
    assert_eq!(status, [("error-report", Status::Fail), ("json-answer", Status::Pass), ("plain-answer", Status::Pass)]);
    assert_eq!(report.runs[0].reported.claimed_success, Some(false));
}
