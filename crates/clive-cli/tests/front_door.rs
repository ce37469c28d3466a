//! End to end: the real `clive` binary, a real tmux server per test.

mod support;

use std::time::{Duration, Instant};

use support::{World, text};

#[test]
fn echo_prints_and_leaves_nothing_running() {
    let world = World::new();
    let out = world.run(&["echo hello"]);
    assert_eq!(text(&out.stdout), "hello\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(world.tmux_sessions().iter().all(|s| !s.starts_with("clive-")), "{:?}", world.tmux_sessions());
    assert!(world.sessions().is_empty());
}

#[test]
fn exit_code_is_the_commands() {
    let world = World::new();
    let out = world.run(&["awk 'BEGIN { exit 3 }'"]);
    assert_eq!(out.status.code(), Some(3));
    let out = world.run(&["sh -c 'exit 3'"]);
    assert_eq!(out.status.code(), Some(3), "{}", support::text(&out.stderr));
    let refused = world.run(&["sh -c 'rm -rf ~'"]);
    assert_eq!(refused.status.code(), Some(77), "the gate looks inside sh -c");
    assert_eq!(world.run(&["false"]).status.code(), Some(1));
}

#[test]
fn sleep_takes_its_time() {
    let world = World::new();
    let started = Instant::now();
    let out = world.run(&["sleep 1"]);
    assert!(started.elapsed() >= Duration::from_secs(1), "{:?}", started.elapsed());
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn unicode_and_long_lines_are_exact() {
    let world = World::new();
    let long = "x".repeat(700);
    let task = format!("printf '%s\\n' 'é ü 日本語 🎉 ∑' '{long}' 'last  line'");
    let out = world.run(&[&task]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("é ü 日本語 🎉 ∑\n{long}\nlast  line\n"));
}

#[test]
fn runs_in_the_callers_directory_and_environment() {
    let world = World::new();
    let dir = world.dir.path().join("a dir with spaces");
    std::fs::create_dir(&dir).unwrap();
    let out = world
        .command(&["pwd; printenv CLIVE_TEST_VALUE"])
        .current_dir(&dir)
        .env("CLIVE_TEST_VALUE", "v 1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{}\nv 1\n", dir.canonicalize().unwrap().display()));
    let out = world.run_in(world.dir.path(), &["-C", dir.to_str().unwrap(), "pwd"]);
    assert_eq!(text(&out.stdout), format!("{}\n", dir.canonicalize().unwrap().display()));
}

#[test]
fn destructive_commands_are_refused_and_nothing_is_typed() {
    let world = World::new();
    let out = world.run(&["rm -rf ~"]);
    assert_eq!(out.status.code(), Some(77));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("recursive removal of `~`") && stderr.contains("--allow-destructive"), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(world.tmux_sessions().is_empty(), "a session was created: {:?}", world.tmux_sessions());
}

#[test]
fn a_task_that_needs_a_model_without_provider_names_the_variables() {
    let world = World::new();
    let out = world.run(&["what is the largest file here"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    for name in ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "OLLAMA_HOST"] {
        assert!(stderr.contains(name), "{stderr}");
    }
    assert!(world.tmux_sessions().is_empty());
}

#[test]
fn json_reports_one_object() {
    let world = World::new();
    let out = world.run(&["--json", "echo hi"]);
    assert_eq!(out.status.code(), Some(0));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["task"], "echo hi");
    assert_eq!(report["command"], "echo hi");
    assert_eq!(report["route"]["route"], "direct");
    assert_eq!(report["exit_code"], 0);
    assert_eq!(report["output"], "hi\n");
    assert!(report["duration_ms"].is_u64());
    assert!(report["session"].as_str().unwrap().starts_with("clive-"));
    assert_eq!(report["kept"], false);

    let refused = world.run(&["--json", "rm -rf /"]);
    let error: serde_json::Value = serde_json::from_slice(&refused.stdout).unwrap();
    assert_eq!(error["exit_code"], 77);
    assert!(error["error"].as_str().unwrap().contains("refused"));
}

#[test]
fn a_failed_run_is_kept_listed_logged_then_collected_with_its_log() {
    let world = World::new();
    let out = world.run(&["--retain", "0s", "awk 'BEGIN { print \"boom\"; exit 4 }'"]);
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(text(&out.stdout), "boom\n");

    let sessions = world.sessions();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let id = sessions[0]["id"].as_str().unwrap().to_owned();
    assert_eq!(sessions[0]["state"], "finished");
    assert_eq!(sessions[0]["exit_code"], 4);
    assert_eq!(sessions[0]["task"], "awk 'BEGIN { print \"boom\"; exit 4 }'");
    let table = text(&world.run(&["sessions"]).stdout);
    assert!(table.contains(&id) && table.contains("finished"), "{table}");

    let live = world.run(&["logs", &id]);
    assert_eq!(live.status.code(), Some(0), "{}", text(&live.stderr));
    assert!(text(&live.stdout).lines().any(|l| l == "boom"), "{}", text(&live.stdout));

    // Retention 0s: it has expired; gc archives and removes it.
    let gc = world.run(&["gc"]);
    assert_eq!(gc.status.code(), Some(0), "{}", text(&gc.stderr));
    assert!(text(&gc.stdout).contains(&format!("clive-{id}")), "{}", text(&gc.stdout));
    assert!(world.tmux_sessions().is_empty());
    assert!(world.sessions().is_empty());

    let archived = world.run(&["logs", &id[..4]]);
    assert_eq!(archived.status.code(), Some(0), "{}", text(&archived.stderr));
    let log = text(&archived.stdout);
    assert!(log.contains("# task: awk") && log.lines().any(|l| l == "boom"), "{log}");
    assert!(world.home.join("state/logs").join(format!("clive-{id}.log")).is_file());

    assert_eq!(world.run(&["logs", "nosuch"]).status.code(), Some(1));
}

#[test]
fn every_start_sweeps_expired_sessions_and_keeps_live_ones() {
    let world = World::new();
    assert_eq!(world.run(&["--keep", "true"]).status.code(), Some(0));
    assert_eq!(world.run(&["--retain", "0s", "false"]).status.code(), Some(1));
    assert_eq!(world.sessions().len(), 2);
    assert_eq!(text(&world.run(&["echo next"]).stdout), "next\n");
    let left = world.sessions();
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(left[0]["task"], "true");
    assert_eq!(world.run(&["gc", "--all"]).status.code(), Some(0));
    assert!(world.sessions().is_empty());
}

#[test]
fn management_words_never_swallow_a_task() {
    let world = World::new();
    assert_eq!(text(&world.run(&["ls", "-d", "/"]).stdout), "/\n");
    assert_eq!(text(&world.run(&["--", "echo", "gc"]).stdout), "gc\n");
    assert_eq!(text(&world.run(&["run", "echo", "sessions"]).stdout), "sessions\n");
    let help = text(&world.run(&["--help"]).stdout);
    assert!(help.contains("Exit codes:") && help.contains("Examples:"), "{help}");
}

#[test]
fn two_processes_at_the_same_moment_both_succeed() {
    let world = World::new();
    let children: Vec<_> = (0..2)
        .map(|i| world.command(&[&format!("echo run{i}")]).stdout(std::process::Stdio::piped()).spawn().unwrap())
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), format!("run{i}\n"));
    }
    assert!(world.tmux_sessions().is_empty());
}

/// Eight `clive`s at once, three times, on one server, each over control mode: sessions are created while
/// other processes' control clients attach and leave. tmux (3.3a and 3.5a) crashes when those overlap; the
/// processes take turns, so every run succeeds and the server survives.
#[test]
fn many_processes_on_one_server_over_control_mode_all_succeed() {
    let world = World::new();
    for round in 0..3 {
        let children: Vec<_> = (0..8)
            .map(|i| {
                let mut command = world.command(&[&format!("echo r{round}-{i}")]);
                command.env_remove("TMUX_HABITAT_TRANSPORT").stdout(std::process::Stdio::piped());
                command.stderr(std::process::Stdio::piped()).spawn().unwrap()
            })
            .collect();
        for (i, child) in children.into_iter().enumerate() {
            let out = child.wait_with_output().unwrap();
            assert_eq!(out.status.code(), Some(0), "round {round}, run {i}: {}", text(&out.stderr));
            assert_eq!(text(&out.stdout), format!("r{round}-{i}\n"));
        }
    }
    assert!(world.tmux_sessions().is_empty());
}

#[test]
fn a_failed_write_to_stdout_is_said_on_stderr_and_fails() {
    let world = World::new();
    for args in [&["ls -la /usr/bin"][..], &["--json", "echo hi"][..], &["sessions"][..]] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let child = world.command(args).stdout(full).stderr(std::process::Stdio::piped()).spawn().unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(125), "{args:?}: {stderr}");
        assert!(stderr.contains("writing to stdout failed") && stderr.contains("No space left"), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn a_closed_stdout_ends_quietly_with_the_commands_exit_code() {
    let world = World::new();
    let out = world.run_with_closed_stdout(&["seq 1 3; false"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("stdout") && !stderr.contains("panicked"), "{stderr}");
}

#[test]
fn everyday_commands_run_without_a_model() {
    use std::os::unix::fs::PermissionsExt as _;
    let world = World::new();
    let out = world.run(&["seq 1 5"]);
    assert_eq!((text(&out.stdout).as_str(), out.status.code()), ("1\n2\n3\n4\n5\n", Some(0)), "{}", text(&out.stderr));
    // A script in the task's directory (`-C`), named by a path: installed, so tier 0 takes it.
    let project = world.dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let script = project.join("build.sh");
    std::fs::write(&script, "#!/bin/sh\necho built \"$@\"\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = world.run(&["-C", project.to_str().unwrap(), "./build.sh --release"]);
    assert_eq!(text(&out.stdout), "built --release\n", "{}", text(&out.stderr));
    // Its arguments read as English: tier 0 declines, and the error's advice, taken literally, runs it.
    let out = world.run(&["-C", project.to_str().unwrap(), "./build.sh the release"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("`clive run -- <command>`"), "{stderr}");
    let out = world.run(&["-C", project.to_str().unwrap(), "run", "--", "./build.sh", "the", "release"]);
    assert_eq!((text(&out.stdout).as_str(), out.status.code()), ("built the release\n", Some(0)));
    // The gate still judges an unrouted command.
    assert_eq!(world.run(&["run", "--", "rm", "-rf", "~"]).status.code(), Some(77));
}

#[test]
fn a_local_model_server_that_is_down_fails_at_once_saying_what_to_start() {
    let world = World::new();
    // A loopback port where nothing listens: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let started = Instant::now();
    let out = world
        .command(&["what is the capital of France"])
        .env("OPENAI_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(69), "{stderr}");
    // Retries (3 in each of two tiers) took about 5 s.
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}: {stderr}", started.elapsed());
    assert!(stderr.contains("connection refused") && stderr.contains("start the model server"), "{stderr}");
}
