//! A real `sshd` on a loopback port for tests (feature `testing`): its own host key, client key,
//! `authorized_keys`, `known_hosts` and `AcceptEnv`, run as the current user, killed when dropped.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let sshd = remote::testing::Sshd::builder().accept_env(["OPENAI_API_KEY"]).start().await?;
//! let settings = sshd.agent_settings(); // a registry entry reaching it as 127.0.0.1
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

    /// Writes the keys and config, starts sshd and waits (at most 10 s) until it accepts connections.
    pub async fn start(self) -> std::io::Result<Sshd> {
        available().map_err(std::io::Error::other)?;
        let dir = tempfile::Builder::new().prefix("clive-sshd").tempdir()?;
        let path = dir.path().to_owned();
        keygen(&path.join("host_key")).await?;
        keygen(&path.join("id")).await?;
        std::fs::copy(path.join("id.pub"), path.join("authorized_keys"))?;
        let port = free_port()?;
        let host_public = std::fs::read_to_string(path.join("host_key.pub"))?;
        let mut key_words = host_public.split_whitespace();
        let (kind, key) = (key_words.next().unwrap_or_default(), key_words.next().unwrap_or_default());
        std::fs::write(path.join("known_hosts"), format!("[127.0.0.1]:{port} {kind} {key}\n"))?;
        let mut config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {dir}/host_key\nAuthorizedKeysFile {dir}/authorized_keys\n\
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
        let child = tokio::process::Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(path.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(path.join("sshd.log"))?)
            .kill_on_drop(true)
            .spawn()?;
        let sshd = Sshd { dir, port, child };
        let mut backoff = Backoff::new(Duration::from_secs(10));
        loop {
            if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                return Ok(sshd);
            }
            if !backoff.wait().await {
                let log = std::fs::read_to_string(sshd.dir.path().join("sshd.log")).unwrap_or_default();
                return Err(std::io::Error::other(format!("sshd did not listen on {port} within 10 s: {log}")));
            }
        }
    }
}

/// A running sshd; killed, and its files removed, when dropped.
#[derive(Debug)]
pub struct Sshd {
    dir: tempfile::TempDir,
    port: u16,
    child: tokio::process::Child,
}

impl Sshd {
    /// Settings for [`Sshd::start`].
    pub fn builder() -> SshdBuilder {
        SshdBuilder::default()
    }

    /// The port it listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its directory (keys, config, `sshd.log`).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// A registry entry that reaches this server: destination 127.0.0.1, its port, the client key, its own
    /// known_hosts, a 5 s connect deadline.
    pub fn agent_settings(&self) -> AgentSettings {
        let mut options = BTreeMap::new();
        options.insert("UserKnownHostsFile".to_owned(), self.dir().join("known_hosts").display().to_string());
        AgentSettings {
            destination: Some("127.0.0.1".to_owned()),
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
            "  {alias}:\n    destination: 127.0.0.1\n    port: {}\n    identity: {}\n    options: {{UserKnownHostsFile: {}}}\n    command: [{}]\n    connect_timeout: {}\n",
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
