//! The files a server handle keeps (rc file, per-command scripts, end-signal FIFOs) live in a private,
//! unpredictable directory, reach the shell quoted, and go when they are done: the predecessor's
//! `/tmp/clive` squatting and unquoted FIFO path (its F-4 and F-3) and its FIFOs and sessions left behind
//! (W16). The checks run in a child test process whose `TMPDIR` holds a space, a quote and a `$`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::time::Duration;

use tmux_habitat::{Key, Server, SessionOptions, TransportKind};

const T: Duration = Duration::from_secs(10);
const INNER: &str = "TMUX_HABITAT_TEST_AWKWARD_TMPDIR";
const DONE: &str = "runtime files checked on both transports";

#[test]
fn runtime_files_are_private_quoted_and_removed() {
    let base = tempfile::Builder::new().prefix("hab dir 'q' $HOME ").tempdir().unwrap();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "in_an_awkward_temp_dir", "--nocapture", "--test-threads=1"])
        .env("TMPDIR", base.path())
        .env(INNER, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains(DONE), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let left: Vec<_> = std::fs::read_dir(base.path()).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(left.is_empty(), "left in the temporary directory: {left:?}");
}

#[tokio::test]
#[ignore = "run by runtime_files_are_private_quoted_and_removed with TMPDIR set; a no-op without it"]
async fn in_an_awkward_temp_dir() {
    if std::env::var_os(INNER).is_none() {
        return;
    }
    let base = std::env::temp_dir();
    assert!(base.to_string_lossy().contains("'q' $HOME"), "{base:?}");
    for kind in [TransportKind::Subprocess, TransportKind::Control] {
        check(kind, &base).await;
    }
    println!("{DONE}");
}

async fn check(kind: TransportKind, base: &Path) {
    let server = Server::builder().transport(kind).start().await.unwrap();
    let other = Server::builder().transport(kind).start().await.unwrap();
    let dir = server.runtime_dir().to_owned();
    assert!(dir.starts_with(base), "{dir:?}");
    assert_ne!(dir, other.runtime_dir(), "two handles of one process share a directory");
    let meta = std::fs::symlink_metadata(&dir).unwrap();
    assert!(meta.is_dir(), "{dir:?}");
    assert_eq!(meta.permissions().mode() & 0o777, 0o700, "{dir:?}");
    assert_eq!(meta.uid(), std::fs::metadata("/proc/self").unwrap().uid());

    let session = server.new_session(SessionOptions::new("files")).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(T).await.unwrap();
    let fixed = entries(&dir);
    // The script and (on the subprocess transport) the FIFO paths are typed into the shell inside this
    // directory: a quote or `$` in it breaks the line unless it is quoted.
    for i in 0..3 {
        let out = pane.run(&format!("echo run{i}; printf '%s' \"$TMPDIR\""), T).await.unwrap();
        assert_eq!(out.output, format!("run{i}\n{}", base.display()), "{kind:?}");
        assert_eq!(out.exit_code, 0);
    }
    // A command given up on (its wait timed out, then C-c) leaves nothing once a later command has ended.
    let err = pane.run("sleep 30", Duration::from_millis(300)).await.unwrap_err();
    assert!(matches!(err, tmux_habitat::Error::Timeout { .. }), "{err}");
    pane.send_keys(&[Key::CTRL_C]).await.unwrap();
    assert_eq!(pane.run("echo back", T).await.unwrap().output, "back\n");
    assert_eq!(entries(&dir), fixed, "{kind:?}: a finished command left files");
    assert!(fixed.iter().all(|name| !name.starts_with("cmd-") && !name.starts_with("end-")), "{fixed:?}");

    drop((pane, session));
    drop(server);
    drop(other);
    assert!(!dir.exists(), "{kind:?}: {dir:?} outlived its server");
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}
