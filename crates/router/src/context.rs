//! What the model tiers are told about a task's surroundings: panes, tools, the working directory, recent tasks.
//!
//! All of it is optional and bounded when rendered into a prompt, so a huge directory or a long history
//! never blows up the cost of routing. File names and earlier tasks are data, never instructions: they are
//! rendered as JSON strings.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::route::DEFAULT_PANE;

/// The working directory's name and a bounded listing of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkDir {
    /// The directory's own name (`clive`, not `/home/me/src/clive`).
    pub name: String,
    /// Some of its entries, sorted; directories end in `/`. Hidden entries are left out.
    pub entries: Vec<String>,
    /// How many visible entries were left out of `entries`.
    pub more: usize,
}

impl WorkDir {
    /// The entries a listing keeps by default.
    pub const DEFAULT_LIMIT: usize = 20;

    /// Lists `dir`: its name and at most `limit` visible entries (sorted, directories first).
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// std::fs::create_dir(dir.path().join("src"))?;
    /// std::fs::write(dir.path().join("notes.txt"), "")?;
    /// std::fs::write(dir.path().join(".hidden"), "")?;
    /// let listing = clive_router::WorkDir::read(dir.path(), 20)?;
    /// assert_eq!((listing.entries, listing.more), (vec!["src/".to_string(), "notes.txt".to_string()], 0));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn read(dir: &Path, limit: usize) -> std::io::Result<WorkDir> {
        let mut dirs = Vec::new();
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                dirs.push(format!("{name}/"));
            } else {
                files.push(name);
            }
        }
        dirs.sort();
        files.sort();
        let mut entries = dirs;
        entries.append(&mut files);
        let more = entries.len().saturating_sub(limit);
        entries.truncate(limit);
        let name = dir
            .canonicalize()
            .ok()
            .as_deref()
            .unwrap_or(dir)
            .file_name()
            .map_or_else(|| "/".to_owned(), |n| n.to_string_lossy().into_owned());
        Ok(WorkDir { name, entries, more })
    }
}

/// A pane a task can use: its name and what runs in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaneInfo {
    /// The pane's name as plans use it (`shell`, `web`).
    pub name: String,
    /// What it is: `shell`, `browser`, `data`, `docs`, or another word the model can read.
    pub kind: String,
}

impl PaneInfo {
    /// A pane named `name` of kind `kind`.
    pub fn new(name: impl Into<String>, kind: impl Into<String>) -> Self {
        PaneInfo { name: name.into(), kind: kind.into() }
    }
}

/// An earlier task of the same session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PastTask {
    /// The task as the user gave it.
    pub task: String,
    /// What came of it, in a few words (`ran wc -l a.txt`, `answered`), if known.
    pub outcome: Option<String>,
}

/// Everything the classifier and the planner are told besides the task.
///
/// ```
/// use clive_router::{PaneInfo, RouteContext};
/// let context = RouteContext::new()
///     .pane(PaneInfo::new("shell", "shell"))
///     .pane(PaneInfo::new("web", "browser"))
///     .tools(["git", "jq", "python3"]);
/// assert_eq!(context.pane_names(), ["shell", "web"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteContext {
    /// The panes available (none given: one shell pane named `shell`).
    pub panes: Vec<PaneInfo>,
    /// Programs and tools available on this machine.
    pub tools: Vec<String>,
    /// The working directory.
    pub workdir: Option<WorkDir>,
    /// The last few tasks of this session, oldest first.
    pub history: Vec<PastTask>,
    /// The hosts of the clive agents the task addresses (`clive@<host>`): the planner may hand a subtask to
    /// one of them (mode `remote`), and to no other host.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
}

impl RouteContext {
    /// An empty context: one shell pane, nothing else known.
    pub fn new() -> Self {
        RouteContext::default()
    }

    /// Adds a pane.
    pub fn pane(mut self, pane: PaneInfo) -> Self {
        self.panes.push(pane);
        self
    }

    /// Adds tools.
    pub fn tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tools.extend(tools.into_iter().map(Into::into));
        self
    }

    /// Sets the working directory listing.
    pub fn workdir(mut self, workdir: WorkDir) -> Self {
        self.workdir = Some(workdir);
        self
    }

    /// Adds an earlier task.
    pub fn past_task(mut self, task: impl Into<String>, outcome: Option<String>) -> Self {
        self.history.push(PastTask { task: task.into(), outcome });
        self
    }

    /// Adds an agent the task addresses (its host, as in `clive@<host>`).
    pub fn agent(mut self, host: impl Into<String>) -> Self {
        self.agents.push(host.into());
        self
    }

    /// The panes, or the default shell pane when none were given.
    pub fn effective_panes(&self) -> Vec<PaneInfo> {
        if self.panes.is_empty() { vec![PaneInfo::new(DEFAULT_PANE, "shell")] } else { self.panes.clone() }
    }

    /// Whether the working directory's listing holds `word` (a trailing `/` aside on either side).
    pub(crate) fn lists(&self, word: &str) -> bool {
        let word = word.trim_end_matches('/');
        !word.is_empty()
            && self.workdir.as_ref().is_some_and(|dir| dir.entries.iter().any(|e| e.trim_end_matches('/') == word))
    }

    /// The pane names, in order (the default pane when none were given).
    pub fn pane_names(&self) -> Vec<String> {
        self.effective_panes().into_iter().map(|p| p.name).collect()
    }

    /// The pane a subtask runs in when the model names none (or an unknown one): the first shell pane,
    /// else the first pane.
    pub fn default_pane(&self) -> String {
        let panes = self.effective_panes();
        panes
            .iter()
            .find(|p| p.kind == "shell")
            .or(panes.first())
            .map_or_else(|| DEFAULT_PANE.to_owned(), |p| p.name.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_is_bounded_and_counts_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..30 {
            std::fs::write(dir.path().join(format!("f{i:02}")), "").unwrap();
        }
        let listing = WorkDir::read(dir.path(), 5).unwrap();
        assert_eq!(listing.entries, ["f00", "f01", "f02", "f03", "f04"]);
        assert_eq!(listing.more, 25);
        assert_eq!(listing.name, dir.path().file_name().unwrap().to_string_lossy());
    }

    #[test]
    fn default_pane_prefers_a_shell() {
        let context = RouteContext::new().pane(PaneInfo::new("web", "browser")).pane(PaneInfo::new("work", "shell"));
        assert_eq!(context.default_pane(), "work");
        assert_eq!(RouteContext::new().default_pane(), DEFAULT_PANE);
        assert_eq!(RouteContext::new().pane(PaneInfo::new("web", "browser")).default_pane(), "web");
    }
}
