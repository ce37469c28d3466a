//! A real `sshd` on a loopback port for tests (feature `testing`): its own host key, client key,
//! `authorized_keys`, `known_hosts` and `AcceptEnv`, run as the current user, killed when dropped.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let sshd = clive_remote::testing::Sshd::builder().accept_env(["OPENAI_API_KEY"]).start().await?;
//! let settings = sshd.agent_settings(); // a registry entry reaching it as 127.0.0.1
//! let other_host = clive_remote::testing::Sshd::builder().network_namespace().start().await?; // 10.233.N.2:22
//! # let _ = settings; Ok(()) }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tmux_habitat::Backoff;
use toolbox::AgentSettings;

/// Where sshd is installed on Debian and most Linux systems.
pub const SSHD: &str = "/usr/sbin/sshd";

/// Whether a test can start sshd here; `Err` says why not (to print when skipping).
pub fn available() -> Result<(), String> {
    if !Path::new(SSHD).exists() {
        return Err(format!("{SSHD} is missing: apt-get install openssh-server"));
    }
    if which("ssh-keygen").is_none() || which("ssh").is_none() {
        return Err("ssh or ssh-keygen is missing: apt-get install openssh-client".into());
    }
    Ok(())
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?.to_str()?.split(':').map(|dir| Path::new(dir).join(program)).find(|p| p.is_file())
}

/// Settings for [`Sshd`].
#[derive(Debug, Clone, Default)]
pub struct SshdBuilder {
    accept_env: Vec<String>,
    set_env: Vec<(String, String)>,
    namespace: bool,
}

impl SshdBuilder {
    /// Variables the server accepts from clients (`AcceptEnv`); none means the line is missing.
    pub fn accept_env<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.accept_env.extend(names.into_iter().map(Into::into));
        self
    }

    /// A variable every session gets from the server (`SetEnv`; it wins over a client's).
    pub fn set_env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.set_env.push((name.into(), value.into()));
        self
    }

    /// Runs sshd as a host of its own: in a new network namespace joined to this one by a veth pair
    /// (`10.233.N.2`, port 22), with its own loopback. Needs root and `ip netns`; [`SshdBuilder::start`] fails
    /// saying so otherwise (see [`namespaces_available`]).
    pub fn network_namespace(mut self) -> Self {
        self.namespace = true;
        self
    }

    /// Writes the keys and config, starts sshd and waits (at most 10 s) until it accepts connections.
    pub async fn start(self) -> std::io::Result<Sshd> {
        available().map_err(std::io::Error::other)?;
        let dir = tempfile::Builder::new().prefix("clive-sshd").tempdir()?;
        let path = dir.path().to_owned();
        keygen(&path.join("host_key")).await?;
        keygen(&path.join("id")).await?;
        std::fs::copy(path.join("id.pub"), path.join("authorized_keys"))?;
        let namespace = if self.namespace { Some(Namespace::create()?) } else { None };
        let (address, port) = match &namespace {
            Some(namespace) => (namespace.address.clone(), 22),
            None => ("127.0.0.1".to_owned(), free_port()?),
        };
        let host_public = std::fs::read_to_string(path.join("host_key.pub"))?;
        let mut key_words = host_public.split_whitespace();
        let (kind, key) = (key_words.next().unwrap_or_default(), key_words.next().unwrap_or_default());
        let known = if port == 22 { address.clone() } else { format!("[{address}]:{port}") };
        std::fs::write(path.join("known_hosts"), format!("{known} {kind} {key}\n"))?;
        let mut config = format!(
            "Port {port}\nListenAddress {address}\nHostKey {dir}/host_key\nAuthorizedKeysFile {dir}/authorized_keys\n\
             PubkeyAuthentication yes\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n\
             StrictModes no\nPermitRootLogin yes\nPidFile {dir}/sshd.pid\nLogLevel ERROR\nMaxSessions 50\nMaxStartups 50\n",
            dir = path.display()
        );
        if !self.accept_env.is_empty() {
            config.push_str(&format!("AcceptEnv {}\n", self.accept_env.join(" ")));
        }
        if !self.set_env.is_empty() {
            let pairs: Vec<String> = self.set_env.iter().map(|(k, v)| format!("{k}={v}")).collect();
            config.push_str(&format!("SetEnv {}\n", pairs.join(" ")));
        }
        std::fs::write(path.join("sshd_config"), config)?;
        // sshd refuses to start without its privilege separation directory.
        std::fs::create_dir_all("/run/sshd")?;
        let mut command = match &namespace {
            // `ip netns exec` execs sshd: the child is sshd itself, in the namespace.
            Some(namespace) => {
                let mut command = tokio::process::Command::new("ip");
                command.args(["netns", "exec", &namespace.name, SSHD]);
                command
            }
            None => tokio::process::Command::new(SSHD),
        };
        let child = command
            .args(["-D", "-e", "-f"])
            .arg(path.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(path.join("sshd.log"))?)
            .kill_on_drop(true)
            .spawn()?;
        let sshd = Sshd { child, dir, address, port, _namespace: namespace };
        let mut backoff = Backoff::new(Duration::from_secs(10));
        loop {
            if tokio::net::TcpStream::connect((sshd.address.as_str(), port)).await.is_ok() {
                return Ok(sshd);
            }
            if !backoff.wait().await {
                let log = std::fs::read_to_string(sshd.dir.path().join("sshd.log")).unwrap_or_default();
                return Err(std::io::Error::other(format!("sshd did not listen on {port} within 10 s: {log}")));
            }
        }
    }
}

/// A running sshd; killed, and its files (and network namespace) removed, when dropped.
#[derive(Debug)]
pub struct Sshd {
    // Fields drop in order: sshd is killed before its namespace goes.
    child: tokio::process::Child,
    dir: tempfile::TempDir,
    address: String,
    port: u16,
    _namespace: Option<Namespace>,
}

/// Whether this machine lets a test make network namespaces (root and `ip netns`); `Err` says why not.
pub fn namespaces_available() -> Result<(), String> {
    Namespace::create().map(drop).map_err(|e| format!("no network namespaces here ({e}); needs root and iproute2"))
}

/// A network namespace joined to ours by a veth pair: we are `10.233.N.1`, it is `10.233.N.2`.
#[derive(Debug)]
struct Namespace {
    name: String,
    address: String,
}

impl Namespace {
    fn create() -> std::io::Result<Namespace> {
        let ip = |args: &[&str]| -> std::io::Result<()> {
            let out = std::process::Command::new("ip").args(args).output()?;
            if out.status.success() {
                Ok(())
            } else {
                Err(std::io::Error::other(format!(
                    "ip {}: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr).trim()
                )))
            }
        };
        // A random /30 (and names from it); another test holding it makes `ip link add` fail: try another.
        let mut last = None;
        for _ in 0..8 {
            let n: u16 = rand::random::<u16>() % 16_000 + 1;
            let (high, low) = (n / 64, (n % 64) * 4);
            let name = format!("clive-ns{n}");
            let (outside, inside) = (format!("cvh{n}"), format!("cvn{n}"));
            if let Err(error) = ip(&["netns", "add", &name]) {
                last = Some(error);
                continue;
            }
            let namespace = Namespace { name: name.clone(), address: format!("10.233.{high}.{}", low + 2) };
            let (ours, theirs) = (format!("10.233.{high}.{}/30", low + 1), format!("{}/30", namespace.address));
            let set_up = [
                vec!["link", "add", &outside, "type", "veth", "peer", "name", &inside],
                vec!["link", "set", &inside, "netns", &name],
                vec!["addr", "add", &ours, "dev", &outside],
                vec!["link", "set", &outside, "up"],
                vec!["netns", "exec", &name, "ip", "addr", "add", &theirs, "dev", &inside],
                vec!["netns", "exec", &name, "ip", "link", "set", &inside, "up"],
                vec!["netns", "exec", &name, "ip", "link", "set", "lo", "up"],
            ];
            match set_up.iter().try_for_each(|args| ip(args)) {
                Ok(()) => return Ok(namespace),
                // Dropping it removes the namespace (and with it the veth pair).
                Err(error) => last = Some(error),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("no free network namespace")))
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        // Deleting the namespace deletes its end of the veth pair, and with it ours.
        let _ = std::process::Command::new("ip").args(["netns", "del", &self.name]).output();
    }
}

impl Sshd {
    /// Settings; [`SshdBuilder::start`] starts it.
    pub fn builder() -> SshdBuilder {
        SshdBuilder::default()
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The address it listens on: 127.0.0.1, or its namespace's.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// Its directory (keys, config, `sshd.log`).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// A registry entry that reaches this server: its address and port, the client key, its own known_hosts,
    /// a 5 s connect deadline.
    pub fn agent_settings(&self) -> AgentSettings {
        let mut options = BTreeMap::new();
        options.insert("UserKnownHostsFile".to_owned(), self.dir().join("known_hosts").display().to_string());
        AgentSettings {
            destination: Some(self.address.clone()),
            port: Some(self.port),
            identity: Some(self.dir().join("id")),
            options,
            command: None,
            toolset: None,
            connect_timeout: Some(5),
        }
    }

    /// The same entry as YAML lines for a config file's `agents:` section, running `command` remotely.
    pub fn registry_yaml(&self, alias: &str, command: &[&str]) -> String {
        let settings = self.agent_settings();
        let quoted: Vec<String> = command.iter().map(|w| serde_json::to_string(w).unwrap_or_default()).collect();
        format!(
            "  {alias}:\n    destination: {}\n    port: {}\n    identity: {}\n    options: {{UserKnownHostsFile: {}}}\n    command: [{}]\n    connect_timeout: {}\n",
            self.address,
            self.port,
            self.dir().join("id").display(),
            self.dir().join("known_hosts").display(),
            quoted.join(", "),
            settings.connect_timeout.unwrap_or(5),
        )
    }

    /// What sshd logged (errors only).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir().join("sshd.log")).unwrap_or_default()
    }

    /// Kills sshd now (sessions it serves stay until their connections end).
    pub async fn stop(&mut self) {
        let _ = self.child.kill().await;
    }
}

async fn keygen(path: &Path) -> std::io::Result<()> {
    let status = tokio::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "clive-test", "-f"])
        .arg(path)
        .stdin(Stdio::null())
        .status()
        .await?;
    if status.success() {
        Ok(())
    } else {
        Err(std::io::Error::other(format!("ssh-keygen failed for {}", path.display())))
    }
}

fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}
