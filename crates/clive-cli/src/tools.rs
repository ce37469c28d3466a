//! The tool options every command shares (`--tools`, `--no-sandbox`, `--network`, `--no-network`, the config
//! file) and `clive tools`, which lists panes, tools, availability, versions, the sandbox and each pane's network.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;
use toolbox::{
    Catalog, DEFAULT_PROFILE, Launcher, Network, NetworkMode, ProbeOptions, Sandbox, SandboxPolicy, Toolbox,
    ToolsReport, Toolset, UserConfig,
};

use crate::error::CliError;
use crate::settings::Settings;

/// The pane a task without a plan runs in (the session's first window).
pub const TASK_PANE: &str = "shell";

/// A caller's choices over the config file's: the toolset, and the sandbox and network of panes a model types
/// into.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolsArgs {
    /// A profile, pane kinds or tools, separated by commas (`--tools`); `None` for the config file's.
    pub tools: Option<String>,
    /// Panes a model types into run unconfined (`--no-sandbox`).
    pub no_sandbox: bool,
    /// Sandboxed panes reach no host at all (`--no-network`).
    pub no_network: bool,
    /// Sandboxed panes reach every host (`--network`).
    pub network: bool,
}

/// The toolset and sandbox this invocation uses: `--tools` over the config file over the default profile;
/// the sandbox on unless `--no-sandbox` or the config file turns it off.
#[derive(Debug, Clone)]
pub struct ToolsChoice {
    /// The user's config file, as read.
    pub config: UserConfig,
    /// The cards: built in, plus the user's.
    pub catalog: Catalog,
    /// The toolset.
    pub toolset: Toolset,
    /// Where the toolset came from: `--tools`, the config file, or the default.
    pub toolset_source: String,
    /// The sandbox policy for panes a model types into; `None` when turned off.
    pub sandbox: Option<SandboxPolicy>,
    /// Why the sandbox is off, when it is.
    pub sandbox_off_by: Option<String>,
    /// How sandboxed panes get their network: by the task (default), off, or on.
    pub network: NetworkMode,
    /// Where that came from: `--network`, `--no-network`, the config file, or the default.
    pub network_source: String,
}

impl Default for ToolsChoice {
    /// The built-in cards, the default profile, the sandbox on with its default policy; no config file read.
    fn default() -> Self {
        ToolsChoice {
            config: UserConfig::default(),
            catalog: Catalog::built_in(),
            toolset: Toolset::default(),
            toolset_source: "the default profile".to_owned(),
            sandbox: Some(SandboxPolicy::default()),
            sandbox_off_by: None,
            network: NetworkMode::ByTask,
            network_source: "the default".to_owned(),
        }
    }
}

impl ToolsChoice {
    /// Reads the config file and applies the command line over it.
    pub fn resolve(args: &ToolsArgs) -> Result<ToolsChoice, CliError> {
        let config = UserConfig::load()?;
        let catalog = match &config.cards_dir {
            Some(dir) => Catalog::with_user_cards(dir)?,
            None => Catalog::built_in(),
        };
        let config_name = || config.path.as_ref().map_or_else(|| "the config file".into(), |p| p.display().to_string());
        let (spec, toolset_source) = match (&args.tools, &config.tools) {
            (Some(spec), _) => (spec.clone(), "--tools".to_owned()),
            (None, Some(spec)) => (spec.clone(), config_name()),
            (None, None) => (DEFAULT_PROFILE.to_owned(), "the default profile".to_owned()),
        };
        let toolset = Toolset::parse(&spec, &catalog, &config.profiles)?;
        let settings = &config.sandbox;
        let sandbox_off_by = if args.no_sandbox {
            Some("--no-sandbox".to_owned())
        } else if !settings.enabled {
            Some(format!("sandbox.enabled: false in {}", config_name()))
        } else {
            None
        };
        let (network, network_source) = match (args.network, args.no_network, settings.network) {
            (true, _, _) => (NetworkMode::On, "--network".to_owned()),
            (_, true, _) => (NetworkMode::Off, "--no-network".to_owned()),
            (_, _, Some(true)) => (NetworkMode::On, format!("sandbox.network: on in {}", config_name())),
            (_, _, Some(false)) => (NetworkMode::Off, format!("sandbox.network: off in {}", config_name())),
            (_, _, None) => (NetworkMode::ByTask, "the default".to_owned()),
        };
        let sandbox = sandbox_off_by.is_none().then(|| SandboxPolicy {
            network: if network == NetworkMode::On { Network::On } else { Network::Off },
            writable: settings.writable.clone(),
            hidden: settings.hidden.clone(),
            keep_variables: Vec::new(),
        });
        Ok(ToolsChoice { config, catalog, toolset, toolset_source, sandbox, sandbox_off_by, network, network_source })
    }

    /// The network of each pane of `plan` when a model types into it: the hosts both `trusted` (the user's task
    /// or plan file) and the pane's subtasks name, plus the config's hosts of the tools they name; all or
    /// nothing with `--network` or `--no-network`. `On` for every pane when the sandbox is off.
    pub fn pane_networks(&self, trusted: &str, plan: &dag_sched::Plan) -> BTreeMap<String, Network> {
        let mut texts: BTreeMap<String, String> = BTreeMap::new();
        texts.entry(TASK_PANE.to_owned()).or_default();
        for subtask in &plan.subtasks {
            let text = texts.entry(subtask.pane.clone()).or_default();
            for part in [Some(&subtask.description), subtask.command.as_ref()].into_iter().flatten() {
                text.push_str(part);
                text.push('\n');
            }
        }
        texts
            .into_iter()
            .map(|(pane, text)| {
                let network = match &self.sandbox {
                    None => Network::On,
                    Some(_) => self.network.network_for(trusted, &text, &self.config.sandbox.hosts),
                };
                (pane, network)
            })
            .collect()
    }

    /// Probes the machine for the toolset's tools (versions cached under clive's cache directory).
    pub async fn toolbox(&self) -> Toolbox {
        let options = ProbeOptions { cache_file: ProbeOptions::default_cache_file(), ..ProbeOptions::default() };
        Toolbox::probe(self.catalog.clone(), self.toolset.clone(), &options).await
    }

    /// What is installed of the toolset, without versions (a `PATH` lookup per tool, no process): enough to
    /// tell the router which panes and tools it may offer.
    pub async fn installed(&self) -> Toolbox {
        let options = ProbeOptions { versions: false, ..ProbeOptions::default() };
        Toolbox::probe(self.catalog.clone(), self.toolset.clone(), &options).await
    }

    /// The launcher for panes a model types into: the never-hang environment, and the sandbox unless it is
    /// turned off. Fails (naming the package) when the sandbox is on and `bwrap` is missing or unusable: a
    /// model's commands never run unconfined by accident.
    /// Each pane's network is `networks`' (else off); clive's own binary bridges the network proxy into the
    /// sandbox.
    pub async fn model_pane_launcher(
        &self,
        cwd: impl Into<PathBuf>,
        run_dir: impl Into<PathBuf>,
        networks: &BTreeMap<String, Network>,
    ) -> Result<Launcher, CliError> {
        let mut launcher = self.model_launcher(cwd).await?.run_dir(run_dir).bridge(bridge_program());
        for (pane, network) in networks {
            launcher = launcher.pane_network(pane, network.clone());
        }
        Ok(launcher)
    }

    /// [`ToolsChoice::model_pane_launcher`] without a run directory (`clive mcp`: the client keeps its files).
    pub async fn model_launcher(&self, cwd: impl Into<PathBuf>) -> Result<Launcher, CliError> {
        let sandbox = match &self.sandbox {
            Some(policy) => Some(Sandbox::locate(policy.clone()).await.map_err(toolbox::Error::from)?),
            None => None,
        };
        Ok(Launcher::new(cwd).sandbox(sandbox))
    }
}

/// The program that bridges the network proxy into a sandbox: this very `clive` (`toolbox::bridge`), unless
/// `CLIVE_NET_BRIDGE` names another.
pub fn bridge_program() -> Option<PathBuf> {
    std::env::var_os("CLIVE_NET_BRIDGE").map(PathBuf::from).or_else(|| std::env::current_exe().ok())
}

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
             tmux: {tmux}\n\n",
            self.tools.toolset,
            self.source,
            networks.join(", "),
            self.sandbox.network_source
        );
        out.push_str(&self.tools.render());
        out.push_str("\n(+ offered to the model)\n");
        out
    }
}
