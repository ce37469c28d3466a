//! A `run` call's overhead over the command's own time: `true` run through MCP (rmcp's client, the server over
//! an in-process pipe, JSON-RPC both ways) against `Pane::run` of the same command on the same tmux server in
//! the same run, alternated so both see the same machine.
//!
//! `cargo bench -p clive-mcp --bench overhead` (`CLIVE_BENCH_RUNS` changes the 200 runs per row).

#![allow(clippy::expect_used, clippy::unwrap_used, missing_docs)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use clive_mcp::params::RunResult;
use clive_mcp::{Habitat, HabitatOptions, McpServer};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use tmux_habitat::Server;

fn main() {
    let runs: usize = std::env::var("CLIVE_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(bench(runs));
}

async fn bench(runs: usize) {
    let server = Server::isolated().await.expect("tmux server");
    let dir = tempfile::tempdir().unwrap();
    let options =
        HabitatOptions { launcher: toolbox::Launcher::new(dir.path()), gate: Default::default(), recordings: None };
    let habitat = Arc::new(Habitat::open(&server, "bench", options).await.expect("session"));
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let mcp = McpServer::new(Arc::clone(&habitat));
    tokio::spawn(async move { mcp.serve(server_io).await });
    let client = ().serve(client_io).await.expect("MCP client");
    // The baseline pane: a shell like the MCP server's, opened the same way.
    let baseline = toolbox::Launcher::new(dir.path()).open(habitat.session(), "baseline").await.expect("pane");

    let arguments = serde_json::json!({ "command": "true", "pane": "shell" });
    let serde_json::Value::Object(arguments) = arguments else { unreachable!() };
    let mut direct = Vec::with_capacity(runs);
    let mut through_mcp = Vec::with_capacity(runs);
    for i in 0..runs + 10 {
        let started = Instant::now();
        let out = baseline.run("true", Duration::from_secs(10)).await.expect("Pane::run");
        let direct_time = started.elapsed();
        assert_eq!(out.exit_code, 0);

        let started = Instant::now();
        let request = CallToolRequestParams::new("run").with_arguments(arguments.clone());
        let result = client.call_tool(request).await.expect("run call");
        let mcp_time = started.elapsed();
        let run: RunResult = serde_json::from_value(result.structured_content.expect("structured")).unwrap();
        assert_eq!(run.exit_code, 0);
        // The first runs warm up both paths.
        if i >= 10 {
            direct.push(direct_time);
            through_mcp.push(mcp_time);
        }
    }
    client.cancel().await.ok();
    habitat.close().await;

    let direct = median(&mut direct);
    let mcp = median(&mut through_mcp);
    let version = server.tmux_version().await.map(|v| v.to_string()).unwrap_or_default();
    println!("`run` of `true` through MCP against Pane::run, tmux {version}, {runs} runs each, medians:");
    println!("  Pane::run (baseline)                      {:>8.3} ms", ms(direct));
    println!("  MCP `run` call (client to result)         {:>8.3} ms  {:.2}x baseline", ms(mcp), ratio(mcp, direct));
    println!("  the call's overhead over the command      {:>8.3} ms", ms(mcp.saturating_sub(direct)));
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}
