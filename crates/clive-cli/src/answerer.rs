//! The user on this terminal answers a remote agent's question when the model cannot (`clive@host`).

use std::io::IsTerminal as _;

use async_trait::async_trait;
use remote::{AnswerRequest, Answerer};

/// Asks on stderr and reads one line from stdin; no answer when stdin is not a terminal.
pub struct TerminalAnswerer;

#[async_trait]
impl Answerer for TerminalAnswerer {
    async fn answer(&self, request: AnswerRequest<'_>) -> Option<String> {
        if !std::io::stdin().is_terminal() {
            return None;
        }
        eprintln!("clive@{} asks: {}", request.host, request.question.unwrap_or("(it waits for input)"));
        eprint!("answer> ");
        tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).ok().filter(|n| *n > 0).map(|_| line.trim().to_owned())
        })
        .await
        .ok()
        .flatten()
        .filter(|answer| !answer.is_empty())
    }
}
