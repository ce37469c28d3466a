//! The panes of a run, by plan name, shared by every runner: a script subtask and an interactive subtask on the
//! pane `shell` type into the same window and share its shell state.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tmux_habitat::{Pane, Session};

use crate::error::DagError;

/// How long a new pane's shell may take to read input.
const READY_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a pane could not be launched; any error type will do (a sandbox launcher has its own).
pub type LaunchError = Box<dyn std::error::Error + Send + Sync>;

/// Decides how a named pane is launched: which program runs in it, in which environment or sandbox. The pool
/// calls it once per name, the first time a subtask needs that pane; the pane it returns must be ready for input.
#[async_trait]
pub trait PaneLauncher: Send + Sync {
    /// Opens the pane `name` in `session` and waits until its program reads input.
    async fn launch(&self, session: &Session, name: &str) -> Result<Pane, LaunchError>;
}

/// The default launcher: a new window named after the pane, running the session's default shell.
#[derive(Debug, Clone, Copy, Default)]
pub struct WindowLauncher;

#[async_trait]
impl PaneLauncher for WindowLauncher {
    async fn launch(&self, session: &Session, name: &str) -> Result<Pane, LaunchError> {
        let pane = session.new_window(name).await?;
        pane.wait_ready(READY_TIMEOUT).await?;
        Ok(pane)
    }
}

/// The panes of one session by plan name, opened on first use through a [`PaneLauncher`].
///
/// Share one pool (in an `Arc`) between every runner of a run. The executor never runs two subtasks of one pane
/// at once, so a name is never launched twice concurrently.
pub struct PanePool {
    session: Session,
    launcher: Arc<dyn PaneLauncher>,
    panes: tokio::sync::Mutex<HashMap<String, Pane>>,
}

impl std::fmt::Debug for PanePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PanePool").field("session", &self.session.name()).finish_non_exhaustive()
    }
}

impl PanePool {
    /// A pool opening windows of `session` with the [`WindowLauncher`].
    pub fn new(session: Session) -> PanePool {
        PanePool::with_launcher(session, Arc::new(WindowLauncher))
    }

    /// A pool opening its panes with `launcher`.
    pub fn with_launcher(session: Session, launcher: Arc<dyn PaneLauncher>) -> PanePool {
        PanePool { session, launcher, panes: tokio::sync::Mutex::new(HashMap::new()) }
    }

    /// The session the panes live in.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Adopts an existing pane under `name` (e.g. the session's first window), instead of launching one.
    pub async fn insert(&self, name: &str, pane: Pane) {
        self.panes.lock().await.insert(name.to_owned(), pane);
    }

    /// The pane named `name`, launched (and waited ready) on first use.
    pub async fn pane(&self, name: &str) -> Result<Pane, DagError> {
        if let Some(pane) = self.panes.lock().await.get(name) {
            return Ok(pane.clone());
        }
        // Launched without holding the map, so panes start in parallel.
        let pane = self
            .launcher
            .launch(&self.session, name)
            .await
            .map_err(|source| DagError::Pane { pane: name.to_owned(), source })?;
        self.panes.lock().await.insert(name.to_owned(), pane.clone());
        Ok(pane)
    }

    /// The pane named `name` if it was opened already.
    pub async fn get(&self, name: &str) -> Option<Pane> {
        self.panes.lock().await.get(name).cloned()
    }

    /// Forgets a pane whose program died, so the next subtask on it gets a new one.
    pub async fn forget(&self, name: &str) {
        self.panes.lock().await.remove(name);
    }
}
