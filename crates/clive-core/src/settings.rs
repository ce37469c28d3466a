//! Where clive keeps things: its tmux socket and its state directory, chosen from the environment.
//!
//! - Socket: `CLIVE_TMUX_SOCKET` (a name as for `tmux -L`, or a path as for `tmux -S` when it contains
//!   `/`), default the name `clive`.
//! - State: `CLIVE_HOME/state` when `CLIVE_HOME` is set, else `$XDG_STATE_HOME/clive`, else
//!   `~/.local/state/clive`. Archived session logs go to `logs/` inside it, pane recordings to `recordings/`,
//!   and `clive serve`'s access token to `serve-token`.
//! - tmux: `CLIVE_TMUX` names the binary (default `tmux` on `PATH`).

use std::path::{Path, PathBuf};

use tmux_habitat::{Server, SocketSpec, TransportKind};

use crate::error::Error;

/// Environment variable choosing clive's tmux socket (name or path).
pub const SOCKET_VARIABLE: &str = "CLIVE_TMUX_SOCKET";
/// Environment variable moving everything clive stores under one directory.
pub const HOME_VARIABLE: &str = "CLIVE_HOME";
/// Environment variable choosing the tmux binary (default `tmux` on `PATH`, or `$TMUX_HABITAT_TMUX`).
pub const TMUX_VARIABLE: &str = "CLIVE_TMUX";
/// The socket name used when `CLIVE_TMUX_SOCKET` is not set.
pub const DEFAULT_SOCKET_NAME: &str = "clive";

/// Where this invocation of clive finds its server and its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// clive's tmux server.
    pub socket: SocketSpec,
    /// Root of clive's state.
    pub state_dir: PathBuf,
    /// The tmux binary (`CLIVE_TMUX`); `None` for tmux-habitat's default.
    pub tmux: Option<PathBuf>,
}

impl Settings {
    /// Reads the settings from this process's environment.
    pub fn from_env() -> Result<Settings, Error> {
        Settings::from_lookup(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
    }

    /// Reads the settings through `lookup` (the environment, or a table in tests).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Settings, Error> {
        let socket = match lookup(SOCKET_VARIABLE) {
            Some(value) if value.contains('/') => SocketSpec::Path(PathBuf::from(value)),
            Some(value) => SocketSpec::Name(value),
            None => SocketSpec::Name(DEFAULT_SOCKET_NAME.to_owned()),
        };
        let state_dir = if let Some(home) = lookup(HOME_VARIABLE) {
            PathBuf::from(home).join("state")
        } else if let Some(state) = lookup("XDG_STATE_HOME") {
            PathBuf::from(state).join("clive")
        } else if let Some(home) = lookup("HOME") {
            PathBuf::from(home).join(".local/state/clive")
        } else {
            return Err(Error::Invalid {
                what: "environment",
                value: String::new(),
                reason: "neither CLIVE_HOME, XDG_STATE_HOME nor HOME is set; set one so clive can keep its logs".into(),
            });
        };
        Ok(Settings { socket, state_dir, tmux: lookup(TMUX_VARIABLE).map(PathBuf::from) })
    }

    /// Where archived session logs go.
    pub fn log_dir(&self) -> PathBuf {
        self.state_dir.join("logs")
    }

    /// The archived log of one session.
    pub fn log_file(&self, session: &str) -> PathBuf {
        self.log_dir().join(format!("{session}.log"))
    }

    /// Where pane recordings (asciicast v2, `<session>.cast`, `<session>.<pane>.cast`; see
    /// `recording::Recorder`) go; `clive serve` lists them, `clive replay` plays them.
    pub fn recordings_dir(&self) -> PathBuf {
        self.state_dir.join("recordings")
    }

    /// `clive serve`'s access token (mode 0600), kept so a restarted server keeps open pages working.
    pub fn serve_token_file(&self) -> PathBuf {
        self.state_dir.join("serve-token")
    }

    /// The socket file, for a cheap "is a server running at all" check.
    pub fn socket_path(&self) -> PathBuf {
        self.socket.resolve()
    }

    /// A handle on clive's tmux server for a management command (`sessions`, `logs`, `gc`, …): one `tmux`
    /// process per call, which costs less than attaching a control client for a handful of calls.
    /// `TMUX_HABITAT_TRANSPORT` overrides. The server starts with the first session and is left running.
    pub async fn server(&self) -> Result<Server, Error> {
        self.server_with(TransportKind::Subprocess).await
    }

    /// A handle on clive's tmux server for running a task or a plan: control mode (a command in a tenth of a
    /// millisecond, output as a stream), unless `TMUX_HABITAT_TRANSPORT` says otherwise. Close it with
    /// [`Server::close`] when the run ends, so its control client leaves in turn with other `clive`s creating
    /// sessions on the same server (tmux crashes when the two overlap; tmux-habitat makes them take turns).
    pub async fn run_server(&self) -> Result<Server, Error> {
        self.server_with(TransportKind::Control).await
    }

    /// A handle for `clive serve`, which follows output: control mode whatever the environment says. Close
    /// it with [`Server::close`] when serving ends.
    pub async fn watch_server(&self) -> Result<Server, Error> {
        self.start_server(TransportKind::Control).await
    }

    async fn server_with(&self, default: TransportKind) -> Result<Server, Error> {
        self.start_server(TransportKind::from_env().unwrap_or(default)).await
    }

    async fn start_server(&self, transport: TransportKind) -> Result<Server, Error> {
        let mut builder = match &self.socket {
            SocketSpec::Path(path) => Server::builder().socket_path(path).keep_on_drop(true),
            SocketSpec::Name(name) => Server::builder().socket_name(name),
            SocketSpec::Inherit => Server::builder().socket_path(SocketSpec::Inherit.resolve()).keep_on_drop(true),
        };
        if let Some(tmux) = &self.tmux {
            builder = builder.program(tmux);
        }
        Ok(builder.transport(transport).start().await?)
    }

    /// Whether a server may be running: its socket file exists.
    pub fn server_may_run(&self) -> bool {
        Path::new(&self.socket_path()).exists()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(vars: &[(&str, &str)]) -> Settings {
        Settings::from_lookup(|name| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).to_owned())).unwrap()
    }

    #[test]
    fn clive_home_wins_over_xdg() {
        let s = settings(&[("CLIVE_HOME", "/c"), ("XDG_STATE_HOME", "/x"), ("HOME", "/h")]);
        assert_eq!(s.state_dir, PathBuf::from("/c/state"));
        assert_eq!(s.log_file("clive-ab"), PathBuf::from("/c/state/logs/clive-ab.log"));
    }

    #[test]
    fn xdg_then_home() {
        assert_eq!(settings(&[("XDG_STATE_HOME", "/x"), ("HOME", "/h")]).state_dir, PathBuf::from("/x/clive"));
        assert_eq!(settings(&[("HOME", "/h")]).state_dir, PathBuf::from("/h/.local/state/clive"));
    }

    #[test]
    fn socket_name_or_path() {
        assert_eq!(settings(&[("HOME", "/h")]).socket, SocketSpec::Name("clive".into()));
        assert_eq!(settings(&[("HOME", "/h"), ("CLIVE_TMUX_SOCKET", "t1")]).socket, SocketSpec::Name("t1".into()));
        assert_eq!(
            settings(&[("HOME", "/h"), ("CLIVE_TMUX_SOCKET", "/tmp/s")]).socket,
            SocketSpec::Path("/tmp/s".into())
        );
    }

    #[test]
    fn the_tmux_binary_is_chosen_by_clive_tmux() {
        assert_eq!(settings(&[("HOME", "/h")]).tmux, None);
        assert_eq!(settings(&[("HOME", "/h"), ("CLIVE_TMUX", "/opt/tmux")]).tmux, Some(PathBuf::from("/opt/tmux")));
    }

    #[test]
    fn no_home_at_all_is_a_clear_error() {
        let err = Settings::from_lookup(|_| None).unwrap_err().to_string();
        assert!(err.contains("HOME"), "{err}");
    }
}
