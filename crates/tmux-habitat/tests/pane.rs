//! End-to-end tests of the pane API against a real tmux server (one private socket per test).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use std::time::{Duration, Instant};

use tmux_habitat::{
    CaptureOptions, Command, Error, InterventionKind, Key, Pane, Server, SessionOptions, SocketSpec, TransportKind,
};

async fn server(kind: TransportKind) -> Server {
    let server = Server::builder().transport(kind).start().await.unwrap();
    assert_eq!(server.transport_kind(), kind);
    server
}

const T: Duration = Duration::from_secs(10);

async fn shell(kind: TransportKind) -> (Server, Pane) {
    let server = server(kind).await;
    let session = server.new_session(SessionOptions::new("t")).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    (server, pane)
}

async fn sleep_is_not_done_before_it_ends(kind: TransportKind) {
    let (_server, pane) = shell(kind).await;
    let started = Instant::now();
    let out = pane.run("sleep 1", T).await.unwrap();
    assert!(started.elapsed() >= Duration::from_secs(1), "reported done after {:?}", started.elapsed());
    assert!(out.duration >= Duration::from_secs(1));
    assert_eq!(out.exit_code, 0);
}

async fn a_thousand_fast_commands_never_end_early(kind: TransportKind) {
    let (_server, pane) = shell(kind).await;
    for i in 0..1000 {
        let out = pane.run(&format!("echo n{i}; false"), T).await.unwrap();
        assert_eq!(out.output, format!("n{i}\n"), "run {i}");
        assert_eq!(out.exit_code, 1, "run {i}");
    }
}

async fn instant_output_and_marker_lookalikes(kind: TransportKind) {
    let (_server, pane) = shell(kind).await;
    assert_eq!(pane.run("echo hi", T).await.unwrap().output, "hi\n");
    let tricky = "printf '__HAB_E_%s:0\\n' x; echo '__HAB_S_'; echo \"__HAB_E_$RANDOM:0\"; sleep 0.3; echo after";
    let out = pane.run(tricky, T).await.unwrap();
    assert!(out.duration >= Duration::from_millis(300));
    assert!(out.output.ends_with("after\n"), "{:?}", out.output);
    assert_eq!(out.exit_code, 0);
    assert_eq!(pane.run("printf abc", T).await.unwrap().output, "abc");
    assert_eq!(pane.run("true", T).await.unwrap().output, "");
}

/// The predecessor's second early end: a typed line wider than the pane whose output scrolled its first half off
/// screen, leaving its own end marker on the remaining half. Here the line wraps over several rows of a narrow
/// pane and the output scrolls it away before the command ends.
async fn a_wrapped_line_scrolled_away_by_its_output_is_not_done_early(kind: TransportKind) {
    let server = server(kind).await;
    let session = server.new_session(SessionOptions::new("narrow").size(30, 8)).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    let started = Instant::now();
    let out = pane.run("seq 1 40; sleep 1; seq 41 45; echo end", T).await.unwrap();
    assert!(started.elapsed() >= Duration::from_secs(1), "reported done after {:?}", started.elapsed());
    assert!(out.output.starts_with("1\n2\n") && out.output.ends_with("44\n45\nend\n"), "{:?}", out.output);
    assert_eq!(out.exit_code, 0);
}

async fn long_command_lines_and_heredocs(kind: TransportKind) {
    let (_server, pane) = shell(kind).await;
    let payload = "x".repeat(10_000);
    let out = pane.run(&format!("echo {payload} | wc -c"), T).await.unwrap();
    assert_eq!(out.output.trim(), "10001");
    let heredoc = "cat <<'EOF'\nline one\n  $HOME stays literal\nEOF\necho second";
    let out = pane.run(heredoc, T).await.unwrap();
    assert_eq!(out.output, "line one\n  $HOME stays literal\nsecond\n");
    let out = pane.run("for i in 1 2 3; do\n  echo $i\ndone", T).await.unwrap();
    assert_eq!(out.output, "1\n2\n3\n");
}

async fn shell_state_carries_over_between_runs(kind: TransportKind) {
    let (_server, pane) = shell(kind).await;
    pane.run("cd /tmp && export HAB_X=42", T).await.unwrap();
    assert_eq!(pane.run("pwd; echo $HAB_X", T).await.unwrap().output, "/tmp\n42\n");
}

async fn answering_a_prompt_types_only_the_answer(kind: TransportKind) {
    let (_server, pane) = shell(kind).await;
    let running = pane.start("read -p \"[y/N] \" a; echo \"got:$a\"").await.unwrap();
    let found = running.wait_for_intervention(T).await.unwrap().expect("the [y/N] prompt is detected");
    assert_eq!(found.kind, InterventionKind::Confirm);
    pane.send_line("y").await.unwrap();
    let out = running.wait(T).await.unwrap();
    assert!(out.output.lines().any(|l| l == "got:y"), "{:?}", out.output);
    // The old prompt is still on screen; the next command must not see it.
    let next = pane.start("sleep 0.2; echo fine").await.unwrap();
    assert_eq!(next.intervention().await.unwrap(), None);
    assert_eq!(next.wait_for_intervention(T).await.unwrap(), None);
}

async fn a_command_that_kills_its_shell_leaves_a_readable_dead_pane(kind: TransportKind) {
    let (_server, pane) = shell(kind).await;
    match pane.run("echo bye; exit 7", T).await {
        Err(Error::PaneDead { status, .. }) => assert_eq!(status, Some(7)),
        other => panic!("expected a dead pane, got {other:?}"),
    }
    let info = pane.info().await.unwrap();
    assert!(info.dead);
    assert_eq!(pane.exit_status().await.unwrap(), Some(7));
    assert!(pane.capture_text().await.unwrap().contains("bye"));
}

async fn remain_on_exit_holds_on_every_window(kind: TransportKind) {
    let server = server(kind).await;
    let session = server.new_session(SessionOptions::new("w")).await.unwrap();
    let second = session.new_window("two").await.unwrap();
    let third = session.new_window("three").await.unwrap();
    for (pane, code) in [(session.first_pane().clone(), 4), (second, 5), (third, 6)] {
        pane.wait_ready(T).await.unwrap();
        pane.send_line(&format!("exit {code}")).await.unwrap();
        let mut backoff = tmux_habitat::Backoff::new(T);
        while !pane.info().await.unwrap().dead && backoff.wait().await {}
        assert!(pane.info().await.unwrap().dead, "{pane:?} is gone or alive");
        assert_eq!(pane.exit_status().await.unwrap(), Some(code), "{pane:?}");
        // bash's exit scrolls the screen a row (its prompt row goes into the history): read a little of it too.
        let last = pane.capture(CaptureOptions::visible().scrollback(10)).await.unwrap();
        assert!(last.contains(&format!("exit {code}")), "the last screen stays: {last:?}");
    }
}

async fn new_windows_start_in_the_sessions_directory(kind: TransportKind) {
    let server = server(kind).await;
    let dir = tempfile::tempdir().unwrap();
    let session = server.new_session(SessionOptions::new("cwd").cwd(dir.path())).await.unwrap();
    let window = session.new_window("second").await.unwrap();
    window.wait_ready(T).await.unwrap();
    let here = window.run("pwd -P", T).await.unwrap().output;
    assert_eq!(here.trim_end(), dir.path().canonicalize().unwrap().display().to_string());
}

async fn the_default_shell_signs_each_prompt_in_the_title(kind: TransportKind) {
    let server = server(kind).await;
    let session = server.new_session(SessionOptions::new("title")).await.unwrap();
    let pane = session.first_pane();
    pane.wait_ready(T).await.unwrap();
    let running = pane.start("sleep 30").await.unwrap();
    let mut backoff = tmux_habitat::Backoff::new(T);
    while pane.info().await.unwrap().current_command != "sleep" && backoff.wait().await {}
    // While the command runs, the sign is the prompt its line was read at.
    let before = tmux_habitat::shell_prompt(&pane.info().await.unwrap().title).expect("a prompt sign");
    assert!(before.count >= 1);
    // C-c aborts the whole typed line: no end marker, but the prompt sign says the shell is back.
    pane.send_keys(&[Key::CTRL_C]).await.unwrap();
    let mut backoff = tmux_habitat::Backoff::new(T);
    let mut after = None;
    while backoff.wait().await {
        after = tmux_habitat::shell_prompt(&pane.info().await.unwrap().title).filter(|p| p.count > before.count);
        if after.is_some() {
            break;
        }
    }
    assert_eq!(after.map(|p| p.status), Some(130));
    drop(running);
}

async fn dropping_the_server_leaves_nothing_behind(kind: TransportKind) {
    let server = server(kind).await;
    server.new_session(SessionOptions::new("d")).await.unwrap();
    let socket = server.socket_path().to_owned();
    assert!(socket.exists());
    drop(server);
    assert!(!socket.exists(), "socket {socket:?} left behind");
    let status = std::process::Command::new("tmux")
        .arg("-S")
        .arg(&socket)
        .arg("has-session")
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(!status.success(), "server still answers");
}

async fn tmux_in_the_environment_never_redirects_our_calls(kind: TransportKind) {
    // A decoy server that $TMUX points at.
    let decoy = server(kind).await;
    decoy.new_session(SessionOptions::new("decoy")).await.unwrap();
    // SAFETY of the test: env is process-global; this test only sets variables that every call scrubs.
    let ours = server(kind).await;
    let fake_tmux = format!("{},1,0", decoy.socket_path().display());
    let session = temp_env(&fake_tmux, async { ours.new_session(SessionOptions::new("mine")).await.unwrap() }).await;
    assert!(ours.has_session("mine").await.unwrap());
    assert!(!decoy.has_session("mine").await.unwrap());
    session.first_pane().wait_ready(T).await.unwrap();
    // The pane's shell talks to its own server too.
    let out = session.first_pane().run("tmux display -p '#{socket_path}'", T).await.unwrap();
    assert_eq!(out.output.trim(), ours.socket_path().display().to_string());
}

async fn temp_env<F: std::future::Future>(tmux: &str, f: F) -> F::Output {
    // Tests in this binary run in parallel; setting TMUX for all of them is exactly the hazard being tested,
    // and every call scrubs it, so no other test is affected.
    #[allow(unsafe_code)]
    unsafe {
        std::env::set_var("TMUX", tmux);
        std::env::set_var("TMUX_PANE", "%999");
    }
    f.await
}

/// tmux leaves its socket file behind when its last session ends; asking such a socket for its sessions must not
/// cost a `tmux` process (over control mode, a failed attach and then `list-sessions`: about 3.5 ms of every later
/// cold start), and a session created there still starts the server.
async fn a_socket_file_with_no_server_behind_it_is_asked_nothing(kind: TransportKind) {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("left-behind");
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    let calls = dir.path().join("calls");
    let wrapper = dir.path().join("tmux");
    let program = std::env::var("TMUX_HABITAT_TMUX").unwrap_or_else(|_| "tmux".to_owned());
    let script = format!("#!/bin/sh\necho \"$*\" >> '{}'\nexec '{program}' \"$@\"\n", calls.display());
    std::fs::write(&wrapper, script).unwrap();
    std::fs::set_permissions(&wrapper, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let server = Server::builder().transport(kind).socket_path(&socket).program(&wrapper).start().await.unwrap();
    let count = || std::fs::read_to_string(&calls).map(|text| text.lines().count()).unwrap_or(0);
    let before = count();
    assert!(server.list_sessions().await.unwrap().is_empty());
    assert!(!server.has_session("any").await.unwrap());
    assert_eq!(count(), before, "tmux was asked: {:?}", std::fs::read_to_string(&calls));
    let session = server.new_session(SessionOptions::new("here")).await.unwrap();
    assert!(server.has_session("here").await.unwrap());
    assert_eq!(server.list_sessions().await.unwrap().len(), 1);
    session.kill().await.unwrap();
}

async fn sessions_are_listed_exactly_and_adopted_by_prefix(kind: TransportKind) {
    let server = server(kind).await;
    server.new_session(SessionOptions::new("job-a")).await.unwrap();
    server.new_session(SessionOptions::new("job-ab")).await.unwrap();
    server.new_session(SessionOptions::new("other")).await.unwrap();
    assert!(server.has_session("job-a").await.unwrap());
    assert!(!server.has_session("job").await.unwrap(), "has-session must not match a prefix");
    let names: Vec<String> = server.list_sessions().await.unwrap().into_iter().map(|s| s.name).collect();
    assert_eq!(names.len(), 3);
    let adopted = server.adopt("job-").await.unwrap();
    assert_eq!(adopted.len(), 2);
    let pane = server.pane("job-ab").await.unwrap();
    assert_eq!(pane.id(), adopted.iter().find(|s| s.name() == "job-ab").unwrap().first_pane().id());
    assert!(matches!(server.pane("nope").await, Err(Error::NotFound { .. })));
}

async fn capture_joined_scrollback_and_styles(kind: TransportKind) {
    let server = server(kind).await;
    let session = server.new_session(SessionOptions::new("c").size(40, 10)).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    let long = "y".repeat(100);
    pane.run(&format!("seq 1 30; echo {long}; printf '\\033[2mghost\\033[0m \\033[1mbold\\033[0m\\n'"), T)
        .await
        .unwrap();
    let plain = pane.capture(CaptureOptions::visible()).await.unwrap();
    assert!(!plain.lines().any(|l| l == long), "unjoined capture splits the long line");
    let joined = pane.capture(CaptureOptions::visible().joined().scrollback(100)).await.unwrap();
    assert!(joined.lines().any(|l| l == long));
    assert!(joined.lines().any(|l| l == "1"), "scrollback reaches the first line");
    let screen = pane.capture_screen().await.unwrap();
    let row = (0..screen.height()).find(|&r| screen.row_text(r) == "ghost bold").unwrap();
    assert!(screen.is_dim(row, 0..5));
    assert!(screen.cell(row, 6).unwrap().style.bold);
    assert_eq!(screen.row_text_without_dim(row), "      bold");
}

async fn literal_text_keys_and_paste(kind: TransportKind) {
    let (_server, pane) = shell(kind).await;
    let running = pane.start("echo go; cat > /dev/null; IFS= read -r line; printf '%s\\n' \"$line\"").await.unwrap();
    // Type only once the command runs (the terminal is then in canonical mode, where C-d means end of input);
    // cat reads until C-d, then read takes one line.
    pane.wait_until("the command to start", T, |screen| screen.lines().any(|l| l == "go")).await.unwrap();
    pane.send_text("ignored").await.unwrap();
    pane.send_keys(&[Key::Enter, Key::CTRL_D]).await.unwrap();
    pane.paste("it's \"quoted\" $(not run) ; 🎉").await.unwrap();
    pane.send_keys(&[Key::Enter]).await.unwrap();
    let out = running.wait(T).await.unwrap();
    assert!(out.output.ends_with("it's \"quoted\" $(not run) ; 🎉\n"), "{:?}", out.output);
}

async fn overlong_lines_are_refused_in_canonical_mode_not_cut(kind: TransportKind) {
    let (_server, pane) = shell(kind).await;
    let running = pane.start("echo reading; IFS= read -r line; echo ${#line}").await.unwrap();
    // Once the command prints, bash has left line editing: `read` runs with the terminal in canonical mode.
    pane.wait_until("the command to start", T, |screen| screen.lines().any(|l| l == "reading")).await.unwrap();
    let err = pane.paste(&"z".repeat(5000)).await.unwrap_err();
    assert!(matches!(err, Error::Refused { .. }), "{err}");
    pane.send_line("short").await.unwrap();
    let out = running.wait(T).await.unwrap().output;
    assert!(out.ends_with("short\n5\n"), "{out:?}");
}

async fn readiness_timeout_names_the_pane_and_screen(kind: TransportKind) {
    let server = server(kind).await;
    let session =
        server.new_session(SessionOptions::new("r").command("echo not a shell; cat >/dev/null")).await.unwrap();
    let err = session.first_pane().wait_ready(Duration::from_millis(300)).await.unwrap_err();
    let text = err.to_string();
    assert!(text.contains(session.first_pane().id().as_str()) && text.contains("not a shell"), "{text}");
}

async fn pane_locks_serialise_typists(kind: TransportKind) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let (server, pane) = shell(kind).await;
    let first = pane.lock().await;
    // Another handle on the same pane, resolved by id, shares the lock.
    let other = server.pane(pane.id().as_str()).await.unwrap();
    let released = Arc::new(AtomicBool::new(false));
    let seen = released.clone();
    let waiter = tokio::spawn(async move {
        let _guard = other.lock().await;
        // Only reachable once the first holder has let go.
        seen.load(Ordering::SeqCst)
    });
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    assert!(!waiter.is_finished(), "the second holder got the lock while the first held it");
    released.store(true, Ordering::SeqCst);
    drop(first);
    assert!(waiter.await.unwrap(), "the second holder ran before the first released the lock");
}

async fn a_command_that_ended_while_prompts_were_watched_is_still_collected(kind: TransportKind) {
    let (_server, pane) = shell(kind).await;
    let running = pane.start("sleep 0.3; echo done").await.unwrap();
    assert_eq!(running.wait_for_intervention(T).await.unwrap(), None);
    let out = running.wait(T).await.unwrap();
    assert_eq!(out.output, "done\n");
    // The end it recorded is the command's own, not a late look at the screen.
    assert!(out.duration < Duration::from_secs(3), "recorded {:?}", out.duration);
}

async fn typed_semicolons_and_backslashes_arrive_as_typed(kind: TransportKind) {
    let (_server, pane) = shell(kind).await;
    let running = pane.start("echo go; IFS= read -r line; printf '%s\\n' \"$line\"").await.unwrap();
    pane.wait_until("the command to start", T, |screen| screen.lines().any(|l| l == "go")).await.unwrap();
    pane.send_text("echo a;").await.unwrap();
    pane.send_text(" b\\;").await.unwrap();
    pane.send_text(";").await.unwrap();
    pane.send_keys(&[Key::Enter]).await.unwrap();
    let out = running.wait(T).await.unwrap();
    assert!(out.output.ends_with("echo a; b\\;;\n"), "{:?}", out.output);
}

async fn a_pane_killed_during_a_run_is_reported_gone_not_timed_out(kind: TransportKind) {
    let server = server(kind).await;
    let session = server.new_session(SessionOptions::new("k")).await.unwrap();
    let pane = session.new_window("victim").await.unwrap();
    pane.wait_ready(T).await.unwrap();
    let running = pane.start("sleep 30").await.unwrap();
    let killer = pane.clone();
    tokio::spawn(async move {
        // Kill it once the command is running.
        let mut backoff = tmux_habitat::Backoff::new(T);
        while killer.info().await.unwrap().current_command != "sleep" && backoff.wait().await {}
        killer.kill().await.unwrap();
    });
    // Reported as gone (not as a timeout after 20 s): the variant is the proof.
    let err = running.wait(Duration::from_secs(20)).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { .. } | Error::PaneDead { .. }), "{err:?}");
}

async fn markers_survive_a_terminal_without_onlcr(kind: TransportKind) {
    let (_server, pane) = shell(kind).await;
    let out = pane.run("stty -onlcr; echo x; stty onlcr", T).await.unwrap();
    assert_eq!(out.exit_code, 0);
    assert!(out.output.contains('x'), "{:?}", out.output);
}

async fn a_kept_server_stays_reachable(kind: TransportKind) {
    let server = Server::builder().transport(kind).keep_on_drop(true).start().await.unwrap();
    server.new_session(SessionOptions::new("kept")).await.unwrap();
    let socket = server.socket_path().to_owned();
    drop(server);
    let alive = std::process::Command::new("tmux")
        .arg("-S")
        .arg(&socket)
        .args(["has-session", "-t", "=kept"])
        .status()
        .unwrap();
    let _ = std::process::Command::new("tmux").arg("-S").arg(&socket).arg("kill-server").status();
    // Keeping the server means keeping its private directory: the test removes both.
    let _ = std::fs::remove_dir_all(socket.parent().unwrap());
    assert!(alive.success(), "the kept server must still answer on {socket:?}");
}

async fn many_sessions_at_once(kind: TransportKind) {
    let server = server(kind).await;
    let mut jobs = Vec::new();
    for i in 0..12 {
        let server = server.clone();
        jobs.push(tokio::spawn(async move {
            let session = server.new_session(SessionOptions::new(format!("many-{i}"))).await.unwrap();
            let pane = session.first_pane().clone();
            pane.wait_ready(T).await.unwrap();
            assert_eq!(pane.run(&format!("echo job{i}"), T).await.unwrap().output, format!("job{i}\n"));
            assert!(matches!(pane.run("echo bye; exit 7", T).await, Err(Error::PaneDead { .. })));
        }));
    }
    for job in jobs {
        job.await.unwrap();
    }
    assert_eq!(server.list_sessions().await.unwrap().len(), 12);
}

async fn windows_open_with_their_own_directory_environment_and_program(kind: TransportKind) {
    let server = server(kind).await;
    let session = server.new_session(SessionOptions::new("o")).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let shell = server.shell().unwrap().to_owned();
    // The server's shell, started through a program whose arguments hold spaces and quotes: nothing re-splits them.
    let options = tmux_habitat::WindowOptions::new("opened")
        .cwd(dir.path())
        .env("HAB_WINDOW_VAR", "a b 'c'")
        .program(["/usr/bin/env", "HAB_ARG=x y", "/bin/sh", "-c", &shell]);
    let pane = session.open_window(options).await.unwrap();
    pane.wait_ready(T).await.unwrap();
    let out = pane.run("printf '%s|%s|%s\\n' \"$HAB_WINDOW_VAR\" \"$HAB_ARG\" \"$PWD\"", T).await.unwrap();
    let expected = format!("a b 'c'|x y|{}\n", dir.path().canonicalize().unwrap().display());
    assert_eq!(out.output, expected);
}

async fn failures_come_back_as_typed_errors(kind: TransportKind) {
    let (server, pane) = shell(kind).await;
    let missing_pane = server.tmux(Command::new("capture-pane").args(["-p", "-t", "%999"])).await.unwrap_err();
    assert!(matches!(&missing_pane, Error::NotFound { kind: "pane", name, .. } if name == "%999"), "{missing_pane:?}");
    let missing_session = server.tmux(Command::new("kill-session").args(["-t", "=nope"])).await.unwrap_err();
    assert!(matches!(&missing_session, Error::NotFound { kind: "session", .. }), "{missing_session:?}");
    assert!(!server.has_session("nope").await.unwrap());
    let bad_flag = server.tmux(Command::new("list-panes").arg("-Z")).await.unwrap_err();
    assert!(matches!(bad_flag, Error::Command { .. }), "{bad_flag:?}");
    // Every argument is literal: a `;` is text, not a command separator.
    server.set_user_options("t", [("@semi", "a;b"), ("@lone", ";")]).await.unwrap();
    let info = server.list_sessions_with(&["@semi", "@lone"]).await.unwrap();
    assert_eq!(info[0].user_options.get("@semi").map(String::as_str), Some("a;b"));
    assert_eq!(info[0].user_options.get("@lone").map(String::as_str), Some(";"));
    drop(pane);
    server.kill().await.unwrap();
    let gone = server.tmux(Command::new("list-panes").arg("-a")).await.unwrap_err();
    assert!(gone.is_server_gone(), "{gone:?}");
    assert!(server.list_sessions().await.unwrap().is_empty());
}

async fn session_user_options_round_trip(kind: TransportKind) {
    let server = server(kind).await;
    let session = server.new_session(SessionOptions::new("opts")).await.unwrap();
    let _other = server.new_session(SessionOptions::new("other")).await.unwrap();
    let tricky = r#"{"task":"echo '$HOME' #{pane_id} "x" \"}"#;
    session.set_user_options([("@task", tricky), ("@started", "17")]).await.unwrap();
    let sessions = server.list_sessions_with(&["@task", "@started", "@never-set"]).await.unwrap();
    let mine = sessions.iter().find(|s| s.name == "opts").unwrap();
    assert_eq!(mine.user_options.get("@task").map(String::as_str), Some(tricky));
    assert_eq!(mine.user_options.get("@started").map(String::as_str), Some("17"));
    assert!(!mine.user_options.contains_key("@never-set"));
    let other = sessions.iter().find(|s| s.name == "other").unwrap();
    assert!(other.user_options.is_empty(), "{other:?}");
    assert!(!mine.active_pane_dead);
    for (name, value) in [("task", "x"), ("@a b", "x"), ("@ok", "two\nlines"), ("@ok", "tab\there")] {
        let err = session.set_user_options([(name, value)]).await.unwrap_err();
        assert!(matches!(err, Error::Invalid { .. }), "{name} {value:?}: {err:?}");
    }
}

async fn pane_state_tells_mode_dead_and_cursor(kind: TransportKind) {
    let (server, pane) = shell(kind).await;
    pane.run("clear; printf 'ab\\033[2mghost\\033[0m'; echo", T).await.unwrap();
    let state = pane.capture_state().await.unwrap();
    assert!(!state.in_mode && !state.dead);
    let row = (0..state.screen.height()).find(|&r| state.screen.row_text(r).starts_with("abghost")).unwrap();
    assert_eq!(state.screen.row_text_without_dim(row), "ab");
    assert_eq!(state.screen.row(row).len(), usize::from(state.screen.width()));
    let (_, cursor_row) = state.screen.cursor();
    assert!(usize::from(cursor_row) > row, "cursor {:?} should sit below row {row}", state.screen.cursor());
    server.tmux(Command::new("copy-mode").args(["-t", pane.id().as_str()])).await.unwrap();
    assert!(pane.capture_state().await.unwrap().in_mode);
    server.tmux(Command::new("send-keys").args(["-t", pane.id().as_str(), "-X", "cancel"])).await.unwrap();
    assert!(!pane.capture_state().await.unwrap().in_mode);
    let dead = server.new_session(SessionOptions::new("dead").command("true")).await.unwrap().first_pane().clone();
    let mut backoff = tmux_habitat::Backoff::new(T);
    while !dead.capture_state().await.unwrap().dead {
        assert!(backoff.wait().await, "the pane running `true` never died");
    }
    dead.kill().await.unwrap();
    assert!(matches!(dead.capture_state().await, Err(Error::NotFound { kind: "pane", .. })));
}

async fn one_lock_per_pane_across_server_handles(kind: TransportKind) {
    let (server, pane) = shell(kind).await;
    let held = pane.lock().await;
    let second_handle = Server::existing(SocketSpec::Path(server.socket_path().to_owned())).unwrap();
    let same_pane = second_handle.pane(pane.id().as_str()).await.unwrap();
    let blocked = tokio::time::timeout(Duration::from_millis(50), same_pane.lock()).await;
    assert!(blocked.is_err(), "a second Server handle on the same socket got a lock that is held");
    drop(held);
    tokio::time::timeout(T, same_pane.lock()).await.expect("the lock is free once released");
}

async fn a_resized_window_is_put_back_as_it_was(kind: TransportKind) {
    let (server, pane) = shell(kind).await;
    let before = pane.window_size().await.unwrap();
    assert_eq!((before.panes, before.option.as_deref()), (1, None), "{before:?}");
    pane.resize(41, 17).await.unwrap();
    let fitted = pane.window_size().await.unwrap();
    assert_eq!((fitted.width, fitted.height, fitted.option.as_deref()), (41, 17, Some("manual")));
    assert_eq!((pane.info().await.unwrap().width, pane.info().await.unwrap().height), (41, 17));
    pane.restore_window_size(&before).await.unwrap();
    assert_eq!(pane.window_size().await.unwrap(), before);
    // A window that had its own value gets that value back.
    let target = pane.id().as_str();
    server.tmux(Command::new("set-option").args(["-w", "-t", target, "window-size", "smallest"])).await.unwrap();
    let own = pane.window_size().await.unwrap();
    pane.resize(30, 10).await.unwrap();
    pane.restore_window_size(&own).await.unwrap();
    assert_eq!(pane.window_size().await.unwrap().option.as_deref(), Some("smallest"));
    pane.kill().await.unwrap();
    let gone = pane.window_size().await;
    assert!(matches!(gone, Err(Error::NotFound { kind: "pane", .. })), "{gone:?}");
}

on_both_transports!(
    a_resized_window_is_put_back_as_it_was,
    the_default_shell_signs_each_prompt_in_the_title,
    windows_open_with_their_own_directory_environment_and_program,
    failures_come_back_as_typed_errors,
    session_user_options_round_trip,
    pane_state_tells_mode_dead_and_cursor,
    one_lock_per_pane_across_server_handles,
    a_command_that_ended_while_prompts_were_watched_is_still_collected,
    typed_semicolons_and_backslashes_arrive_as_typed,
    a_pane_killed_during_a_run_is_reported_gone_not_timed_out,
    markers_survive_a_terminal_without_onlcr,
    a_kept_server_stays_reachable,
    many_sessions_at_once,
    sleep_is_not_done_before_it_ends,
    a_thousand_fast_commands_never_end_early,
    instant_output_and_marker_lookalikes,
    long_command_lines_and_heredocs,
    a_wrapped_line_scrolled_away_by_its_output_is_not_done_early,
    shell_state_carries_over_between_runs,
    answering_a_prompt_types_only_the_answer,
    a_command_that_kills_its_shell_leaves_a_readable_dead_pane,
    remain_on_exit_holds_on_every_window,
    new_windows_start_in_the_sessions_directory,
    dropping_the_server_leaves_nothing_behind,
    tmux_in_the_environment_never_redirects_our_calls,
    sessions_are_listed_exactly_and_adopted_by_prefix,
    a_socket_file_with_no_server_behind_it_is_asked_nothing,
    capture_joined_scrollback_and_styles,
    literal_text_keys_and_paste,
    overlong_lines_are_refused_in_canonical_mode_not_cut,
    readiness_timeout_names_the_pane_and_screen,
    pane_locks_serialise_typists,
);
