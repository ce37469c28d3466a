//! The toolset, the sandbox and the network of panes a model types into: chosen from the user's config file with
//! a caller's choices over it ([`ToolsArgs`]: `clive`'s `--tools`, `--no-sandbox`, `--network`, `--no-network`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use toolbox::{
    Catalog, DEFAULT_PROFILE, Launcher, Network, NetworkMode, ProbeOptions, Sandbox, SandboxPolicy, Toolbox, Toolset,
    UserConfig,
};

use crate::error::Error;

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
    /// The program that bridges the network proxy into a sandbox ([`bridge_program`]: `clive` itself); an
    /// embedder names `clive` or toolbox's `clive-net-bridge`.
    pub bridge: Option<PathBuf>,
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
            bridge: bridge_program(),
        }
    }
}

impl ToolsChoice {
    /// Reads the config file and applies the command line over it.
    pub fn resolve(args: &ToolsArgs) -> Result<ToolsChoice, Error> {
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
        Ok(ToolsChoice {
            config,
            catalog,
            toolset,
            toolset_source,
            sandbox,
            sandbox_off_by,
            network,
            network_source,
            bridge: bridge_program(),
        })
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
    /// Each pane's network is `networks`' (else off); [`ToolsChoice::bridge`] bridges the network proxy into the
    /// sandbox.
    pub async fn model_pane_launcher(
        &self,
        cwd: impl Into<PathBuf>,
        run_dir: impl Into<PathBuf>,
        networks: &BTreeMap<String, Network>,
    ) -> Result<Launcher, Error> {
        let mut launcher = self.model_launcher(cwd).await?.run_dir(run_dir).bridge(self.bridge.clone());
        for (pane, network) in networks {
            launcher = launcher.pane_network(pane, network.clone());
        }
        Ok(launcher)
    }

    /// [`ToolsChoice::model_pane_launcher`] without a run directory (`clive mcp`: the client keeps its files).
    pub async fn model_launcher(&self, cwd: impl Into<PathBuf>) -> Result<Launcher, Error> {
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
