//! The user's config file: `$XDG_CONFIG_HOME/clive/config.yaml` (default `~/.config/clive/config.yaml`), or
//! `$CLIVE_HOME/config.yaml` when `CLIVE_HOME` keeps everything of clive's in one directory, or the file
//! `CLIVE_CONFIG` names.
//!
//! ```yaml
//! tools: standard              # a profile or a list, as for --tools
//! profiles:                    # the user's own profiles
//!   research: [browser, docs, jq]
//! sandbox:
//!   enabled: true              # panes a model types into run under bubblewrap (--no-sandbox turns it off)
//!   network: on                # on: every sandboxed pane reaches the network (--network); off: none does
//!                              # (--no-network); unset: off, except the hosts a task names
//!   hosts:                     # hosts a subtask may reach when it names the tool (through clive's proxy)
//!     pip: [pypi.org, files.pythonhosted.org]
//!   writable: [~/scratch]      # writable besides the working and run directories
//!   hidden: [~/.kube]          # hidden besides the usual credential directories
//! agents:                      # remote clives by alias, for `clive@devbox …` (docs/remote.md)
//!   devbox:
//!     destination: me@devbox.example.com   # the ssh destination (default: the alias itself)
//!     port: 2222
//!     identity: ~/.ssh/agent_key
//!     options: {UserKnownHostsFile: ~/.ssh/known_hosts_agents}   # more `ssh -o Name=value`
//!     command: [/opt/clive/bin/clive]      # the remote clive (default: `clive` on the remote PATH)
//!     toolset: standard                    # passed on as `--tools`
//!     connect_timeout: 10                  # seconds (default 10)
//! providers:                   # model profiles: small, standard or large (docs/clive.md, "Model profiles")
//!   ollama:                    # anthropic, openai, openrouter, ollama, ollama-native, openai-compatible
//!     profile: standard        # every model this provider serves, unless named below
//!     models:
//!       "qwen2.5-coder:1.5b": small
//!       "llama3.3:70b": large
//! ```
//!
//! Tool cards of the user's own go in `cards/` beside the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};

/// Environment variable naming the config file (instead of the one in the config directory).
pub const CONFIG_VARIABLE: &str = "CLIVE_CONFIG";

/// The user's settings for tools and the sandbox. Every field is optional in the file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserConfig {
    /// The file it was read from (`None`: no file, the defaults).
    pub path: Option<PathBuf>,
    /// Where the user's own tool cards live.
    pub cards_dir: Option<PathBuf>,
    /// The toolset (same grammar as `--tools`).
    pub tools: Option<String>,
    /// The user's own profiles: name → profiles, kinds or tools.
    pub profiles: BTreeMap<String, Vec<String>>,
    /// Sandbox settings.
    pub sandbox: SandboxSettings,
    /// Remote agents by alias (the `agents:` section; crates/remote reads them).
    pub agents: BTreeMap<String, AgentSettings>,
    /// Settings by model provider (the `providers:` section): the profiles of its models.
    pub providers: BTreeMap<llm::ProviderKind, ProviderSettings>,
}

/// One provider's entry of the `providers:` section.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderSettings {
    /// The profile of every model the provider serves that `models` does not name.
    #[serde(default)]
    pub profile: Option<llm::ModelProfile>,
    /// Profiles by model name (as the provider is sent it: `qwen2.5-coder:1.5b`, `default` for llama.cpp's
    /// server).
    #[serde(default)]
    pub models: BTreeMap<String, llm::ModelProfile>,
}

impl UserConfig {
    /// What the file says of `model` served by `kind`, and where it says it: the model's own entry
    /// (`providers.<kind>.models.<model>`, its name compared without case), else the provider's
    /// (`providers.<kind>.profile`). For [`llm::ProfileChoice::resolve`].
    pub fn model_profile(&self, kind: llm::ProviderKind, model: &str) -> Option<(llm::ModelProfile, String)> {
        let settings = self.providers.get(&kind)?;
        let file = self.path.as_ref().map_or_else(|| "the config file".to_owned(), |p| p.display().to_string());
        let named = settings.models.iter().find(|(name, _)| name.trim().eq_ignore_ascii_case(model.trim()));
        match (named, settings.profile) {
            (Some((name, profile)), _) => Some((*profile, format!("providers.{kind}.models.{name} in {file}"))),
            (None, Some(profile)) => Some((profile, format!("providers.{kind}.profile in {file}"))),
            (None, None) => None,
        }
    }
}

/// How to reach one remote clive (an entry of the `agents:` section). Every field is optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentSettings {
    /// The ssh destination, `[user@]host` (default: the alias).
    pub destination: Option<String>,
    /// The ssh port.
    pub port: Option<u16>,
    /// The private key (`ssh -i`).
    pub identity: Option<PathBuf>,
    /// More ssh options (`-o Name=value`), by name.
    pub options: BTreeMap<String, String>,
    /// The remote clive program and its first arguments (default: `clive`).
    pub command: Option<Vec<String>>,
    /// The remote clive's toolset (`--tools`).
    pub toolset: Option<String>,
    /// How long connecting may take, in seconds.
    pub connect_timeout: Option<u64>,
}

/// The `sandbox:` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSettings {
    /// Whether panes a model types into run sandboxed (default yes).
    pub enabled: bool,
    /// Whether sandboxed panes reach the network: `Some(true)` all of it, `Some(false)` none, `None` (the
    /// default) only the hosts a task names.
    pub network: Option<bool>,
    /// Hosts a subtask may reach when it names the tool: tool → hosts (`*.domain` for its subdomains).
    pub hosts: BTreeMap<String, Vec<String>>,
    /// Extra writable paths.
    pub writable: Vec<PathBuf>,
    /// Extra hidden paths.
    pub hidden: Vec<PathBuf>,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        SandboxSettings {
            enabled: true,
            network: None,
            hosts: BTreeMap::new(),
            writable: Vec::new(),
            hidden: Vec::new(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    tools: Option<RawTools>,
    #[serde(default)]
    profiles: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    sandbox: Option<RawSandbox>,
    #[serde(default)]
    agents: BTreeMap<String, RawAgent>,
    #[serde(default)]
    providers: BTreeMap<llm::ProviderKind, ProviderSettings>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgent {
    #[serde(default)]
    destination: Option<String>,
    #[serde(default)]
    port: Option<u16>,
    #[serde(default)]
    identity: Option<String>,
    #[serde(default)]
    options: BTreeMap<String, String>,
    #[serde(default)]
    command: Option<RawTools>,
    #[serde(default)]
    toolset: Option<String>,
    #[serde(default)]
    connect_timeout: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawTools {
    One(String),
    Many(Vec<String>),
}

/// `on`/`off` or `true`/`false`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawSwitch {
    Bool(bool),
    Word(String),
}

impl RawSwitch {
    fn read(&self, what: &str) -> std::result::Result<bool, String> {
        match self {
            RawSwitch::Bool(on) => Ok(*on),
            RawSwitch::Word(word) => match word.to_ascii_lowercase().as_str() {
                "on" | "yes" | "true" => Ok(true),
                "off" | "no" | "false" => Ok(false),
                _ => Err(format!("{what}: `{word}` is neither on nor off")),
            },
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSandbox {
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    network: Option<RawSwitch>,
    #[serde(default)]
    hosts: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    writable: Vec<String>,
    #[serde(default)]
    hidden: Vec<String>,
}

impl UserConfig {
    /// Reads the config file from this process's environment's location; no file gives the defaults.
    pub fn load() -> Result<UserConfig> {
        UserConfig::load_with(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
    }

    /// Like [`UserConfig::load`], reading the environment through `lookup`.
    pub fn load_with(lookup: impl Fn(&str) -> Option<String>) -> Result<UserConfig> {
        let home = lookup("HOME").map(PathBuf::from);
        let (path, explicit) = match lookup(CONFIG_VARIABLE) {
            Some(file) => (Some(PathBuf::from(file)), true),
            None => (config_dir(&lookup).map(|dir| dir.join("config.yaml")), false),
        };
        let Some(path) = path else { return Ok(UserConfig::default()) };
        let cards_dir = path.parent().map(|dir| dir.join("cards"));
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let mut config = UserConfig::parse(&text, home.as_deref())
                    .map_err(|reason| Error::Config { path: path.clone(), reason })?;
                config.path = Some(path);
                config.cards_dir = cards_dir;
                Ok(config)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !explicit => {
                Ok(UserConfig { cards_dir, ..UserConfig::default() })
            }
            Err(e) => Err(Error::io(format!("reading the config file {} ({CONFIG_VARIABLE})", path.display()), e)),
        }
    }

    /// Reads the file's text; `~/` in paths is `home`.
    pub fn parse(text: &str, home: Option<&Path>) -> std::result::Result<UserConfig, String> {
        if text.trim().is_empty() {
            return Ok(UserConfig::default());
        }
        let raw: RawConfig = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
        let tools = raw.tools.map(|tools| match tools {
            RawTools::One(spec) => spec,
            RawTools::Many(items) => items.join(","),
        });
        let defaults = SandboxSettings::default();
        let sandbox = match raw.sandbox {
            None => defaults,
            Some(s) => SandboxSettings {
                enabled: s.enabled.unwrap_or(defaults.enabled),
                network: s.network.map(|n| n.read("sandbox.network")).transpose()?,
                hosts: s.hosts,
                writable: s.writable.iter().map(|p| expand_home(p, home)).collect::<std::result::Result<_, _>>()?,
                hidden: s.hidden.iter().map(|p| expand_home(p, home)).collect::<std::result::Result<_, _>>()?,
            },
        };
        let mut agents = BTreeMap::new();
        for (alias, agent) in raw.agents {
            let identity = agent
                .identity
                .map(|p| expand_home(&p, home))
                .transpose()
                .map_err(|e| format!("agents.{alias}.identity: {e}"))?;
            let options = agent
                .options
                .into_iter()
                .map(|(name, value)| Ok((name, expand_home_in_value(&value, home)?)))
                .collect::<std::result::Result<_, String>>()
                .map_err(|e| format!("agents.{alias}.options: {e}"))?;
            // A command is a program and its arguments: a string is one program path, never split on spaces.
            let command = agent.command.map(|command| match command {
                RawTools::One(program) => vec![program],
                RawTools::Many(argv) => argv,
            });
            if command.as_ref().is_some_and(|argv| argv.is_empty() || argv[0].trim().is_empty()) {
                return Err(format!("agents.{alias}.command: name the remote clive program, e.g. [clive]"));
            }
            let settings = AgentSettings {
                destination: agent.destination,
                port: agent.port,
                identity,
                options,
                command,
                toolset: agent.toolset,
                connect_timeout: agent.connect_timeout,
            };
            agents.insert(alias, settings);
        }
        Ok(UserConfig {
            path: None,
            cards_dir: None,
            tools,
            profiles: raw.profiles,
            sandbox,
            agents,
            providers: raw.providers,
        })
    }
}

/// `$CLIVE_HOME`, else `$XDG_CONFIG_HOME/clive`, else `~/.config/clive`.
fn config_dir(lookup: &impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    lookup("CLIVE_HOME")
        .map(PathBuf::from)
        .or_else(|| lookup("XDG_CONFIG_HOME").map(|dir| PathBuf::from(dir).join("clive")))
        .or_else(|| lookup("HOME").map(|home| PathBuf::from(home).join(".config/clive")))
}

/// `~/…` in an ssh option's value (a file option) becomes a path under `home`; other values stay as they are.
fn expand_home_in_value(value: &str, home: Option<&Path>) -> std::result::Result<String, String> {
    if value.starts_with("~/") {
        expand_home(value, home).map(|p| p.display().to_string())
    } else {
        Ok(value.to_owned())
    }
}

fn expand_home(path: &str, home: Option<&Path>) -> std::result::Result<PathBuf, String> {
    let expanded = match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        (Some(_), None) => return Err(format!("`{path}` starts with ~/ but HOME is not set")),
        (None, _) if path == "~" => home.map(Path::to_path_buf).ok_or("`~` but HOME is not set")?,
        (None, _) => PathBuf::from(path),
    };
    if !expanded.is_absolute() {
        return Err(format!("`{path}` must be an absolute path (or start with ~/)"));
    }
    Ok(expanded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_file_reads() {
        let text = "tools: [standard, pandoc]\nprofiles:\n  research: [browser, docs]\nsandbox:\n  network: false\n  writable: [~/scratch, /srv/data]\n  hidden: [~/.kube]\n";
        let config = UserConfig::parse(text, Some(Path::new("/home/u"))).unwrap();
        assert_eq!(config.tools.as_deref(), Some("standard,pandoc"));
        assert_eq!(config.profiles["research"], ["browser", "docs"]);
        assert!(config.sandbox.enabled && config.sandbox.network == Some(false));
        let on = UserConfig::parse("sandbox:\n  network: on\n  hosts: {pip: [pypi.org]}\n", None).unwrap();
        assert_eq!(on.sandbox.network, Some(true));
        assert_eq!(on.sandbox.hosts["pip"], ["pypi.org"]);
        assert_eq!(UserConfig::parse("tools: full\n", None).unwrap().sandbox.network, None);
        let error = UserConfig::parse("sandbox:\n  network: sometimes\n", None).unwrap_err();
        assert!(error.contains("sandbox.network") && error.contains("sometimes"), "{error}");
        assert_eq!(config.sandbox.writable, [PathBuf::from("/home/u/scratch"), PathBuf::from("/srv/data")]);
        assert_eq!(config.sandbox.hidden, [PathBuf::from("/home/u/.kube")]);
    }

    #[test]
    fn agents_read_with_their_ssh_settings() {
        let text = "agents:\n  devbox:\n    destination: me@devbox.example.com\n    port: 2222\n    identity: ~/.ssh/k\n    options: {UserKnownHostsFile: ~/.ssh/kh, ServerAliveInterval: '5'}\n    command: [/opt/clive, --quiet]\n  gpu: {}\n";
        let config = UserConfig::parse(text, Some(Path::new("/home/u"))).unwrap();
        let devbox = &config.agents["devbox"];
        assert_eq!(devbox.destination.as_deref(), Some("me@devbox.example.com"));
        assert_eq!(devbox.port, Some(2222));
        assert_eq!(devbox.identity, Some(PathBuf::from("/home/u/.ssh/k")));
        assert_eq!(devbox.options["UserKnownHostsFile"], "/home/u/.ssh/kh");
        assert_eq!(devbox.command.as_deref(), Some(&["/opt/clive".to_owned(), "--quiet".to_owned()][..]));
        assert_eq!(config.agents["gpu"], AgentSettings::default());
        let error = UserConfig::parse("agents:\n  x: {host: y}\n", None).unwrap_err();
        assert!(error.contains("host"), "{error}");
        let error = UserConfig::parse("agents:\n  x: {command: []}\n", None).unwrap_err();
        assert!(error.contains("agents.x.command"), "{error}");
    }

    #[test]
    fn model_profiles_read_by_provider_and_model() {
        let text = "providers:\n  ollama:\n    profile: standard\n    models:\n      qwen2.5-coder:1.5b: small\n      \"Llama3.3:70B\": large\n  openai-compatible: {models: {default: large}}\n";
        let mut config = UserConfig::parse(text, None).unwrap();
        config.path = Some(PathBuf::from("/home/u/.config/clive/config.yaml"));
        let ollama = llm::ProviderKind::Ollama;
        let (profile, reason) = config.model_profile(ollama, "qwen2.5-coder:1.5b").unwrap();
        assert_eq!(profile, llm::ModelProfile::Small);
        assert_eq!(reason, "providers.ollama.models.qwen2.5-coder:1.5b in /home/u/.config/clive/config.yaml");
        assert_eq!(config.model_profile(ollama, "llama3.3:70b").unwrap().0, llm::ModelProfile::Large, "any case");
        let (profile, reason) = config.model_profile(ollama, "mistral").unwrap();
        assert_eq!((profile, reason.starts_with("providers.ollama.profile in ")), (llm::ModelProfile::Standard, true));
        let compatible = llm::ProviderKind::OpenAiCompatible;
        assert_eq!(config.model_profile(compatible, "default").unwrap().0, llm::ModelProfile::Large);
        assert_eq!(config.model_profile(compatible, "other"), None, "no profile for the provider's other models");
        assert_eq!(config.model_profile(llm::ProviderKind::Anthropic, "claude-sonnet-4-5"), None);
        // Mistakes name what was wrong.
        let error = UserConfig::parse("providers:\n  ollama: {profile: medium}\n", None).unwrap_err();
        assert!(error.contains("medium"), "{error}");
        let error = UserConfig::parse("providers:\n  olama: {profile: small}\n", None).unwrap_err();
        assert!(error.contains("olama"), "{error}");
        let error = UserConfig::parse("providers:\n  ollama: {size: small}\n", None).unwrap_err();
        assert!(error.contains("size"), "{error}");
    }

    #[test]
    fn mistakes_are_named() {
        let error = UserConfig::parse("tool: standard\n", None).unwrap_err();
        assert!(error.contains("tool"), "{error}");
        let error = UserConfig::parse("sandbox:\n  writable: [relative/dir]\n", None).unwrap_err();
        assert!(error.contains("absolute"), "{error}");
        let error = UserConfig::parse("sandbox:\n  enabled: maybe\n", None).unwrap_err();
        assert!(!error.is_empty());
    }

    #[test]
    fn the_file_is_found_in_the_config_directory_or_named() {
        let dir = tempfile::tempdir().unwrap();
        let clive = dir.path().join("clive");
        std::fs::create_dir(&clive).unwrap();
        std::fs::write(clive.join("config.yaml"), "tools: full\n").unwrap();
        let base = dir.path().display().to_string();
        let config = UserConfig::load_with(|name| (name == "XDG_CONFIG_HOME").then(|| base.clone())).unwrap();
        assert_eq!(config.tools.as_deref(), Some("full"));
        assert_eq!(config.cards_dir, Some(clive.join("cards")));

        // No file: the defaults. A named file that is missing: an error naming it.
        let empty = tempfile::tempdir().unwrap();
        let none = empty.path().display().to_string();
        assert_eq!(UserConfig::load_with(|n| (n == "HOME").then(|| none.clone())).unwrap().tools, None);
        let missing = empty.path().join("nope.yaml").display().to_string();
        let error = UserConfig::load_with(|n| (n == CONFIG_VARIABLE).then(|| missing.clone())).unwrap_err();
        assert!(error.to_string().contains("nope.yaml") && error.to_string().contains(CONFIG_VARIABLE), "{error}");

        std::fs::write(clive.join("config.yaml"), "tools: [1, [2]]\n").unwrap();
        let error = UserConfig::load_with(|name| (name == "XDG_CONFIG_HOME").then(|| base.clone())).unwrap_err();
        assert!(error.to_string().contains("config.yaml"), "{error}");
    }
}
