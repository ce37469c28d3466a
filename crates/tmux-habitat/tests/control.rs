//! What only the control-mode transport offers: output streams, live screens, and surviving a server that
//! goes away under the connection.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use tmux_habitat::{Command, Error, LiveScreen, OutputEvent, Server, SessionOptions, TransportKind};

const T: Duration = Duration::from_secs(10);

async fn control_server() -> Server {
    Server::builder().transport(TransportKind::Control).start().await.unwrap()
}

#[tokio::test]
async fn subscribers_see_output_as_it_happens() {
    let server = control_server().await;
    let session = server.new_session(SessionOptions::new("s")).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    let mut output = pane.subscribe().await.unwrap();
    pane.send_line("printf 'tick-%s\\n' $((6*7))").await.unwrap();
    let mut seen = Vec::new();
    let found = tokio::time::timeout(T, async {
        while let Some(event) = output.recv().await {
            if let OutputEvent::Bytes(bytes) = event {
                seen.extend_from_slice(&bytes);
                if seen.windows(7).any(|w| w == b"tick-42") {
                    return true;
                }
            }
        }
        false
    })
    .await
    .unwrap();
    assert!(found, "{:?}", String::from_utf8_lossy(&seen));
}

#[tokio::test]
async fn a_stream_waits_for_the_prompt_and_gives_up_on_a_program_that_draws_none() {
    let server = control_server().await;
    let session = server.new_session(SessionOptions::new("p")).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    let mut output = pane.subscribe().await.unwrap();
    output.wait_for_prompt("$ ", T).await.unwrap();
    // Idle at its prompt: the next bytes are the typed command's echo, not the rest of the prompt.
    pane.send_line("printf 'after-%s\\n' prompt").await.unwrap();
    let seen = read_until(&mut output, "after-prompt").await;
    assert!(seen.starts_with(b"printf"), "{:?}", String::from_utf8_lossy(&seen));

    pane.send_line("cat").await.unwrap();
    read_until(&mut output, "cat").await;
    let waited = output.wait_for_prompt("$ ", Duration::from_millis(300)).await;
    assert!(matches!(waited, Err(Error::Timeout { .. })), "{waited:?}");
}

#[tokio::test]
async fn a_live_screen_matches_a_capture() {
    let server = control_server().await;
    let session = server.new_session(SessionOptions::new("l").size(60, 12)).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    let mut live = LiveScreen::new(&pane).await.unwrap();
    pane.send_line("printf '\\033[1mbold\\033[0m plain\\n'").await.unwrap();
    tokio::time::timeout(T, async {
        while !live.screen().text().lines().any(|l| l == "bold plain") {
            assert!(live.update().await.unwrap(), "connection ended");
        }
    })
    .await
    .unwrap();
    let screen = live.screen();
    let row = (0..screen.height()).find(|&r| screen.row_text(r) == "bold plain").unwrap();
    assert!(screen.cell(row, 0).unwrap().style.bold);
    assert!(!screen.cell(row, 5).unwrap().style.bold);
}

#[tokio::test]
async fn a_server_killed_under_the_connection_gives_errors_not_hangs_and_a_new_one_works() {
    let server = control_server().await;
    let session = server.new_session(SessionOptions::new("k")).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    assert_eq!(pane.run("echo before", T).await.unwrap().output, "before\n");
    // Kill the server behind the handle's back, as a crash would.
    let status = std::process::Command::new("tmux")
        .arg("-S")
        .arg(server.socket_path())
        .arg("kill-server")
        .env_remove("TMUX")
        .status()
        .unwrap();
    assert!(status.success());
    let err = tokio::time::timeout(T, pane.info()).await.expect("no hang").unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
    // The same handle starts a new server and reconnects.
    let session = server.new_session(SessionOptions::new("k2")).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    assert_eq!(pane.run("echo after", T).await.unwrap().output, "after\n");
}

#[tokio::test]
async fn subscribing_needs_control_mode() {
    let server = Server::builder().transport(TransportKind::Subprocess).start().await.unwrap();
    let session = server.new_session(SessionOptions::new("p")).await.unwrap();
    assert!(matches!(session.first_pane().subscribe().await, Err(Error::Unsupported { .. })));
}

#[tokio::test]
async fn a_pane_paused_while_nobody_read_it_runs_at_full_speed_again() {
    let server = control_server().await;
    let session = server.new_session(SessionOptions::new("p")).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    // What pause-after does to a pane whose reader fell behind; nobody is subscribed now.
    server.tmux(Command::new("refresh-client").args(["-A", &format!("{}:pause", pane.id())])).await.unwrap();
    let out = pane.run("sleep 0.3; echo resumed", T).await.unwrap();
    assert_eq!(out.output, "resumed\n");
    // Without resuming, the end would only be found by the once-a-second look at the screen.
    assert!(out.duration < Duration::from_millis(900), "recorded {:?}", out.duration);
}

/// Processes sharing one server (two `clive`s on the `clive` socket): some create and kill sessions while
/// others attach and detach control clients. tmux (3.3a, and 3.5a too) crashes when a session is created while a
/// control client attaches or goes away; they take turns through a lock file beside the socket. Separate
/// `Server` handles stand for the processes: each has its own connections and its own in-process turns, so only
/// the cross-process lock keeps them apart. Without it, the server dies in most runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sessions_created_while_other_processes_attach_never_crash_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("shared.sock");
    let handle = || Server::builder().socket_path(&socket).keep_on_drop(false).transport(TransportKind::Control);
    let keeper = handle().start().await.unwrap();
    keeper.new_session(SessionOptions::new("base")).await.unwrap();
    for round in 0..4 {
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..8 {
            let creator = handle().keep_on_drop(true).start().await.unwrap();
            let attacher = handle().keep_on_drop(true).start().await.unwrap();
            tasks.spawn(async move {
                let session = creator.new_session(SessionOptions::new(format!("r{round}-{i}"))).await?;
                let doomed = creator.new_session(SessionOptions::new(format!("d{round}-{i}"))).await?;
                session.first_pane().capture_text().await?; // attaches
                doomed.kill().await?;
                creator.close().await;
                Ok::<(), Error>(())
            });
            // A fresh handle's first command opens (attaches) its control connection.
            tasks.spawn(async move {
                attacher.list_sessions().await?;
                attacher.close().await;
                Ok(())
            });
        }
        while let Some(done) = tasks.join_next().await {
            done.unwrap().unwrap_or_else(|e| panic!("round {round}: {e}"));
        }
        let alive = keeper.has_session("base").await.unwrap();
        let ls = std::process::Command::new("tmux").arg("-S").arg(&socket).arg("ls").output().unwrap();
        assert!(
            alive,
            "round {round}: the server died; tmux ls: {:?} {:?}",
            String::from_utf8_lossy(&ls.stdout),
            String::from_utf8_lossy(&ls.stderr)
        );
    }
    assert_eq!(keeper.list_sessions().await.unwrap().len(), 1 + 4 * 8);
    let turn = dir.path().join("shared.sock.turn");
    assert!(turn.exists(), "the lock file is beside the socket while the server runs");
    keeper.kill().await.unwrap();
    assert!(!turn.exists(), "a killed server's lock file goes with it");
}

#[tokio::test]
async fn a_command_given_up_while_its_connection_attaches_never_crashes_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("shared.sock");
    let handle = || Server::builder().socket_path(&socket).keep_on_drop(true).transport(TransportKind::Control);
    let keeper = handle().keep_on_drop(false).start().await.unwrap();
    keeper.new_session(SessionOptions::new("base")).await.unwrap();
    // A fresh handle's first command opens its connection; a deadline that passes at every moment of the attach
    // drops the command there. A client killed before tmux has identified it, or while a session is being
    // created, would crash tmux 3.3a.
    for round in 0..60u64 {
        let fresh = handle().start().await.unwrap();
        let give_up = Duration::from_micros(round * 150);
        let _ = tokio::time::timeout(give_up, fresh.list_sessions()).await;
        let _ = tokio::time::timeout(give_up, fresh.new_session(SessionOptions::new(format!("n{round}")))).await;
        fresh.close().await;
        assert!(keeper.has_session("base").await.unwrap(), "round {round}: the server died");
    }
    // A creation takes its turn after every attach still in flight has answered (and been detached).
    let last = handle().start().await.unwrap();
    last.new_session(SessionOptions::new("last")).await.unwrap();
    last.close().await;
    assert!(keeper.has_session("base").await.unwrap(), "the server died after the last round");
}

#[tokio::test]
async fn a_server_gone_leaves_no_turn_file_behind() {
    let dir = tempfile::tempdir().unwrap();
    let left = || std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect::<Vec<_>>();
    let handle = |socket| Server::builder().socket_path(socket).transport(TransportKind::Control);
    // Killed on drop.
    let socket = dir.path().join("a.sock");
    let server = handle(&socket).keep_on_drop(false).start().await.unwrap();
    server.new_session(SessionOptions::new("a")).await.unwrap();
    assert!(dir.path().join("a.sock.turn").exists());
    drop(server);
    assert!(left().is_empty(), "{:?}", left());
    // Kept, but the server went away on its own (killed from outside, its socket file left): dropping the
    // handle tidies up.
    let socket = dir.path().join("b.sock");
    let server = handle(&socket).keep_on_drop(true).start().await.unwrap();
    server.new_session(SessionOptions::new("b")).await.unwrap();
    // The server, and any child it had forked and not yet turned into a pane's program.
    assert!(tmux_habitat::kill_servers_on(&socket, T).await.unwrap() >= 1);
    assert!(socket.exists() && dir.path().join("b.sock.turn").exists());
    drop(server);
    assert_eq!(left(), ["b.sock"], "only the socket file tmux left");
}

/// The stream's bytes up to and including `text`.
async fn read_until(output: &mut tmux_habitat::PaneOutput, text: &str) -> Vec<u8> {
    let mut seen = Vec::new();
    while !String::from_utf8_lossy(&seen).contains(text) {
        match tokio::time::timeout(T, output.recv()).await.unwrap().unwrap() {
            OutputEvent::Bytes(bytes) => seen.extend_from_slice(&bytes),
            OutputEvent::Lost => panic!("lost output"),
        }
    }
    seen
}

/// The captured rows with `stream` typed over them from the capture's cursor, the way a terminal would for
/// plain lines (text, `\r`, `\n`; no wrapping): what the pane holds once the stream is applied.
fn replay(capture: &tmux_habitat::PaneCapture, stream: &[u8]) -> Vec<String> {
    let mut rows: Vec<Vec<char>> = capture.text.lines().map(|l| l.chars().collect()).collect();
    let mut row = rows.len() - usize::from(capture.info.height) + usize::from(capture.info.cursor_y);
    let mut col = usize::from(capture.info.cursor_x);
    for c in String::from_utf8_lossy(stream).chars() {
        match c {
            '\r' => col = 0,
            '\n' => row += 1,
            c => {
                rows.resize_with(rows.len().max(row + 1), Vec::new);
                let line = &mut rows[row];
                line.resize(line.len().max(col + 1), ' ');
                line[col] = c;
                col += 1;
            }
        }
    }
    rows.into_iter().map(|r| r.into_iter().collect::<String>().trim_end().to_owned()).collect()
}

#[tokio::test]
async fn a_capture_between_the_cr_and_lf_of_a_line_end_keeps_the_line() {
    let server = control_server().await;
    let session = server.new_session(SessionOptions::new("crlf").size(60, 10)).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    let mut output = pane.subscribe().await.unwrap();
    // The line end comes in two parts, with a capture between: `row-1\r`, then (after a key) `\nrow-2\r\n`
    // (`-onlcr`: the terminal passes `\n` as it is; `-echo` from the start: the key is never echoed).
    let script = "stty -onlcr -echo; printf 'row-%s\\r' 1; read -r _; printf '\\nrow-%s\\r\\n' 2; stty onlcr echo";
    pane.send_line(script).await.unwrap();
    read_until(&mut output, "row-1\r").await;
    let capture = output.capture(tmux_habitat::CaptureOptions::visible()).await.unwrap();
    let cursor_row = capture.text.lines().nth(usize::from(capture.info.cursor_y)).unwrap();
    assert_eq!((capture.info.cursor_x, cursor_row), (0, "row-1"), "the cursor is at the start of the printed line");
    // A live screen seeded here too.
    let mut live = LiveScreen::new(&pane).await.unwrap();
    pane.send_line("").await.unwrap();
    let after = read_until(&mut output, "row-2\r\n").await;
    assert!(after.starts_with(b"\nrow-2"), "the stream goes on after the capture: {after:?}");
    let rows = replay(&capture, &after);
    // Only whole printed rows count: the typed command may wrap (or show twice, when it was typed before the shell
    // drew its prompt and the terminal echoed it) so that a screen row starts with `row-` too.
    let printed: Vec<&String> = rows.iter().filter(|r| is_printed_row(r)).collect();
    assert_eq!(printed, ["row-1", "row-2"], "each line once: {rows:?}");
    tokio::time::timeout(T, async {
        while !live.screen().text().lines().any(|l| l == "row-2") {
            assert!(live.update().await.unwrap(), "connection ended");
        }
    })
    .await
    .unwrap();
    let text = live.screen().text();
    assert_eq!(text.lines().filter(|l| is_printed_row(l)).collect::<Vec<_>>(), ["row-1", "row-2"], "{text}");
}

/// A row the test's `printf 'row-%s'` printed: `row-` and digits, nothing else.
fn is_printed_row(row: &str) -> bool {
    row.strip_prefix("row-").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

#[tokio::test]
async fn a_capture_placed_in_the_stream_fits_it_byte_for_byte() {
    let server = control_server().await;
    let session = server.new_session(SessionOptions::new("busy").size(60, 10)).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    let mut output = pane.subscribe().await.unwrap();
    pane.send_line("for i in $(seq 1 4000); do echo n-$i; done; echo all-done").await.unwrap();
    // Capture while the pane prints: some of what is queued is in the capture, the rest is not.
    read_until(&mut output, "n-300").await;
    let capture = output.capture(tmux_habitat::CaptureOptions::visible().joined().scrollback(10_000)).await.unwrap();
    // Under load tmux may be done before the capture runs: then the capture shows the end.
    let done_before = capture.text.lines().any(|l| l == "all-done");
    let after = if done_before { Vec::new() } else { read_until(&mut output, "all-done\r\n").await };
    // The stream typed over the capture from its cursor: every line once, in order.
    let text = replay(&capture, &after);
    let numbers: Vec<u32> = text.iter().filter_map(|l| l.strip_prefix("n-")?.parse().ok()).collect();
    let at = numbers.iter().zip(1..).position(|(n, i)| *n != i).unwrap_or(numbers.len());
    let around = |v: &[u32]| v[at.saturating_sub(3)..(at + 4).min(v.len())].to_vec();
    assert_eq!(
        numbers.len(),
        4000,
        "first difference at {at}: {:?} (capture place around line {}, stream after it starts {:?})",
        around(&numbers),
        capture.text.lines().count(),
        String::from_utf8_lossy(&after[..after.len().min(12)]),
    );
    assert_eq!(numbers, (1..=4000).collect::<Vec<u32>>(), "first difference at {at}: {:?}", around(&numbers));
}

/// What `output` holds already (every byte up to a command's end has arrived once `run` returned: one reader
/// feeds all subscriptions in order), read until nothing more comes.
async fn drain(output: &mut tmux_habitat::PaneOutput) -> Vec<u8> {
    let mut seen = Vec::new();
    while let Ok(Some(OutputEvent::Bytes(bytes))) = tokio::time::timeout(Duration::from_millis(50), output.recv()).await
    {
        seen.extend_from_slice(&bytes);
    }
    seen
}

/// A fresh pane of the default shell proves it reads input with its first prompt (it names it in the pane
/// title): nothing is typed into it, whether the prompt came before the wait or during it.
#[tokio::test]
async fn a_fresh_default_shell_is_ready_at_its_first_prompt_without_a_handshake() {
    let server = control_server().await;
    // The prompt comes during the wait.
    let session = server.new_session(SessionOptions::new("during")).await.unwrap();
    let pane = session.first_pane().clone();
    let mut output = pane.subscribe().await.unwrap();
    pane.wait_ready(T).await.unwrap();
    assert_eq!(pane.run("echo ran", T).await.unwrap().output, "ran\n");
    let seen = String::from_utf8_lossy(&drain(&mut output).await).into_owned();
    assert!(!seen.contains("__HAB_R_"), "a handshake was typed: {seen:?}");
    // The prompt came before the wait: the title already says so.
    let session = server.new_session(SessionOptions::new("before")).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_until("the first prompt", T, |screen| screen.starts_with('$')).await.unwrap();
    let mut output = pane.subscribe().await.unwrap();
    pane.wait_ready(T).await.unwrap();
    assert_eq!(pane.run("echo ran", T).await.unwrap().output, "ran\n");
    let seen = String::from_utf8_lossy(&drain(&mut output).await).into_owned();
    assert!(!seen.contains("__HAB_R_"), "a handshake was typed: {seen:?}");
    // A second wait on the same pane is no longer at a first prompt: the shell answers a handshake.
    pane.wait_ready(T).await.unwrap();
    let seen = String::from_utf8_lossy(&drain(&mut output).await).into_owned();
    assert!(seen.contains("__HAB_R_"), "the second wait needs the shell to answer: {seen:?}");
}

/// A fresh pane typed into before its first wait is no longer known to read input by its first prompt: the wait
/// lasts until the shell reads again, after the typed command.
#[tokio::test]
async fn a_fresh_shell_typed_into_is_ready_only_once_it_reads_again() {
    let server = control_server().await;
    let dir = tempfile::tempdir().unwrap();
    let done = dir.path().join("done");
    let session = server.new_session(SessionOptions::new("typed")).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_until("the first prompt", T, |screen| screen.starts_with('$')).await.unwrap();
    let line = format!("sleep 1; touch {}", tmux_habitat::shell_quote(&done.display().to_string()));
    pane.send_line(&line).await.unwrap();
    pane.wait_ready(T).await.unwrap();
    assert!(done.exists(), "the wait ended while the typed command still ran");
}

/// A session killed over the control client attached to it: the client leaves with the session, the other
/// sessions and the handle go on.
#[tokio::test]
async fn a_session_killed_over_its_own_client_takes_the_client_with_it() {
    let server = control_server().await;
    let keep = server.new_session(SessionOptions::new("keep")).await.unwrap();
    let doomed = server.new_session(SessionOptions::new("doomed")).await.unwrap();
    let pane = doomed.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    let clients = || {
        let out = std::process::Command::new("tmux")
            .arg("-S")
            .arg(server.socket_path())
            .args(["list-clients", "-F", "#{session_name}"])
            .env_remove("TMUX")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).lines().map(str::to_owned).collect::<Vec<_>>()
    };
    // Each session was created by a control client of its own, which stays attached to it.
    let mut before = clients();
    before.sort();
    assert_eq!(before, ["doomed", "keep"]);
    doomed.kill().await.unwrap();
    assert!(!server.has_session("doomed").await.unwrap());
    assert_eq!(clients(), ["keep"], "the killed session's client left with it");
    let other = keep.first_pane().clone();
    other.wait_ready(T).await.unwrap();
    assert_eq!(other.run("echo still", T).await.unwrap().output, "still\n");
    // A kill by a name that is gone is reported as such.
    assert!(matches!(doomed.kill().await, Err(Error::NotFound { .. })), "{:?}", doomed.kill().await);
}
