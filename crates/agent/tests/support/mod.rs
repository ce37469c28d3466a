//! A real tmux server, a scripted fake model and an agent over both, for the runners' end-to-end tests.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use clive_agent::{Agent, AgentConfig, ReplyFormat};
use dag_sched::{PanePool, RunOptions, RunSummary, ValidatedPlan};
use llm::testing::{FakeServer, RecordedRequest, Reply, Tokens, wire};
use llm::{Budgeted, ProviderKind, TokenBudget};
use tmux_habitat::{Server, Session, SessionOptions};

/// One test's world: a tmux server of its own, a fake model, a working directory.
pub struct World {
    /// Killed on drop (declared first, so it goes before its socket's directory).
    pub server: Server,
    pub session: Session,
    pub model: FakeServer,
    pub work: tempfile::TempDir,
    pub run_dir: tempfile::TempDir,
    pub pool: Arc<PanePool>,
}

impl World {
    pub async fn new() -> World {
        let server = Server::isolated().await.unwrap();
        let work = tempfile::tempdir().unwrap();
        let session = server.new_session(SessionOptions::new("agent").cwd(work.path())).await.unwrap();
        let pool = Arc::new(PanePool::new(session.clone()));
        World {
            server,
            session,
            model: FakeServer::start().await.unwrap(),
            work,
            run_dir: tempfile::tempdir().unwrap(),
            pool,
        }
    }

    /// Queues model replies, each an OpenAI completion with 100 tokens in and 10 out.
    pub fn replies(&self, texts: &[&str]) {
        for text in texts {
            self.model.push(Reply::json(200, wire::openai::completion(text, "stop", Tokens::new(100, 10))));
        }
    }

    /// Queues model replies reporting the given usage.
    pub fn replies_with_usage(&self, texts: &[&str], input: u64, output: u64) {
        for text in texts {
            self.model.push(Reply::json(200, wire::openai::completion(text, "stop", Tokens::new(input, output))));
        }
    }

    pub fn agent(&self) -> Agent {
        self.agent_with(AgentConfig::default(), None)
    }

    pub fn agent_with(&self, config: AgentConfig, budget: Option<Arc<TokenBudget>>) -> Agent {
        let mut model = llm::connect(self.model.config(ProviderKind::OpenAiCompatible)).unwrap();
        if let Some(budget) = &budget {
            model = Arc::new(Budgeted::new(model, budget.clone()));
        }
        let config = AgentConfig { reply_format: ReplyFormat::Schema, ..config };
        let mut builder = Agent::builder(model).pool(self.pool.clone()).config(config);
        if let Some(budget) = budget {
            builder = builder.budget(budget);
        }
        builder.build()
    }

    /// Runs a plan given as JSON with `agent`.
    pub async fn run(&self, agent: &Agent, plan: &str) -> RunSummary {
        let plan = ValidatedPlan::from_json(plan).unwrap();
        tokio::time::timeout(Duration::from_secs(60), agent.executor().run(&plan, RunOptions::new(self.run_dir.path())))
            .await
            .expect("the run finished within a minute")
            .unwrap()
    }

    /// One interactive subtask with `goal` on the pane `shell`.
    pub fn interactive(goal: &str) -> String {
        serde_json::json!({"version": 1, "subtasks": [{"id": "task", "pane": "shell", "mode": "interactive", "description": goal}]})
            .to_string()
    }

    /// The user message of every request the model got, the final looks left out.
    pub fn prompts(&self) -> Vec<String> {
        self.model.requests().iter().filter(|r| !is_look(r)).map(user_message).collect()
    }

    /// The user message of every final look at a result.
    pub fn looks(&self) -> Vec<String> {
        self.model.requests().iter().filter(|r| is_look(r)).map(user_message).collect()
    }

    /// The pane's scrollback and screen (what was ever typed or printed there).
    pub async fn history(&self, target: &str) -> String {
        let capture = tmux_habitat::Command::new("capture-pane").args(["-p", "-S", "-200", "-t", target]);
        self.server.tmux(capture).await.unwrap()
    }

    /// The names of the session's windows, one per line.
    pub async fn windows(&self) -> String {
        let list = tmux_habitat::Command::new("list-windows").args(["-t", "agent", "-F", "#{window_name}"]);
        self.server.tmux(list).await.unwrap()
    }

    /// The text of a file in the working directory.
    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.work.path().join(name)).unwrap_or_else(|e| panic!("reading {name}: {e}"))
    }
}

/// The last user message of a recorded OpenAI request.
pub fn user_message(request: &RecordedRequest) -> String {
    let messages = request.body["messages"].as_array().unwrap();
    messages.iter().rev().find(|m| m["role"] == "user").unwrap()["content"].as_str().unwrap().to_owned()
}

/// Whether a request is the final look at a result.
pub fn is_look(request: &RecordedRequest) -> bool {
    request.text().contains("You check whether a finished task did what it asked")
}

/// The final look's reply: the result is right (`yes`) or not.
pub fn look(yes: bool, reason: &str) -> String {
    serde_json::json!({"answer": if yes { "yes" } else { "no" }, "reason": reason}).to_string()
}

/// The final look's yes.
pub fn look_yes() -> String {
    look(true, "it does what the task asks")
}

/// An action as the model would write it.
pub fn run(command: &str) -> String {
    serde_json::json!({"action": "run", "command": command}).to_string()
}

pub fn keys(keys: &[&str]) -> String {
    serde_json::json!({"action": "keys", "keys": keys}).to_string()
}

pub fn done(summary: &str) -> String {
    serde_json::json!({"action": "done", "summary": summary}).to_string()
}
