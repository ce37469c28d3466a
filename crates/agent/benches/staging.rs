//! What staging an attempt costs (`cargo bench -p clive-agent --bench staging`), in a working directory of 1,000 files:
//! a command run the way the script runner runs it staged (the stage's directories made, the command run in a
//! new user and mount namespace on an overlay of the directory, its change set read, the stage removed), against
//! the same command run plain, alternated in the same run; and what an unstaged attempt's walks cost (one before,
//! one after, and their comparison). Medians of `STAGING_BENCH_RUNS` (default 60) runs each.
//!
//! The command is `true`, so what is measured is clive's part alone: typing it into a pane costs the same either
//! way.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use clive_agent::changes::Snapshot;
use clive_agent::stage::Stage;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// 20 directories of 50 files of 3 KB.
fn tree(root: &Path) {
    for d in 0..20 {
        let dir = root.join(format!("d{d}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..50 {
            std::fs::write(dir.join(format!("f{f}.txt")), vec![b'x'; 3000]).unwrap();
        }
    }
}

fn sh(cwd: &Path, line: &str) {
    let status = Command::new("sh").arg("-c").arg(line).current_dir(cwd).status().unwrap();
    assert!(status.success(), "{line}");
}

fn main() {
    let runs: usize = std::env::var("STAGING_BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(60);
    let work = tempfile::tempdir().unwrap();
    let records = tempfile::tempdir().unwrap();
    tree(work.path());
    let cwd = work.path().canonicalize().unwrap();
    let (mut plain, mut staged, mut walks) = (Vec::new(), Vec::new(), Vec::new());
    for attempt in 0..runs {
        let started = Instant::now();
        sh(&cwd, "true");
        plain.push(started.elapsed());

        let started = Instant::now();
        let stage = Stage::new(&cwd, records.path(), attempt as u32).unwrap();
        sh(&cwd, &stage.wrap(records.path(), "true"));
        let changes = stage.changes().unwrap();
        stage.discard_in_background();
        staged.push(started.elapsed());
        assert!(changes.is_empty());

        let started = Instant::now();
        let before = Snapshot::take(&cwd, &[]);
        sh(&cwd, "true");
        let after = Snapshot::take(&cwd, &[]);
        assert!(before.changes_to(&after).is_empty());
        walks.push(started.elapsed());
    }
    let (plain, staged, walks) = (median(plain), median(staged), median(walks));
    println!("working directory: 1,000 files of 3 KB in 20 directories; {runs} runs each, medians");
    println!("plain command:            {:8.3} ms", ms(plain));
    println!(
        "staged (overlay):         {:8.3} ms  (+{:.3} ms, {:.2}x)",
        ms(staged),
        ms(staged.saturating_sub(plain)),
        staged.as_secs_f64() / plain.as_secs_f64()
    );
    println!(
        "unstaged (two walks):     {:8.3} ms  (+{:.3} ms, {:.2}x)",
        ms(walks),
        ms(walks.saturating_sub(plain)),
        walks.as_secs_f64() / plain.as_secs_f64()
    );
}
