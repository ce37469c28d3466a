//! Benchmarks of the DAG executor (`cargo bench -p dag-sched`).
//!
//! 1. Scheduling overhead: a 1,000-subtask random DAG on 16 panes with a runner that does
//!    nothing, against a baseline of spawning and joining 1,000 empty tasks in the same run.
//! 2. Wall time of N independent `sleep 1` subtasks on N panes (real tmux), N = 1, 2, 4, 8,
//!    against the ideal of 1 s; cold (panes created on demand) and warm (panes exist).
//!
//! Prints medians. `DAG_BENCH_QUICK=1` runs fewer iterations; `DAG_BENCH_ONLY=overhead|sleeps` runs one
//! part; `DAG_BENCH_DIR=/dev/shm` puts the overhead runs' directories there.

// A benchmark binary: a failed setup is a crash with a message.
#![allow(clippy::expect_used)]
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use dag_sched::{
    DagError, Executor, Mode, Plan, RunOptions, RunOutcome, RunRequest, Runner, ShellRunner, Subtask, ValidatedPlan,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tmux_habitat::{Server, SessionOptions};

/// A runner that returns success at once.
struct NoopRunner;

#[async_trait]
impl Runner for NoopRunner {
    async fn run(&self, _request: RunRequest) -> Result<RunOutcome, DagError> {
        Ok(RunOutcome::from_exit_code(0, ""))
    }
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn random_dag(count: usize, panes: usize, seed: u64) -> ValidatedPlan {
    let mut rng = StdRng::seed_from_u64(seed);
    let subtasks = (0..count)
        .map(|i| {
            let mut depends_on: Vec<String> = Vec::new();
            if i > 0 {
                for _ in 0..rng.random_range(0..=3usize) {
                    let dependency = format!("t{}", rng.random_range(0..i));
                    if !depends_on.contains(&dependency) {
                        depends_on.push(dependency);
                    }
                }
            }
            Subtask {
                id: format!("t{i}"),
                description: String::new(),
                pane: format!("p{}", rng.random_range(0..panes)),
                mode: Mode::Direct,
                command: Some("true".into()),
                depends_on,
                timeout: None,
                host: None,
            }
        })
        .collect();
    ValidatedPlan::new(Plan { version: 1, panes: None, subtasks }).expect("the generated DAG is valid")
}

fn bench_overhead(runtime: &tokio::runtime::Runtime, iterations: usize) {
    const COUNT: usize = 1000;
    let plan = random_dag(COUNT, 16, 7);
    let executor = Executor::new().with_runner(Mode::Direct, Arc::new(NoopRunner));
    let mut executor_times = Vec::new();
    let mut baseline_times = Vec::new();
    for _ in 0..iterations {
        let dir = match std::env::var_os("DAG_BENCH_DIR") {
            Some(base) => tempfile::tempdir_in(base).expect("temp dir"),
            None => tempfile::tempdir().expect("temp dir"),
        };
        let started = Instant::now();
        let summary = runtime.block_on(executor.run(&plan, RunOptions::new(dir.path()))).expect("run");
        executor_times.push(started.elapsed());
        assert!(summary.all_succeeded());

        let started = Instant::now();
        runtime.block_on(async {
            let mut set = tokio::task::JoinSet::new();
            for _ in 0..COUNT {
                set.spawn(async {});
            }
            while set.join_next().await.is_some() {}
        });
        baseline_times.push(started.elapsed());
    }
    let executor_median = median(executor_times);
    let baseline_median = median(baseline_times);
    println!("scheduling overhead, {COUNT}-subtask random DAG on 16 panes, no-op runner ({iterations} runs):");
    println!(
        "  executor median {:>9.2} ms  ({:.1} µs per subtask, including context.json/result.json files)",
        executor_median.as_secs_f64() * 1e3,
        executor_median.as_secs_f64() * 1e6 / COUNT as f64
    );
    println!(
        "  baseline median {:>9.2} ms  (spawn + join {COUNT} empty tasks); ratio {:.0}x",
        baseline_median.as_secs_f64() * 1e3,
        executor_median.as_secs_f64() / baseline_median.as_secs_f64()
    );
}

fn sleeps_plan(n: usize) -> ValidatedPlan {
    let subtasks = (0..n)
        .map(|i| Subtask {
            id: format!("s{i}"),
            description: String::new(),
            pane: format!("pane{i}"),
            mode: Mode::Direct,
            command: Some("sleep 1".into()),
            depends_on: Vec::new(),
            timeout: None,
            host: None,
        })
        .collect();
    ValidatedPlan::new(Plan { version: 1, panes: None, subtasks }).expect("valid plan")
}

fn bench_parallel_sleeps(runtime: &tokio::runtime::Runtime, iterations: usize) {
    println!("N independent `sleep 1` subtasks on N panes, real tmux ({iterations} runs each; ideal 1.000 s):");
    for n in [1usize, 2, 4, 8] {
        let plan = sleeps_plan(n);
        let mut cold = Vec::new();
        let mut warm = Vec::new();
        for _ in 0..iterations {
            runtime.block_on(async {
                let server = Server::isolated().await.expect("tmux server");
                let session = server.new_session(SessionOptions::new("bench")).await.expect("session");
                let runner = Arc::new(ShellRunner::new(session));
                let executor = Executor::new().with_runner(Mode::Direct, runner);
                for samples in [&mut cold, &mut warm] {
                    let dir = tempfile::tempdir().expect("temp dir");
                    let started = Instant::now();
                    let summary = executor.run(&plan, RunOptions::new(dir.path())).await.expect("run");
                    samples.push(started.elapsed());
                    assert!(summary.all_succeeded(), "{}", dag_sched::render_summary_table(&summary));
                }
            });
        }
        let (cold, warm) = (median(cold), median(warm));
        println!(
            "  N={n}: cold median {:.3} s ({:+.1} % vs 1 s), warm median {:.3} s ({:+.1} % vs 1 s)",
            cold.as_secs_f64(),
            (cold.as_secs_f64() - 1.0) * 100.0,
            warm.as_secs_f64(),
            (warm.as_secs_f64() - 1.0) * 100.0,
        );
    }
}

fn main() {
    let quick = std::env::var_os("DAG_BENCH_QUICK").is_some();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let only = std::env::var("DAG_BENCH_ONLY").unwrap_or_default();
    if only.is_empty() || only == "overhead" {
        bench_overhead(&runtime, if quick { 3 } else { 11 });
    }
    if only.is_empty() || only == "sleeps" {
        bench_parallel_sleeps(&runtime, if quick { 1 } else { 3 });
    }
}
