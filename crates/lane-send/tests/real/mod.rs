//! Real agent TUIs, offline: each pinned agent (installed by `scripts/agents/setup.sh`) runs in its own private
//! HOME and private tmux server, against an [`AgentBackend`] that speaks its API and records what it submitted.
//! Shared by the real-agent suite (`tests/real_agents.rs`), the latency bench, the `real-agent` example and
//! clive-cli's `tests/mcp_real_agents.rs` (which gives each agent `clive mcp` as an [`McpServer`]).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use lane_send::frame::Recognition;
use llm::testing::AgentBackend;
use serde_json::json;
use tmux_habitat::{Backoff, Server, SessionOptions, shell_quote};

/// The pinned agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Claude,
    Codex,
    Gemini,
    Grok,
    Qwen,
}

impl Kind {
    pub const ALL: [Kind; 5] = [Kind::Claude, Kind::Codex, Kind::Gemini, Kind::Grok, Kind::Qwen];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Claude => "claude",
            Kind::Codex => "codex",
            Kind::Gemini => "gemini",
            Kind::Grok => "grok",
            Kind::Qwen => "qwen",
        }
    }

    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// The agent lane-send should recognise.
    pub fn agent(self) -> lane_send::Agent {
        match self {
            Kind::Claude => lane_send::Agent::Claude,
            Kind::Codex => lane_send::Agent::Codex,
            Kind::Gemini => lane_send::Agent::Gemini,
            Kind::Grok => lane_send::Agent::Grok,
            Kind::Qwen => lane_send::Agent::Qwen,
        }
    }
}

/// The repository root (two levels above this crate).
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The agents' npm prefix: `$LANE_SEND_AGENTS`, else `<repo>/.venv/agents`, installed by
/// `scripts/agents/setup.sh` when missing. `Err` says why they cannot be had (the suite then fails).
pub fn agents_prefix() -> Result<PathBuf, String> {
    static PREFIX: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    PREFIX
        .get_or_init(|| {
            let script = repo_root().join("scripts/agents/setup.sh");
            let output = std::process::Command::new(&script)
                .stderr(std::process::Stdio::inherit())
                .output()
                .map_err(|error| format!("cannot run {}: {error}", script.display()))?;
            if !output.status.success() {
                return Err(format!("{} failed ({}): npm cannot install the agents", script.display(), output.status));
            }
            Ok(PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()))
        })
        .clone()
}

/// An MCP server over stdio that the agent is configured with, every tool of it allowed without a dialog.
#[derive(Debug, Clone)]
pub struct McpServer {
    /// The server's name in the agent's config (Claude Code names its tools `mcp__<name>__<tool>`).
    pub name: String,
    pub command: PathBuf,
    pub args: Vec<String>,
    /// The server's environment, beside what the agent passes on (Codex and Gemini CLI pass on little).
    pub env: Vec<(String, String)>,
}

const API_KEY: &str = "sk-lane-send-test-0123456789abcdefghij";
pub const WIDTH: u16 = 120;
pub const HEIGHT: u16 = 40;

/// One real agent running offline in a private tmux server.
pub struct RealAgent {
    pub kind: Kind,
    /// The pane's first process: the agent (its tree is killed on drop).
    pid: u32,
    pub server: Server,
    pub backend: AgentBackend,
    pub lane: String,
    pub home: tempfile::TempDir,
    pub work: PathBuf,
    pub dirs: lane_send::Dirs,
}

impl RealAgent {
    /// Starts `kind` in session `lane` and waits until its input box is recognised, empty and idle.
    pub async fn start(kind: Kind, lane: &str) -> Result<RealAgent, String> {
        Self::start_with(kind, lane, None).await
    }

    /// [`RealAgent::start`], the agent configured with `mcp` as an MCP server when given.
    pub async fn start_with(kind: Kind, lane: &str, mcp: Option<&McpServer>) -> Result<RealAgent, String> {
        let agent = Self::launch_with(kind, lane, mcp).await?;
        agent
            .wait_for("idle, empty input box", Duration::from_secs(60), |recognition| {
                recognition.input().is_some_and(|input| input.is_empty() && !input.busy)
            })
            .await?;
        Ok(agent)
    }

    /// Starts `kind` in session `lane` without waiting for anything.
    pub async fn launch(kind: Kind, lane: &str) -> Result<RealAgent, String> {
        Self::launch_with(kind, lane, None).await
    }

    /// [`RealAgent::launch`], the agent configured with `mcp` as an MCP server when given.
    pub async fn launch_with(kind: Kind, lane: &str, mcp: Option<&McpServer>) -> Result<RealAgent, String> {
        let prefix = agents_prefix()?;
        let backend = AgentBackend::start().await.unwrap();
        let home = tempfile::Builder::new().prefix(&format!("lane-send-{}-", kind.name())).tempdir().unwrap();
        let work = home.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        let work = work.canonicalize().unwrap();
        let env = configure(kind, home.path(), &work, backend.url(), mcp);
        let bin = prefix.join("node_modules/.bin").join(kind.name());
        let path = std::env::var("PATH").unwrap_or_default();
        // A clean environment: nothing of the caller's (CI=true would make Ink draw only a final frame), only
        // what the agent needs, and the pane's own TMUX and TMUX_PANE, as in any tmux pane (Claude Code reads
        // them and shows tmux notices).
        let mut command = format!(
            "exec env -i PATH={} HOME={} TERM=screen-256color LANG=C.UTF-8 USER=lane-send \"TMUX=$TMUX\" \"TMUX_PANE=$TMUX_PANE\"",
            shell_quote(&path),
            shell_quote(&home.path().to_string_lossy())
        );
        for (key, value) in &env {
            command.push_str(&format!(" {key}={}", shell_quote(value)));
        }
        command.push(' ');
        command.push_str(&shell_quote(&bin.to_string_lossy()));
        let server = Server::isolated().await.unwrap();
        server
            .new_session(SessionOptions::new(lane).size(WIDTH, HEIGHT).cwd(&work).command(command))
            .await
            .map_err(|error| format!("{}: cannot start: {error}", kind.name()))?;
        let dirs = lane_send::Dirs::under(&home.path().join("lane-send"));
        let pane = server.pane(lane).await.map_err(|e| e.to_string())?;
        let pid = pane.info().await.map_err(|e| e.to_string())?.pid;
        Ok(RealAgent { kind, pid, server, backend, lane: lane.to_string(), home, work, dirs })
    }

    /// Polls the lane until `ready` holds, or fails after `timeout` with the last screen.
    pub async fn wait_for(
        &self,
        what: &str,
        timeout: Duration,
        ready: impl Fn(&Recognition) -> bool,
    ) -> Result<Recognition, String> {
        let mut backoff = Backoff::new(timeout);
        loop {
            let recognition = lane_send::inspect_lane(&self.server, &self.lane).await.map_err(|e| e.to_string())?;
            if ready(&recognition) {
                return Ok(recognition);
            }
            if !backoff.wait().await {
                let screen = self.screen().await;
                return Err(format!(
                    "{}: no {what} after {timeout:?}; last: {}\n{screen}",
                    self.kind.name(),
                    recognition.describe()
                ));
            }
        }
    }

    pub async fn screen(&self) -> String {
        match self.server.pane(&self.lane).await {
            Ok(pane) => pane.capture_text().await.unwrap_or_default(),
            Err(error) => format!("(no pane: {error})"),
        }
    }

    pub fn options(&self, timeout: Duration) -> lane_send::DeliverOptions {
        lane_send::DeliverOptions { timeout, dirs: self.dirs.clone() }
    }

    pub async fn send(&self, message: &str) -> lane_send::Outcome {
        lane_send::deliver(&self.server, &self.lane, message, &self.options(Duration::from_secs(10))).await.unwrap()
    }

    /// Waits until the backend saw `count` submissions.
    pub async fn wait_submitted(&self, count: usize, timeout: Duration) -> Vec<String> {
        let mut backoff = Backoff::new(timeout);
        loop {
            let submitted = self.backend.submitted();
            if submitted.len() >= count || !backoff.wait().await {
                return submitted;
            }
        }
    }

    /// `tmux -S … attach -t lane`, for looking at it by hand.
    pub fn attach_command(&self) -> String {
        self.server.attach_command(&self.lane)
    }
}

fn write_json(path: &Path, value: &serde_json::Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

/// Writes the agent's config files into `home` and returns its environment variables.
fn configure(kind: Kind, home: &Path, work: &Path, url: &str, mcp: Option<&McpServer>) -> Vec<(String, String)> {
    let work_str = work.to_string_lossy().to_string();
    let mut env: Vec<(String, String)> = vec![
        ("XDG_CONFIG_HOME".into(), home.join(".config").to_string_lossy().into()),
        ("XDG_CACHE_HOME".into(), home.join(".cache").to_string_lossy().into()),
        ("XDG_DATA_HOME".into(), home.join(".local/share").to_string_lossy().into()),
        ("XDG_STATE_HOME".into(), home.join(".local/state").to_string_lossy().into()),
        ("NO_UPDATE_NOTIFIER".into(), "1".into()),
    ];
    let mut set = |key: &str, value: &str| env.push((key.to_string(), value.to_string()));
    match kind {
        Kind::Claude => {
            let tail = &API_KEY[API_KEY.len() - 20..];
            let mut projects = serde_json::Map::new();
            let mut project = json!({"hasTrustDialogAccepted": true, "allowedTools": []});
            if let Some(mcp) = mcp {
                // Local scope (what `claude mcp add` writes): no approval dialog, unlike a project's `.mcp.json`.
                project["mcpServers"] = json!({ &mcp.name: mcp.stdio_json() });
                write_json(
                    &home.join(".claude/settings.json"),
                    &json!({"permissions": {"allow": [format!("mcp__{}", mcp.name)]}}),
                );
            }
            projects.insert(work_str, project);
            write_json(
                &home.join(".claude.json"),
                &json!({
                    "hasCompletedOnboarding": true,
                    "lastOnboardingVersion": "2.1.197",
                    "theme": "dark",
                    "customApiKeyResponses": {"approved": [tail], "rejected": []},
                    "projects": projects,
                }),
            );
            if mcp.is_some() {
                // Connect MCP servers before the first turn: by default the box takes a message at once, and a
                // turn started before the server answered offers its model none of the server's tools.
                set("MCP_CONNECTION_NONBLOCKING", "false");
            }
            set("ANTHROPIC_BASE_URL", url);
            set("ANTHROPIC_API_KEY", API_KEY);
            set("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
            set("DISABLE_TELEMETRY", "1");
            set("DISABLE_AUTOUPDATER", "1");
            set("DISABLE_ERROR_REPORTING", "1");
        }
        Kind::Codex => {
            let codex_home = home.join(".codex");
            std::fs::create_dir_all(&codex_home).unwrap();
            let config = format!(
                "model = \"gpt-fake-1\"\nmodel_provider = \"fake\"\ncheck_for_update_on_startup = false\n\
                 approval_policy = \"on-request\"\n\n\
                 [model_providers.fake]\nname = \"fake\"\nbase_url = \"{url}/v1\"\nwire_api = \"responses\"\n\
                 env_key = \"OPENAI_API_KEY\"\nrequires_openai_auth = false\n\n\
                 [analytics]\nenabled = false\n\n[features]\ndaemon_auto_start = false\n\n\
                 [projects.\"{work_str}\"]\ntrust_level = \"trusted\"\n"
            );
            // Its tools approved up front: Codex asks before every MCP tool call otherwise.
            let config = match mcp {
                Some(mcp) => {
                    let env: Vec<String> = mcp.env.iter().map(|(key, value)| format!("{key} = {value:?}")).collect();
                    format!(
                        "{config}\n[mcp_servers.{}]\ncommand = {:?}\nargs = {:?}\nenv = {{ {} }}\n\
                         startup_timeout_sec = 60\ntool_timeout_sec = 120\ndefault_tools_approval_mode = \"approve\"\n",
                        mcp.name,
                        mcp.command.to_string_lossy(),
                        mcp.args,
                        env.join(", ")
                    )
                }
                None => config,
            };
            std::fs::write(codex_home.join("config.toml"), config).unwrap();
            set("CODEX_HOME", &codex_home.to_string_lossy());
            set("OPENAI_API_KEY", API_KEY);
        }
        Kind::Gemini => {
            let mut settings = json!({
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
                "privacy": {"usageStatisticsEnabled": false},
            });
            if let Some(mcp) = mcp {
                // `trust`: its tools run without a confirmation dialog.
                let mut server = mcp.stdio_json();
                server["trust"] = json!(true);
                server["timeout"] = json!(120_000);
                settings["mcpServers"] = json!({ &mcp.name: server });
            }
            write_json(&home.join(".gemini/settings.json"), &settings);
            let mut trusted = serde_json::Map::new();
            trusted.insert(work_str, json!("TRUST_FOLDER"));
            write_json(&home.join(".gemini/trustedFolders.json"), &serde_json::Value::Object(trusted));
            set("GEMINI_API_KEY", API_KEY);
            set("GOOGLE_GEMINI_BASE_URL", url);
        }
        Kind::Grok => {
            set("GROK_API_KEY", API_KEY);
            set("GROK_BASE_URL", &format!("{url}/v1"));
        }
        Kind::Qwen => {
            write_json(
                &home.join(".qwen/settings.json"),
                &json!({
                    "security": {"auth": {"selectedType": "openai"}},
                    "general": {"enableAutoUpdate": false},
                    "privacy": {"usageStatisticsEnabled": false},
                }),
            );
            set("OPENAI_API_KEY", API_KEY);
            set("OPENAI_BASE_URL", &format!("{url}/v1"));
            set("OPENAI_MODEL", "qwen-fake-1");
        }
    }
    env
}

impl McpServer {
    /// `{"command", "args", "env"}`, as Claude Code and Gemini CLI configure a stdio server.
    fn stdio_json(&self) -> serde_json::Value {
        let env: serde_json::Map<String, serde_json::Value> =
            self.env.iter().map(|(key, value)| (key.clone(), json!(value))).collect();
        json!({"command": self.command, "args": self.args, "env": env})
    }
}

impl Drop for RealAgent {
    /// Kills the agent's whole process tree before its tmux server goes: some agents leave children that a
    /// hang-up does not end (Gemini CLI relaunches itself in a child node process).
    #[allow(
        clippy::disallowed_methods,
        reason = "Drop has no runtime; bounded 5 ms polls until the killed processes are gone, so none writes \
                  into the private HOME after it is removed"
    )]
    fn drop(&mut self) {
        let tree: Vec<u32> = descendants(self.pid).into_iter().chain([self.pid]).collect();
        for &pid in &tree {
            if let Some(pid) = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        while tree.iter().any(|pid| alive(*pid)) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// Whether `pid` still runs (a zombie has ended: its state is `Z`).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rsplit_once(')').map(|(_, rest)| !rest.trim_start().starts_with('Z')))
        .unwrap_or(false)
}

/// Every live descendant of `root`, from /proc.
fn descendants(root: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // `pid (comm) state ppid …`; comm may hold spaces and parentheses, so read after the last `)`.
            let ppid = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut found = vec![root];
    let mut index = 0;
    while index < found.len() {
        let parent = found[index];
        found.extend(parents.iter().filter(|(_, ppid)| *ppid == parent).map(|(pid, _)| *pid));
        index += 1;
    }
    found.remove(0);
    found
}
