//! Runs never touch each other and leave nothing behind: the predecessor's W14 (a second task killed the
//! first one's tmux session) and W16 (sessions, FIFOs and audit files left around); and a run is watched over
//! control mode, not polled (W9). Real `clive`, real tmux.

// Test helpers: a panic is a test failure.
#![allow(clippy::unwrap_used)]

mod support;

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use support::{World, text};

/// How long a blocking FIFO open may wait for the other end.
const DEADLINE: Duration = Duration::from_secs(30);

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Opens `path` on a thread (a FIFO open blocks until the other end opens) and hands back the result,
/// or panics once the deadline passes.
fn on_thread<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(DEADLINE).unwrap_or_else(|_| panic!("{what}: nothing within {DEADLINE:?}"))
}

/// A slow run is held inside its command (it blocks on a FIFO) while other runs start, finish, list and
/// collect sessions on the same server; none of them touches its session, and it then ends normally.
#[test]
fn runs_next_to_a_running_one_never_share_or_kill_its_session() {
    let world = World::new();
    let ready = world.dir.path().join("ready.fifo");
    let go = world.dir.path().join("go.fifo");
    mkfifo(&ready);
    mkfifo(&go);
    let slow = world
        .command(&[&format!("echo ready > '{}'; cat '{}'", ready.display(), go.display())])
        .env_remove("TMUX_HABITAT_TRANSPORT")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let reader = ready;
    let said = on_thread("the slow run to start", move || std::fs::read_to_string(reader).unwrap());
    assert_eq!(said, "ready\n");
    let held = world.tmux_sessions();
    assert_eq!(held.len(), 1, "{held:?}");
    // A task runs over control mode (docs/clive.md), whichever pane: its one client is a control client.
    let list_clients = tmux_habitat::Command::new("list-clients").args(["-F", "#{client_control_mode}"]);
    let clients = world.block_on(world.server().tmux(list_clients)).unwrap();
    assert_eq!(clients.trim(), "1", "the running task is not attached over control mode");

    // Four runs at once next to it, then the management commands that sweep sessions.
    let fast: Vec<_> = (0..4)
        .map(|i| world.command(&[&format!("echo fast{i}")]).stdout(std::process::Stdio::piped()).spawn().unwrap())
        .collect();
    for (i, child) in fast.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert_eq!((out.status.code(), text(&out.stdout)), (Some(0), format!("fast{i}\n")));
    }
    assert_eq!(world.run(&["gc"]).status.code(), Some(0));
    let listed = world.sessions();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["state"], "running", "{listed:?}");
    assert_eq!(world.tmux_sessions(), held, "the slow run's session was touched");

    let writer = go;
    on_thread("the slow run to read", move || std::fs::write(writer, "go\n").unwrap());
    let out = slow.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "go\n");
    assert!(world.tmux_sessions().is_empty(), "{:?}", world.tmux_sessions());
}

/// A finished run leaves its caller's directory as the command left it and no file in the temporary
/// directory: no audit files beside the code, no session directories, FIFOs or scripts in $TMPDIR.
#[test]
fn a_finished_run_leaves_no_files_behind() {
    let world = World::new();
    let caller = world.dir.path().join("caller");
    let tmp = world.dir.path().join("tmp");
    std::fs::create_dir(&caller).unwrap();
    std::fs::create_dir(&tmp).unwrap();
    for (task, code) in [("echo one > made.txt", 0), ("cat made.txt", 0), ("false", 1)] {
        let out = world.command(&[task]).current_dir(&caller).env("TMPDIR", &tmp).output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{task}: {}", text(&out.stderr));
    }
    let names = |dir: &Path| -> Vec<String> {
        let mut names: Vec<_> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    };
    assert_eq!(names(&caller), ["made.txt"]);
    assert_eq!(names(&tmp), Vec::<String>::new());
    // Only the failed run's session is kept (by design, to be looked at), until collected.
    assert_eq!(world.tmux_sessions().len(), 1, "{:?}", world.tmux_sessions());
    assert_eq!(world.run(&["gc", "--all"]).status.code(), Some(0));
    assert!(world.tmux_sessions().is_empty(), "{:?}", world.tmux_sessions());
    assert_eq!(names(&tmp), Vec::<String>::new());
}
