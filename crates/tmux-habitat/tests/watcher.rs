//! What a person watching a pane sees while commands run in it: the commands as they were given, their
//! output, and none of the plumbing (typed script lines, markers). The screen is read with its attributes and
//! drawn as a terminal would: concealed text (SGR 8) shows as blanks.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use std::time::Duration;

use tmux_habitat::{CaptureOptions, Pane, Server, SessionOptions, TransportKind};

const T: Duration = Duration::from_secs(10);

async fn shell(kind: TransportKind, width: u16) -> (Server, Pane) {
    let server = Server::builder().transport(kind).start().await.unwrap();
    let session = server.new_session(SessionOptions::new("w").size(width, 24)).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    (server, pane)
}

/// The visible screen as a terminal draws it: escapes applied, concealed cells blank, trailing blanks gone.
async fn seen(pane: &Pane) -> String {
    let raw = pane.capture(CaptureOptions::visible().with_escapes()).await.unwrap();
    let mut out = String::new();
    // tmux carries attributes over from one captured row to the next, as a terminal would.
    let mut concealed = false;
    for row in raw.lines() {
        let mut line = String::new();
        let mut chars = row.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '\x1b' {
                line.push(if concealed { ' ' } else { c });
                continue;
            }
            // tmux writes only CSI sequences here; SGR (…m) is the one that matters.
            if chars.next_if_eq(&'[').is_none() {
                continue;
            }
            let mut params = String::new();
            let end = loop {
                match chars.next() {
                    Some(c) if c.is_ascii_digit() || c == ';' || c == ':' => params.push(c),
                    other => break other,
                }
            };
            if end == Some('m') {
                for p in params.split(';') {
                    match p {
                        "" | "0" | "28" => concealed = false,
                        "8" => concealed = true,
                        _ => {}
                    }
                }
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.trim_end().to_owned()
}

/// Waits until the shell has drawn its prompt after the handshake (it may not have when `wait_ready` returns)
/// and nothing else is on the screen; fails with the screen if anything of the handshake is left.
async fn only_the_prompt(pane: &Pane) {
    pane.wait_until("the prompt alone", T, |screen| screen.trim() == "$").await.unwrap();
    assert_eq!(seen(pane).await, "$");
}

async fn a_fresh_pane_shows_only_its_prompt(kind: TransportKind) {
    let (_server, pane) = shell(kind, 80).await;
    only_the_prompt(&pane).await;
}

async fn a_command_typed_at_once_after_the_handshake_shows_as_given(kind: TransportKind) {
    // No wait for the prompt: the command is typed while the shell may still be drawing it.
    for round in 0..20 {
        let (_server, pane) = shell(kind, 80).await;
        pane.run("echo hi", T).await.unwrap();
        let shown = pane.wait_until("the next prompt", T, |screen| screen.trim_end().ends_with('$')).await;
        assert!(shown.is_ok(), "round {round}: {shown:?}");
        assert_eq!(seen(&pane).await, "$ echo hi\nhi\n\n$", "round {round}");
    }
}

async fn commands_show_as_given(kind: TransportKind) {
    let (_server, pane) = shell(kind, 80).await;
    pane.run("echo hello", T).await.unwrap();
    pane.run("printf 'no newline'", T).await.unwrap();
    pane.run("for i in 1 2\ndo echo \"line $i\"\ndone", T).await.unwrap();
    pane.run("false", T).await.unwrap();
    pane.wait_until("the next prompt", T, |screen| screen.trim_end().ends_with('$')).await.unwrap();
    insta::assert_snapshot!("commands_show_as_given", seen(&pane).await);
}

async fn long_lines_in_narrow_panes_are_wiped_too(kind: TransportKind) {
    // Typed lines (a script's path) and the command shown wrap over several rows in these widths; each width
    // meets the margin at another place.
    for width in [20, 23, 29, 31, 37, 44, 53, 61] {
        let (_server, pane) = shell(kind, width).await;
        only_the_prompt(&pane).await;
        let out = pane.run("echo a-rather-long-argument-that-wraps", T).await.unwrap();
        assert_eq!(out.output, "a-rather-long-argument-that-wraps\n");
        let screen = seen(&pane).await;
        let joined: String = screen.lines().collect();
        assert!(
            joined.starts_with("$ echo a-rather-long-argument-that-wrapsa-rather-long-argument-that-wraps"),
            "width {width}:\n{screen}"
        );
        assert!(!screen.contains("run-") && !screen.contains("__HAB"), "width {width}:\n{screen}");
    }
}

on_both_transports!(
    a_fresh_pane_shows_only_its_prompt,
    a_command_typed_at_once_after_the_handshake_shows_as_given,
    commands_show_as_given,
    long_lines_in_narrow_panes_are_wiped_too,
);
