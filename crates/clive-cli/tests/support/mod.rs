//! Runs the real `clive` binary against a private tmux server and state directory.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tmux_habitat::{Server, TransportKind};

/// Every variable that configures a model provider: tests start with none of them.
pub const PROVIDER_VARIABLES: [&str; 9] = [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENROUTER_API_KEY",
    "OLLAMA_HOST",
    "CLIVE_MAX_TOKENS",
    "OPENAI_MODEL",
    "ANTHROPIC_MODEL",
];

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
        for name in PROVIDER_VARIABLES {
            command.env_remove(name);
        }
        command
    }

    /// Runs `clive args` and waits for it.
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// Runs `clive args` with its stdout a pipe whose reader is gone, and waits for it.
    pub fn run_with_closed_stdout(&self, args: &[&str]) -> Output {
        let mut child = self
            .command(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        child.wait_with_output().unwrap()
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

/// A scripted fake model server (OpenAI wire format) on a runtime of its own, so it answers while the test
/// thread waits for `clive`.
pub struct FakeModel {
    pub server: llm::testing::FakeServer,
    _runtime: tokio::runtime::Runtime,
}

impl FakeModel {
    pub fn start() -> FakeModel {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let server = runtime.block_on(llm::testing::FakeServer::start()).unwrap();
        FakeModel { server, _runtime: runtime }
    }

    /// Queues replies, each reporting 100 tokens in and 10 out.
    pub fn replies(&self, texts: &[&str]) -> &Self {
        use llm::testing::{Reply, Tokens, wire};
        for text in texts {
            self.server.push(Reply::json(200, wire::openai::completion(text, "stop", Tokens::new(100, 10))));
        }
        self
    }

    /// Queues the classifier's choice of one interactive subtask (the task itself, on the pane `shell`).
    pub fn drive(&self) -> &Self {
        self.replies(&[r#"{"kind":"drive","text":""}"#])
    }

    /// The last user message of every request the interactive runner made (routing's are left out).
    pub fn prompts(&self) -> Vec<String> {
        self.server
            .requests()
            .iter()
            .filter(|r| {
                let messages = r.body["messages"].as_array().cloned().unwrap_or_default();
                messages.iter().any(|m| {
                    m["role"] == "system" && m["content"].as_str().is_some_and(|c| c.contains("terminal pane"))
                })
            })
            .map(|r| {
                let messages = r.body["messages"].as_array().unwrap();
                messages.iter().rev().find(|m| m["role"] == "user").unwrap()["content"].as_str().unwrap().to_owned()
            })
            .collect()
    }
}

impl World {
    /// `clive args` in `dir` with `model` as the provider (an OpenAI-compatible server, no key).
    pub fn run_with_model(&self, model: &FakeModel, dir: &Path, args: &[&str]) -> Output {
        let base = format!("{}/v1", model.server.url());
        self.command(args).current_dir(dir).env("OPENAI_BASE_URL", base).output().unwrap()
    }

    /// `clive args` in `dir` with `model` as a hosted provider (OpenAI's wire format, with a key): a model whose
    /// final look counts as a check, unlike a local one's.
    pub fn run_hosted(&self, model: &FakeModel, dir: &Path, args: &[&str]) -> Output {
        let base = format!("{}/v1", model.server.url());
        self.command(args)
            .current_dir(dir)
            .env("OPENAI_BASE_URL", base)
            .env("OPENAI_API_KEY", "sk-test")
            .output()
            .unwrap()
    }

    /// The tmux server of this world.
    pub fn server(&self) -> &Server {
        &self._server
    }

    /// Blocks on `future` in the world's runtime.
    pub fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }
}

/// An action as a model writes it.
pub fn run(command: &str) -> String {
    serde_json::json!({"action": "run", "command": command}).to_string()
}

/// A `done` action.
pub fn done(summary: &str) -> String {
    serde_json::json!({"action": "done", "summary": summary}).to_string()
}

/// The report with what changes from run to run (times, ids, paths) replaced, for snapshots.
pub fn stable(mut value: serde_json::Value) -> serde_json::Value {
    fn walk(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, item) in map.iter_mut() {
                    let volatile = key.ends_with("_ms")
                        || matches!(key.as_str(), "session" | "run_dir" | "files" | "files_written");
                    if volatile && !item.is_null() {
                        *item = serde_json::Value::String(format!("[{key}]"));
                    } else {
                        walk(item);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut value);
    value
}

/// Bytes as text, for assertions.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The final look's yes (the agent's last call before a result counts as checked).
pub fn look_yes() -> String {
    serde_json::json!({"answer": "yes", "reason": "it does what the task asks"}).to_string()
}
