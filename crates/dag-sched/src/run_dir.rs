//! The run directory: where subtasks leave their results for the subtasks after them.
//!
//! ```text
//! <run_dir>/plan.json                  the plan as run
//! <run_dir>/summary.json               the RunSummary, written at the end
//! <run_dir>/subtasks/<id>/context.json the SubtaskContext it was given
//! <run_dir>/subtasks/<id>/output.txt   its whole output
//! <run_dir>/subtasks/<id>/result.json  its SubtaskResult
//! <run_dir>/subtasks/<id>/.runner/     its runner's own records (scripts, transcripts; not listed as files)
//! <run_dir>/subtasks/<id>/…            anything else it writes there (listed as its files)
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::DagError;
use crate::result::SubtaskResult;

/// The run directory of one run.
#[derive(Debug, Clone)]
pub struct RunDir {
    root: PathBuf,
}

/// File names the executor writes into a subtask directory and does not list as produced files.
const BOOKKEEPING: &[&str] = &["context.json", "result.json", "output.txt"];
/// The directory in a subtask directory where a runner keeps its own records (see [`RunDir::runner_dir`]).
const RUNNER_DIR: &str = ".runner";

impl RunDir {
    /// Creates (or reuses) `root` and its `subtasks` directory.
    pub fn create(root: impl Into<PathBuf>) -> Result<RunDir, DagError> {
        let root = root.into();
        let subtasks = root.join("subtasks");
        std::fs::create_dir_all(&subtasks).map_err(|source| DagError::RunDirectory { path: subtasks, source })?;
        Ok(RunDir { root })
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory of subtask `id` (created by [`RunDir::prepare_subtask`]).
    pub fn subtask_dir(&self, id: &str) -> PathBuf {
        self.root.join("subtasks").join(id)
    }

    /// Where subtask `id`'s runner keeps its own records (scripts it ran, transcripts): inside the subtask
    /// directory, not listed among the subtask's files. Not created here.
    pub fn runner_dir(&self, id: &str) -> PathBuf {
        self.subtask_dir(id).join(RUNNER_DIR)
    }

    /// Creates the directory of subtask `id`.
    pub fn prepare_subtask(&self, id: &str) -> Result<PathBuf, DagError> {
        let dir = self.subtask_dir(id);
        std::fs::create_dir_all(&dir).map_err(|source| DagError::RunDirectory { path: dir.clone(), source })?;
        Ok(dir)
    }

    /// Writes `value` as pretty JSON to `path`.
    pub fn write_json(&self, path: &Path, value: &impl Serialize) -> Result<(), DagError> {
        let text = serde_json::to_string_pretty(value).unwrap_or_default();
        self.write_text(path, &text)
    }

    /// Writes `text` to `path`.
    pub fn write_text(&self, path: &Path, text: &str) -> Result<(), DagError> {
        std::fs::write(path, text).map_err(|source| DagError::RunDirectory { path: path.to_path_buf(), source })
    }

    /// The files in subtask `id`'s directory (recursively, sorted), without the executor's own.
    pub fn produced_files(&self, id: &str) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut pending = vec![self.subtask_dir(id)];
        while let Some(dir) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    if !(dir == self.subtask_dir(id) && path.file_name().is_some_and(|f| f == RUNNER_DIR)) {
                        pending.push(path);
                    }
                } else if !(dir == self.subtask_dir(id)
                    && BOOKKEEPING.iter().any(|name| path.file_name().is_some_and(|f| f == *name)))
                {
                    files.push(path);
                }
            }
        }
        files.sort();
        files
    }
}

/// What a subtask is given: where to write, and what its dependencies left.
///
/// Written to `subtasks/<id>/context.json` before the subtask runs; LLM runners put it into
/// prompts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubtaskContext {
    /// The run directory.
    pub run_dir: PathBuf,
    /// This subtask's own directory: results it writes here are listed as its files.
    pub subtask_dir: PathBuf,
    /// The results of the subtasks it depends on (all succeeded), in plan order.
    pub dependencies: Vec<SubtaskResult>,
}

impl SubtaskContext {
    /// Where the runner keeps its own records (see [`RunDir::runner_dir`]); created on first call.
    pub fn runner_dir(&self) -> Result<PathBuf, DagError> {
        let dir = self.subtask_dir.join(RUNNER_DIR);
        std::fs::create_dir_all(&dir).map_err(|source| DagError::RunDirectory { path: dir.clone(), source })?;
        Ok(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runner_records_are_not_produced_files() {
        let root = tempfile::tempdir().unwrap();
        let run_dir = RunDir::create(root.path()).unwrap();
        let dir = run_dir.prepare_subtask("a").unwrap();
        std::fs::write(dir.join("result.json"), "{}").unwrap();
        std::fs::write(dir.join("output.txt"), "printed").unwrap();
        std::fs::write(dir.join("report.txt"), "x").unwrap();
        std::fs::create_dir_all(dir.join("nested/.runner")).unwrap();
        std::fs::write(dir.join("nested/.runner/kept.txt"), "x").unwrap();
        let context = SubtaskContext { run_dir: root.path().into(), subtask_dir: dir.clone(), dependencies: vec![] };
        let runner = context.runner_dir().unwrap();
        assert_eq!(runner, run_dir.runner_dir("a"));
        std::fs::write(runner.join("script-1.sh"), "true").unwrap();
        assert_eq!(run_dir.produced_files("a"), [dir.join("nested/.runner/kept.txt"), dir.join("report.txt")]);
    }
}
