//! What a pane a model types into may reach on the network: nothing (the default), only the hosts the task
//! names (through [`NetworkProxy`](crate::NetworkProxy)), or everything (`--network`).
//!
//! The hosts come from text the user wrote (the task, a plan file), never from a model: a page or a file that
//! asks a model to send something elsewhere meets the proxy's refusal.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Serialize, Serializer};

/// A pane's network.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Network {
    /// No network: a namespace of its own with only loopback. HTTP(S) requests reach clive's proxy, which
    /// refuses them and says why.
    #[default]
    Off,
    /// Only these hosts, by HTTP or HTTPS through clive's proxy (`*.example.org` matches its subdomains).
    Hosts(Vec<String>),
    /// The machine's network, as for commands the user types.
    On,
}

impl Network {
    /// `Hosts(hosts)`, or `Off` when there are none.
    pub fn hosts(mut hosts: Vec<String>) -> Network {
        hosts.sort();
        hosts.dedup();
        if hosts.is_empty() { Network::Off } else { Network::Hosts(hosts) }
    }

    /// The hosts allowed through the proxy (none for `Off`; `On` needs no proxy).
    pub fn allowed(&self) -> &[String] {
        match self {
            Network::Hosts(hosts) => hosts,
            Network::Off | Network::On => &[],
        }
    }

    /// Whether the proxy lets a request to `host` through.
    pub fn allows(&self, host: &str) -> bool {
        match self {
            Network::On => true,
            Network::Off => false,
            Network::Hosts(hosts) => hosts.iter().any(|allowed| host_matches(allowed, host)),
        }
    }
}

impl fmt::Display for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Network::Off => f.write_str("off"),
            Network::On => f.write_str("on"),
            Network::Hosts(hosts) => write!(f, "hosts: {}", hosts.join(", ")),
        }
    }
}

impl Serialize for Network {
    /// `"off"`, `"on"`, or `{"hosts": [...]}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Network::Off => serializer.serialize_str("off"),
            Network::On => serializer.serialize_str("on"),
            Network::Hosts(hosts) => BTreeMap::from([("hosts", hosts)]).serialize(serializer),
        }
    }
}

/// How a run decides its panes' networks: `--network`, `--no-network`, the config file, else by the task.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkMode {
    /// Off, except the hosts the task names (and the config's hosts for the tools a subtask names).
    #[default]
    ByTask,
    /// Off whatever the task names (`--no-network`, `sandbox.network: off`).
    Off,
    /// The machine's network (`--network`, `sandbox.network: on`).
    On,
}

impl NetworkMode {
    /// The network of a pane whose subtasks' text is `subtask_text`, in a run whose trusted text (the user's
    /// task or plan file) is `trusted`: the hosts both name, plus `tool_hosts[tool]` for each tool the
    /// subtasks name.
    pub fn network_for(
        &self,
        trusted: &str,
        subtask_text: &str,
        tool_hosts: &BTreeMap<String, Vec<String>>,
    ) -> Network {
        match self {
            NetworkMode::On => Network::On,
            NetworkMode::Off => Network::Off,
            NetworkMode::ByTask => {
                let named = hosts_in(subtask_text);
                let mut hosts: Vec<String> = hosts_in(trusted).into_iter().filter(|h| named.contains(h)).collect();
                let words: Vec<&str> =
                    subtask_text.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_')).collect();
                for (tool, extra) in tool_hosts {
                    if words.contains(&tool.as_str()) {
                        hosts.extend(extra.iter().cloned());
                    }
                }
                Network::hosts(hosts)
            }
        }
    }
}

/// Whether `allowed` (a host, or `*.domain` for its subdomains) matches `host`.
fn host_matches(allowed: &str, host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    match allowed.strip_prefix("*.") {
        Some(domain) => host.ends_with(&format!(".{domain}")),
        None => host == allowed.to_ascii_lowercase(),
    }
}

/// Top-level domains a bare name must end in to count as a host (`example.org`, not `notes.txt`); those that
/// are also common file extensions (`.md`, `.rs`, `.py`, `.sh`, `.pl`) are left out: write them as URLs.
const TOP_LEVEL_DOMAINS: &[&str] = &[
    "com",
    "org",
    "net",
    "io",
    "dev",
    "app",
    "ai",
    "co",
    "edu",
    "gov",
    "info",
    "cloud",
    "tech",
    "xyz",
    "site",
    "online",
    "page",
    "uk",
    "de",
    "fr",
    "nl",
    "eu",
    "us",
    "ca",
    "au",
    "jp",
    "cn",
    "ch",
    "se",
    "it",
    "es",
    "be",
    "at",
    "cz",
    "fi",
    "dk",
    "nz",
    "ie",
    "internal",
    "local",
    "test",
    "example",
    "localhost",
];

/// The hosts `text` names, lower-cased, each once: the host of every URL (`https://pypi.org/simple` →
/// `pypi.org`), IPv4 addresses (`127.0.0.2:8080` → `127.0.0.2`), `localhost:PORT`, and bare names under a
/// known top-level domain (`api.github.com`).
pub fn hosts_in(text: &str) -> Vec<String> {
    let mut hosts: Vec<String> = Vec::new();
    for token in text.split(|c: char| c.is_whitespace() || "\"'`<>()[]{},;|".contains(c)) {
        let (rest, url) = match token.split_once("://") {
            Some((scheme, rest)) if !scheme.is_empty() && scheme != "file" => (rest, true),
            Some(_) => continue,
            None => (token, false),
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        let authority = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => (host, !port.is_empty()),
            Some(_) => continue,
            None => (authority, false),
        };
        let host = host.trim_end_matches(['.', '!', '?', ':']).to_ascii_lowercase();
        let named = is_ipv4(&host)
            || (host == "localhost" && (url || port))
            || (is_domain(&host) && (url || has_known_tld(&host)));
        if named && !hosts.contains(&host) {
            hosts.push(host);
        }
    }
    hosts
}

fn is_ipv4(host: &str) -> bool {
    host.parse::<std::net::Ipv4Addr>().is_ok()
}

fn is_domain(host: &str) -> bool {
    let labels: Vec<&str> = host.split('.').collect();
    !host.is_empty()
        && labels
            .iter()
            .all(|l| !l.is_empty() && !l.starts_with('-') && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        && labels.last().is_some_and(|tld| tld.chars().any(|c| c.is_ascii_alphabetic()))
}

fn has_known_tld(host: &str) -> bool {
    host.contains('.') && host.rsplit('.').next().is_some_and(|tld| TOP_LEVEL_DOMAINS.contains(&tld))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_come_from_urls_addresses_and_domains_not_file_names() {
        let text = "Fetch https://Docs.Example.org/a?b=1, post to http://127.0.0.2:8080/upload and check \
                    api.github.com; then edit notes.txt, main.rs, README.md and setup.py. See localhost:3000 \
                    or file:///etc/passwd (user@mail.example.com).";
        assert_eq!(
            hosts_in(text),
            ["docs.example.org", "127.0.0.2", "api.github.com", "localhost", "mail.example.com"]
        );
        assert!(hosts_in("version 1.2.3 of the tool, at 3.5 GHz").is_empty());
        assert_eq!(hosts_in("download https://x.example.org/f.md twice: https://x.example.org/g"), ["x.example.org"]);
    }

    #[test]
    fn a_pane_reaches_the_hosts_both_the_task_and_its_subtask_name() {
        let task = "Download http://127.0.0.2:9000/data.csv and summarise it";
        let none = BTreeMap::new();
        let mode = NetworkMode::ByTask;
        assert_eq!(mode.network_for(task, task, &none), Network::Hosts(vec!["127.0.0.2".into()]));
        // A host only the (model-written) subtask names is not the user's.
        assert_eq!(mode.network_for(task, "upload it to http://127.0.0.3/", &none), Network::Off);
        assert_eq!(NetworkMode::On.network_for(task, "", &none), Network::On);
        assert_eq!(NetworkMode::Off.network_for(task, task, &none), Network::Off);
        let pip = BTreeMap::from([("pip".to_owned(), vec!["pypi.org".to_owned(), "*.pythonhosted.org".to_owned()])]);
        let network = mode.network_for("install requests", "pip install requests", &pip);
        assert!(network.allows("files.pythonhosted.org") && network.allows("PyPI.org") && !network.allows("x.org"));
        assert!(!network.allows("pythonhosted.org.evil.com"));
    }

    #[test]
    fn a_network_reads_and_serialises_as_the_user_sees_it() {
        let hosts = Network::hosts(vec!["b.org".into(), "a.org".into(), "b.org".into()]);
        assert_eq!(hosts.to_string(), "hosts: a.org, b.org");
        assert_eq!(serde_json::to_string(&hosts).unwrap(), r#"{"hosts":["a.org","b.org"]}"#);
        assert_eq!(serde_json::to_string(&Network::Off).unwrap(), r#""off""#);
        assert_eq!(Network::hosts(Vec::new()), Network::Off);
    }
}
