//! The MCP side: the tools' definitions (schemas, descriptions), dispatching a call to its tool with a
//! deadline, results as structured content plus a short text, and the panes' screens and recordings as
//! resources.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::ToolError;
use crate::habitat::Habitat;
use crate::params::*;
use crate::tools::{self, MAX_TIMEOUT};

/// The tools, in the order they are listed.
pub const TOOL_NAMES: [&str; 7] = ["run", "start", "type", "screen", "wait", "panes", "send"];

/// Time a call may take beyond the deadline it asked for (tmux calls, opening a pane) before it is cut off.
const GRACE: Duration = Duration::from_secs(30);

/// An MCP server whose tools drive one clive session ([`Habitat`]). Serve it with [`McpServer::serve`] or any
/// rmcp transport (`rmcp::ServiceExt::serve`).
#[derive(Clone, Debug)]
pub struct McpServer {
    habitat: Arc<Habitat>,
    instructions: String,
    lane_dirs: Option<lane_send::Dirs>,
}

impl McpServer {
    /// A server for `habitat`.
    pub fn new(habitat: Arc<Habitat>) -> McpServer {
        McpServer { habitat, instructions: String::new(), lane_dirs: None }
    }

    /// Text added to the server's instructions (what the client's model reads about it): the toolset, say.
    pub fn instructions(mut self, text: impl Into<String>) -> McpServer {
        self.instructions = text.into();
        self
    }

    /// Where `send` keeps lane-send's locks and logs (default: lane-send's, from the environment).
    pub fn lane_dirs(mut self, dirs: lane_send::Dirs) -> McpServer {
        self.lane_dirs = Some(dirs);
        self
    }

    /// The session the tools drive.
    pub fn habitat(&self) -> &Arc<Habitat> {
        &self.habitat
    }

    /// Every tool's definition.
    pub fn tools() -> Vec<Tool> {
        fn tool<A: JsonSchema + 'static, R: JsonSchema + 'static>(
            name: &'static str,
            description: &'static str,
        ) -> Tool {
            Tool::new(name, description, rmcp::model::JsonObject::new())
                .with_input_schema::<A>()
                .with_output_schema::<R>()
        }
        let read_only = |tool: Tool| {
            tool.with_annotations(ToolAnnotations::new().read_only(true).destructive(false).open_world(false))
        };
        vec![
            tool::<RunArgs, RunResult>(
                "run",
                "Run a shell command in a pane of this clive session and return its exit code and output once it \
                 ends. The end is signalled by the shell, never guessed; the command passes a safety gate and runs \
                 in a sandbox unless the server was started with --no-sandbox. Past the deadline it keeps running.",
            ),
            tool::<StartArgs, StartResult>(
                "start",
                "Start an interactive program (a REPL, an editor, a TUI, another agent) in a pane and return its \
                 first screen. Drive it with `type`, read it with `screen`, and `wait` for text, quiet or its exit.",
            ),
            tool::<TypeArgs, TypeResult>(
                "type",
                "Type into a pane: text as one bracketed paste (nothing added, no Enter), then keys such as Enter, \
                 C-c, Up or y. Text passes the safety gate; nothing is typed when any argument is wrong.",
            ),
            read_only(tool::<ScreenArgs, ScreenResult>(
                "screen",
                "Read a pane's visible screen, or with since: \"last\" only what changed since the last read.",
            )),
            read_only(tool::<WaitArgs, WaitResult>(
                "wait",
                "Wait until text appears on a pane's screen, the pane falls quiet, or what runs in it exits; \
                 returns when it happens or at the deadline (happened: false), with the screen.",
            )),
            read_only(tool::<PanesArgs, PanesResult>(
                "panes",
                "List this session's panes: name, command, state (idle, running, dead) and last exit code.",
            )),
            tool::<SendArgs, SendResult>(
                "send",
                "Deliver a signed message (`mylane: text`) into another agent's input box in its tmux lane with \
                 lane-send, which proves delivery: the result is delivered, or held with the stage and reason.",
            )
            .with_annotations(ToolAnnotations::new().destructive(false).open_world(true)),
        ]
    }

    /// Calls tool `name` with `arguments` (a JSON object): the result as MCP returns it. Unknown tools are
    /// protocol errors; everything else that fails is a tool error (`is_error`) whose text says what to do.
    pub async fn call(&self, name: &str, arguments: serde_json::Map<String, serde_json::Value>) -> CallToolResult {
        let habitat = &*self.habitat;
        let outcome = tokio::time::timeout(MAX_TIMEOUT + GRACE, async {
            match name {
                "run" => respond(parse("run", arguments).map(|a| tools::run(habitat, a)), run_text).await,
                "start" => respond(parse("start", arguments).map(|a| tools::start(habitat, a)), start_text).await,
                "type" => respond(parse("type", arguments).map(|a| tools::type_into(habitat, a)), type_text).await,
                "screen" => respond(parse("screen", arguments).map(|a| tools::screen(habitat, a)), screen_text).await,
                "wait" => respond(parse("wait", arguments).map(|a| tools::wait(habitat, a)), wait_text).await,
                "panes" => {
                    respond(parse::<PanesArgs>("panes", arguments).map(|_| tools::panes(habitat)), panes_text).await
                }
                "send" => {
                    let dirs = self.lane_dirs.as_ref();
                    respond(parse("send", arguments).map(|a| tools::send(a, dirs)), send_text).await
                }
                other => error_result(&format!("unknown tool `{other}`; the tools are {}", TOOL_NAMES.join(", "))),
            }
        })
        .await;
        outcome.unwrap_or_else(|_| error_result(&format!("`{name}` took longer than its deadline allows")))
    }

    fn resources(&self) -> Vec<Resource> {
        let mut resources = Vec::new();
        for slot in self.habitat.slots() {
            resources.push(
                Resource::new(format!("clive://pane/{}/screen", slot.name), format!("{} screen", slot.name))
                    .with_description(format!("The visible screen of pane `{}`", slot.name))
                    .with_mime_type("text/plain"),
            );
            if let Some(path) = self.habitat.recording_path(&slot.name).filter(|p| p.exists()) {
                resources.push(
                    Resource::new(format!("clive://pane/{}/recording", slot.name), format!("{} recording", slot.name))
                        .with_description(format!(
                            "Everything pane `{}` printed, as an asciicast v2 recording ({})",
                            slot.name,
                            path.display()
                        ))
                        .with_mime_type("application/x-asciicast"),
                );
            }
        }
        resources
    }

    async fn read(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        let not_found = || {
            ErrorData::resource_not_found(
                format!(
                    "no resource {uri:?}: resources are clive://pane/<name>/screen and clive://pane/<name>/recording"
                ),
                None,
            )
        };
        let (name, what) =
            uri.strip_prefix("clive://pane/").and_then(|rest| rest.split_once('/')).ok_or_else(not_found)?;
        let slot = self.habitat.slot(name).map_err(|e| ErrorData::resource_not_found(e.to_string(), None))?;
        let text = match what {
            "screen" => {
                crate::watch::visible(slot.pane()).await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?
            }
            "recording" => {
                let path = self.habitat.recording_path(name).ok_or_else(not_found)?;
                tokio::time::timeout(Duration::from_secs(10), tokio::fs::read_to_string(&path))
                    .await
                    .map_err(|_| ErrorData::internal_error(format!("reading {} took too long", path.display()), None))?
                    .map_err(|e| ErrorData::internal_error(format!("reading {}: {e}", path.display()), None))?
            }
            _ => return Err(not_found()),
        };
        let mime = if what == "screen" { "text/plain" } else { "application/x-asciicast" };
        Ok(ReadResourceResult::new(vec![ResourceContents::text(text, uri).with_mime_type(mime)]))
    }
}

/// The arguments as `A`, or what was wrong with them.
fn parse<A: DeserializeOwned>(
    tool: &'static str,
    arguments: serde_json::Map<String, serde_json::Value>,
) -> Result<A, ToolError> {
    serde_json::from_value(serde_json::Value::Object(arguments)).map_err(|e| ToolError::bad(tool, e.to_string()))
}

/// Runs a tool whose arguments parsed, and turns its outcome into a result: structured content plus a short
/// text on success, the error's text as a tool error otherwise.
async fn respond<F, R>(call: Result<F, ToolError>, text: fn(&R) -> String) -> CallToolResult
where
    F: Future<Output = Result<R, ToolError>>,
    R: Serialize,
{
    let outcome = match call {
        Ok(future) => future.await,
        Err(e) => Err(e),
    };
    match outcome {
        Ok(result) => match serde_json::to_value(&result) {
            Ok(value) => {
                let mut done = CallToolResult::success(vec![ContentBlock::text(text(&result))]);
                done.structured_content = Some(value);
                done
            }
            Err(e) => error_result(&format!("the result could not be written as JSON: {e}")),
        },
        Err(error) => error_result(&error.to_string()),
    }
}

fn error_result(text: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text.to_owned())])
}

fn run_text(r: &RunResult) -> String {
    let cut = if r.truncated { " (output cut)" } else { "" };
    format!("exit {} in {} ms, pane {}{cut}\n{}", r.exit_code, r.duration_ms, r.pane, r.output)
}

fn start_text(r: &StartResult) -> String {
    let state = match (r.exited, r.exit_code) {
        (true, Some(code)) => format!("exited with {code}"),
        (true, None) => "ended".to_owned(),
        (false, _) => "running".to_owned(),
    };
    format!("pane {} ({state}):\n{}", r.pane, r.screen)
}

fn type_text(r: &TypeResult) -> String {
    match (r.text_chars, r.keys.is_empty()) {
        (0, _) => format!("pressed {} in pane {}", r.keys.join(" "), r.pane),
        (n, true) => format!("pasted {n} characters into pane {}", r.pane),
        (n, false) => format!("pasted {n} characters, then pressed {} in pane {}", r.keys.join(" "), r.pane),
    }
}

fn screen_text(r: &ScreenResult) -> String {
    match (&r.screen, &r.diff) {
        (Some(screen), _) => screen.clone(),
        (None, Some(_)) if !r.changed => format!("pane {}: no change", r.pane),
        (None, Some(diff)) => diff.clone(),
        (None, None) => String::new(),
    }
}

fn wait_text(r: &WaitResult) -> String {
    let head = if r.happened { "happened" } else { "deadline reached, it did not happen" };
    match (r.exit_code, &r.output) {
        (Some(code), Some(output)) => format!("{head} after {} ms: exit {code}\n{output}", r.waited_ms),
        _ => format!("{head} after {} ms; the screen:\n{}", r.waited_ms, r.screen),
    }
}

fn panes_text(r: &PanesResult) -> String {
    let mut text = format!("session {}\n", r.session);
    for pane in &r.panes {
        let state =
            serde_json::to_value(pane.state).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
        let exit = pane.exit_code.map(|c| format!(" exit {c}")).unwrap_or_default();
        let command = pane.command.as_deref().unwrap_or("-");
        text.push_str(&format!("{} {} {state}{exit} {command}\n", pane.name, pane.id));
    }
    text
}

fn send_text(r: &SendResult) -> String {
    match &r.stage {
        Some(stage) => format!("held at {stage}: {}", r.reason),
        None if r.queued => format!("delivered into {}'s queue: {}", r.lane, r.reason),
        None => format!("delivered to {}: {}", r.lane, r.reason),
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut instructions = format!(
            "clive: a tmux session ({}) whose panes run your commands. `run` runs a shell command and returns \
             when it ends (signalled, never guessed). `start` opens an interactive program; `type`, `screen` \
             and `wait` drive it. Commands pass a safety gate{}.",
            self.habitat.session().name(),
            if self.habitat.sandboxed() { " and run in a bubblewrap sandbox" } else { "" }
        );
        if !self.instructions.is_empty() {
            instructions.push('\n');
            instructions.push_str(&self.instructions);
        }
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(Implementation::new("clive", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(McpServer::tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !TOOL_NAMES.contains(&request.name.as_ref()) {
            return Err(ErrorData::invalid_params(
                format!("unknown tool `{}`; the tools are {}", request.name, TOOL_NAMES.join(", ")),
                None,
            ));
        }
        Ok(self.call(&request.name, request.arguments.unwrap_or_default()).await.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(self.resources()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        Ok(self.read(&request.uri).await?.into())
    }
}
