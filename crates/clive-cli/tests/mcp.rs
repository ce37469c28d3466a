//! `clive mcp` driven by rmcp's client over stdio: the real binary, a real tmux server per test, the real
//! sandbox. Every tool, bad arguments, a command that outlives its deadline, and calls in flight together.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;
use std::time::Duration;

use clive_mcp::params::{PanesResult, RunResult, ScreenResult, SendResult, StartResult, TypeResult, WaitResult};
use rmcp::model::{CallToolRequestParams, CallToolResult, ReadResourceRequestParams, ResourceContents};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use support::World;

type Client = RunningService<RoleClient, ()>;

/// Every call of these tests ends well within this, or the test fails.
const CALL_DEADLINE: Duration = Duration::from_secs(60);

/// `clive mcp` with `args`, working in `dir`, as an MCP client's child process.
async fn connect(world: &World, dir: &Path, args: &[&str]) -> Client {
    let mut command = world.command(&[&["mcp"], args].concat());
    command.current_dir(dir).env("LANE_SEND_HOME", world.dir.path().join("lane-send"));
    let transport = TokioChildProcess::new(tokio::process::Command::from(command)).unwrap();
    tokio::time::timeout(CALL_DEADLINE, ().serve(transport)).await.expect("initialise in time").unwrap()
}

async fn call(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else { panic!("arguments must be an object") };
    let request = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    tokio::time::timeout(CALL_DEADLINE, client.call_tool(request)).await.expect("the call answers in time").unwrap()
}

fn text_of(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n")
}

/// The structured result of a call that succeeded.
fn ok<T: DeserializeOwned>(result: &CallToolResult) -> T {
    assert_ne!(result.is_error, Some(true), "the call failed: {}", text_of(result));
    assert!(!text_of(result).is_empty(), "no short text beside the structured content");
    serde_json::from_value(result.structured_content.clone().expect("structured content")).unwrap()
}

/// The text of a call that failed as a tool error.
fn failed(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "the call should have failed: {}", text_of(result));
    text_of(result)
}

async fn screen(client: &Client, pane: &str) -> String {
    ok::<ScreenResult>(&call(client, "screen", json!({ "pane": pane })).await).screen.unwrap()
}

#[test]
fn every_tool_over_stdio() {
    let world = World::new();
    let work = world.dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    world.block_on(async {
        let client = connect(&world, &work, &[]).await;
        let info = client.peer_info().expect("server info");
        assert!(info.instructions.as_deref().unwrap_or_default().contains("sandbox"), "{info:?}");
        let tools = client.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, clive_mcp::TOOL_NAMES);
        assert!(
            tools.iter().all(|t| t.output_schema.is_some() && t.input_schema.get("type") == Some(&json!("object")))
        );
        let run = &tools[0].input_schema;
        assert_eq!(run["required"], json!(["command"]), "{run:?}");

        // run: exit code, output only, the pane, the duration; in the sandbox, in the working directory.
        let run: RunResult = ok(&call(&client, "run", json!({ "command": "printf 'hi\\n'; pwd; (exit 3)" })).await);
        assert_eq!((run.exit_code, run.pane.as_str()), (3, "shell"));
        assert_eq!(run.output, format!("hi\n{}\n", work.display()));
        let sub = work.join("sub");
        std::fs::create_dir(&sub).unwrap();
        let run: RunResult =
            ok(&call(&client, "run", json!({ "command": "pwd; touch made", "cwd": sub.display().to_string() })).await);
        assert_eq!(run.output, format!("{}\n", sub.display()));
        assert!(sub.join("made").exists());
        // The directory was this command's only.
        let run: RunResult = ok(&call(&client, "run", json!({ "command": "pwd" })).await);
        assert_eq!(run.output, format!("{}\n", work.display()));

        // start, type, wait, screen: an interactive program in a pane of its own.
        let started: StartResult =
            ok(&call(&client, "start", json!({ "command": "read -r -p 'name? ' n; echo \"hello $n\"" })).await);
        assert_eq!(started.pane, "read");
        assert_eq!((started.screen.trim_end(), started.exited), ("name?", false), "{started:?}");
        let typed: TypeResult =
            ok(&call(&client, "type", json!({ "pane": "read", "text": "ana", "keys": ["Enter"] })).await);
        assert_eq!((typed.text_chars, typed.keys.as_slice()), (3, ["Enter".to_owned()].as_slice()));
        let waited: WaitResult =
            ok(&call(&client, "wait", json!({ "pane": "read", "for": "exit", "timeout_secs": 20 })).await);
        assert!(waited.happened);
        assert_eq!(waited.exit_code, Some(0));
        assert!(waited.output.unwrap_or_default().contains("hello ana"));
        ok::<ScreenResult>(&call(&client, "screen", json!({ "pane": "read" })).await);
        ok::<RunResult>(&call(&client, "run", json!({ "command": "echo again", "pane": "read" })).await);
        let diff: ScreenResult = ok(&call(&client, "screen", json!({ "pane": "read", "since": "last" })).await);
        assert!(diff.changed && diff.diff.unwrap_or_default().contains("+ again"));

        // wait for text and for quiet.
        ok::<StartResult>(
            &call(&client, "start", json!({ "command": "sleep 0.3; echo ready-now; sleep 30", "pane": "slow" })).await,
        );
        let waited: WaitResult = ok(&call(
            &client,
            "wait",
            json!({ "pane": "slow", "for": "text", "text": "ready-now", "timeout_secs": 20 }),
        )
        .await);
        assert!(waited.happened && waited.screen.contains("ready-now"));
        let waited: WaitResult =
            ok(&call(&client, "wait", json!({ "pane": "slow", "for": "quiet", "quiet_ms": 200, "timeout_secs": 20 }))
                .await);
        assert!(waited.happened);
        let missed: WaitResult =
            ok(&call(&client, "wait", json!({ "pane": "slow", "for": "text", "text": "never", "timeout_secs": 0.3 }))
                .await);
        assert!(!missed.happened, "{missed:?}");

        // panes: names, states and exit codes.
        let panes: PanesResult = ok(&call(&client, "panes", json!({})).await);
        let state = |name: &str| {
            let pane = panes.panes.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("{name}: {panes:?}"));
            (serde_json::to_value(pane.state).unwrap(), pane.exit_code)
        };
        assert_eq!(state("shell"), (json!("idle"), Some(0)));
        assert_eq!(state("read"), (json!("idle"), Some(0)));
        assert_eq!(state("slow"), (json!("running"), None));
        assert!(panes.session.starts_with("clive-"));
        // The session is clive's: `clive sessions` lists it while it serves.
        let sessions = world.sessions();
        assert!(
            sessions.iter().any(|s| s["session"] == panes.session.as_str() && s["state"] == "running"),
            "{sessions:?}"
        );

        // resources: each pane's screen and recording.
        let resources = client.list_all_resources().await.unwrap();
        let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
        assert!(
            uris.contains(&"clive://pane/shell/screen") && uris.contains(&"clive://pane/read/recording"),
            "{uris:?}"
        );
        let read = client.read_resource(ReadResourceRequestParams::new("clive://pane/read/screen")).await.unwrap();
        let ResourceContents::TextResourceContents { text, .. } = &read.contents[0] else { panic!("{read:?}") };
        assert!(text.contains("again"), "{text}");

        // send: lane-send's outcome, here held because no such lane lives on the server.
        let socket = world.socket.display().to_string();
        let sent: SendResult =
            ok(&call(&client, "send", json!({ "lane": "nobody", "message": "tester: hello", "socket": socket })).await);
        assert_eq!((sent.outcome.as_str(), sent.stage.as_deref()), ("held", Some("not_pasted")));
        assert!(sent.reason.contains("not found"), "{sent:?}");

        client.cancel().await.unwrap();
    });
    // The client left: the session is gone.
    assert!(world.tmux_sessions().iter().all(|s| !s.starts_with("clive-")), "{:?}", world.tmux_sessions());
}

#[test]
fn bad_arguments_are_clear_errors_and_nothing_is_typed() {
    let world = World::new();
    world.block_on(async {
        let client = connect(&world, world.dir.path(), &[]).await;
        // The shell has drawn its prompt (it may come just after the pane reported ready).
        let settled: WaitResult =
            ok(&call(&client, "wait", json!({ "pane": "shell", "for": "quiet", "quiet_ms": 300 })).await);
        assert!(settled.happened);
        let before = screen(&client, "shell").await;
        let cases = [
            ("run", json!({}), "missing field `command`"),
            ("run", json!({ "command": "ls", "timeout": 5 }), "unknown field `timeout`"),
            ("run", json!({ "command": "ls", "timeout_secs": -1 }), "timeout_secs"),
            ("run", json!({ "command": "  " }), "`command` is empty"),
            ("run", json!({ "command": "ls", "pane": "a b" }), "pane name"),
            ("run", json!({ "command": "ls", "cwd": "/no/such/dir" }), "not a directory"),
            ("run", json!({ "command": "rm -rf ~" }), "refused by the safety gate"),
            ("start", json!({ "command": "sudo rm -rf /" }), "refused by the safety gate"),
            ("type", json!({ "pane": "shell" }), "give `text`, `keys` or both"),
            ("type", json!({ "pane": "shell", "text": "x", "keys": ["Enter", "Ctrl+Q+Z"] }), "is not a key name"),
            ("type", json!({ "pane": "shell", "text": "rm -rf /", "keys": ["Enter"] }), "refused by the safety gate"),
            ("type", json!({ "pane": "nowhere", "keys": ["Enter"] }), "no pane named `nowhere`"),
            ("screen", json!({ "pane": "shell", "since": "yesterday" }), "unknown variant"),
            ("wait", json!({ "pane": "shell", "for": "text" }), "needs the `text`"),
            ("wait", json!({ "pane": "shell", "for": "exit" }), "nothing was started"),
            ("wait", json!({ "pane": "shell", "for": "soon" }), "unknown variant `soon`"),
            ("send", json!({ "lane": "x", "message": "not signed at all" }), "sign"),
        ];
        for (tool, arguments, expected) in cases {
            let message = failed(&call(&client, tool, arguments.clone()).await);
            assert!(message.contains(expected), "{tool} {arguments}: {message}");
        }
        let unknown = client.call_tool(CallToolRequestParams::new("format_disk")).await.unwrap_err().to_string();
        assert!(unknown.contains("unknown tool `format_disk`") && unknown.contains("run, start"), "{unknown}");
        // Nothing reached the pane.
        assert_eq!(screen(&client, "shell").await, before);
        let panes: PanesResult = ok(&call(&client, "panes", json!({})).await);
        assert_eq!(panes.panes.len(), 1, "{panes:?}");
        client.cancel().await.unwrap();
    });
}

#[test]
fn a_command_that_outlives_its_deadline_keeps_running_and_can_be_waited_for() {
    let world = World::new();
    world.block_on(async {
        let client = connect(&world, world.dir.path(), &["--no-sandbox"]).await;
        let timed_out = failed(
            &call(&client, "run", json!({ "command": "echo started; sleep 2; echo finished", "timeout_secs": 0.5 }))
                .await,
        );
        assert!(timed_out.contains("still runs in pane `shell`") && timed_out.contains("started"), "{timed_out}");
        // The busy pane is left alone: the next command gets a pane of its own, and naming the busy one is refused.
        let other: RunResult = ok(&call(&client, "run", json!({ "command": "echo other" })).await);
        assert_eq!((other.pane.as_str(), other.output.as_str()), ("shell-2", "other\n"));
        let busy = failed(&call(&client, "run", json!({ "command": "echo x", "pane": "shell" })).await);
        assert!(busy.contains("pane `shell` is busy") && busy.contains("Nothing was typed"), "{busy}");
        let waited: WaitResult =
            ok(&call(&client, "wait", json!({ "pane": "shell", "for": "exit", "timeout_secs": 20 })).await);
        assert_eq!(waited.exit_code, Some(0));
        assert_eq!(waited.output.as_deref(), Some("started\nfinished\n"));
        let again: RunResult = ok(&call(&client, "run", json!({ "command": "echo free", "pane": "shell" })).await);
        assert_eq!(again.output, "free\n");
        // Long output keeps its start and end and marks the cut.
        let long: RunResult = ok(&call(&client, "run", json!({ "command": "seq 1 20000" })).await);
        assert!(long.truncated && long.output.starts_with("1\n2\n") && long.output.ends_with("20000\n"));
        assert!(long.output.contains("cut here"), "{}", long.output.len());
        client.cancel().await.unwrap();
    });
}

#[test]
fn two_calls_in_flight_at_once_do_not_wait_for_each_other() {
    let world = World::new();
    world.block_on(async {
        let client = connect(&world, world.dir.path(), &["--no-sandbox"]).await;
        ok::<RunResult>(&call(&client, "run", json!({ "command": "true", "pane": "a" })).await);
        let mut slow =
            Box::pin(call(&client, "run", json!({ "command": "echo begun; sleep 3; echo slow", "pane": "a" })));
        let quick = async {
            // Once the slow command runs (it printed its first line), a quick one in another pane.
            let waited: WaitResult =
                ok(&call(&client, "wait", json!({ "pane": "a", "for": "text", "text": "begun", "timeout_secs": 20 }))
                    .await);
            assert!(waited.happened, "{waited:?}");
            let started = tokio::time::Instant::now();
            let quick: RunResult = ok(&call(&client, "run", json!({ "command": "echo quick", "pane": "b" })).await);
            let panes: PanesResult = ok(&call(&client, "panes", json!({})).await);
            (quick, started.elapsed(), panes)
        };
        let (quick, took, panes) = tokio::select! {
            done = quick => done,
            result = &mut slow => panic!("the slow call ended first: {}", text_of(&result)),
        };
        assert_eq!(quick.output, "quick\n");
        assert!(took < Duration::from_secs(2), "the quick call waited for the slow one: {took:?}");
        let a = panes.panes.iter().find(|p| p.name == "a").unwrap();
        assert_eq!(serde_json::to_value(a.state).unwrap(), "running", "{panes:?}");
        let slow_result: RunResult = ok(&(&mut slow).await);
        drop(slow);
        assert_eq!(slow_result.output, "begun\nslow\n");
        client.cancel().await.unwrap();
    });
}
