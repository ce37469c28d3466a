//! `clive mcp`: the habitat as an MCP server on stdin and stdout, for Claude Code, Codex and Gemini CLI
//! (docs/mcp.md). The connection's session is a clive session like a task's: `clive sessions` lists it while
//! it serves, `clive attach` shows it, and its panes are recorded for `clive replay`.

use std::sync::Arc;
use std::time::Duration;

use clive_mcp::{Habitat, HabitatOptions, McpServer};
use router::safety::GatePolicy;

use crate::cli::GlobalArgs;
use crate::error::CliError;
use clive_core::Settings;
use clive_core::ToolsChoice;
use clive_core::session_record::{self, SESSION_PREFIX};

/// How often a serving session's expiry is pushed forward, so `clive gc` leaves it alone while it serves.
const EXPIRY_REFRESH: Duration = Duration::from_secs(300);

/// Serves MCP on stdin and stdout until the client closes the connection; then the session is removed (kept
/// for the retention period with `--keep`).
pub async fn serve(settings: &Settings, global: &GlobalArgs) -> Result<i32, CliError> {
    let choice = ToolsChoice::resolve(&global.tools_args())?;
    let cwd = match &global.cwd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().map_err(|e| CliError::io("reading the current directory", ".", e))?,
    };
    let launcher = choice.model_launcher(&cwd).await?;
    let offered = choice.installed().await.offered_text();
    let server = settings.run_server().await?;
    let session = format!("{SESSION_PREFIX}{}", session_record::new_session_id());
    let options = HabitatOptions {
        launcher,
        gate: GatePolicy { allow_destructive: global.allow_destructive },
        recordings: Some(settings.recordings_dir()),
    };
    let served = async {
        let habitat = Arc::new(Habitat::open(&server, &session, options).await.map_err(CliError::McpSession)?);
        let backstop = global.retain + EXPIRY_REFRESH * 2;
        session_record::record_start(&server, &session, "clive mcp", backstop).await?;
        tracing::info!(%session, sandboxed = habitat.sandboxed(), "serving MCP on stdio");
        let mcp = McpServer::new(Arc::clone(&habitat))
            .instructions(format!("Panes and tools offered in this session:\n{offered}"));
        let refresh = async {
            let mut every = tokio::time::interval(EXPIRY_REFRESH);
            every.tick().await;
            loop {
                every.tick().await;
                if let Err(e) = session_record::record_end(&server, &session, None, backstop).await {
                    tracing::warn!(error = %e, "pushing the session's expiry forward failed");
                }
            }
        };
        let outcome = tokio::select! {
            served = mcp.serve(rmcp::transport::stdio()) => served.map_err(CliError::from),
            () = refresh => Ok(()),
        };
        habitat.close().await;
        outcome
    };
    let outcome = served.await;
    let ended = if global.keep {
        session_record::record_end(&server, &session, None, global.retain).await
    } else {
        server
            .tmux(tmux_habitat::Command::new("kill-session").args(["-t", &format!("={session}")]))
            .await
            .map(drop)
            .map_err(Into::into)
    };
    if let Err(e) = ended {
        tracing::warn!(error = %e, %session, "ending the session failed");
    }
    server.close().await;
    outcome.map(|()| crate::exit_code::SUCCESS)
}
