//! Runs the real `clive` binary against a private tmux server and state directory.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tmux_habitat::{Server, TransportKind};

/// One test's clive world: its own socket and `CLIVE_HOME`, the server killed on drop.
pub struct World {
    /// Dropping it kills the test's tmux server. Declared first: fields drop in order, and the server must
    /// be killed while its socket (inside `dir`) still exists, or it is orphaned.
    _server: Server,
    /// The test's temporary directory (socket, state, working directories).
    pub dir: tempfile::TempDir,
    /// `CLIVE_TMUX_SOCKET`.
    pub socket: PathBuf,
    /// `CLIVE_HOME`.
    pub home: PathBuf,
    runtime: tokio::runtime::Runtime,
}

impl Default for World {
    fn default() -> Self {
        World::new()
    }
}

impl World {
    /// A fresh world; nothing runs until the first `clive`.
    pub fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("tmux.sock");
        let home = dir.path().join("home");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let server = runtime
            .block_on(
                Server::builder().socket_path(&socket).keep_on_drop(false).transport(TransportKind::Subprocess).start(),
            )
            .unwrap();
        World { dir, socket, home, _server: server, runtime }
    }

    /// A control-mode handle on this world's tmux server, for tests that follow panes (left running on drop;
    /// the world's own handle kills the server).
    pub async fn control_server(&self) -> Server {
        Server::builder()
            .socket_path(&self.socket)
            .keep_on_drop(true)
            .transport(TransportKind::Control)
            .start()
            .await
            .unwrap()
    }

    /// `clive` with this world's environment, no provider configured, outside any tmux.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_clive"));
        command
            .args(args)
            .env("CLIVE_TMUX_SOCKET", &self.socket)
            .env("CLIVE_HOME", &self.home)
            .env_remove("TMUX")
            .env_remove("TMUX_PANE")
            .env_remove("RUST_LOG")
            .env_remove("CLIVE_RETENTION")
            .env_remove("CLIVE_TIMEOUT");
        for (name, _) in llm::PROVIDER_VARIABLES {
            command.env_remove(name);
        }
        command
    }

    /// Runs `clive args` and waits for it.
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// Runs `clive args` in `dir` and waits for it.
    pub fn run_in(&self, dir: &Path, args: &[&str]) -> Output {
        self.command(args).current_dir(dir).output().unwrap()
    }

    /// `clive sessions --json`, parsed.
    pub fn sessions(&self) -> Vec<serde_json::Value> {
        let out = self.run(&["sessions", "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        serde_json::from_slice::<Vec<serde_json::Value>>(&out.stdout).unwrap()
    }

    /// Names of the server's sessions, asked of tmux itself.
    pub fn tmux_sessions(&self) -> Vec<String> {
        match self.runtime.block_on(self._server.list_sessions()) {
            Ok(sessions) => sessions.into_iter().map(|info| info.name).collect(),
            // The server was exiting (its last session just went) as we asked.
            Err(e) if e.is_server_gone() => Vec::new(),
            Err(e) => panic!("listing sessions: {e}"),
        }
    }
}

/// Bytes as text, for assertions.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
