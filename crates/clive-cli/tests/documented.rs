//! What README.md and docs/clive.md say holds: the predecessor's documented `tmux attach -t clive` named no real
//! session, attaching from inside tmux needed `TMUX` unset by hand, `--version` printed a stale number (W10,
//! W22), and a missing dependency went unnamed (W19).

mod support;

use std::time::Duration;

use support::{World, text};
use tmux_habitat::{Server, SessionOptions};

const T: Duration = Duration::from_secs(20);

/// `clive attach <id>` typed in a terminal that is itself a tmux pane (`TMUX` set, another server) shows
/// the kept session: a real tmux pane is the terminal.
#[test]
fn clive_attach_from_inside_tmux_shows_the_kept_session() {
    let world = World::new();
    let marker = "kept-session-output";
    let out = world.run(&["--keep", &format!("echo {marker}")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let id = world.sessions()[0]["id"].as_str().unwrap().to_owned();
    // README's other way in, `tmux -L clive attach -t clive-<id>` (the socket name is settings.rs's test).
    assert_eq!(world.sessions()[0]["session"], format!("clive-{id}"));

    world.block_on(async {
        let outer = Server::isolated().await.unwrap();
        let options = SessionOptions::new("terminal")
            .env("CLIVE_TMUX_SOCKET", world.socket.display().to_string())
            .env("CLIVE_HOME", world.home.display().to_string())
            // Inside a pane, TMUX names the outer server; without it this would not be the case under test.
            .command(format!(
                "[ -n \"$TMUX\" ] && exec '{}' attach {id}; echo TMUX is unset",
                env!("CARGO_BIN_EXE_clive")
            ));
        let session = outer.new_session(options).await.unwrap();
        let terminal = session.first_pane();
        let screen = terminal.wait_until("the kept session on screen", T, |s| s.contains(marker)).await;
        assert!(screen.is_ok(), "{screen:?}");
        let clients = world.server().tmux(tmux_habitat::Command::new("list-clients")).await.unwrap();
        assert_eq!(clients.lines().count(), 1, "{clients}");
        assert!(clients.contains(&world.sessions()[0]["session"].as_str().unwrap().to_owned()), "{clients}");
    });
    assert_eq!(world.run(&["gc", "--all"]).status.code(), Some(0));
}

/// `clive --version` is the version of the package it was built from.
#[test]
fn version_is_the_packages() {
    let out = World::new().run(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), format!("clive {}\n", env!("CARGO_PKG_VERSION")));
}

/// Exit code 125 when tmux is missing (docs/clive.md), with what to install: a missing dependency is named,
/// never silently worked around (W19).
#[test]
fn a_missing_tmux_is_exit_125_and_says_what_to_install() {
    let world = World::new();
    let missing = world.dir.path().join("no-tmux");
    let out = world.command(&["echo hi"]).env("CLIVE_TMUX", &missing).output().unwrap();
    assert_eq!(out.status.code(), Some(125), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains(&missing.display().to_string()) && stderr.contains("install tmux 3.2"), "{stderr}");
    assert!(text(&out.stdout).is_empty());
}
