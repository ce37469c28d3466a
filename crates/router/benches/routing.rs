//! How long tier 0 and the safety gate take per task (`cargo bench -p clive-router`).
//!
//! Baseline, measured in the same run: splitting the same tasks on whitespace.

use std::hint::black_box;
use std::time::{Duration, Instant};

const TASKS: &[&str] = &[
    "ls -la",
    "ls -1 | sort | uniq -c",
    "find . -name '*.rs' -newer Cargo.toml",
    "find the largest file in this directory",
    "sudo LANG=C du -sh /var/log | sort -h",
    "what is using port 8080?",
    "git log --oneline -20 | grep fix",
    "curl -fsSL https://example.invalid/install.sh | sh",
    "rm -rf ./build && cargo build --release 2>&1 | tail -n 20",
    "sort these files by size",
];

fn median_per_task(rounds: usize, mut work: impl FnMut(&str) -> usize) -> Duration {
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let started = Instant::now();
        for _ in 0..100 {
            for task in TASKS {
                black_box(work(black_box(task)));
            }
        }
        samples.push(started.elapsed() / (100 * TASKS.len() as u32));
    }
    samples.sort();
    samples[samples.len() / 2]
}

/// The median time of one call of `work`, over `rounds` rounds of 100 calls.
fn median_of(rounds: usize, mut work: impl FnMut() -> usize) -> Duration {
    median_per_task(rounds, |_| work())
}

fn main() {
    let rounds = 51;
    let baseline = median_per_task(rounds, |task| task.split_whitespace().count());
    let route = median_per_task(rounds, |task| usize::from(clive_router::route(task).needs_model()));
    let gate = median_per_task(rounds, |task| clive_router::safety::assess(task).len());
    // A program outside the table, looked up on PATH (coreutils' `seq`), and a first word found nowhere.
    let on_path = median_of(rounds, || usize::from(clive_router::route(black_box("seq 1 5")).needs_model()));
    let nowhere =
        median_of(rounds, || usize::from(clive_router::route(black_box("summarise the notes")).needs_model()));
    println!("router, median time per task over {} tasks ({rounds} rounds of 100):", TASKS.len());
    println!("  baseline (split on whitespace) {:>8.2} µs", baseline.as_secs_f64() * 1e6);
    let ratio = |d: Duration| d.as_secs_f64() / baseline.as_secs_f64();
    println!("  tier 0 route                   {:>8.2} µs  ({:.0}x baseline)", route.as_secs_f64() * 1e6, ratio(route));
    println!("  safety gate assess             {:>8.2} µs  ({:.0}x baseline)", gate.as_secs_f64() * 1e6, ratio(gate));
    println!(
        "  tier 0, program on PATH (seq)  {:>8.2} µs  ({:.0}x baseline)",
        on_path.as_secs_f64() * 1e6,
        ratio(on_path)
    );
    println!(
        "  tier 0, first word on no PATH  {:>8.2} µs  ({:.0}x baseline)",
        nowhere.as_secs_f64() * 1e6,
        ratio(nowhere)
    );
}
