//! Eval tasks on disk: `evals/tasks/<name>/` with `task.toml`, `fixtures/`, `check`, `solution.sh` and,
//! optionally, `replies.toml` (the fake model's script, see [`crate::replies`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::error::Error;

/// How long a task may run when its `task.toml` does not say.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(180);

/// What a task's `task.toml` holds.
///
/// ```toml
/// # What the task tests, in a sentence.
/// task = "Count the lines in notes.txt and write just the number to lines.txt."
/// tags = ["smoke", "files", "count"]
///
/// [expect]            # optional: only where the route is part of the test
/// route = ["answer"]  # any of these passes
/// modes = ["script"]  # every one of these must be used
///
/// [limits]
/// timeout_secs = 180  # wall time for the agent (default 180)
/// max_tokens = 5000   # tokens in + out; more is a failure (and clive gets --max-tokens when it has it)
/// max_turns = 8       # model turns; more is a failure
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskSpec {
    /// The task as a person would type it after `clive`.
    pub task: String,
    /// Tags for filtering (`smoke` marks the set run against the local model in CI).
    #[serde(default)]
    pub tags: Vec<String>,
    /// Expectations beyond the check, when routing is part of the test.
    #[serde(default)]
    pub expect: Expect,
    /// Limits of a run.
    #[serde(default)]
    pub limits: Limits,
    /// Extra arguments for `clive`, placed before the task.
    #[serde(default)]
    pub args: Vec<String>,
}

/// Route and modes a task expects; unknown values (not reported by the agent) never fail a run.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Acceptable routes (`direct`, `answer`, `clarify`, `script`, `interactive`, `llm`, `plan`); any one passes.
    #[serde(default)]
    pub route: Vec<String>,
    /// Modes that must all be used.
    #[serde(default)]
    pub modes: Vec<String>,
}

/// Limits of one run of a task.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Wall-time limit of the agent, in seconds.
    #[serde(default = "default_timeout_secs")]
    pub timeout_secs: u64,
    /// Token budget (in + out); a run that reports more fails.
    pub max_tokens: Option<u64>,
    /// Turn budget; a run that reports more fails.
    pub max_turns: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { timeout_secs: default_timeout_secs(), max_tokens: None, max_turns: None }
    }
}

fn default_timeout_secs() -> u64 {
    DEFAULT_TIMEOUT.as_secs()
}

impl Limits {
    /// The wall-time limit.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_secs)
    }
}

/// One task: its name (the directory's), where it lives, and its spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// The directory name, e.g. `count-lines`.
    pub name: String,
    /// The task's directory.
    pub dir: PathBuf,
    /// The parsed `task.toml`.
    pub spec: TaskSpec,
}

impl Task {
    /// Reads and validates the task in `dir`.
    pub fn load(dir: &Path) -> Result<Task, Error> {
        // Absolute, because checks and solutions run in another directory.
        let dir = &std::path::absolute(dir).map_err(|source| Error::Io { path: dir.to_owned(), source })?;
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let invalid = |problem: String| Error::InvalidTask { task: dir.to_owned(), problem };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') {
            return Err(invalid("the directory name must be lowercase letters, digits and '-'".to_owned()));
        }
        let toml_path = dir.join("task.toml");
        let text =
            std::fs::read_to_string(&toml_path).map_err(|source| Error::Io { path: toml_path.clone(), source })?;
        let spec: TaskSpec = toml::from_str(&text).map_err(|e| invalid(format!("task.toml: {}", e.message())))?;
        if spec.task.trim().is_empty() {
            return Err(invalid("task.toml: `task` is empty".to_owned()));
        }
        for file in ["check", "solution.sh"] {
            if !dir.join(file).is_file() {
                return Err(invalid(format!("`{file}` is missing (every task has a check and a known-good solution)")));
            }
        }
        if spec.limits.timeout_secs == 0 {
            return Err(invalid("task.toml: limits.timeout_secs must be at least 1".to_owned()));
        }
        Ok(Task { name, dir: dir.to_owned(), spec })
    }

    /// The fixtures directory (it may not exist: the task starts in an empty directory).
    pub fn fixtures(&self) -> PathBuf {
        self.dir.join("fixtures")
    }

    /// The check script.
    pub fn check(&self) -> PathBuf {
        self.dir.join("check")
    }

    /// The known-good solution.
    pub fn solution(&self) -> PathBuf {
        self.dir.join("solution.sh")
    }

    /// The fake model's reply script, if the task has one.
    pub fn replies_file(&self) -> Option<PathBuf> {
        Some(self.dir.join("replies.toml")).filter(|p| p.is_file())
    }

    /// Whether the task carries `tag`.
    pub fn has_tag(&self, tag: &str) -> bool {
        self.spec.tags.iter().any(|t| t == tag)
    }

    /// Whether the task is held out ([`HELD_OUT`]): its wording, name and failures are not for whoever tunes clive.
    pub fn is_held_out(&self) -> bool {
        self.has_tag(HELD_OUT)
    }
}

/// The tag of a held-out task: measured, never shown while tuning. `clive-eval run` and `list` print its name,
/// wording and reasons for failing only with `--show-heldout`; the JSON report (`--json`, `--output`) keeps
/// everything, for baselines.
pub const HELD_OUT: &str = "heldout";

/// Every task of a suite directory, sorted by name.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The suite directory (`evals/tasks`).
    pub dir: PathBuf,
    /// Its tasks, sorted by name.
    pub tasks: Vec<Task>,
}

impl Suite {
    /// Loads every task directory under `dir`; the first invalid task is an error naming it.
    pub fn load(dir: &Path) -> Result<Suite, Error> {
        let entries = std::fs::read_dir(dir).map_err(|source| Error::Io { path: dir.to_owned(), source })?;
        let mut tasks = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|source| Error::Io { path: dir.to_owned(), source })?;
            if entry.path().is_dir() {
                tasks.push(Task::load(&entry.path())?);
            }
        }
        tasks.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Suite { dir: dir.to_owned(), tasks })
    }

    /// The suite of this checkout: `evals/tasks` in the current directory or the nearest ancestor that has one.
    pub fn find_default() -> Option<PathBuf> {
        let cwd = std::env::current_dir().ok()?;
        cwd.ancestors().map(|dir| dir.join("evals/tasks")).find(|dir| dir.is_dir())
    }

    /// The tasks `filter` selects, in name order; a filter that selects nothing is an error.
    pub fn select(&self, filter: &Filter) -> Result<Vec<Task>, Error> {
        let chosen: Vec<Task> = self.tasks.iter().filter(|t| filter.matches(t)).cloned().collect();
        if chosen.is_empty() {
            return Err(Error::NothingSelected { filter: filter.to_string(), suite: self.dir.clone() });
        }
        Ok(chosen)
    }
}

/// Which tasks to run: names (with `*` wildcards) and tags. Empty parts select everything; a task must match
/// one of the names (if any) and one of the tags (if any).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// Task names or patterns like `log-*`.
    pub names: Vec<String>,
    /// Tags like `smoke`.
    pub tags: Vec<String>,
}

impl Filter {
    /// Whether `task` is selected.
    pub fn matches(&self, task: &Task) -> bool {
        (self.names.is_empty() || self.names.iter().any(|p| wildcard_match(p, &task.name)))
            && (self.tags.is_empty() || self.tags.iter().any(|t| task.has_tag(t)))
    }
}

impl std::fmt::Display for Filter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts: Vec<String> = self.names.clone();
        parts.extend(self.tags.iter().map(|t| format!("--tag {t}")));
        if parts.is_empty() { f.write_str("(all)") } else { f.write_str(&parts.join(" ")) }
    }
}

/// `*` matches any run of characters; everything else matches itself.
fn wildcard_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else { return pattern == text };
    let Some(mut rest) = text.strip_prefix(first) else { return false };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards() {
        assert!(wildcard_match("log-*", "log-top-ip"));
        assert!(wildcard_match("*-ip", "log-top-ip"));
        assert!(wildcard_match("l*t*p", "log-top-ip"));
        assert!(wildcard_match("count-lines", "count-lines"));
        assert!(!wildcard_match("count", "count-lines"));
        assert!(!wildcard_match("log-*", "csv-log"));
        assert!(!wildcard_match("a*a", "a"));
    }

    #[test]
    fn a_minimal_spec_gets_default_limits() {
        let spec: TaskSpec = toml::from_str("task = \"x\"").unwrap();
        assert_eq!(spec.limits, Limits::default());
        assert_eq!(spec.limits.timeout(), DEFAULT_TIMEOUT);
        assert!(spec.expect.route.is_empty() && spec.tags.is_empty());
    }

    #[test]
    fn a_misspelt_field_is_refused_by_name() {
        let error = toml::from_str::<TaskSpec>("task = \"x\"\n[limits]\ntimeout = 3\n").unwrap_err();
        assert!(error.message().contains("timeout"), "{error}");
    }

    #[test]
    fn filters_combine_names_and_tags() {
        let task = |name: &str, tags: &[&str]| Task {
            name: name.to_owned(),
            dir: PathBuf::new(),
            spec: TaskSpec {
                task: "t".to_owned(),
                tags: tags.iter().map(|t| (*t).to_owned()).collect(),
                expect: Expect::default(),
                limits: Limits::default(),
                args: vec![],
            },
        };
        let smoke = Filter { names: vec![], tags: vec!["smoke".to_owned()] };
        assert!(smoke.matches(&task("a", &["smoke"])) && !smoke.matches(&task("b", &["log"])));
        let both = Filter { names: vec!["log-*".to_owned()], tags: vec!["trap".to_owned()] };
        assert!(both.matches(&task("log-x", &["trap"])) && !both.matches(&task("log-y", &[])));
        assert!(Filter::default().matches(&task("any", &[])));
    }
}
