//! The `ssh` command line of an agent pane, as a typed argument vector (nothing is joined into a shell line
//! except the remote command, which ssh itself hands to the remote shell, each word quoted).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::registry::AgentHost;

/// The variable the turn nonce travels in (turn-protocol's).
pub use turn_protocol::NONCE_ENV_VAR;

/// Builds the `ssh` argv that opens an agent's pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshCommand {
    program: String,
    destination: String,
    port: Option<u16>,
    identity: Option<PathBuf>,
    user_options: Vec<(String, String)>,
    send_env: Vec<String>,
    control_dir: Option<PathBuf>,
    connect_timeout: Duration,
    tty: bool,
    remote: Vec<String>,
}

impl SshCommand {
    /// `ssh` to `agent`, sending the nonce variable and `send_env` (names only: the values travel in the
    /// ssh session, never on a command line), checking host keys, never asking for a password.
    pub fn new<'a>(agent: &AgentHost, send_env: impl IntoIterator<Item = &'a str>) -> SshCommand {
        let mut names = vec![NONCE_ENV_VAR.to_owned()];
        for name in send_env {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
        SshCommand {
            program: "ssh".to_owned(),
            destination: agent.destination.clone(),
            port: agent.port,
            identity: agent.identity.clone(),
            user_options: agent.options.clone(),
            send_env: names,
            control_dir: None,
            connect_timeout: agent.connect_timeout,
            tty: true,
            remote: Vec::new(),
        }
    }

    /// Shares one connection per host through a master socket in `dir` (`ControlMaster=auto`,
    /// `ControlPath=<dir>/%C`, kept 60 s after the last use), so files are fetched over the same connection.
    pub fn control_dir(mut self, dir: impl Into<PathBuf>) -> SshCommand {
        self.control_dir = Some(dir.into());
        self
    }

    /// Whether the remote command gets a terminal (`-tt`; the default: the remote clive attaches a tmux
    /// client).
    pub fn tty(mut self, tty: bool) -> SshCommand {
        self.tty = tty;
        self
    }

    /// The `ssh` program (default `ssh` on `PATH`).
    pub fn program(mut self, program: impl Into<String>) -> SshCommand {
        self.program = program.into();
        self
    }

    /// The remote command, one word per item (each is quoted for the remote shell).
    pub fn remote<I, S>(mut self, argv: I) -> SshCommand
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.remote = argv.into_iter().map(Into::into).collect();
        self
    }

    /// The variables sent with `SendEnv` (the nonce first).
    pub fn sent_variables(&self) -> &[String] {
        &self.send_env
    }

    /// The connect deadline.
    pub fn connect_timeout(&self) -> Duration {
        self.connect_timeout
    }

    /// The whole argv, program first.
    pub fn argv(&self) -> Vec<String> {
        let mut argv = vec![self.program.clone()];
        let mut option = |name: &str, value: String| {
            argv.push("-o".to_owned());
            argv.push(format!("{name}={value}"));
        };
        // ssh keeps the first value it gets for an option: the user's own come first, except that host keys
        // are always checked (the registry drops an entry turning that off).
        for (name, value) in &self.user_options {
            option(name, value.clone());
        }
        option("BatchMode", "yes".to_owned());
        option("StrictHostKeyChecking", "yes".to_owned());
        option("ConnectTimeout", self.connect_timeout.as_secs().max(1).to_string());
        option("ServerAliveInterval", "5".to_owned());
        option("ServerAliveCountMax", "3".to_owned());
        if let Some(dir) = &self.control_dir {
            option("ControlMaster", "auto".to_owned());
            option("ControlPath", dir.join("%C").display().to_string());
            option("ControlPersist", "60".to_owned());
        }
        for name in &self.send_env {
            option("SendEnv", name.clone());
        }
        if let Some(port) = self.port {
            argv.extend(["-p".to_owned(), port.to_string()]);
        }
        if let Some(identity) = &self.identity {
            argv.extend(["-i".to_owned(), identity.display().to_string()]);
        }
        argv.push(if self.tty { "-tt" } else { "-T" }.to_owned());
        argv.push("--".to_owned());
        argv.push(self.destination.clone());
        argv.extend(self.remote.iter().map(|word| tmux_habitat::shell_quote(word)));
        argv
    }

    /// The argv of a one-off command on the same host over the shared connection (no terminal), e.g. `cat` of
    /// a file to copy back.
    pub fn one_off<I, S>(&self, argv: I) -> Vec<String>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut command = self.clone().tty(false).remote(argv);
        command.send_env.clear();
        command.argv()
    }
}

/// The `sshd_config` line a host needs so the nonce and `variables` arrive.
pub fn accept_env_line<'a>(variables: impl IntoIterator<Item = &'a str>) -> String {
    let mut names = vec![NONCE_ENV_VAR];
    for name in variables {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    format!("AcceptEnv {}", names.join(" "))
}

/// The directory for ssh's shared-connection sockets: `$XDG_RUNTIME_DIR/clive-ssh`, else
/// `/tmp/clive-ssh-<uid>` (short: a socket path has at most 107 bytes). Made 0700.
pub fn default_control_dir(runtime_dir: Option<&Path>) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let dir = match runtime_dir {
        Some(dir) => dir.join("clive-ssh"),
        None => PathBuf::from(format!("/tmp/clive-ssh-{}", rustix_uid())),
    };
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir)?;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
    Ok(dir)
}

fn rustix_uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    // The owner of our own process directory is our uid, with no unsafe call.
    std::fs::metadata("/proc/self").map(|m| m.uid()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{Registry, Source};

    fn agent() -> AgentHost {
        AgentHost {
            alias: "devbox".into(),
            destination: "me@devbox".into(),
            port: Some(2222),
            identity: Some("/k/id".into()),
            options: vec![("UserKnownHostsFile".into(), "/k/known_hosts".into())],
            command: vec!["/opt/clive".into()],
            toolset: None,
            connect_timeout: Duration::from_secs(7),
            source: Source::Registry,
        }
    }

    #[test]
    fn the_argv_sends_names_checks_host_keys_and_shares_the_connection() {
        let command = SshCommand::new(&agent(), ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"])
            .control_dir("/run/c")
            .remote(["/opt/clive", "--conversational", "--attach", "a b"]);
        insta::assert_snapshot!(command.argv().join("\n"));
        assert_eq!(command.sent_variables(), ["CLIVE_TURN_NONCE", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"]);
    }

    #[test]
    fn one_off_commands_reuse_the_connection_without_a_terminal() {
        let command = SshCommand::new(&agent(), ["OPENAI_API_KEY"]).control_dir("/run/c");
        let argv = command.one_off(["cat", "--", "/tmp/x y"]);
        assert!(argv.contains(&"-T".to_owned()) && !argv.iter().any(|a| a.starts_with("SendEnv")), "{argv:?}");
        assert_eq!(argv.last().map(String::as_str), Some("'/tmp/x y'"));
        assert!(argv.contains(&"ControlPath=/run/c/%C".to_owned()));
    }

    #[test]
    fn the_accept_env_line_names_every_variable_once() {
        assert_eq!(
            accept_env_line(["OPENAI_API_KEY", "CLIVE_TURN_NONCE"]),
            "AcceptEnv CLIVE_TURN_NONCE OPENAI_API_KEY"
        );
        let _ = Registry::default();
    }
}
