//! What the client adds on top of a bare HTTP exchange, against the local fake server.
//!
//! Baseline, measured in the same run: a bare `reqwest` POST that reads the same reply's bytes without parsing.
//! Measured: `ChatModel::chat` (request building, retry loop, JSON parsing) and `ChatModel::chat_stream` over a
//! 1,000-delta Anthropic stream (SSE framing and event decoding). Prints medians and the ratio to the baseline.
//! Run: `cargo bench -p clive-models --bench client_overhead`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a bench may panic on the unexpected

use std::time::{Duration, Instant};

use clive_models::testing::{FakeServer, Reply, Tokens, wire};
use clive_models::{ChatRequest, ProviderKind};
use futures_util::StreamExt;

const ROUNDS: usize = 200;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort_unstable();
    samples[samples.len() / 2]
}

fn report(name: &str, measured: Duration, baseline: Duration) {
    let ratio = measured.as_secs_f64() / baseline.as_secs_f64();
    println!(
        "{name:<34} median {:>9.1} µs   baseline {:>9.1} µs   ratio {ratio:.2}",
        micros(measured),
        micros(baseline)
    );
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let server = FakeServer::start().await.unwrap();
    let model = clive_models::connect(server.config(ProviderKind::Anthropic)).unwrap();
    let raw = reqwest::Client::new();
    let url = format!("{}/v1/messages", server.url());
    let request = ChatRequest::new("hi").system("You are terse.").max_tokens(64);
    let body = serde_json::json!({"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]});

    let plain_reply = || Reply::json(200, wire::anthropic::message("Hello there", "end_turn", Tokens::new(20, 3)));
    let (mut measured, mut baseline) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        server.push(plain_reply());
        let started = Instant::now();
        raw.post(&url).json(&body).send().await.unwrap().bytes().await.unwrap();
        baseline.push(started.elapsed());
        server.push(plain_reply());
        let started = Instant::now();
        model.chat(&request).await.unwrap();
        measured.push(started.elapsed());
    }
    report("chat (one JSON reply)", median(measured), median(baseline));

    let deltas: Vec<String> = (0..1000).map(|i| format!("word{i} ")).collect();
    let deltas: Vec<&str> = deltas.iter().map(String::as_str).collect();
    let stream_reply = || Reply::sse(wire::anthropic::stream(&deltas, "end_turn", Tokens::new(20, 1000)));
    let (mut measured, mut baseline) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS / 4 {
        server.push(stream_reply());
        let started = Instant::now();
        let mut bytes = raw.post(&url).json(&body).send().await.unwrap().bytes_stream();
        while let Some(chunk) = bytes.next().await {
            chunk.unwrap();
        }
        baseline.push(started.elapsed());
        server.push(stream_reply());
        let started = Instant::now();
        let mut events = 0;
        let mut stream = model.chat_stream(&request).await.unwrap();
        while let Some(event) = stream.next().await {
            event.unwrap();
            events += 1;
        }
        assert_eq!(events, 1001);
        measured.push(started.elapsed());
    }
    report("chat_stream (1,000 SSE deltas)", median(measured), median(baseline));
}
