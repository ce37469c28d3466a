//! Shared by the harness's tests: small suites written on the fly, and the real clive binary.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

/// The repository's own suite.
pub fn repo_suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../evals/tasks")
}

/// A task to write into a temporary suite.
pub struct TaskFiles<'a> {
    pub name: &'a str,
    pub toml: &'a str,
    pub check: &'a str,
    pub solution: &'a str,
}

/// Writes a suite of `tasks` into `dir` (checks can use the repository's check.sh helpers).
pub fn write_suite(dir: &Path, tasks: &[TaskFiles]) -> PathBuf {
    let suite = dir.join("tasks");
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::copy(repo_suite().join("../lib/check.sh"), dir.join("lib/check.sh")).unwrap();
    for task in tasks {
        let task_dir = suite.join(task.name);
        std::fs::create_dir_all(task_dir.join("fixtures")).unwrap();
        std::fs::write(task_dir.join("task.toml"), task.toml).unwrap();
        let check = format!("#!/usr/bin/env bash\n. \"$(dirname \"$0\")/../../lib/check.sh\"\n{}", task.check);
        std::fs::write(task_dir.join("check"), check).unwrap();
        std::fs::write(task_dir.join("solution.sh"), format!("#!/usr/bin/env bash\n{}", task.solution)).unwrap();
    }
    suite
}

/// The workspace's `clive` binary (target/<profile>/clive beside this test's directory), built if missing.
pub fn clive_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).unwrap();
    let clive = profile_dir.join("clive");
    if !clive.is_file() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let status = std::process::Command::new(cargo)
            .args(["build", "--quiet", "-p", "clive-cli", "--bin", "clive"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .unwrap();
        assert!(status.success(), "building clive failed");
    }
    assert!(clive.is_file(), "no clive at {}", clive.display());
    clive
}

/// Process ids whose command line mentions `needle` (to prove nothing outlived a run).
pub fn processes_mentioning(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        if pid != std::process::id() && String::from_utf8_lossy(&cmdline).contains(needle) {
            found.push(pid);
        }
    }
    found
}
