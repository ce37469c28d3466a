//! Starts one pinned real agent offline in a private tmux server, against lane-send's fake model backend, and
//! keeps it until stdin closes (Enter or Ctrl-D): a lab for looking at real frames by hand. A message containing
//! `slow` is answered after 8 s (the agent stays busy); one containing `run the tool` gets a shell tool call (the
//! agent shows its permission dialog).
//!
//! ```sh
//! cargo run -p lane-send --example real-agent -- claude
//! # prints the tmux socket: `tmux -S <socket> attach -t claude`, `lane-send -S <socket> claude "ops: hi"`
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)] // a development tool: a panic is the report

#[path = "../tests/real/mod.rs"]
mod real;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let name = std::env::args().nth(1).unwrap_or_else(|| "claude".to_string());
    let Some(kind) = real::Kind::parse(&name) else {
        eprintln!("usage: real-agent claude|codex|gemini|grok|qwen");
        return std::process::ExitCode::from(2);
    };
    let agent = match real::RealAgent::launch(kind, kind.name()).await {
        Ok(agent) => agent,
        Err(error) => {
            eprintln!("{error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    agent.backend.when("slow", llm::testing::Turn::text("Slow reply.").after(std::time::Duration::from_secs(8)));
    agent.backend.when("run the tool", llm::testing::Turn::shell("touch lane-send-was-here"));
    println!("socket {}", agent.server.socket_path().display());
    println!("attach {}", agent.attach_command());
    println!("backend {}", agent.backend.url());
    println!("home {}", agent.home.path().display());
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
    for turn in agent.backend.turns() {
        println!("turn {:?} {:?} {:?}", turn.api, turn.model, turn.user_messages);
    }
    let requests = agent.backend.requests();
    for request in &requests {
        println!("request {} {}", request.method, request.path);
    }
    let bodies: Vec<&serde_json::Value> = requests.iter().map(|request| &request.body).collect();
    let dump = std::env::temp_dir().join(format!("real-agent-{}-requests.json", kind.name()));
    if std::fs::write(&dump, serde_json::to_string_pretty(&bodies).unwrap_or_default()).is_ok() {
        println!("requests {}", dump.display());
    }
    println!("submitted {:?}", agent.backend.submitted());
    std::process::ExitCode::SUCCESS
}
