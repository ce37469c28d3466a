//! Routing the fixed task list (`benches/routing_tasks.txt`) through the tiers: the share each tier settles,
//! the tokens routing spends per task, and the router's own time (`cargo bench -p clive-router --bench routing_tiers`).
//!
//! 1. With the scripted fake server (real wire format), which replies as an ideal classifier would (the kind
//!    listed for each task) and with a valid plan for planner tasks. Tokens are estimated from the request
//!    and reply sizes (4 bytes a token), since the fake does not tokenize. The router's time per task is set
//!    against a bare `ChatModel::chat` call to the same fake server, measured in the same run.
//! 2. With the local model, when `LOCAL_LLM_URL` is set (`scripts/local-llm/start.sh`): real token counts,
//!    the share per tier, and how many routes match the listed kind.

// A benchmark: a panic is a failed run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use clive_router::{Route, RouteContext, Routed, Router, RouterOptions, Tier};
use llm::testing::{FakeServer, Reply, Tokens, wire};
use llm::{ChatRequest, ProviderKind};
use serde_json::json;

const TASKS: &str = include_str!("routing_tasks.txt");
const FAKE_PLAN: &str = r#"{"subtasks":[{"id":"work","pane":"shell","mode":"script","description":"do the work, write result.txt","command":"","depends_on":[]},{"id":"report","pane":"shell","mode":"llm","description":"summarise result.txt","command":"","depends_on":["work"]}]}"#;

struct Task {
    expected: String,
    text: String,
    reply: String,
}

fn tasks() -> Vec<Task> {
    TASKS
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let mut fields = line.split('\t');
            let expected = fields.next().unwrap().to_owned();
            let text = fields.next().unwrap().to_owned();
            Task { expected, text, reply: fields.next().unwrap_or_default().to_owned() }
        })
        .collect()
}

/// The listed kind a route corresponds to.
fn kind_of(routed: &Routed) -> &'static str {
    match (&routed.route, routed.tier) {
        (Route::Direct(_), Tier::Direct) => "direct",
        (Route::Direct(_), _) => "command",
        (Route::Answer(_), _) => "answer",
        (Route::Clarify(_), _) => "ask",
        (Route::Plan(_), Tier::Planner) => "plan",
        (Route::Plan(plan), _) => match plan.plan.subtasks[0].mode {
            dag_sched::Mode::Script => "program",
            dag_sched::Mode::Interactive => "drive",
            _ => "write",
        },
        _ => "other",
    }
}

#[derive(Default)]
struct Tally {
    per_tier: [usize; 3],
    matches: usize,
    tokens: u64,
    tier1_tokens: Vec<u64>,
    errors: usize,
    latencies: Vec<Duration>,
}

impl Tally {
    fn add(&mut self, expected: &str, routed: &Routed, tokens: u64, latency: Duration) {
        self.per_tier[routed.tier.number() as usize] += 1;
        self.matches += usize::from(kind_of(routed) == expected);
        self.tokens += tokens;
        if routed.tier == Tier::Classifier {
            self.tier1_tokens.push(tokens);
        }
        if routed.tier != Tier::Direct {
            self.latencies.push(latency);
        }
    }

    fn print(&mut self, title: &str, count: usize, token_note: &str) {
        let share = |n: usize| 100.0 * n as f64 / count as f64;
        println!("{title}: {count} tasks");
        for (tier, name) in ["tier 0 (direct)", "tier 1 (classifier)", "tier 2 (planner)"].iter().enumerate() {
            println!("  {name:<20} {:>3} tasks  {:>5.1} %", self.per_tier[tier], share(self.per_tier[tier]));
        }
        println!("  tiers 0 and 1 settle  {:>5.1} % (goal: at least 60 %)", share(self.per_tier[0] + self.per_tier[1]));
        if self.errors > 0 {
            println!("  routing errors        {:>3}", self.errors);
        }
        println!("  route matches the list {:>2} of {count}", self.matches);
        println!("  routing tokens per task{token_note}: {:.0} mean over all tasks", self.tokens as f64 / count as f64);
        if !self.tier1_tokens.is_empty() {
            let mean = self.tier1_tokens.iter().sum::<u64>() as f64 / self.tier1_tokens.len() as f64;
            let max = self.tier1_tokens.iter().max().copied().unwrap_or(0);
            println!("  tasks settled at tier 1: {mean:.0} tokens mean, {max} max (goal: under 600)");
        }
        self.latencies.sort();
        if let Some(median) = self.latencies.get(self.latencies.len() / 2) {
            println!("  routing wall time per task a model routed: median {:.2} ms", median.as_secs_f64() * 1000.0);
        }
    }
}

/// Every task routed afresh.
fn no_cache() -> RouterOptions {
    let mut options = RouterOptions::default();
    options.plan_cache_entries = 0;
    options
}

/// Tokens estimated from bytes (the fake does not tokenize): 4 bytes a token.
fn estimate(bytes: usize) -> u64 {
    bytes.div_ceil(4) as u64
}

async fn with_fake(tasks: &[Task]) {
    let server = FakeServer::start().await.unwrap();
    let model = llm::connect(server.config(ProviderKind::OpenAiCompatible)).unwrap();
    let router = Router::with_options(model.clone(), no_cache());
    let context = RouteContext::new();
    let reply = |text: &str| Reply::json(200, wire::openai::completion(text, "stop", Tokens::new(0, 0)));
    // Each reply is served only to a request about its task: a task another tier settles leaves its reply
    // unserved without shifting the replies of the tasks after it. (A needle is matched anywhere in a request, the
    // few-shot examples included: `clean up` is in one of them, so its reply must be consumed where it is pushed.)
    let push = |task: &str, text: &str| server.push_matching(task, reply(text));

    let mut tally = Tally::default();
    // The tasks the classifier alone routed (one request): those the timing below replays.
    let mut model_tasks: Vec<&Task> = Vec::new();
    for task in tasks {
        let before = server.requests().len();
        if task.expected != "direct" {
            let kind = if task.expected == "plan" { "plan" } else { task.expected.as_str() };
            push(&task.text, &json!({"kind": kind, "text": task.reply}).to_string());
            if task.expected == "plan" {
                push(&task.text, FAKE_PLAN);
            }
        }
        let started = Instant::now();
        let routed = router.route(&task.text, &context).await.unwrap();
        let latency = started.elapsed();
        let requests = server.requests();
        let mut tokens = 0;
        for request in &requests[before..] {
            let messages = request.body["messages"].as_array().unwrap();
            let sent: usize = messages.iter().map(|m| m["content"].as_str().unwrap_or_default().len() + 4).sum();
            tokens += estimate(sent);
        }
        let replies = if task.expected == "plan" { 1 + FAKE_PLAN.len() / 4 } else { 0 };
        tokens += estimate(task.reply.len() + 24) * u64::from(task.expected != "direct") + replies as u64;
        if requests.len() - before == 1 && routed.tier == Tier::Classifier {
            model_tasks.push(task);
        }
        tally.add(&task.expected, &routed, tokens, latency);
    }
    tally.print("scripted fake (an ideal classifier)", tasks.len(), " (≈ bytes/4)");

    // The router's own time against a bare call to the same server, per model task.
    if model_tasks.is_empty() {
        println!("  tier-1 routing time: no task was routed by the classifier alone");
        return;
    }
    let rounds = 31;
    let mut routed_times = Vec::new();
    let mut bare_times = Vec::new();
    for _ in 0..rounds {
        let mut routed_total = Duration::ZERO;
        let mut bare_total = Duration::ZERO;
        for task in &model_tasks {
            push(&task.text, &json!({"kind": task.expected, "text": task.reply}).to_string());
            let started = Instant::now();
            router.route(&task.text, &context).await.unwrap();
            routed_total += started.elapsed();
            push(&task.text, "{}");
            let started = Instant::now();
            model.chat(&ChatRequest::new(task.text.as_str()).max_tokens(200)).await.unwrap();
            bare_total += started.elapsed();
        }
        routed_times.push(routed_total / model_tasks.len() as u32);
        bare_times.push(bare_total / model_tasks.len() as u32);
    }
    routed_times.sort();
    bare_times.sort();
    let (routed, bare) = (routed_times[rounds / 2], bare_times[rounds / 2]);
    println!(
        "  tier-1 routing time per task, fake server: median {:.0} µs; bare chat call {:.0} µs (baseline); router's own share {:.0} µs ({:.2}x)",
        routed.as_secs_f64() * 1e6,
        bare.as_secs_f64() * 1e6,
        (routed.saturating_sub(bare)).as_secs_f64() * 1e6,
        routed.as_secs_f64() / bare.as_secs_f64()
    );
}

async fn with_local_model(tasks: &[Task]) {
    let model = llm::connect(llm::testing::local_model_config(ProviderKind::OpenAiCompatible)).unwrap();
    let router = Router::with_options(model, no_cache());
    let context = RouteContext::new();
    let mut tally = Tally::default();
    let verbose = std::env::var_os("ROUTING_BENCH_VERBOSE").is_some();
    for task in tasks {
        let started = Instant::now();
        match router.route(&task.text, &context).await {
            Ok(routed) => {
                let usage = routed.usage();
                let tokens = usage.input_tokens + usage.output_tokens;
                if verbose {
                    println!("  {:<8} {:<8} {:>5} tok  {}", task.expected, kind_of(&routed), tokens, task.text);
                }
                tally.add(&task.expected, &routed, tokens, started.elapsed());
            }
            Err(error) => {
                let tokens: u64 = error.steps().iter().map(|s| s.tokens()).sum();
                if verbose {
                    println!("  {:<8} {:<8} {:>5} tok  {}: {error}", task.expected, "error", tokens, task.text);
                }
                tally.errors += 1;
                tally.tokens += tokens;
                tally.per_tier[2] += 1;
            }
        }
    }
    tally.print("local model (Qwen2.5-Coder-0.5B, llama.cpp)", tasks.len(), "");
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let tasks = tasks();
    runtime.block_on(with_fake(&tasks));
    match std::env::var(llm::testing::local::LOCAL_LLM_URL).ok().filter(|url| !url.trim().is_empty()) {
        Some(_) => runtime.block_on(with_local_model(&tasks)),
        None => println!(
            "local model: skipped (LOCAL_LLM_URL is unset; export LOCAL_LLM_URL=\"$(scripts/local-llm/start.sh)\")"
        ),
    }
}
