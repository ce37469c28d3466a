//! Watch and steer agent sessions in tmux from a browser: live, resumable, recorded.
//!
//! [`serve`] starts a web server (loopback by default) whose page lists the sessions of one or more
//! [`Catalog`]s with their state (running, waiting for approval, finished, dead), the agent recognised in
//! each pane, age and task, and shows any pane as a live terminal (xterm.js, built into the binary).
//!
//! - **Live, never polled.** Each pane's output arrives over tmux control mode (`%output`); an idle pane costs
//!   nothing. The server keeps a terminal per pane, so a page starts from a snapshot (screen, attributes,
//!   history) taken at an exact stream position and continues with the bytes after it.
//! - **Resumable.** Every chunk carries its stream offset; a page that reconnects asks for "since N" and gets
//!   exactly the missing bytes from the pane's [`Ring`], or a fresh snapshot if it fell too far behind or the
//!   server restarted (sessions are found again through the catalogs; nothing is kept across restarts).
//! - **Steerable where allowed.** Read-only unless the [`InputPolicy`] says otherwise. A recognised approval
//!   dialog (lane-send's frame recogniser) becomes buttons; a click sends that choice's keys once, after the
//!   pane itself was checked to still show that dialog.
//! - **Fit for a phone.** A page with input access may have a pane take its screen's size (the agent redraws
//!   for that width); the pane's size comes back when the page leaves. The page searches the pane's whole
//!   history. A pane that starts waiting for approval marks the page's title and list, raises one browser
//!   notification per dialog, and runs [`OnWaiting`] (`clive serve --on-waiting CMD`) once.
//! - **Guarded.** An [`AccessToken`] on every request (compared in constant time); WebSocket upgrades from
//!   another Origin are refused.
//! - **Recorded.** [`Recording`] writes a pane as an asciicast v2 file while it runs; [`replay`] plays one in
//!   a terminal; the page plays them too.
//!
//! ```no_run
//! use std::sync::Arc;
//! use clive_serve::{AccessToken, Catalog, ServeConfig, TmuxCatalog};
//! use tmux_habitat::SocketSpec;
//!
//! # async fn demo() -> clive_serve::Result<()> {
//! let lanes = TmuxCatalog::socket(SocketSpec::Name("lanes".into()), "").await?;
//! let catalogs: Vec<Arc<dyn Catalog>> = vec![Arc::new(lanes)];
//! let server = clive_serve::serve(ServeConfig::new(AccessToken::generate()), catalogs).await?;
//! println!("open {}", server.url());
//! server.wait().await
//! # }
//! ```

mod assets;
mod attention;
mod cast;
mod catalog;
mod error;
mod feed;
mod fit;
mod http;
mod hub;
mod policy;
mod protocol;
mod record;
mod ring;
mod terminal;
#[cfg(feature = "testing")]
pub mod testing;
mod token;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use attention::{ON_WAITING_DEADLINE, OnWaiting, Waiting};
pub use cast::{Cast, CastWriter, Event, Header};
pub use catalog::{Catalog, SessionMeta, TmuxCatalog};
pub use error::{Error, Result};
pub use policy::{Access, InputPolicy};
pub use protocol::{AnswerResult, ArchivedSummary, ChoiceView, DialogView, Listing, PaneState, PaneSummary};
pub use record::{RecordOptions, Recording, RecordingSummary, ReplayOptions, read_cast, replay};
pub use ring::{Position, Ring};
pub use token::AccessToken;

/// The port `clive serve` listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 7878;

/// How the server runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServeConfig {
    /// Where to listen (default `127.0.0.1:7878`; port 0 picks a free one).
    pub addr: SocketAddr,
    /// The secret every request must present.
    pub token: AccessToken,
    /// Who may type where (default: nowhere).
    pub policy: InputPolicy,
    /// Recordings (`*.cast`) of sessions, listed under "Archived" once their session is gone.
    pub recordings: Option<PathBuf>,
    /// Text logs (`*.log`) of archived sessions.
    pub logs: Option<PathBuf>,
    /// Bytes of output kept per pane for pages that reconnect (default 1 MiB).
    pub ring_bytes: usize,
    /// Lines of history in a snapshot (default 2000).
    pub scrollback: usize,
    /// How often the catalogs are asked for new sessions (default 2 s). Output never waits for this.
    pub refresh: Duration,
    /// Run once per new approval dialog (`clive serve --on-waiting`).
    pub on_waiting: Option<OnWaiting>,
}

impl ServeConfig {
    /// Defaults: loopback, read-only, no archive.
    pub fn new(token: AccessToken) -> ServeConfig {
        ServeConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT)),
            token,
            policy: InputPolicy::read_only(),
            recordings: None,
            logs: None,
            ring_bytes: 1 << 20,
            scrollback: 2000,
            refresh: Duration::from_secs(2),
            on_waiting: None,
        }
    }
}

/// A running server. Dropping it stops the server.
#[derive(Debug)]
pub struct ServeHandle {
    addr: SocketAddr,
    token: AccessToken,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
    hub: Arc<hub::Hub>,
    hub_task: tokio::task::JoinHandle<()>,
}

impl ServeHandle {
    /// The address it listens on (with the real port when 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL to open: it carries the token, which the page trades for a cookie.
    pub fn url(&self) -> String {
        format!("http://{}/?token={}", self.addr, self.token.expose())
    }

    /// Puts fitted panes back to their size, stops accepting, closes open sockets, detaches from tmux (in
    /// turn with other processes creating sessions there), and returns once the server has stopped.
    pub async fn stop(mut self) {
        self.hub.restore_sizes().await;
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.hub.shutdown();
        self.hub_task.abort();
        let _ = (&mut self.task).await;
        self.hub.close_servers().await;
    }

    /// Runs until the server fails (it does not stop on its own).
    pub async fn wait(mut self) -> Result<()> {
        match (&mut self.task).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(Error::io("serving", e)),
            Err(e) => Err(Error::io("serving", std::io::Error::other(e))),
        }
    }
}

impl Drop for ServeHandle {
    fn drop(&mut self) {
        self.hub.shutdown();
        self.hub_task.abort();
        self.task.abort();
    }
}

/// Starts serving the sessions of `catalogs`. Returns once the address is bound and the first look at the
/// catalogs is done.
pub async fn serve(config: ServeConfig, catalogs: Vec<Arc<dyn Catalog>>) -> Result<ServeHandle> {
    let listener =
        tokio::net::TcpListener::bind(config.addr).await.map_err(|source| Error::Bind { addr: config.addr, source })?;
    let addr = listener.local_addr().map_err(|e| Error::io("reading the bound address", e))?;
    let settings = feed::FeedSettings { ring_bytes: config.ring_bytes, scrollback: config.scrollback };
    let archive = hub::ArchiveDirs { recordings: config.recordings.clone(), logs: config.logs.clone() };
    let attention =
        hub::AttentionSettings { on_waiting: config.on_waiting.clone(), base_url: format!("http://{addr}") };
    let hub = hub::Hub::new(catalogs, config.policy.clone(), settings, archive, attention);
    hub.refresh().await;
    let hub_task = tokio::spawn(Arc::clone(&hub).run(config.refresh));
    let app = http::App {
        hub: Arc::clone(&hub),
        token: config.token.clone(),
        cookie: format!("clive_serve_{}", addr.port()),
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let router = http::router(app);
    let task = tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
    });
    Ok(ServeHandle { addr, token: config.token, stop: Some(stop), task, hub, hub_task })
}
