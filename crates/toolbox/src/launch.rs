//! Opening a pane: the window, its environment, and for panes a model types into, the sandbox.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tmux_habitat::{Pane, Server, Session, SessionOptions, WindowOptions};

use crate::environment::pane_environment;
use crate::error::{Error, Result};
use crate::network::Network;
use crate::proxy::NetworkProxy;
use crate::sandbox::{Confinement, ProxyAccess, Sandbox};

/// The server's shell line as a program and its arguments: split into words when it is one plain command
/// (so the sandbox starts it without a shell in between), else run through `sh -c` as tmux would.
fn shell_argv(shell: Option<&str>) -> Vec<String> {
    let Some(line) = shell else {
        return ["/bin/sh", "-c", "exec \"${SHELL:-/bin/sh}\""].map(str::to_owned).to_vec();
    };
    let parsed = router::shell_syntax::parse(line);
    let plain = match parsed.pipelines.as_slice() {
        [pipeline] if !parsed.unterminated && !parsed.has_parentheses => match pipeline.commands.as_slice() {
            [command] if command.assignments.is_empty() && command.redirections.is_empty() => Some(command),
            _ => None,
        },
        _ => None,
    };
    let plain = plain.filter(|command| {
        command.words.iter().all(|w| w.substitutions.is_empty() && !w.text.contains(['$', '*', '?', '[', '~']))
    });
    match plain {
        Some(command) => command.words.iter().map(|w| w.text.clone()).collect(),
        None => vec!["/bin/sh".to_owned(), "-c".to_owned(), line.to_owned()],
    }
}

/// The file in the run directory where the network proxy logs every request, one JSON line each.
pub const NETWORK_LOG: &str = "network.log";

/// How long a new pane's shell may take to read input.
pub const READY_TIMEOUT: Duration = Duration::from_secs(15);

/// What launches a pane: see [`Launcher::spec`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchSpec {
    /// The pane's working directory.
    pub cwd: PathBuf,
    /// Variables for tmux to set in the pane (`-e`); empty when the sandbox sets them itself.
    pub env: Vec<(String, String)>,
    /// The program and its arguments; `None` for the server's shell.
    pub program: Option<Vec<String>>,
}

/// Opens panes with the never-hang environment, and sandboxed when it holds a [`Sandbox`].
///
/// ```no_run
/// # async fn demo(session: tmux_habitat::Session) -> Result<(), clive_toolbox::Error> {
/// use clive_toolbox::{Launcher, Sandbox, SandboxPolicy};
///
/// let sandbox = Sandbox::locate(SandboxPolicy::default()).await?; // fails clearly without bwrap
/// let launcher = Launcher::new(std::env::current_dir().unwrap()).sandbox(Some(sandbox));
/// let pane = launcher.open(&session, "browser").await?; // a window named `browser`, shell ready
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Launcher {
    cwd: PathBuf,
    run_dir: Option<PathBuf>,
    environment: Vec<(String, String)>,
    sandbox: Option<Sandbox>,
    home: Option<PathBuf>,
    runtime_dir: Option<PathBuf>,
    networks: BTreeMap<String, Network>,
    bridge: Option<PathBuf>,
    /// Started with the first pane that needs it; shared by clones, stopped with the last.
    proxy: Arc<Mutex<Option<Arc<NetworkProxy>>>>,
}

impl Launcher {
    /// Panes working in `cwd`, with this process's environment plus [`NEVER_HANG`](crate::NEVER_HANG), not
    /// sandboxed.
    pub fn new(cwd: impl Into<PathBuf>) -> Launcher {
        let launcher = Launcher {
            cwd: cwd.into(),
            run_dir: None,
            environment: Vec::new(),
            sandbox: None,
            home: None,
            runtime_dir: None,
            networks: BTreeMap::new(),
            bridge: None,
            proxy: Arc::default(),
        };
        launcher.caller_environment(std::env::vars_os())
    }

    /// The caller's environment to start from (default: this process's); [`NEVER_HANG`](crate::NEVER_HANG)
    /// still goes over it. `HOME` and `XDG_RUNTIME_DIR` are read from it too.
    pub fn caller_environment(mut self, vars: impl IntoIterator<Item = (OsString, OsString)>) -> Launcher {
        self.environment = pane_environment(vars);
        let get = |name: &str| {
            self.environment.iter().find(|(k, v)| k == name && !v.is_empty()).map(|(_, v)| PathBuf::from(v))
        };
        (self.home, self.runtime_dir) = (get("HOME"), get("XDG_RUNTIME_DIR"));
        self
    }

    /// The run directory: writable in the sandbox, and exported as `CLIVE_RUN_DIR`.
    pub fn run_dir(mut self, dir: impl Into<PathBuf>) -> Launcher {
        self.run_dir = Some(dir.into());
        self
    }

    /// Sandbox the panes (`None`: run them unconfined).
    pub fn sandbox(mut self, sandbox: Option<Sandbox>) -> Launcher {
        self.sandbox = sandbox;
        self
    }

    /// Pane `name`'s network, instead of the sandbox policy's (only sandboxed panes have one).
    pub fn pane_network(mut self, name: impl Into<String>, network: Network) -> Launcher {
        self.networks.insert(name.into(), network);
        self
    }

    /// The binary that bridges clive's proxy into a sandbox ([`crate::bridge`]): without one, a pane whose
    /// network is not `On` has none at all, and its refused requests go unexplained.
    pub fn bridge(mut self, program: Option<PathBuf>) -> Launcher {
        self.bridge = program;
        self
    }

    /// The network of pane `name` (`On` when it is not sandboxed).
    pub fn network_of(&self, name: &str) -> Network {
        match &self.sandbox {
            None => Network::On,
            Some(sandbox) => self.networks.get(name).unwrap_or(&sandbox.policy().network).clone(),
        }
    }

    /// The sandbox, if panes are confined.
    pub fn sandbox_in_use(&self) -> Option<&Sandbox> {
        self.sandbox.as_ref()
    }

    /// The environment panes get (before the sandbox removes secrets).
    pub fn environment(&self) -> Vec<(String, String)> {
        let mut vars = self.environment.clone();
        if let Some(dir) = &self.run_dir {
            vars.retain(|(k, _)| k != "CLIVE_RUN_DIR");
            vars.push(("CLIVE_RUN_DIR".into(), dir.display().to_string()));
        }
        vars
    }

    /// What a sandboxed pane on `server` is confined to.
    pub fn confinement(&self, server: &Server) -> Confinement {
        Confinement {
            cwd: self.cwd.clone(),
            run_dir: self.run_dir.clone(),
            home: self.home.clone(),
            runtime_dir: self.runtime_dir.clone(),
            habitat_dir: Some(server.runtime_dir().to_path_buf()),
            tmux_socket: Some(server.socket_path().to_path_buf()),
            network: None,
            proxy: None,
        }
    }

    /// [`Launcher::confinement`] for pane `name`: its network, and its own socket of the proxy (started now
    /// if it is the first pane that needs one).
    fn confinement_of(&self, server: &Server, name: &str) -> Result<Confinement> {
        let network = self.network_of(name);
        let proxy = match (&self.bridge, &network) {
            (Some(bridge), Network::Off | Network::Hosts(_)) => {
                let socket = self
                    .proxy()?
                    .listen(name, network.clone())
                    .map_err(|e| Error::io(format!("opening the network proxy's socket for pane `{name}`"), e))?;
                Some(ProxyAccess { socket, bridge: bridge.clone() })
            }
            _ => None,
        };
        Ok(Confinement { network: Some(network), proxy, ..self.confinement(server) })
    }

    fn proxy(&self) -> Result<Arc<NetworkProxy>> {
        let mut proxy = self.proxy.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(running) = proxy.as_ref() {
            return Ok(running.clone());
        }
        let log = self.run_dir.as_ref().map(|dir| dir.join(NETWORK_LOG));
        let started = NetworkProxy::start(log.as_deref()).map_err(|e| Error::io("starting the network proxy", e))?;
        Ok(proxy.insert(Arc::new(started)).clone())
    }

    /// What launches pane `name` on `server`: its directory, its environment, and when sandboxed, the
    /// server's shell wrapped in `bwrap` (the environment then travels inside the `bwrap` command line) with the
    /// pane's network.
    pub fn spec(&self, server: &Server, name: &str) -> Result<LaunchSpec> {
        let environment = self.environment();
        Ok(match &self.sandbox {
            None => LaunchSpec { cwd: self.cwd.clone(), env: environment, program: None },
            Some(sandbox) => {
                let inner = shell_argv(server.shell());
                let program = sandbox.command(&self.confinement_of(server, name)?, &environment, &inner)?;
                LaunchSpec { cwd: self.cwd.clone(), env: Vec::new(), program: Some(program) }
            }
        })
    }

    /// The window that launches pane `name` on `server` (see [`Launcher::spec`]). This is what a pane pool's
    /// launch hook opens.
    pub fn window(&self, server: &Server, name: &str) -> Result<WindowOptions> {
        let spec = self.spec(server, name)?;
        let mut window = WindowOptions::new(name).cwd(spec.cwd);
        for (key, value) in spec.env {
            window = window.env(key, value);
        }
        Ok(window.program(spec.program.unwrap_or_default()))
    }

    /// A new session `name` on `server` whose first pane, `pane`, is launched like [`Launcher::window`]'s.
    pub fn session(&self, server: &Server, name: &str, pane: &str) -> Result<SessionOptions> {
        let spec = self.spec(server, pane)?;
        let mut session = SessionOptions::new(name).cwd(spec.cwd);
        for (key, value) in spec.env {
            session = session.env(key, value);
        }
        Ok(session.program(spec.program.unwrap_or_default()))
    }

    /// Opens pane `name` in `session` and waits until its shell reads input.
    pub async fn open(&self, session: &Session, name: &str) -> Result<Pane> {
        let window = self.window(session.server(), name)?;
        let pane_error = |source| Error::Pane { pane: name.to_owned(), source };
        let pane = session.open_window(window).await.map_err(pane_error)?;
        pane.wait_ready(READY_TIMEOUT).await.map_err(pane_error)?;
        Ok(pane)
    }

    /// One line for a model's prompt on what pane `name` may do (empty when not sandboxed).
    pub fn describe(&self, server: &Server, name: &str) -> String {
        let confinement = Confinement { network: Some(self.network_of(name)), ..self.confinement(server) };
        self.sandbox.as_ref().map(|s| s.describe(&confinement)).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_shell_line_becomes_its_words_and_anything_else_goes_through_sh() {
        assert_eq!(
            shell_argv(Some("/bin/bash --noprofile --rcfile '/tmp/a b/bashrc'")),
            ["/bin/bash", "--noprofile", "--rcfile", "/tmp/a b/bashrc"]
        );
        // A `$` anywhere, even quoted, leaves the line to sh: the words do not say what was quoted.
        for line in ["env PS1='$ ' /bin/sh", "exec $SHELL", "bash; echo x", "cd ~ && bash", "A=1 bash", "bash > log"] {
            assert_eq!(shell_argv(Some(line)), ["/bin/sh", "-c", line], "{line}");
        }
        assert_eq!(shell_argv(None)[..2], ["/bin/sh", "-c"]);
    }
}
