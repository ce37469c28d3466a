//! The clive habitat as a Model Context Protocol server: `clive mcp` offers the agents people already use
//! (Claude Code, Codex, Gemini CLI) what clive has — commands whose end is signalled, never guessed; panes
//! watched by events, not polls; the safety gate and the sandbox for what a model types; lane-send's proven
//! delivery into another agent's input box; recordings of every pane.
//!
//! One MCP connection is one clive session ([`Habitat`]): its panes are windows of a tmux session on clive's
//! server, so `clive attach`, `clive serve` and `clive replay` show them. [`McpServer`] answers the MCP
//! requests with seven tools — `run`, `start`, `type`, `screen`, `wait`, `panes`, `send` (see
//! [`params`] for their arguments and results) — and offers each pane's screen and recording as resources.
//! Calls run concurrently: a long command in one pane never holds up a call about another.
//!
//! # Example
//!
//! ```no_run
//! use std::sync::Arc;
//! use clive_mcp::{Habitat, HabitatOptions, McpServer};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let server = tmux_habitat::Server::isolated().await?;
//! let options = HabitatOptions {
//!     launcher: toolbox::Launcher::new("/work/project"), // add .sandbox(Some(…)) to confine the panes
//!     gate: Default::default(),
//!     recordings: None,
//! };
//! let habitat = Arc::new(Habitat::open(&server, "clive-mcp-demo", options).await?);
//! McpServer::new(Arc::clone(&habitat)).serve(rmcp::transport::stdio()).await?; // until the client leaves
//! habitat.close().await;
//! # Ok(()) }
//! ```

mod bounded;
mod error;
mod habitat;
mod job;
pub mod params;
mod server;
mod tools;
mod watch;

pub use bounded::{MAX_OUTPUT_BYTES, bounded};
pub use error::ToolError;
pub use habitat::{DEFAULT_PANE, Habitat, HabitatOptions};
pub use server::{McpServer, TOOL_NAMES};
pub use tools::{DEFAULT_RUN_TIMEOUT, DEFAULT_WAIT_TIMEOUT, MAX_TIMEOUT};

/// Why serving ended early.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The client never completed MCP's initialisation.
    #[error("the MCP client did not initialise: {0}")]
    Initialize(String),
    /// The connection failed while serving.
    #[error("the MCP connection failed: {0}")]
    Connection(String),
}

impl McpServer {
    /// Serves MCP over `transport` (e.g. [`rmcp::transport::stdio`]) until the client closes it.
    pub async fn serve<T, E, A>(self, transport: T) -> Result<(), ServeError>
    where
        T: rmcp::transport::IntoTransport<rmcp::RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let running =
            rmcp::ServiceExt::serve(self, transport).await.map_err(|e| ServeError::Initialize(e.to_string()))?;
        running.waiting().await.map_err(|e| ServeError::Connection(e.to_string()))?;
        Ok(())
    }
}
