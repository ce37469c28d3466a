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
//!   network: true              # --no-network turns it off
//!   writable: [~/scratch]      # writable besides the working and run directories
//!   hidden: [~/.kube]          # hidden besides the usual credential directories
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
}

/// The `sandbox:` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSettings {
    /// Whether panes a model types into run sandboxed (default yes).
    pub enabled: bool,
    /// Whether sandboxed panes reach the network (default yes).
    pub network: bool,
    /// Extra writable paths.
    pub writable: Vec<PathBuf>,
    /// Extra hidden paths.
    pub hidden: Vec<PathBuf>,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        SandboxSettings { enabled: true, network: true, writable: Vec::new(), hidden: Vec::new() }
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
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawTools {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSandbox {
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    network: Option<bool>,
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
                network: s.network.unwrap_or(defaults.network),
                writable: s.writable.iter().map(|p| expand_home(p, home)).collect::<std::result::Result<_, _>>()?,
                hidden: s.hidden.iter().map(|p| expand_home(p, home)).collect::<std::result::Result<_, _>>()?,
            },
        };
        Ok(UserConfig { path: None, cards_dir: None, tools, profiles: raw.profiles, sandbox })
    }
}

/// `$CLIVE_HOME`, else `$XDG_CONFIG_HOME/clive`, else `~/.config/clive`.
fn config_dir(lookup: &impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    lookup("CLIVE_HOME")
        .map(PathBuf::from)
        .or_else(|| lookup("XDG_CONFIG_HOME").map(|dir| PathBuf::from(dir).join("clive")))
        .or_else(|| lookup("HOME").map(|home| PathBuf::from(home).join(".config/clive")))
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
        assert!(config.sandbox.enabled && !config.sandbox.network);
        assert_eq!(config.sandbox.writable, [PathBuf::from("/home/u/scratch"), PathBuf::from("/srv/data")]);
        assert_eq!(config.sandbox.hidden, [PathBuf::from("/home/u/.kube")]);
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
