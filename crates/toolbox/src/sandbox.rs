//! The sandbox for commands a model writes: the pane's shell runs under bubblewrap (`bwrap`).
//!
//! Inside, the whole file system is read-only except the working directory, the run directory and what the
//! user adds; `/tmp` is private; credential directories (`~/.ssh`, `~/.aws`, `~/.gnupg`, `~/.config/gh`, …),
//! the user's runtime directory (agent and keyring sockets), container sockets and the tmux server's own
//! socket are hidden; secret-looking environment variables (`*_API_KEY`, `*_TOKEN`, `SSH_AUTH_SOCK`, …) are
//! removed; no capability is kept (even when clive runs as root); processes, IPC and the host name are
//! private. The network is off (a namespace of its own with only loopback) unless the pane's [`Network`] opens
//! it: to the hosts a task names, through clive's proxy outside (a unix socket bound in, offered on a loopback
//! port by [`crate::bridge`], with `HTTP_PROXY` and `HTTPS_PROXY` set), or fully. The safety gate is the first
//! layer; this is the second, and it holds without the gate's help.
//!
//! If `bwrap` is missing or cannot create namespaces here, [`Sandbox::locate`] says so and which package
//! provides it. There is no silent fallback: running unconfined is the caller's explicit choice.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::availability::{find_on_path, parse_version};
use crate::bridge::{BRIDGE_FLAG, BRIDGE_PORT};
use crate::network::Network;

/// Where the bridge binary and the proxy's socket appear inside the sandbox (under its private `/tmp`).
const INSIDE_NET_DIR: &str = "/tmp/.clive-net";

/// How long the probe that proves `bwrap` works here may take.
const PROBE_DEADLINE: Duration = Duration::from_secs(5);

/// The terminal type sandboxed shells see (tmux's, on servers tmux-habitat starts).
pub const SANDBOX_TERM: &str = "screen-256color";

/// Credential files and directories under `$HOME` that a sandboxed command never sees.
pub const HIDDEN_IN_HOME: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gh",
    ".config/hub",
    ".config/gcloud",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".password-store",
    ".local/share/keyrings",
    ".vault-token",
    ".pgpass",
    ".my.cnf",
    ".config/rclone",
    ".terraform.d",
    ".mozilla",
    ".config/chromium",
    ".config/google-chrome",
];

/// Sockets outside `$HOME` that give control of the machine (container engines).
pub const HIDDEN_SYSTEM: &[&str] =
    &["/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock", "/run/podman/podman.sock"];

/// Environment variables removed inside the sandbox besides the secret-looking ones.
const REMOVED_VARIABLES: &[&str] = &[
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "GPG_AGENT_INFO",
    "DBUS_SESSION_BUS_ADDRESS",
    "KRB5CCNAME",
    "TMUX",
    "TMUX_PANE",
];

/// What the sandbox lets a command do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SandboxPolicy {
    /// The network of panes that are given none of their own (default off).
    pub network: Network,
    /// Writable paths besides the working and run directories.
    pub writable: Vec<PathBuf>,
    /// Hidden paths besides [`HIDDEN_IN_HOME`] and [`HIDDEN_SYSTEM`].
    pub hidden: Vec<PathBuf>,
    /// Secret-looking environment variables to keep anyway (say `GITHUB_TOKEN` for `gh`).
    pub keep_variables: Vec<String>,
}

impl Default for SandboxPolicy {
    fn default() -> Self {
        SandboxPolicy { network: Network::Off, writable: Vec::new(), hidden: Vec::new(), keep_variables: Vec::new() }
    }
}

/// Why the sandbox cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// `bwrap` is not on the `PATH`.
    #[error(
        "bwrap (bubblewrap) is not installed, and commands a model writes run inside it. Install the package \
         `bubblewrap` (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S \
         bubblewrap), or run them unconfined on purpose with --no-sandbox (config: sandbox.enabled: false)"
    )]
    Missing,
    /// `bwrap` is there but cannot create a sandbox on this machine.
    #[error(
        "bwrap ({}) cannot create a sandbox here: {detail}. It needs unprivileged user namespaces: check \
         `sysctl kernel.unprivileged_userns_clone` (Debian) or `kernel.apparmor_restrict_unprivileged_userns` \
         (Ubuntu 24.04), or in a container allow them; or run unconfined on purpose with --no-sandbox",
        bwrap.display()
    )]
    Unusable {
        /// The binary we tried.
        bwrap: PathBuf,
        /// What it said.
        detail: String,
    },
    /// Not Linux: bubblewrap needs Linux namespaces.
    #[error("the sandbox uses Linux namespaces (bubblewrap), which {os} does not have; run with --no-sandbox")]
    Unsupported {
        /// The operating system.
        os: &'static str,
    },
    /// A directory the sandbox must bind does not exist.
    #[error("the sandbox cannot bind {what} {}: {reason}", path.display())]
    Directory {
        /// Which directory.
        what: &'static str,
        /// Its path.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// A working `bwrap` and the policy it applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sandbox {
    bwrap: PathBuf,
    version: Option<String>,
    policy: SandboxPolicy,
}

/// Where a sandboxed pane works: the directories and the tmux server around it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Confinement {
    /// The working directory (writable, unless it is `/`, `$HOME` or above `$HOME`).
    pub cwd: PathBuf,
    /// The run directory (writable), when there is one.
    pub run_dir: Option<PathBuf>,
    /// The user's home directory (for the credential paths).
    pub home: Option<PathBuf>,
    /// The user's runtime directory (`XDG_RUNTIME_DIR`), hidden.
    pub runtime_dir: Option<PathBuf>,
    /// tmux-habitat's runtime directory (rc file, command scripts, FIFOs): readable.
    pub habitat_dir: Option<PathBuf>,
    /// The tmux server's socket: hidden, so a sandboxed command cannot drive tmux (and so escape).
    pub tmux_socket: Option<PathBuf>,
    /// This pane's network, when not the policy's.
    pub network: Option<Network>,
    /// The way out through clive's proxy, for a network that is not `On`.
    pub proxy: Option<ProxyAccess>,
}

/// How a sandboxed pane reaches clive's proxy: its socket, and the binary that bridges it to a loopback port
/// inside (one with [`crate::bridge::run_if_requested`] at the top of its `main`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyAccess {
    /// The proxy's socket for this pane ([`crate::NetworkProxy::listen`]).
    pub socket: PathBuf,
    /// The bridge binary.
    pub bridge: PathBuf,
}

impl Confinement {
    /// A confinement in `cwd` with `HOME` and `XDG_RUNTIME_DIR` from this process's environment.
    pub fn new(cwd: impl Into<PathBuf>) -> Confinement {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        Confinement { cwd: cwd.into(), home: var("HOME"), runtime_dir: var("XDG_RUNTIME_DIR"), ..Default::default() }
    }

    /// Whether the working directory is narrow enough to be writable: not `/`, not `$HOME`, not above it.
    pub fn cwd_writable(&self) -> bool {
        self.cwd != Path::new("/") && self.home.as_ref().is_none_or(|home| !home.starts_with(&self.cwd))
    }
}

impl Sandbox {
    /// Finds `bwrap` on `PATH` and proves it can create a sandbox here (one run of `true` inside, a few ms).
    pub async fn locate(policy: SandboxPolicy) -> Result<Sandbox, SandboxError> {
        Sandbox::locate_on(policy, &std::env::var_os("PATH").unwrap_or_default()).await
    }

    /// Like [`Sandbox::locate`], searching `path`.
    pub async fn locate_on(policy: SandboxPolicy, path: &OsStr) -> Result<Sandbox, SandboxError> {
        if !cfg!(target_os = "linux") {
            return Err(SandboxError::Unsupported { os: std::env::consts::OS });
        }
        let bwrap = find_on_path("bwrap", path).ok_or(SandboxError::Missing)?;
        let unusable = |detail: String| SandboxError::Unusable { bwrap: bwrap.clone(), detail };
        let version = run(&bwrap, &["--version"]).await.ok().and_then(|out| parse_version(&out));
        let probe = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--cap-drop", "ALL"];
        let mut args: Vec<&str> = probe.to_vec();
        args.extend(user_namespace());
        if policy.network != Network::On {
            args.push("--unshare-net");
        }
        args.extend(["--", "true"]);
        run(&bwrap, &args).await.map_err(unusable)?;
        Ok(Sandbox { bwrap, version, policy })
    }

    /// The `bwrap` binary.
    pub fn bwrap(&self) -> &Path {
        &self.bwrap
    }

    /// Its version, when it told one.
    pub fn version(&self) -> Option<&str> {
        self.version.as_deref()
    }

    /// The policy.
    pub fn policy(&self) -> &SandboxPolicy {
        &self.policy
    }

    /// The command line that runs `inner` confined: `bwrap <mounts> --chdir <cwd> --clearenv --setenv … --
    /// <inner…>`. The environment inside is exactly `environment` (minus secret-looking variables), with
    /// `TERM`, `TMPDIR=/tmp` and `CLIVE_SANDBOX=1` added.
    pub fn command(
        &self,
        confinement: &Confinement,
        environment: &[(String, String)],
        inner: &[String],
    ) -> Result<Vec<String>, SandboxError> {
        let mut args = Arguments::default();
        args.push(self.bwrap.display().to_string());
        args.extend(["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]);
        // Without this, bwrap started by root keeps every capability, and `mount -o remount,rw /` undoes it all.
        args.extend(["--cap-drop", "ALL"]);
        args.extend(user_namespace().iter().copied());
        let network = confinement.network.as_ref().unwrap_or(&self.policy.network);
        let proxy = confinement.proxy.as_ref().filter(|_| *network != Network::On);
        if *network != Network::On {
            args.push("--unshare-net");
        }
        args.extend(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
        let mut private: Vec<PathBuf> = vec!["/tmp".into(), "/var/tmp".into()];
        private.extend(confinement.runtime_dir.iter().filter(|dir| dir.is_dir()).cloned());
        for dir in &private {
            args.path_op("--tmpfs", None, dir);
        }
        let inside = Path::new(INSIDE_NET_DIR);
        if let Some(proxy) = proxy {
            args.path_op("--ro-bind", Some(&proxy.bridge), &inside.join("bridge"));
            args.path_op("--bind", Some(&proxy.socket), &inside.join("proxy.sock"));
        }
        let mut bound: Vec<PathBuf> = Vec::new();
        if let Some(dir) = &confinement.habitat_dir {
            let dir = existing_dir("tmux-habitat's runtime directory", dir)?;
            args.path_op("--ro-bind", Some(&dir), &dir);
            bound.push(dir);
        }
        // A home under a private directory (a test's, or a user's under /tmp) stays readable, as every other
        // home does; its credential directories are hidden below like any other.
        if let Some(home) = confinement.home.as_ref().and_then(|home| home.canonicalize().ok())
            && home.is_dir()
            && private.iter().any(|dir| home.starts_with(dir))
        {
            args.path_op("--ro-bind", Some(&home), &home);
            bound.push(home);
        }
        let mut writable = Vec::new();
        if confinement.cwd_writable() {
            writable.push(("working directory", confinement.cwd.clone()));
        } else if private.iter().any(|dir| confinement.cwd.starts_with(dir)) {
            let dir = existing_dir("working directory", &confinement.cwd)?;
            args.path_op("--ro-bind", Some(&dir), &dir);
            bound.push(dir);
        }
        writable.extend(confinement.run_dir.iter().map(|dir| ("run directory", dir.clone())));
        writable.extend(self.policy.writable.iter().map(|dir| ("writable path", dir.clone())));
        for (what, dir) in writable {
            let dir = existing_dir(what, &dir)?;
            args.path_op("--bind", Some(&dir), &dir);
            bound.push(dir);
        }
        // Hidden last, so that a credential directory inside a writable one stays hidden.
        let mut hidden: Vec<PathBuf> = Vec::new();
        if let Some(home) = &confinement.home {
            hidden.extend(HIDDEN_IN_HOME.iter().map(|p| home.join(p)));
        }
        hidden.extend(HIDDEN_SYSTEM.iter().map(PathBuf::from));
        hidden.extend(confinement.tmux_socket.iter().cloned());
        hidden.extend(self.policy.hidden.iter().cloned());
        for path in hidden {
            // What a symbolic link points at is what must be hidden; what does not exist needs no hiding.
            let Ok(path) = path.canonicalize() else { continue };
            // Under a private directory it is gone already, unless a bind brought its parent back.
            let in_private = private.iter().any(|dir| path.starts_with(dir));
            let rebound = bound.iter().any(|dir| path.starts_with(dir));
            if in_private && !rebound {
                continue;
            }
            if path.is_dir() {
                args.path_op("--tmpfs", None, &path);
            } else {
                args.path_op("--ro-bind", Some(Path::new("/dev/null")), &path);
            }
        }
        args.path_op("--chdir", None, &confinement.cwd);
        args.push("--clearenv");
        let removed = |name: &str| {
            !self.policy.keep_variables.iter().any(|k| k == name)
                && (REMOVED_VARIABLES.contains(&name) || looks_secret(name))
        };
        let proxy_url = format!("http://127.0.0.1:{BRIDGE_PORT}");
        let mut ours = vec![("TERM", SANDBOX_TERM), ("TMPDIR", "/tmp"), ("CLIVE_SANDBOX", "1")];
        if proxy.is_some() {
            // Everything goes to the proxy, `localhost` too: inside, it would be the sandbox's own loopback.
            for name in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] {
                ours.push((name, proxy_url.as_str()));
            }
            ours.extend([("NO_PROXY", ""), ("no_proxy", ""), ("ALL_PROXY", ""), ("all_proxy", "")]);
        }
        for (name, value) in environment {
            if !removed(name) && !ours.iter().any(|(n, _)| n == name) {
                args.extend(["--setenv", name.as_str(), value.as_str()]);
            }
        }
        for (name, value) in ours {
            args.extend(["--setenv", name, value]);
        }
        args.push("--");
        if proxy.is_some() {
            let (bridge, socket) = (inside.join("bridge"), inside.join("proxy.sock"));
            args.push(bridge.display().to_string());
            args.push(BRIDGE_FLAG);
            args.push(socket.display().to_string());
            args.push(BRIDGE_PORT.to_string());
            args.push("--");
        }
        args.extend(inner.iter().map(String::as_str));
        Ok(args.0)
    }

    /// One line for a model's prompt saying what the sandbox allows in `confinement`.
    pub fn describe(&self, confinement: &Confinement) -> String {
        let mut writable = Vec::new();
        if confinement.cwd_writable() {
            writable.push(confinement.cwd.display().to_string());
        }
        writable.extend(confinement.run_dir.iter().map(|d| format!("{} ($CLIVE_RUN_DIR)", d.display())));
        writable.extend(self.policy.writable.iter().map(|d| d.display().to_string()));
        writable.push("/tmp (private)".into());
        let network = match confinement.network.as_ref().unwrap_or(&self.policy.network) {
            Network::On => "network on".to_owned(),
            Network::Off => "network off (name a host in the task to allow it)".to_owned(),
            Network::Hosts(hosts) => format!("network off except HTTP(S) to {} (through a proxy)", hosts.join(", ")),
        };
        format!(
            "Sandboxed: only {} can be written; credentials (~/.ssh, cloud and API keys) are hidden; {network}.",
            writable.join(", "),
        )
    }
}

/// The sandbox's own user namespace: a staged attempt inside makes the nested user and mount namespaces its
/// overlay needs (crates/agent/src/stage.rs), and a namespace may map its parent's uid 0 only with CAP_SETFCAP,
/// which the sandbox drops; so root is uid 1000 inside (files it makes are still root's outside), and any other
/// user keeps its own uid.
fn user_namespace() -> &'static [&'static str] {
    if rustix::process::geteuid().is_root() {
        &["--unshare-user", "--uid", "1000", "--gid", "1000"]
    } else {
        &["--unshare-user"]
    }
}

/// Whether a variable's name says it holds a secret: a `_`-separated part such as `TOKEN`, `SECRET`,
/// `PASSWORD`, or `API_KEY`, `ACCESS_KEY`, `PRIVATE_KEY` (`GITHUB_TOKEN`, `OPENAI_API_KEY`,
/// `AWS_SECRET_ACCESS_KEY`; not `TOKENIZERS_PARALLELISM`).
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    let parts: Vec<&str> = upper.split('_').collect();
    parts.iter().any(|p| matches!(*p, "TOKEN" | "SECRET" | "PASSWORD" | "PASSWD" | "APIKEY" | "CREDENTIALS"))
        || parts.windows(2).any(|w| w[1] == "KEY" && matches!(w[0], "API" | "ACCESS" | "PRIVATE" | "SECRET"))
}

fn existing_dir(what: &'static str, dir: &Path) -> Result<PathBuf, SandboxError> {
    let bad = |reason: String| SandboxError::Directory { what, path: dir.to_path_buf(), reason };
    let canonical = dir.canonicalize().map_err(|e| bad(e.to_string()))?;
    if !canonical.is_dir() {
        return Err(bad("not a directory".into()));
    }
    Ok(canonical)
}

#[derive(Default)]
struct Arguments(Vec<String>);

impl Arguments {
    fn push(&mut self, arg: impl Into<String>) {
        self.0.push(arg.into());
    }

    fn extend<'a>(&mut self, args: impl IntoIterator<Item = &'a str>) {
        self.0.extend(args.into_iter().map(str::to_owned));
    }

    fn path_op(&mut self, op: &str, source: Option<&Path>, target: &Path) {
        self.push(op);
        if let Some(source) = source {
            self.push(source.display().to_string());
        }
        self.push(target.display().to_string());
    }
}

/// Runs `program args` with a deadline; its stdout, or why it failed.
async fn run(program: &Path, args: &[&str]) -> Result<String, String> {
    let child = tokio::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| e.to_string())?;
    let output = tokio::time::timeout(PROBE_DEADLINE, child.wait_with_output())
        .await
        .map_err(|_| format!("it did not finish within {}s", PROBE_DEADLINE.as_secs()))?
        .map_err(|e| e.to_string())?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        Err(if stderr.is_empty() { format!("it exited with {}", output.status) } else { stderr })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names_are_recognised_by_their_parts() {
        for name in ["GITHUB_TOKEN", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "gh_token", "X_APIKEY"] {
            assert!(looks_secret(name), "{name}");
        }
        for name in ["TOKENIZERS_PARALLELISM", "PATH", "HOME", "KEYBOARD", "MONKEY_KEY", "LANG"] {
            assert!(!looks_secret(name), "{name}");
        }
    }

    #[test]
    fn a_broad_working_directory_is_not_made_writable() {
        let at = |cwd: &str| Confinement { cwd: cwd.into(), home: Some("/home/u".into()), ..Default::default() };
        assert!(at("/home/u/project").cwd_writable());
        assert!(!at("/home/u").cwd_writable());
        assert!(!at("/home").cwd_writable());
        assert!(!at("/").cwd_writable());
        assert!(at("/srv/x").cwd_writable());
    }

    #[test]
    fn the_command_line_reads_as_the_policy() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
        std::fs::write(home.path().join(".netrc"), "machine x").unwrap();
        let work = tempfile::tempdir().unwrap();
        let sandbox = Sandbox {
            bwrap: "/usr/bin/bwrap".into(),
            version: None,
            // The home is writable here, so its credential directories must be hidden inside it.
            policy: SandboxPolicy { network: Network::Off, writable: vec![home.path().into()], ..Default::default() },
        };
        let confinement = Confinement { cwd: work.path().into(), home: Some(home.path().into()), ..Default::default() };
        let env = [("GITHUB_TOKEN".to_owned(), "t".to_owned()), ("LANG".to_owned(), "C.UTF-8".to_owned())];
        let argv = sandbox.command(&confinement, &env, &["/bin/sh".into()]).unwrap();
        let line = argv.join(" ");
        let work = work.path().canonicalize().unwrap();
        let home = home.path().canonicalize().unwrap();
        let ssh = home.join(".ssh");
        for expected in [
            "--cap-drop ALL".to_owned(),
            "--unshare-user".to_owned(),
            "--unshare-net".to_owned(),
            "--ro-bind / /".to_owned(),
            "--tmpfs /tmp".to_owned(),
            format!("--bind {0} {0}", work.display()),
            format!("--tmpfs {}", ssh.display()),
            format!("--ro-bind /dev/null {}", home.join(".netrc").display()),
            format!("--chdir {}", work.display()),
            "--setenv LANG C.UTF-8".to_owned(),
            "--setenv TERM screen-256color".to_owned(),
            "-- /bin/sh".to_owned(),
        ] {
            assert!(line.contains(&expected), "missing `{expected}` in {line}");
        }
        assert!(!line.contains("GITHUB_TOKEN"), "{line}");
        let bind = line.find("--bind").unwrap();
        assert!(line.find("--tmpfs /tmp").unwrap() < bind && bind < line.find(&ssh.display().to_string()).unwrap());
    }

    #[test]
    fn a_home_under_the_private_tmp_stays_readable_with_its_credentials_hidden() {
        // tempfile's directories are under /tmp, which the sandbox makes private.
        let home = tempfile::tempdir_in("/tmp").unwrap();
        std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
        let work = tempfile::tempdir().unwrap();
        let sandbox = Sandbox { bwrap: "/usr/bin/bwrap".into(), version: None, policy: SandboxPolicy::default() };
        let confinement = Confinement { cwd: work.path().into(), home: Some(home.path().into()), ..Default::default() };
        let line = sandbox.command(&confinement, &[], &["/bin/sh".into()]).unwrap().join(" ");
        let home = home.path().canonicalize().unwrap();
        let ssh = home.join(".ssh");
        let (tmp, ro_home, hidden) = (
            line.find("--tmpfs /tmp ").unwrap(),
            line.find(&format!("--ro-bind {0} {0}", home.display())).unwrap(),
            line.find(&format!("--tmpfs {}", ssh.display())).unwrap(),
        );
        assert!(tmp < ro_home && ro_home < hidden, "{line}");
    }

    #[test]
    fn a_missing_directory_is_named() {
        let sandbox = Sandbox { bwrap: "/usr/bin/bwrap".into(), version: None, policy: SandboxPolicy::default() };
        let confinement = Confinement { cwd: "/nonexistent/dir".into(), ..Default::default() };
        let error = sandbox.command(&confinement, &[], &["/bin/sh".into()]).unwrap_err().to_string();
        assert!(error.contains("working directory /nonexistent/dir"), "{error}");
    }

    #[test]
    fn a_missing_bwrap_names_the_package() {
        let empty = tempfile::tempdir().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let error = runtime
            .block_on(Sandbox::locate_on(SandboxPolicy::default(), empty.path().as_os_str()))
            .unwrap_err()
            .to_string();
        assert!(error.contains("bubblewrap") && error.contains("apt-get install") && error.contains("--no-sandbox"));
    }
}
