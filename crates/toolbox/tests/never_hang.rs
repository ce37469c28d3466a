//! Panes never stop in a pager: git log, man and systemctl print and return, sandboxed or not.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use clive_toolbox::SandboxPolicy;
use support::{Dirs, T, launcher, sandbox_or_skip, session};
use tmux_habitat::{Pane, WindowOptions};

/// A repository of `count` commits, written in one `git fast-import` (about 50 ms for 500).
fn repository(dir: &Path, count: usize) {
    let git = |args: &[&str], stdin: Option<&str>| {
        let mut child = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        if let Some(text) = stdin {
            use std::io::Write as _;
            child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
        }
        drop(child.stdin.take());
        assert!(child.wait().unwrap().success(), "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"], None);
    let mut stream = String::new();
    for i in 1..=count {
        let message = format!("commit number {i}\n");
        let content = format!("line {i}\n");
        let _ = write!(
            stream,
            "commit refs/heads/main\nmark :{i}\ncommitter T <t@example.org> {} +0000\ndata {}\n{message}",
            1_700_000_000 + i,
            message.len()
        );
        if i > 1 {
            let _ = writeln!(stream, "from :{}", i - 1);
        }
        let _ = write!(stream, "M 644 inline file.txt\ndata {}\n{content}\n", content.len());
    }
    git(&["fast-import", "--quiet"], Some(&stream));
}

async fn check_pane(pane: &Pane) {
    let out = pane.run("git log", T).await.unwrap();
    assert_eq!(out.exit_code, 0);
    assert!(out.output.contains("commit number 500") && out.output.contains("commit number 1\n"), "{}", out.output);
    assert_eq!(out.output.matches("commit number").count(), 500);

    let has_man_page = std::process::Command::new("man").args(["-w", "ls"]).output().is_ok_and(|o| o.status.success());
    if has_man_page {
        let out = pane.run("man ls", T).await.unwrap();
        assert_eq!(out.exit_code, 0, "{}", out.output);
        assert!(out.output.contains("list directory contents"), "{}", out.output);
    } else {
        eprintln!("skipped man ls: this machine has no man page for ls");
    }

    if support::present("systemctl") {
        // Present but maybe without systemd running (a container): either way it prints and returns.
        let out = pane.run("systemctl status --no-legend >/dev/null 2>&1; systemctl status | head -n 3", T).await;
        out.unwrap();
    }

    // No editor opens: EDITOR=true returns an empty message at once, which aborts the commit.
    let out = pane.run("git commit --allow-empty -q; echo \"status=$?\"", T).await.unwrap();
    assert!(out.output.contains("empty commit message") && out.output.ends_with("status=1\n"), "{}", out.output);
}

#[tokio::test]
async fn git_log_man_and_systemctl_print_and_return() {
    if !test_support::require_or_skip("git") {
        return;
    }
    let dirs = Dirs::new();
    repository(&dirs.work, 500);
    let (_server, session) = session(&dirs).await;
    let git_identity = [
        ("GIT_AUTHOR_NAME", "T"),
        ("GIT_AUTHOR_EMAIL", "t@x"),
        ("GIT_COMMITTER_NAME", "T"),
        ("GIT_COMMITTER_EMAIL", "t@x"),
    ];

    let plain = launcher(&dirs, None, &git_identity).open(&session, "plain").await.unwrap();
    check_pane(&plain).await;
    if let Some(sandbox) = sandbox_or_skip(SandboxPolicy::default()).await {
        let confined = launcher(&dirs, Some(sandbox), &git_identity).open(&session, "confined").await.unwrap();
        check_pane(&confined).await;
    }
}

/// The control: with a pager, the same `git log` waits for keys, so the test above can fail.
#[tokio::test]
async fn without_the_environment_git_log_waits_in_a_pager() {
    if !test_support::require_or_skip("git") || !test_support::require_or_skip("less") {
        return;
    }
    let dirs = Dirs::new();
    repository(&dirs.work, 500);
    let (_server, session) = session(&dirs).await;
    let window = WindowOptions::new("paged").cwd(&dirs.work).env("GIT_PAGER", "less").env("LESS", "");
    let pane = session.open_window(window).await.unwrap();
    pane.wait_ready(T).await.unwrap();
    let error = pane.run("git log", Duration::from_secs(3)).await.unwrap_err();
    assert!(matches!(error, tmux_habitat::Error::Timeout { .. }), "{error}");
    pane.send_text("q").await.unwrap();
}
