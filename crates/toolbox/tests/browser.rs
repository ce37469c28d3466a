//! The browser pane reads pages from a real local HTTP server: with `lynx -dump`, and interactively by keys.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use clive_toolbox::{Network, NetworkMode, SandboxPolicy, find_full_screen};
use support::{Dirs, HttpServer, T, launcher, sandbox_or_skip, session};
use tmux_habitat::Key;

fn site(dir: &std::path::Path) {
    std::fs::write(
        dir.join("index.html"),
        "<html><head><title>Front page</title></head><body><h1>Front page</h1>\
         <p>The front page of the test site.</p>\
         <p><a href=\"first.html\">First link</a></p><p><a href=\"second.html\">Second link</a></p></body></html>",
    )
    .unwrap();
    std::fs::write(dir.join("first.html"), "<html><body><p>Reached the first page.</p></body></html>").unwrap();
    std::fs::write(dir.join("second.html"), "<html><body><p>Reached the second page.</p></body></html>").unwrap();
}

#[tokio::test]
async fn a_browser_pane_reads_a_page_with_lynx_dump_and_by_keys() {
    if !test_support::require_or_skip("lynx") {
        return;
    }
    let dirs = Dirs::new();
    let www = dirs.root.path().join("www");
    std::fs::create_dir(&www).unwrap();
    site(&www);
    let http = HttpServer::serve(&www);
    let (_server, session) = session(&dirs).await;
    let sandbox = sandbox_or_skip(SandboxPolicy::default()).await;
    // The network is off but for the host the task names, reached through clive's proxy.
    let task = format!("Read the front page of {} and follow its second link", http.url(""));
    let network = NetworkMode::ByTask.network_for(&task, &task, &Default::default());
    assert_eq!(network, Network::Hosts(vec!["127.0.0.1".into()]));
    let launcher = launcher(&dirs, sandbox, &[])
        .bridge(Some(env!("CARGO_BIN_EXE_clive-net-bridge").into()))
        .pane_network("browser", network);
    let pane = launcher.open(&session, "browser").await.unwrap();

    // Script form: the page as text.
    let dump = format!("lynx -dump -nolist {}", http.url(""));
    assert_eq!(find_full_screen(&dump), None);
    let out = pane.run(&dump, T).await.unwrap();
    assert_eq!(out.exit_code, 0);
    assert!(out.output.contains("The front page of the test site.") && out.output.contains("Second link"));

    // Interactive form, which script mode refuses: keys move to the second link and follow it.
    let browse = format!("lynx -accept_all_cookies {}", http.url(""));
    assert_eq!(find_full_screen(&browse).map(|f| f.program), Some("lynx".into()));
    pane.send_line(&browse).await.unwrap();
    // Lynx takes keys once it has drawn its help lines under the page (typed ahead, they may be dropped).
    let ready = |s: &str| s.contains("Second link") && s.contains("Arrow keys: Up and Down to move.");
    pane.wait_until("the front page", T, ready).await.unwrap();
    pane.send_keys(&[Key::Down, Key::Enter]).await.unwrap();
    let screen = pane.wait_until("the second page", T, |s| s.contains("Reached the second page.")).await.unwrap();
    assert!(!screen.contains("Reached the first page."));
    pane.send_keys(&[Key::Left]).await.unwrap();
    pane.wait_until("the front page again", T, |s| s.contains("The front page of the test site.")).await.unwrap();
    pane.send_text("Q").await.unwrap();
    // Keys typed while lynx restores the terminal are discarded with its input queue: wait for the prompt.
    let prompt = |s: &str| s.lines().rev().find(|l| !l.trim().is_empty()).is_some_and(|l| l.trim_end() == "$");
    pane.wait_until("the shell prompt", T, prompt).await.unwrap();
    pane.wait_ready(T).await.unwrap();
    let out = pane.run("echo back in the shell", T).await.unwrap();
    assert_eq!(out.output, "back in the shell\n");
    if launcher.sandbox_in_use().is_some() {
        let log = std::fs::read_to_string(dirs.run.join(clive_toolbox::NETWORK_LOG)).unwrap();
        assert!(log.contains(r#""host":"127.0.0.1""#) && log.contains(r#""allowed":true"#), "{log}");
    }
}
