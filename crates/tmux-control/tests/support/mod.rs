//! Test support: a private tmux server on a unique socket, killed on drop.
//!
//! Only tests spawn tmux directly (the crate itself never does; its owner,
//! tmux-habitat, spawns the control client). Every call has a deadline and
//! runs with `TMUX`/`TMUX_PANE` removed so the user's server is never touched.

// Each test binary uses a different part of this module, and helpers fail the
// calling test at the first broken setup step, with a message.
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::time::Duration;

use tmux_control::{Connection, ConnectionEvent, ConnectionOptions, Events, OutputSubscription, PaneEvent, PaneId};

/// Deadline of every tmux subprocess call here.
pub const TMUX_DEADLINE: Duration = Duration::from_secs(10);
/// The session every server starts with.
pub const SESSION: &str = "test";

/// A tmux server of its own, in a temporary directory.
pub struct TmuxServer {
    dir: tempfile::TempDir,
}

impl TmuxServer {
    /// Starts a server with one 200×50 session running a plain bash.
    pub async fn start() -> Self {
        let server = Self { dir: tempfile::tempdir().expect("create a temporary directory") };
        server.new_session().await;
        server
    }

    /// The socket path.
    pub fn socket(&self) -> PathBuf {
        self.dir.path().join("sock")
    }

    /// Creates the session [`SESSION`] (starting the server if needed).
    pub async fn new_session(&self) {
        self.tmux(&[
            "new-session",
            "-d",
            "-s",
            SESSION,
            "-x",
            "200",
            "-y",
            "50",
            "env -i PATH=/usr/bin:/bin TERM=screen PS1='$ ' bash --norc --noprofile",
        ])
        .await;
    }

    /// A `tmux -S <socket> -f /dev/null` command with the environment scrubbed.
    pub fn command(&self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new("tmux");
        command
            .arg("-S")
            .arg(self.socket())
            .args(["-f", "/dev/null"])
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .stdin(Stdio::null())
            .kill_on_drop(true);
        command
    }

    /// Runs a tmux subcommand as a subprocess; panics on failure or timeout.
    pub async fn tmux(&self, args: &[&str]) -> Output {
        let output = self.try_tmux(args).await;
        assert!(output.status.success(), "tmux {args:?}: {output:?}");
        output
    }

    /// Runs a tmux subcommand as a subprocess, whatever its exit status.
    pub async fn try_tmux(&self, args: &[&str]) -> Output {
        let run = self.command().args(args).output();
        tokio::time::timeout(TMUX_DEADLINE, run)
            .await
            .unwrap_or_else(|_| panic!("tmux {args:?} took over {TMUX_DEADLINE:?}"))
            .expect("run tmux")
    }

    /// Spawns a control client attached to [`SESSION`] with piped stdio.
    pub fn spawn_control_client(&self) -> tokio::process::Child {
        self.command()
            .args(["-C", "attach", "-f", "ignore-size", "-t", SESSION])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn tmux -C")
    }

    /// A connection over a fresh control client.
    pub fn connect(&self) -> (Connection, Events) {
        self.connect_with(ConnectionOptions::default())
    }

    /// A connection over a fresh control client, with options.
    pub fn connect_with(&self, options: ConnectionOptions) -> (Connection, Events) {
        Connection::from_child(self.spawn_control_client(), options).expect("piped control client")
    }

    /// The id of the session's first pane.
    pub async fn first_pane(&self, connection: &Connection) -> PaneId {
        let reply = connection
            .command(format!("display-message -p -t {SESSION} '#{{pane_id}}'"))
            .await
            .expect("display-message");
        reply.text().parse().expect("a pane id")
    }

    /// The server's process id.
    pub async fn server_pid(&self) -> u32 {
        let output = self.tmux(&["display-message", "-p", "#{pid}"]).await;
        String::from_utf8_lossy(&output.stdout).trim().parse().expect("a pid")
    }
}

impl TmuxServer {
    /// Kills the server with SIGKILL (it writes nothing on the way out) and
    /// waits until the process is gone, so the socket can be reused.
    pub async fn kill_abruptly(&self) {
        let pid = self.server_pid().await;
        let killed = std::process::Command::new("kill").args(["-KILL", &pid.to_string()]).status().expect("run kill");
        assert!(killed.success(), "kill -KILL {pid}");
        let deadline = tokio::time::Instant::now() + TMUX_DEADLINE;
        // SIGKILL takes effect within moments; there is no event to await
        // for another process's death, so check its state until it is gone
        // (or a zombie, if nothing reaps it here).
        while let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            let state = stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().next());
            if state == Some("Z") {
                break;
            }
            assert!(tokio::time::Instant::now() < deadline, "tmux server {pid} survived SIGKILL");
            tokio::task::yield_now().await;
        }
    }
}

impl Drop for TmuxServer {
    fn drop(&mut self) {
        // Blocking is fine here: kill-server on a private socket returns at once.
        let _ = std::process::Command::new("tmux")
            .arg("-S")
            .arg(self.socket())
            .arg("kill-server")
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// Types `text` into the pane and presses Enter.
pub async fn type_line(connection: &Connection, pane: PaneId, text: &str) {
    let pane = pane.to_string();
    let literal = tmux_control::Command::new("send-keys").args(["-t", &pane, "-l", text]);
    connection.command(literal).await.expect("send-keys").into_result().expect("send-keys ok");
    let enter = tmux_control::Command::new("send-keys").args(["-t", &pane, "Enter"]);
    connection.command(enter).await.expect("send-keys").into_result().expect("send-keys ok");
}

/// Deadline of waiting for one event in tests.
pub const EVENT_DEADLINE: Duration = Duration::from_secs(20);

/// The two event streams of a connection, for [`next_matching`].
pub trait EventStream {
    /// What the stream yields.
    type Item;
    /// The next item, `None` at the end.
    async fn next_item(&mut self) -> Option<Self::Item>;
}

impl EventStream for OutputSubscription {
    type Item = PaneEvent;
    async fn next_item(&mut self) -> Option<PaneEvent> {
        self.recv().await
    }
}

impl EventStream for Events {
    type Item = ConnectionEvent;
    async fn next_item(&mut self) -> Option<ConnectionEvent> {
        self.recv().await
    }
}

/// Skips items until one satisfies `wanted`; fails the test if the stream
/// ends or [`EVENT_DEADLINE`] passes first.
pub async fn next_matching<S: EventStream>(stream: &mut S, what: &str, wanted: impl Fn(&S::Item) -> bool) -> S::Item {
    let search = async {
        while let Some(item) = stream.next_item().await {
            if wanted(&item) {
                return item;
            }
        }
        panic!("the stream ended before {what}");
    };
    tokio::time::timeout(EVENT_DEADLINE, search).await.unwrap_or_else(|_| panic!("no {what} within {EVENT_DEADLINE:?}"))
}
