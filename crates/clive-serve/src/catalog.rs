//! Where sessions come from: a catalog names a tmux server and the sessions on it worth showing, with
//! whatever its owner knows about them (task, start, exit code). clive's own catalog lives in clive-cli,
//! which knows its session records; [`TmuxCatalog`] shows the sessions of any tmux socket.

use std::path::PathBuf;

use async_trait::async_trait;
use serde::Serialize;
use tmux_habitat::{Command, Server, SocketSpec, TransportKind};

use crate::error::Result;

/// What a catalog knows about one session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SessionMeta {
    /// The tmux session name.
    pub name: String,
    /// The task it runs, when known.
    pub task: Option<String>,
    /// Start time, seconds since the Unix epoch.
    pub started: Option<u64>,
    /// The session's work has ended (with this exit code, when known): it is kept for a look until it
    /// expires.
    pub finished: Option<Option<i32>>,
    /// What its task has changed in its working directory so far, one line per path as clive prints them
    /// (`created out.txt (12 bytes)`, `modified notes.md (120 → 140 bytes)`), in the order applied.
    pub changes: Vec<String>,
}

/// A source of sessions to show.
#[async_trait]
pub trait Catalog: Send + Sync + 'static {
    /// A short name shown with its sessions (`clive`, or a socket path).
    fn name(&self) -> &str;

    /// The tmux server its sessions live on. Following output needs the control-mode transport.
    fn server(&self) -> &Server;

    /// The sessions to show now (rediscovered on every call: nothing is remembered across restarts).
    async fn sessions(&self) -> Result<Vec<SessionMeta>>;
}

/// Every session on a tmux socket whose name starts with a prefix: lanes of agents started by hand, another
/// tool's sessions, or everything on a socket.
#[derive(Debug, Clone)]
pub struct TmuxCatalog {
    name: String,
    server: Server,
    prefix: String,
}

impl TmuxCatalog {
    /// The sessions of `server` named `prefix…` (an empty prefix shows all of them).
    pub fn new(name: impl Into<String>, server: Server, prefix: impl Into<String>) -> TmuxCatalog {
        TmuxCatalog { name: name.into(), server, prefix: prefix.into() }
    }

    /// The sessions on the tmux socket `socket` (a path, or a name as for `tmux -L`), followed over control
    /// mode. The server is never reconfigured nor killed; the connection shows as an attached client.
    pub async fn socket(socket: SocketSpec, prefix: impl Into<String>) -> Result<TmuxCatalog> {
        let path: PathBuf = socket.resolve();
        let server = Server::builder()
            .socket_path(&path)
            .keep_on_drop(true)
            .shell(None)
            .transport(TransportKind::Control)
            .start()
            .await?;
        Ok(TmuxCatalog::new(path.display().to_string(), server, prefix))
    }
}

#[async_trait]
impl Catalog for TmuxCatalog {
    fn name(&self) -> &str {
        &self.name
    }

    fn server(&self) -> &Server {
        &self.server
    }

    async fn sessions(&self) -> Result<Vec<SessionMeta>> {
        let sessions = self.server.list_sessions().await?;
        Ok(sessions
            .into_iter()
            .filter(|s| s.name.starts_with(&self.prefix))
            .map(|s| SessionMeta { name: s.name, started: Some(s.created), ..SessionMeta::default() })
            .collect())
    }
}

/// One pane as `list-panes -a` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PaneRow {
    pub(crate) session: String,
    /// `%N`.
    pub(crate) pane: String,
    /// `window.pane` index, as a person types it after the session name.
    pub(crate) index: String,
    pub(crate) dead: bool,
    pub(crate) width: u16,
    pub(crate) height: u16,
    /// The foreground command (`bash`, `node`, …).
    pub(crate) command: String,
}

/// The session name goes last: it is the only field that may hold a tab.
const PANE_FORMAT: &str = "#{pane_id}\t#{window_index}.#{pane_index}\t#{pane_dead}\t#{pane_width}\t#{pane_height}\t#{pane_current_command}\t#{session_name}";

/// Every pane on `server` in one call (none when no server runs there).
pub(crate) async fn list_panes(server: &Server) -> Result<Vec<PaneRow>> {
    match server.tmux(Command::new("list-panes").args(["-a", "-F", PANE_FORMAT])).await {
        Ok(out) => Ok(out.lines().filter_map(parse_pane_row).collect()),
        Err(tmux_habitat::Error::NoServer { .. }) => Ok(Vec::new()),
        Err(e) => Err(e.into()),
    }
}

fn parse_pane_row(line: &str) -> Option<PaneRow> {
    let mut fields = line.splitn(7, '\t');
    let pane = fields.next()?.to_owned();
    let index = fields.next()?.to_owned();
    let dead = fields.next()? == "1";
    let width = fields.next()?.parse().ok()?;
    let height = fields.next()?.parse().ok()?;
    let command = fields.next()?.to_owned();
    let session = fields.next()?.to_owned();
    pane.starts_with('%').then_some(PaneRow { session, pane, index, dead, width, height, command })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pane_rows_parse_with_a_tab_in_the_session_name() {
        let row = parse_pane_row("%12\t1.0\t0\t120\t40\tnode\tlane\tclaude").unwrap();
        assert_eq!(row.pane, "%12");
        assert_eq!(row.index, "1.0");
        assert!(!row.dead);
        assert_eq!((row.width, row.height), (120, 40));
        assert_eq!(row.command, "node");
        assert_eq!(row.session, "lane\tclaude");
        assert_eq!(parse_pane_row("garbage"), None);
    }
}
