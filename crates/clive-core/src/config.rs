//! What a run of clive is set up with: where its tmux server and state are ([`Settings`]), the model provider
//! ([`Provider`]), and how tasks run ([`TaskOptions`]: tools and sandbox, budgets, time limits, the safety gate,
//! the working directory).
//!
//! [`Config::builder`] sets each part in code; [`Config::from_env`] is the loader `clive` uses (the environment
//! and the user's config file). Nothing here reads a terminal.

use std::path::PathBuf;
use std::time::Duration;

use tmux_habitat::SocketSpec;

use crate::error::Error;
use crate::settings::Settings;
use crate::tools::{ToolsArgs, ToolsChoice};

/// Where the model comes from.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub enum Provider {
    /// No model: a task in words fails with [`Error::NoProvider`]; shell commands run.
    #[default]
    None,
    /// The first provider the environment configures (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, …), read when a
    /// model is first needed, so that a shell command never fails on a provider setting.
    FromEnv,
    /// This provider and model.
    Config(Box<llm::ProviderConfig>),
}

impl Provider {
    /// The provider's configuration; `Ok(None)` when none is configured.
    pub fn config(&self) -> Result<Option<llm::ProviderConfig>, Error> {
        match self {
            Provider::None => Ok(None),
            Provider::Config(config) => Ok(Some(config.as_ref().clone())),
            Provider::FromEnv => match llm::ProviderConfig::detect_from_env() {
                Ok(config) => Ok(Some(config)),
                Err(llm::Error::NotConfigured) => Ok(None),
                Err(error) => Err(Error::Provider(error)),
            },
        }
    }
}

/// How a model-backed run is set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelOptions {
    /// The token budget of the whole run (`--max-tokens`).
    pub max_tokens: u64,
    /// The most turns of an interactive subtask (`--max-turns`).
    pub max_turns: u32,
}

impl Default for ModelOptions {
    fn default() -> Self {
        ModelOptions { max_tokens: 50_000, max_turns: 8 }
    }
}

/// How to run a task.
#[derive(Debug, Clone)]
pub struct TaskOptions {
    /// Keep the session after a successful run too.
    pub keep: bool,
    /// How long a kept session stays before `clive gc` (or any later `clive`) removes it.
    pub retention: Duration,
    /// How long the command may run.
    pub timeout: Duration,
    /// Let the safety gate pass destructive commands.
    pub allow_destructive: bool,
    /// The directory the command runs in (default: the current directory).
    pub cwd: Option<PathBuf>,
    /// The toolset the model tiers are offered, and the sandbox a command a model wrote (the classifier's)
    /// runs in (`sandbox: None` runs it unconfined). A command the user typed (tier 0) always runs unconfined.
    pub tools: ToolsChoice,
    /// The token budget and turn limit of a task that needs a model (`--max-tokens`, `--max-turns`).
    pub model: ModelOptions,
}

impl Default for TaskOptions {
    fn default() -> Self {
        TaskOptions {
            keep: false,
            retention: Duration::from_secs(30 * 60),
            timeout: Duration::from_secs(600),
            allow_destructive: false,
            cwd: None,
            tools: ToolsChoice::default(),
            model: ModelOptions::default(),
        }
    }
}

/// Everything a run needs besides its task.
#[derive(Debug, Clone)]
pub struct Config {
    /// clive's tmux server (socket, binary) and state directory.
    pub settings: Settings,
    /// The model provider.
    pub provider: Provider,
    /// Tools and sandbox, budgets, time limits, the safety gate, the working directory.
    pub options: TaskOptions,
}

impl Config {
    /// A builder; [`ConfigBuilder::build`] needs at least a state directory.
    pub fn builder() -> ConfigBuilder {
        ConfigBuilder::default()
    }

    /// `clive`'s loader: settings from the environment ([`Settings::from_env`]), the provider the environment
    /// names ([`Provider::FromEnv`]), the tools from the user's config file with `tools` over it; the other
    /// options at their defaults.
    pub fn from_env(tools: &ToolsArgs) -> Result<Config, Error> {
        Ok(Config {
            settings: Settings::from_env()?,
            provider: Provider::FromEnv,
            options: TaskOptions { tools: ToolsChoice::resolve(tools)?, ..TaskOptions::default() },
        })
    }
}

/// Builds a [`Config`] in code.
#[derive(Debug, Clone, Default)]
pub struct ConfigBuilder {
    state_dir: Option<PathBuf>,
    socket: Option<SocketSpec>,
    tmux: Option<PathBuf>,
    provider: Provider,
    options: TaskOptions,
}

impl ConfigBuilder {
    /// Where clive keeps its logs, recordings and run directories (required).
    pub fn state_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.state_dir = Some(dir.into());
        self
    }

    /// clive's tmux server: a socket name (`tmux -L`) or path (`tmux -S`); default the name `clive`.
    pub fn socket(mut self, socket: SocketSpec) -> Self {
        self.socket = Some(socket);
        self
    }

    /// The tmux binary (default `tmux` on `PATH`).
    pub fn tmux(mut self, program: impl Into<PathBuf>) -> Self {
        self.tmux = Some(program.into());
        self
    }

    /// The model provider and model.
    pub fn provider(mut self, provider: llm::ProviderConfig) -> Self {
        self.provider = Provider::Config(Box::new(provider));
        self
    }

    /// The toolset, sandbox and network of panes a model types into (default: the built-in default profile,
    /// sandboxed, no config file read).
    pub fn tools(mut self, tools: ToolsChoice) -> Self {
        self.options.tools = tools;
        self
    }

    /// The sandbox of panes a model types into: bubblewrap with `policy`, or `None` to run them unconfined
    /// (default: on, with the default policy). Set after [`ConfigBuilder::tools`], which carries its own.
    pub fn sandbox(mut self, policy: Option<toolbox::SandboxPolicy>) -> Self {
        self.options.tools.sandbox = policy;
        self
    }

    /// The program that bridges clive's network proxy into a sandbox (a sandboxed pane reaches the hosts a task
    /// names through it): `clive`, or toolbox's `clive-net-bridge`. Default: `CLIVE_NET_BRIDGE`, else this very
    /// program, which is right for `clive` alone.
    pub fn net_bridge(mut self, program: impl Into<PathBuf>) -> Self {
        self.options.tools.bridge = Some(program.into());
        self
    }

    /// The token budget of one task (default 50,000).
    pub fn max_tokens(mut self, tokens: u64) -> Self {
        self.options.model.max_tokens = tokens;
        self
    }

    /// The most turns of one interactive subtask (default 8).
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.options.model.max_turns = turns;
        self
    }

    /// How long a command or subtask may run (default 10 minutes).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.options.timeout = timeout;
        self
    }

    /// How long a kept session stays (default 30 minutes).
    pub fn retention(mut self, retention: Duration) -> Self {
        self.options.retention = retention;
        self
    }

    /// Keep the session after a success too.
    pub fn keep(mut self, keep: bool) -> Self {
        self.options.keep = keep;
        self
    }

    /// Let the safety gate pass destructive commands.
    pub fn allow_destructive(mut self, allow: bool) -> Self {
        self.options.allow_destructive = allow;
        self
    }

    /// The directory tasks run in (default: the current one).
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.options.cwd = Some(dir.into());
        self
    }

    /// The configuration; fails without a state directory.
    pub fn build(self) -> Result<Config, Error> {
        let Some(state_dir) = self.state_dir else {
            return Err(Error::Invalid {
                what: "configuration",
                value: String::new(),
                reason: "no state directory: call ConfigBuilder::state_dir".into(),
            });
        };
        let socket = self.socket.unwrap_or_else(|| SocketSpec::Name(crate::settings::DEFAULT_SOCKET_NAME.to_owned()));
        Ok(Config {
            settings: Settings { socket, state_dir, tmux: self.tmux },
            provider: self.provider,
            options: self.options,
        })
    }
}
