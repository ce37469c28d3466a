//! Where an address leads: the `agents:` section of the user's config file (crates/toolbox's `UserConfig`),
//! else a `Host` of the user's ssh config, else plain `ssh <host>`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use toolbox::AgentSettings;

use crate::address::Address;

/// How long connecting may take when the registry says nothing.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The remote clive when the registry says nothing: `clive` on the remote `PATH`.
pub const DEFAULT_REMOTE_COMMAND: &str = "clive";

/// Where an agent's settings came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The `agents:` section of the config file.
    Registry,
    /// A `Host` line of the user's ssh config.
    SshConfig,
    /// Neither: plain `ssh <host>`.
    Plain,
}

/// A resolved agent: everything needed to start its ssh pane.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentHost {
    /// The alias used in the address.
    pub alias: String,
    /// The ssh destination, `[user@]host`.
    pub destination: String,
    /// The ssh port, when not the default.
    pub port: Option<u16>,
    /// The private key.
    pub identity: Option<PathBuf>,
    /// More ssh options, in order.
    pub options: Vec<(String, String)>,
    /// The remote clive program and its first arguments.
    pub command: Vec<String>,
    /// The remote clive's toolset.
    pub toolset: Option<String>,
    /// How long connecting may take.
    #[serde(serialize_with = "seconds")]
    pub connect_timeout: Duration,
    /// Where this came from.
    pub source: Source,
}

fn seconds<S: serde::Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(duration.as_secs())
}

/// The agents a user can address.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Registry {
    agents: BTreeMap<String, AgentSettings>,
    ssh_hosts: Vec<String>,
}

impl Registry {
    /// A registry of these entries (the config file's `agents:`), without ssh config hosts.
    pub fn new(agents: BTreeMap<String, AgentSettings>) -> Registry {
        Registry { agents, ssh_hosts: Vec::new() }
    }

    /// The config file's agents plus the hosts of `~/.ssh/config` (when `home` is known and the file reads).
    pub fn load(config: &toolbox::UserConfig, home: Option<&Path>) -> Registry {
        let registry = Registry::new(config.agents.clone());
        match home.map(|home| home.join(".ssh/config")) {
            Some(path) => match std::fs::read_to_string(&path) {
                Ok(text) => registry.with_ssh_config(&text),
                Err(error) => {
                    tracing::debug!(%error, path = %path.display(), "no ssh config read");
                    registry
                }
            },
            None => registry,
        }
    }

    /// Adds the concrete host names of an ssh config (`Host` lines; patterns with `*`, `?` or `!` are left
    /// out, `Include` is not followed).
    pub fn with_ssh_config(mut self, text: &str) -> Registry {
        for line in text.lines() {
            let line = line.trim();
            let (keyword, rest) = line.split_once(|c: char| c.is_whitespace() || c == '=').unwrap_or((line, ""));
            if !keyword.eq_ignore_ascii_case("host") {
                continue;
            }
            for host in rest.trim_start_matches(|c: char| c.is_whitespace() || c == '=').split_whitespace() {
                let host = host.trim_matches('"');
                if !host.contains(['*', '?', '!']) && !self.ssh_hosts.iter().any(|h| h == host) {
                    self.ssh_hosts.push(host.to_owned());
                }
            }
        }
        self
    }

    /// Where `address` leads.
    pub fn resolve(&self, address: &Address) -> AgentHost {
        let alias = address.host();
        match self.agents.get(alias) {
            Some(settings) => from_settings(alias, settings),
            None => {
                let source = if self.ssh_hosts.iter().any(|h| h == alias) { Source::SshConfig } else { Source::Plain };
                AgentHost { source, ..from_settings(alias, &AgentSettings::default()) }
            }
        }
    }

    /// Every agent the user named: the registry's, then the ssh config's hosts not in it.
    pub fn list(&self) -> Vec<AgentHost> {
        let mut agents: Vec<AgentHost> = self.agents.iter().map(|(alias, s)| from_settings(alias, s)).collect();
        for host in &self.ssh_hosts {
            if !self.agents.contains_key(host)
                && let Ok(address) = Address::new(host)
            {
                agents.push(self.resolve(&address));
            }
        }
        agents
    }
}

fn from_settings(alias: &str, settings: &AgentSettings) -> AgentHost {
    let mut options = Vec::new();
    for (name, value) in &settings.options {
        // Host keys are always checked: a registry entry cannot turn that off.
        if name.eq_ignore_ascii_case("StrictHostKeyChecking")
            && matches!(value.to_ascii_lowercase().as_str(), "no" | "off")
        {
            tracing::warn!(agent = alias, "StrictHostKeyChecking={value} ignored: clive always checks host keys");
            continue;
        }
        options.push((name.clone(), value.clone()));
    }
    AgentHost {
        alias: alias.to_owned(),
        destination: settings.destination.clone().unwrap_or_else(|| alias.to_owned()),
        port: settings.port,
        identity: settings.identity.clone(),
        options,
        command: settings.command.clone().unwrap_or_else(|| vec![DEFAULT_REMOTE_COMMAND.to_owned()]),
        toolset: settings.toolset.clone(),
        connect_timeout: settings.connect_timeout.map_or(DEFAULT_CONNECT_TIMEOUT, Duration::from_secs),
        source: Source::Registry,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(host: &str) -> Address {
        Address::new(host).unwrap()
    }

    #[test]
    fn the_registry_then_ssh_config_then_plain() {
        let mut agents = BTreeMap::new();
        agents.insert(
            "devbox".to_owned(),
            AgentSettings {
                destination: Some("me@devbox.example.com".into()),
                port: Some(2222),
                command: Some(vec!["/opt/clive".into()]),
                connect_timeout: Some(3),
                ..AgentSettings::default()
            },
        );
        let registry = Registry::new(agents)
            .with_ssh_config("Host gpu gpu2 *.corp !bad\n  HostName 10.0.0.2\nhost=web\nMatch all\n");
        let devbox = registry.resolve(&address("devbox"));
        assert_eq!(devbox.source, Source::Registry);
        assert_eq!((devbox.destination.as_str(), devbox.port), ("me@devbox.example.com", Some(2222)));
        assert_eq!(devbox.command, ["/opt/clive"]);
        assert_eq!(devbox.connect_timeout, Duration::from_secs(3));
        let gpu = registry.resolve(&address("gpu"));
        assert_eq!(
            (gpu.source, gpu.destination.as_str(), gpu.command.clone()),
            (Source::SshConfig, "gpu", vec!["clive".to_owned()])
        );
        assert_eq!(registry.resolve(&address("elsewhere")).source, Source::Plain);
        let listed: Vec<String> = registry.list().into_iter().map(|a| a.alias).collect();
        assert_eq!(listed, ["devbox", "gpu", "gpu2", "web"]);
    }

    #[test]
    fn host_key_checking_cannot_be_turned_off() {
        let mut agents = BTreeMap::new();
        let mut options = BTreeMap::new();
        options.insert("StrictHostKeyChecking".to_owned(), "no".to_owned());
        options.insert("UserKnownHostsFile".to_owned(), "/k".to_owned());
        agents.insert("a".to_owned(), AgentSettings { options, ..AgentSettings::default() });
        let agent = Registry::new(agents).resolve(&address("a"));
        assert_eq!(agent.options, [("UserKnownHostsFile".to_owned(), "/k".to_owned())]);
    }
}
