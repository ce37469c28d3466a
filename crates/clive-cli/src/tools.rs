//! `clive tools`: the panes and tools a model may use, their availability and versions, the sandbox and each pane's
//! network, from the engine's tool choice ([`clive_core::ToolsChoice`]); and the model a task would use, with its
//! profile ([`ModelChoice`]).

use std::collections::BTreeMap;
use std::path::PathBuf;

use clive_core::engine::ModelChoice;
use clive_core::{Provider, Settings, ToolsArgs, ToolsChoice};
use serde::Serialize;
use toolbox::{Network, NetworkMode, Sandbox, ToolsReport};

use crate::error::CliError;

/// What `clive tools` reports: the tools, and the sandbox.
#[derive(Debug, Clone, Serialize)]
pub struct ToolsView {
    /// Where the toolset came from.
    pub source: String,
    /// The config file read, if any.
    pub config: Option<PathBuf>,
    /// Panes and tools.
    #[serde(flatten)]
    pub tools: ToolsReport,
    /// The panes and tools offered to the model, one line each (what the planner sees).
    pub offered: Vec<String>,
    /// The sandbox for panes a model types into.
    pub sandbox: SandboxView,
    /// Each pane's network when a model types into it and the task names no host (`off`, `on`).
    pub networks: BTreeMap<String, Network>,
    /// The tmux clive runs.
    pub tmux: TmuxView,
    /// The model a task would use (the environment's provider, its `default` model) and its profile; `None` when
    /// no provider is configured or its settings are wrong (`model_problem` says which).
    pub model: Option<ModelChoice>,
    /// Why there is no model.
    pub model_problem: Option<String>,
}

/// The tmux part of [`ToolsView`].
#[derive(Debug, Clone, Serialize)]
pub struct TmuxView {
    /// The binary (`CLIVE_TMUX`, else `tmux` on `PATH`).
    pub program: PathBuf,
    /// Its version (`3.5a`), when it answered.
    pub version: Option<String>,
    /// Why it cannot be used, when it cannot.
    pub problem: Option<String>,
}

/// The sandbox part of [`ToolsView`].
#[derive(Debug, Clone, Serialize)]
pub struct SandboxView {
    /// Whether panes a model types into run sandboxed.
    pub enabled: bool,
    /// What they reach: `off` (only the hosts a task names, through clive's proxy), or `on`.
    pub network: Network,
    /// How that was decided: `by_task`, `off` or `on`.
    pub network_mode: NetworkMode,
    /// Where that came from (`--network`, `--no-network`, the config file, the default).
    pub network_source: String,
    /// The config's hosts by tool (`sandbox.hosts`), reached by a subtask that names the tool.
    pub tool_hosts: BTreeMap<String, Vec<String>>,
    /// The `bwrap` found, if the sandbox is on and works.
    pub bwrap: Option<PathBuf>,
    /// Its version.
    pub version: Option<String>,
    /// Why it is off or does not work.
    pub problem: Option<String>,
}

/// Runs `clive tools`.
pub async fn tools(args: &ToolsArgs, settings: &Settings) -> Result<ToolsView, CliError> {
    let choice = ToolsChoice::resolve(args)?;
    let server = settings.server().await?;
    let (version, problem) = match server.tmux_version().await {
        Ok(v) if v.is_supported() => (Some(v.to_string()), None),
        Ok(v) => {
            let (major, minor) = tmux_habitat::TmuxVersion::MINIMUM;
            let problem =
                format!("tmux {v} is too old: clive needs {major}.{minor} or newer (CLIVE_TMUX chooses another)");
            (Some(v.to_string()), Some(problem))
        }
        Err(e) => (None, Some(e.to_string())),
    };
    let tmux = TmuxView { program: server.program().to_path_buf(), version, problem };
    let toolbox = choice.toolbox().await;
    let sandbox = match &choice.sandbox {
        None => SandboxView {
            enabled: false,
            network: Network::On,
            network_mode: NetworkMode::On,
            network_source: "the sandbox is off".to_owned(),
            tool_hosts: BTreeMap::new(),
            bwrap: None,
            version: None,
            problem: choice.sandbox_off_by.as_ref().map(|by| format!("turned off by {by}")),
        },
        Some(policy) => match Sandbox::locate(policy.clone()).await {
            Ok(found) => SandboxView {
                enabled: true,
                network: policy.network.clone(),
                network_mode: choice.network.clone(),
                network_source: choice.network_source.clone(),
                tool_hosts: choice.config.sandbox.hosts.clone(),
                bwrap: Some(found.bwrap().to_path_buf()),
                version: found.version().map(str::to_owned),
                problem: None,
            },
            Err(e) => SandboxView {
                enabled: true,
                network: policy.network.clone(),
                network_mode: choice.network.clone(),
                network_source: choice.network_source.clone(),
                tool_hosts: choice.config.sandbox.hosts.clone(),
                bwrap: None,
                version: None,
                problem: Some(e.to_string()),
            },
        },
    };
    let (model, model_problem) = match Provider::FromEnv.config() {
        Ok(Some(config)) => (Some(ModelChoice::of(&config, &choice.config)), None),
        Ok(None) => {
            (None, Some(format!("no provider is configured: set {}", clive_core::provider::provider_variables_text())))
        }
        Err(error) => (None, Some(error.to_string())),
    };
    let offered = toolbox.offered_text().lines().map(|l| l.trim_start_matches("- ").to_owned()).collect();
    let networks =
        choice.toolset.panes().iter().map(|pane| (pane.kind.name().to_owned(), sandbox.network.clone())).collect();
    Ok(ToolsView {
        networks,
        source: choice.toolset_source,
        config: choice.config.path,
        tools: toolbox.report(),
        offered,
        sandbox,
        tmux,
        model,
        model_problem,
    })
}

impl ToolsView {
    /// The text `clive tools` prints.
    pub fn render(&self) -> String {
        let sandbox = match (&self.sandbox, self.sandbox.enabled) {
            (s, true) if s.problem.is_none() => format!(
                "on ({} {}; network {})",
                s.bwrap.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
                s.version.as_deref().unwrap_or(""),
                match s.network_mode {
                    NetworkMode::ByTask => "off but for the hosts a task names, over HTTP(S) through clive's proxy",
                    NetworkMode::Off => "off",
                    NetworkMode::On => "on",
                }
            ),
            (s, true) => format!("UNAVAILABLE: {}", s.problem.as_deref().unwrap_or("")),
            (s, false) => format!("off ({})", s.problem.as_deref().unwrap_or("")),
        };
        let tmux = match (&self.tmux.version, &self.tmux.problem) {
            (_, Some(problem)) => format!("UNUSABLE: {problem}"),
            (Some(version), None) => format!("{version} ({})", self.tmux.program.display()),
            (None, None) => self.tmux.program.display().to_string(),
        };
        let networks: Vec<String> = self.networks.iter().map(|(pane, network)| format!("{pane} {network}")).collect();
        let mut out = format!(
            "toolset: {} (from {})\nsandbox for panes a model types into: {sandbox}\nnetwork by pane: {} (from {})\n\
             tmux: {tmux}\n{}\n\n",
            self.tools.toolset,
            self.source,
            networks.join(", "),
            self.sandbox.network_source,
            self.model_line(),
        );
        out.push_str(&self.tools.render());
        out.push_str("\n(+ offered to the model)\n");
        out
    }

    /// `model: ollama llama3.3:70b, profile large (its name says 70B parameters)`, or why there is none.
    pub fn model_line(&self) -> String {
        match (&self.model, &self.model_problem) {
            (Some(model), _) => format!("model: {}", model.describe()),
            (None, problem) => format!("model: none ({})", problem.as_deref().unwrap_or("no provider is configured")),
        }
    }
}
