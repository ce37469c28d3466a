//! `clive "clive@host …"` and `clive agents`: what the engine's remote tasks and agent checks came to, as text
//! and JSON (crates/clive-core's `remote_task` runs them).

use clive_core::remote_task::{AgentStatus, RemoteOutcome};
use serde_json::json;

/// Prints a remote task's answer (or its failure on stderr, or `--json`'s report) and where a kept session is;
/// returns the exit code.
pub fn print(outcome: &RemoteOutcome, json_output: bool) -> i32 {
    let report = &outcome.report;
    if json_output {
        outln!("{}", serde_json::to_string(report).unwrap_or_default());
    } else if report.status == "succeeded" {
        outln!("{}", report.answer.trim_end());
    } else {
        eprintln!("clive: failed: {}", report.answer.trim());
    }
    if let Some(session) = &outcome.kept_session {
        eprintln!("clive: session {session} kept (clive attach {})", session.trim_start_matches("clive-"));
    }
    report.exit_code
}

/// `clive agents` as text: alias, destination, source, reachable, problem.
pub fn render_agents(agents: &[AgentStatus]) -> String {
    if agents.is_empty() {
        return "no agents: add an `agents:` section to the config file or a Host to ~/.ssh/config (docs/remote.md)\n"
            .to_owned();
    }
    let mut text = String::new();
    for status in agents {
        let source = serde_json::to_value(status.agent.source).ok().and_then(|v| v.as_str().map(str::to_owned));
        let state = if status.reachable { "reachable".to_owned() } else { "UNREACHABLE".to_owned() };
        text.push_str(&format!(
            "clive@{:<16} {:<28} {:<10} {state}\n",
            status.agent.alias,
            status.agent.destination,
            source.unwrap_or_default()
        ));
        if let Some(problem) = &status.problem {
            text.push_str(&format!("  {problem}\n"));
        }
    }
    text
}

/// `{"agents": [...]}` for `--json`.
pub fn agents_json(agents: &[AgentStatus]) -> serde_json::Value {
    json!({ "agents": agents })
}
