//! The sandbox with real tmux and real bwrap: what a model might type is confined without the safety gate.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use clive_toolbox::SandboxPolicy;
use support::{Dirs, HttpServer, T, launcher, sandbox_or_skip, session};

#[tokio::test]
async fn destructive_commands_fail_inside_while_work_in_the_working_directory_succeeds() {
    let Some(sandbox) = sandbox_or_skip(SandboxPolicy::default()).await else { return };
    let dirs = Dirs::new();
    std::fs::create_dir_all(dirs.home.join("projects/app")).unwrap();
    std::fs::write(dirs.home.join("projects/app/main.rs"), "fn main() {}\n").unwrap();
    std::fs::create_dir_all(dirs.home.join(".ssh")).unwrap();
    std::fs::write(dirs.home.join(".ssh/id_ed25519"), "PRIVATE-KEY-MATERIAL\n").unwrap();
    let (server, session) = session(&dirs).await;
    let pane = launcher(&dirs, Some(sandbox), &[("GITHUB_TOKEN", "ghp_secret")]).open(&session, "shell").await.unwrap();

    // Work where work belongs.
    let out = pane.run("echo made > result.txt && cat result.txt && echo run > \"$CLIVE_RUN_DIR/r.txt\"", T).await;
    let out = out.unwrap();
    assert_eq!((out.exit_code, out.output.as_str()), (0, "made\n"));
    assert_eq!(std::fs::read_to_string(dirs.work.join("result.txt")).unwrap(), "made\n");
    assert_eq!(std::fs::read_to_string(dirs.run.join("r.txt")).unwrap(), "run\n");

    // What a model must not do, typed straight into the pane (no safety gate on this path).
    let out = pane.run("rm -rf ~/projects", T).await.unwrap();
    assert_ne!(out.exit_code, 0, "{}", out.output);
    assert!(out.output.contains("Read-only file system"), "{}", out.output);
    assert!(dirs.home.join("projects/app/main.rs").exists());

    let out = pane.run("echo owned > /etc/clive-sandbox-test", T).await.unwrap();
    assert_ne!(out.exit_code, 0);
    assert!(!std::path::Path::new("/etc/clive-sandbox-test").exists());

    let out = pane.run("cat ~/.ssh/id_ed25519", T).await.unwrap();
    assert_ne!(out.exit_code, 0);
    assert!(!out.output.contains("PRIVATE-KEY-MATERIAL"), "{}", out.output);

    // No way around it: no capability to remount (even as root), no tmux to run commands outside, no token.
    let out = pane.run("mount -o remount,rw / && touch /etc/clive-sandbox-test", T).await.unwrap();
    assert_ne!(out.exit_code, 0, "{}", out.output);
    assert!(!std::path::Path::new("/etc/clive-sandbox-test").exists());
    let socket = server.socket_path().display().to_string();
    let out = pane.run(&format!("tmux -S '{socket}' run-shell 'touch {}/escaped'", dirs.home.display()), T).await;
    assert_ne!(out.unwrap().exit_code, 0);
    assert!(!dirs.home.join("escaped").exists());
    let out = pane.run("echo \"token=${GITHUB_TOKEN:-none} pager=$PAGER sandbox=$CLIVE_SANDBOX\"", T).await.unwrap();
    assert_eq!(out.output, "token=none pager=cat sandbox=1\n");

    // A private /tmp: the host's is not there, and what is written there stays inside.
    let marker = tempfile::NamedTempFile::new().unwrap();
    let out = pane.run(&format!("test -e '{}'", marker.path().display()), T).await.unwrap();
    assert_ne!(out.exit_code, 0, "the host's /tmp is visible inside");

    // The largest blast radius last: everything outside the writable directories survives.
    let out = pane.run("find / -delete 2>/dev/null; echo after=$?", Duration::from_secs(180)).await.unwrap();
    assert!(out.output.contains("after=1"), "{}", out.output);
    assert!(dirs.home.join("projects/app/main.rs").exists());
    assert!(dirs.home.join(".ssh/id_ed25519").exists());
    assert!(std::path::Path::new("/etc/passwd").exists());
    assert!(!dirs.work.join("result.txt").exists(), "the working directory is writable, so it was emptied");
}

#[tokio::test]
async fn the_network_is_off_by_default_and_on_on_request() {
    if !test_support::require_or_skip("curl") {
        return;
    }
    let Some(with) = sandbox_or_skip(SandboxPolicy { network: clive_toolbox::Network::On, ..Default::default() }).await
    else {
        return;
    };
    let Some(without) = sandbox_or_skip(SandboxPolicy::default()).await else { return };
    let dirs = Dirs::new();
    std::fs::write(dirs.work.join("hello.txt"), "hello over http\n").unwrap();
    let http = HttpServer::serve(&dirs.work);
    let (_server, session) = session(&dirs).await;
    let fetch = format!("curl -fsS --max-time 5 {}", http.url("hello.txt"));

    let online = launcher(&dirs, Some(with), &[]).open(&session, "online").await.unwrap();
    let out = online.run(&fetch, T).await.unwrap();
    assert_eq!((out.exit_code, out.output.as_str()), (0, "hello over http\n"));

    let offline = launcher(&dirs, Some(without), &[]).open(&session, "offline").await.unwrap();
    let out = offline.run(&fetch, T).await.unwrap();
    assert_ne!(out.exit_code, 0, "{}", out.output);
}

#[tokio::test]
async fn a_working_directory_as_broad_as_home_stays_read_only() {
    let Some(sandbox) = sandbox_or_skip(SandboxPolicy::default()).await else { return };
    let dirs = Dirs::new();
    let (_server, session) = session(&dirs).await;
    let launcher = clive_toolbox::Launcher::new(&dirs.home)
        .caller_environment(dirs.environment(&[]))
        .run_dir(&dirs.run)
        .sandbox(Some(sandbox));
    assert!(launcher.describe(session.server(), "home").contains("$CLIVE_RUN_DIR"));
    let pane = launcher.open(&session, "home").await.unwrap();
    let out = pane
        .run("touch in-home 2>/dev/null; echo \"$?\"; touch \"$CLIVE_RUN_DIR/ok\" && echo run-ok", T)
        .await
        .unwrap();
    assert_eq!(out.output, "1\nrun-ok\n", "touch should fail in HOME and succeed in the run directory");
    assert!(!dirs.home.join("in-home").exists());
}

#[tokio::test]
async fn a_sandboxed_pane_works_over_the_subprocess_transport_too() {
    let Some(sandbox) = sandbox_or_skip(SandboxPolicy::default()).await else { return };
    let dirs = Dirs::new();
    let server =
        tmux_habitat::Server::builder().transport(tmux_habitat::TransportKind::Subprocess).start().await.unwrap();
    let session = server.new_session(tmux_habitat::SessionOptions::new("sub").cwd(&dirs.work)).await.unwrap();
    let pane = launcher(&dirs, Some(sandbox), &[]).open(&session, "shell").await.unwrap();
    let out = pane.run("echo inside", T).await.unwrap();
    assert_eq!((out.exit_code, out.output.as_str()), (0, "inside\n"));
}
