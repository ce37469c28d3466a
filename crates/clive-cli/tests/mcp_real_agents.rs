//! `clive mcp` as the MCP server of the real agents: Claude Code, Codex and Gemini CLI (pinned, installed from npm
//! by `scripts/agents/setup.sh`), each offline in its own HOME and tmux server against
//! `llm::testing::AgentBackend` (lane-send's real-agent harness), configured with the real `clive mcp` on a tmux
//! server of the test's own. The backend answers a typed message with a call of clive's `run`; the command runs
//! in a clive pane, and the agent's next request to the backend carries its output. A command the safety gate
//! refuses comes back to the agent as a tool error that names the reason, and nothing runs.
//!
//! `#[ignore]`d, so a plain `cargo test` does not download agents from npm; `.ci/run` runs it with `--ignored`,
//! and then it fails when npm cannot install the agents.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is the failure report

// The one harness that starts real agents offline (lane-send's real-agent suite, bench and example share it).
#[path = "../../lane-send/tests/real/mod.rs"]
mod real;
mod support;

use std::time::{Duration, Instant};

use llm::testing::{AgentTurn, Turn};
use real::{Kind, McpServer, RealAgent};
use serde_json::json;
use support::World;
use tmux_habitat::Backoff;

/// Every wait of these tests ends well within this, or the test fails.
const WAIT: Duration = Duration::from_secs(90);

const MARKER_PROMPT: &str = "tester: please run the marker through clive";
const REFUSED_PROMPT: &str = "tester: please run the destructive one through clive";
/// A side effect that shows whether the refused command line ran.
const REFUSED_FILE: &str = "refused-command-ran";

/// The names of the tools the agent offered its model in its latest real turn, a Responses namespace's as
/// `<namespace>/<name>` (for the report).
fn offered_tools(agent: &RealAgent) -> Vec<String> {
    let requests = agent.backend.requests();
    let Some(request) = requests.iter().rev().find(|r| r.body["tools"].as_array().is_some_and(|t| !t.is_empty()))
    else {
        return Vec::new();
    };
    let name =
        |tool: &serde_json::Value| tool["name"].as_str().or(tool["function"]["name"].as_str()).map(str::to_string);
    let mut names = Vec::new();
    for tool in request.body["tools"].as_array().into_iter().flatten() {
        if let Some(declarations) = tool["functionDeclarations"].as_array() {
            names.extend(declarations.iter().filter_map(name));
        } else if let (Some(namespace), Some(inner)) = (tool["name"].as_str(), tool["tools"].as_array()) {
            names.extend(inner.iter().filter_map(name).map(|tool| format!("{namespace}/{tool}")));
        } else {
            names.extend(name(tool));
        }
    }
    names
}

/// Delivers `message` into the agent's box, then waits for the turn it starts to continue with a tool result
/// that satisfies `done`.
/// The message is sent again (up to twice) when its turn offered no `run` tool: an agent connects its MCP servers
/// in the background, and on a loaded machine Claude Code took a message typed just after it started before
/// clive's tools were there (it then offers `WaitForMcpServers`).
async fn tool_result_after(agent: &RealAgent, message: &str, done: impl Fn(&str) -> bool) -> AgentTurn {
    // Only a turn that came after the latest send can be that send's.
    let mut turns_before = agent.backend.turns().len();
    let outcome = agent.send(message).await;
    assert!(outcome.is_delivered(), "{}: {message:?} not delivered: {outcome:?}", agent.kind.name());
    let mut backoff = Backoff::new(WAIT);
    let mut resent = 0;
    loop {
        let turns = agent.backend.turns();
        let answered_without_run = turns.len() > turns_before
            && turns
                .last()
                .is_some_and(|turn| !turn.continued && turn.user_messages.last().is_some_and(|last| last == message))
            && !offered_tools(agent).iter().any(|tool| tool.ends_with("run"));
        if answered_without_run && resent < 2 {
            resent += 1;
            eprintln!("{}: {message:?} got a turn without clive's tools; sending it again", agent.kind.name());
            turns_before = turns.len();
            let outcome = agent.send(message).await;
            assert!(outcome.is_delivered(), "{}: {message:?} not delivered again: {outcome:?}", agent.kind.name());
            continue;
        }
        let found = agent
            .backend
            .turns()
            .into_iter()
            .find(|turn| turn.continued && turn.tool_results.iter().any(|result| done(result)));
        if let Some(turn) = found {
            return turn;
        }
        if !backoff.wait().await {
            let turns: Vec<(bool, Vec<String>)> =
                agent.backend.turns().into_iter().map(|t| (t.continued, t.tool_results)).collect();
            panic!(
                "{}: no tool result after {message:?} in {WAIT:?}; tools offered: {:?}; turns (continued, results): \
                 {turns:?}\n{}",
                agent.kind.name(),
                offered_tools(agent),
                agent.screen().await
            );
        }
    }
}

/// Runs the marker and the refused command through `clive mcp` in `kind`.
fn mcp_through(kind: Kind) {
    // Ignored unless asked for (`.ci/run` runs it with --ignored): asked for, it fails rather than pass having
    // done nothing when npm could not install the agents.
    if let Err(reason) = real::agents_prefix() {
        panic!("this suite needs the pinned agents from npm (scripts/agents/setup.sh): {reason}");
    }
    let world = World::new();
    let mcp = McpServer {
        name: "clive".to_string(),
        command: env!("CARGO_BIN_EXE_clive").into(),
        args: vec!["mcp".to_string()],
        env: vec![
            ("CLIVE_TMUX_SOCKET".to_string(), world.socket.display().to_string()),
            ("CLIVE_HOME".to_string(), world.home.display().to_string()),
        ],
    };
    world.block_on(async {
        let started = Instant::now();
        let agent = RealAgent::start_with(kind, "mcp", Some(&mcp)).await.unwrap_or_else(|error| panic!("{error}"));
        agent.backend.when(MARKER_PROMPT, Turn::tool("run", json!({"command": "echo mcp-marker-$((6*7))"})));
        // `rm -rf ~` is refused by the gate; were it not, it would remove the agent's private HOME only.
        agent
            .backend
            .when(REFUSED_PROMPT, Turn::tool("run", json!({"command": format!("rm -rf ~; touch {REFUSED_FILE}")})));

        // The command ran in a clive pane, and its output went back to the model.
        let turn = tool_result_after(&agent, MARKER_PROMPT, |result| result.contains("mcp-marker-42")).await;
        assert_eq!(turn.user_messages.last().map(String::as_str), Some(MARKER_PROMPT), "{turn:?}");
        let sessions = world.sessions();
        assert!(
            sessions.iter().any(|s| s["session"].as_str().is_some_and(|name| name.starts_with("clive-"))),
            "no clive session: {sessions:?}"
        );
        let tools: Vec<String> = offered_tools(&agent).into_iter().filter(|name| name.contains("run")).collect();
        eprintln!("{}: run offered as {tools:?}", kind.name());

        // The refused command: a tool error that names the reason, and nothing ran.
        let turn =
            tool_result_after(&agent, REFUSED_PROMPT, |result| result.contains("refused by the safety gate")).await;
        let result = turn.tool_results.iter().find(|r| r.contains("refused by the safety gate")).unwrap();
        // Marked as an error where the wire format has a mark: Anthropic's `is_error`, Gemini's `error` field. Codex
        // sends a tool's output to the Responses API as text only, failed or not.
        let marked = match kind {
            Kind::Claude => result.contains("is_error: true"),
            Kind::Gemini => result.contains("error: "),
            _ => true,
        };
        assert!(marked, "{}: not a tool error: {result}", kind.name());
        assert!(result.contains("recursive removal of `~`"), "{}: the reason is not named: {result}", kind.name());
        assert!(!agent.work.join(REFUSED_FILE).exists(), "the refused command ran");
        eprintln!("{}: both calls in {:?}", kind.name(), started.elapsed());
    });
}

#[test]
#[ignore = "needs the real agent CLIs from npm (scripts/agents/setup.sh); .ci/run runs it with --ignored"]
fn real_agent_claude_code() {
    mcp_through(Kind::Claude);
}

#[test]
#[ignore = "needs the real agent CLIs from npm (scripts/agents/setup.sh); .ci/run runs it with --ignored"]
fn real_agent_codex() {
    mcp_through(Kind::Codex);
}

#[test]
#[ignore = "needs the real agent CLIs from npm (scripts/agents/setup.sh); .ci/run runs it with --ignored"]
fn real_agent_gemini_cli() {
    mcp_through(Kind::Gemini);
}
