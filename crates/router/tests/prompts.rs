//! What the models see: the classifier's and the planner's requests as they go over the wire (OpenAI format,
//! through the fake server), rendered readably and kept as insta snapshots.

// Test helpers: a panic is a test failure.
#![allow(clippy::unwrap_used)]

use clive_router::{PaneInfo, RouteContext, Router, WorkDir};
use llm::ProviderKind;
use llm::testing::{FakeServer, RecordedRequest, Reply, Tokens, wire};

fn render(request: &RecordedRequest) -> String {
    let body = &request.body;
    let mut text = format!(
        "model: {}\nmax_completion_tokens: {}\ntemperature: {}\n",
        body["model"], body["max_completion_tokens"], body["temperature"]
    );
    for message in body["messages"].as_array().unwrap() {
        text.push_str(&format!(
            "\n### {}\n{}\n",
            message["role"].as_str().unwrap(),
            message["content"].as_str().unwrap()
        ));
    }
    let schema = &body["response_format"]["json_schema"];
    text.push_str(&format!(
        "\n### response_format `{}`\n{}\n",
        schema["name"],
        serde_json::to_string(&schema["schema"]).unwrap()
    ));
    text
}

fn context() -> RouteContext {
    RouteContext::new()
        .pane(PaneInfo::new("shell", "shell"))
        .pane(PaneInfo::new("web", "browser"))
        .tools(["git", "jq", "python3", "curl"])
        .workdir(WorkDir {
            name: "clive".into(),
            entries: vec!["crates/".into(), "docs/".into(), "Cargo.toml".into(), "README.md".into()],
            more: 3,
        })
        .past_task("count the lines of Cargo.toml", Some("ran wc -l Cargo.toml".into()))
}

async fn requests(context: &RouteContext, replies: &[&str]) -> Vec<RecordedRequest> {
    let server = FakeServer::start().await.unwrap();
    for text in replies {
        server.push(Reply::json(200, wire::openai::completion(text, "stop", Tokens::new(1, 1))));
    }
    let model = llm::connect(server.config(ProviderKind::OpenAi).fast_model("fast").default_model("default")).unwrap();
    let _ = Router::new(model).route("summarise the open issues of this repository", context).await;
    server.requests()
}

#[tokio::test]
async fn classifier_prompt() {
    let seen = requests(&RouteContext::new(), &[r#"{"kind":"write","text":""}"#]).await;
    insta::assert_snapshot!("classifier_bare", render(&seen[0]));
    let seen = requests(&context(), &[r#"{"kind":"write","text":"","pane":"shell"}"#]).await;
    insta::assert_snapshot!("classifier_with_context", render(&seen[0]));
}

#[tokio::test]
async fn planner_prompt_and_correction() {
    let bad =
        r#"{"subtasks":[{"id":"a","pane":"shell","mode":"llm","description":"x","command":"","depends_on":["b"]}]}"#;
    let good =
        r#"{"subtasks":[{"id":"a","pane":"shell","mode":"llm","description":"x","command":"","depends_on":[]}]}"#;
    let seen = requests(&context(), &[r#"{"kind":"plan","text":"","pane":"shell"}"#, bad, good]).await;
    insta::assert_snapshot!("planner", render(&seen[1]));
    insta::assert_snapshot!("planner_correction", render(&seen[2]));
}

/// A task that addresses an agent after local work: the planner is told of the agent and the `remote` mode, and
/// its reply places the remote subtask after the local one it depends on.
#[tokio::test]
async fn planner_prompt_with_agents() {
    let server = FakeServer::start().await.unwrap();
    let reply = r#"{"subtasks":[{"id":"size","pane":"shell","mode":"direct","description":"print the size","command":"du -sh .","depends_on":[],"host":""},{"id":"room","pane":"agent-room","mode":"remote","description":"check that it has room for it","command":"","depends_on":["size"],"host":"backup"}]}"#;
    server.push(Reply::json(200, wire::openai::completion(reply, "stop", Tokens::new(1, 1))));
    let model = llm::connect(server.config(ProviderKind::OpenAi).fast_model("fast").default_model("default")).unwrap();
    let context = context().agent("backup");
    let task = "measure this directory, then clive@backup check that it has room for it";
    let (plan, _) = Router::new(model).plan(task, &context).await.unwrap();
    insta::assert_snapshot!("planner_with_agents", render(&server.requests()[0]));
    assert_eq!(plan.subtasks[1].host.as_deref(), Some("backup"));
    assert_eq!(plan.subtasks[1].depends_on, ["size"]);
}
