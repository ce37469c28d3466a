//! The script runner's transaction around each attempt: staged on an overlay where it can be ([`crate::stage`]),
//! compared by a walk where it cannot; its change set judged against the goal ([`GoalSpec`]) and applied through a
//! journal, or thrown away.
//!
//! - A change to a file the goal only reads (or, for a goal that asks for no change, to any file that existed) is
//!   never applied: the attempt fails with the reason, and the model may try again.
//! - A goal that asks for no change gets none: files its script created are discarded.
//! - An attempt that failed (non-zero exit, stopped at a prompt, timed out, cancelled) leaves nothing behind, and
//!   one whose result check fails after it was applied is taken back from the journal.
//! - Unstaged (no user namespaces or overlayfs here, or an interactive pane), the files the goal only reads — and
//!   in a small working directory every file — are copied first and restored if an attempt changes them, and files
//!   an attempt created are removed when it fails; what else it changed in place cannot be taken back, and is
//!   reported.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::agent::Shared;
use crate::changes::{Change, ChangeKind, Journal, Snapshot};
use crate::goal_spec::GoalSpec;
use crate::stage::{STAGE_UNAVAILABLE, Stage, UNAVAILABLE_LINE, unstageable};

/// The largest input copied to protect it when an attempt cannot be staged.
const GUARD_LIMIT: u64 = 16 * 1024 * 1024;

/// A working directory whose files together are at most this many bytes, and this many files, has every file
/// copied before the first unstaged attempt (not only those the goal reads): a program the goal runs may change
/// files the goal never names, and a failed attempt must not be left half undone (its new files removed, its
/// edits kept).
const WHOLE_GUARD_BYTES: u64 = 32 * 1024 * 1024;
const WHOLE_GUARD_FILES: usize = 2_000;

/// The subtask's transactions.
pub(crate) struct Staging<'a> {
    shared: &'a Shared,
    pane: String,
    spec: GoalSpec,
    cwd: PathBuf,
    records: PathBuf,
    /// Why attempts are not staged, once known.
    unstaged: Option<String>,
    /// Copies of the inputs the goal only reads (unstaged only), by path: taken once, before the first unstaged
    /// attempt.
    guard: Option<HashMap<PathBuf, PathBuf>>,
}

/// One attempt in flight.
pub(crate) enum Attempt {
    /// On an overlay.
    Staged(Stage),
    /// In the working directory itself, with a walk of it from before.
    Unstaged(Snapshot),
}

/// What an attempt's changes came to.
pub(crate) enum Settled {
    /// Staging turned out unavailable; the script never started: run it again, unstaged.
    Unavailable,
    /// A change the goal does not allow: the attempt failed (how, for the model).
    Refused(String),
    /// Applied (or nothing to apply): keep it with [`Staging::keep`] or take it back with [`Staging::take_back`].
    Applied(Option<Applied>),
}

/// Changes applied to the working directory.
pub(crate) struct Applied {
    changes: Vec<Change>,
    journal: Option<Journal>,
}

impl Applied {
    /// The changes.
    pub(crate) fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// Whether these changes are kept in a journal (a staged attempt's), which [`Staging::take_back`] can undo exactly.
    pub(crate) fn undoable(&self) -> bool {
        self.journal.is_some()
    }

    /// Where the content `rel` had before these changes is kept (a modified or deleted file of a staged attempt;
    /// an unstaged one keeps none).
    pub(crate) fn pre_image(&self, rel: &Path) -> Option<PathBuf> {
        self.journal.as_ref()?.pre_image(rel)
    }
}

/// What a kept attempt changed, for the ledger.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    /// The changes.
    pub changes: Vec<Change>,
    /// The journal's directory, when there is one.
    pub journal: Option<PathBuf>,
}

impl Attempt {
    /// The shell text that runs `run` for this attempt.
    pub(crate) fn wrap(&self, records: &Path, run: &str) -> String {
        match self {
            Attempt::Staged(stage) => stage.wrap(records, run),
            Attempt::Unstaged(_) => run.to_owned(),
        }
    }

    /// Whether it runs on an overlay.
    pub(crate) fn is_staged(&self) -> bool {
        matches!(self, Attempt::Staged(_))
    }

    /// The overlay's upper directory (what the attempt wrote), when staged.
    pub(crate) fn upper(&self) -> Option<PathBuf> {
        match self {
            Attempt::Staged(stage) => Some(stage.upper()),
            Attempt::Unstaged(_) => None,
        }
    }
}

impl<'a> Staging<'a> {
    /// Transactions for a subtask on pane `pane` whose goal is `spec`, working in `cwd`, with its run directory
    /// `records`.
    pub(crate) fn new(shared: &'a Shared, pane: &str, spec: &GoalSpec, cwd: &str, records: &Path) -> Staging<'a> {
        let cwd = PathBuf::from(cwd);
        let unstaged = if !shared.config.stage {
            Some("staging is off (AgentConfig::stage)".to_owned())
        } else {
            shared.unstageable(pane).or_else(|| unstageable(&cwd, records))
        };
        Staging {
            shared,
            pane: pane.to_owned(),
            spec: spec.clone(),
            cwd,
            records: records.to_owned(),
            unstaged,
            guard: None,
        }
    }

    /// Transactions for an interactive subtask: its commands are typed into the pane's own shell, which no
    /// overlay can be put under, so it is watched (a walk before and after) and its inputs protected by copies.
    pub(crate) fn watching(shared: &'a Shared, pane: &str, spec: &GoalSpec, cwd: &str, records: &Path) -> Staging<'a> {
        let mut staging = Staging::new(shared, pane, spec, cwd, records);
        staging.unstaged = Some("an interactive pane types into its own shell".into());
        staging
    }

    /// What a walk of the working directory leaves out: the subtask's records and the caller's private
    /// directories.
    pub(crate) fn skipped(&self) -> Vec<PathBuf> {
        let mut skip = vec![self.records.clone()];
        skip.extend(self.shared.config.private_dirs.iter().cloned());
        // The pane reports its directory with links resolved: so are these, to compare.
        skip.iter().map(|dir| dir.canonicalize().unwrap_or_else(|_| dir.clone())).collect()
    }

    /// Starts attempt `number`.
    pub(crate) fn begin(&mut self, number: u32) -> Attempt {
        if self.unstaged.is_none() {
            match Stage::new(&self.cwd, &self.records, number) {
                Ok(stage) => return Attempt::Staged(stage),
                Err(error) => self.unstaged = Some(format!("the stage's directories could not be made: {error}")),
            }
        }
        if let Some(reason) = &self.unstaged {
            tracing::debug!(%reason, "the attempt runs unstaged");
        }
        let walked = self.protect_inputs();
        Attempt::Unstaged(walked.unwrap_or_else(|| Snapshot::take(&self.cwd, &self.skipped())))
    }

    /// Settles an attempt whose command ended with `exit_code` after printing `output`.
    pub(crate) fn settle(&mut self, attempt: &Attempt, exit_code: i32, output: &str) -> Settled {
        match attempt {
            Attempt::Staged(stage) => {
                if exit_code == STAGE_UNAVAILABLE && output.contains(UNAVAILABLE_LINE) {
                    let reason = output
                        .lines()
                        .find(|l| l.contains(UNAVAILABLE_LINE))
                        .map_or_else(String::new, |l| l.trim().to_owned());
                    self.shared.remember_unstageable(&self.pane, &reason);
                    self.unstaged = Some(reason);
                    stage.discard_in_background();
                    return Settled::Unavailable;
                }
                let settled = self.settle_staged(stage, exit_code);
                stage.discard_in_background();
                settled
            }
            Attempt::Unstaged(before) => self.settle_unstaged(before, exit_code),
        }
    }

    /// Settles an attempt that did not finish (stopped at a prompt, timed out, cancelled): nothing of it is kept.
    pub(crate) fn abandon(&mut self, attempt: &Attempt) -> Settled {
        match attempt {
            Attempt::Staged(stage) => {
                stage.discard_in_background();
                Settled::Applied(None)
            }
            Attempt::Unstaged(before) => {
                let changes = before.changes_to(&Snapshot::take(&self.cwd, &self.skipped()));
                self.undo_unstaged(&changes);
                Settled::Applied(None)
            }
        }
    }

    fn settle_staged(&mut self, stage: &Stage, exit_code: i32) -> Settled {
        let changes = match stage.changes() {
            Ok(changes) => changes,
            Err(error) => {
                return Settled::Refused(format!("its changes could not be read ({error}); nothing was applied"));
            }
        };
        if let Some(how) = self.refusal(&changes) {
            return Settled::Refused(format!("{how}; nothing was applied"));
        }
        // A failed attempt leaves nothing; a goal that asks for no change gets none (scratch files included).
        if exit_code != 0 || changes.is_empty() || !self.spec.mutates {
            return Settled::Applied(None);
        }
        let dir = stage.dir.with_file_name(format!(
            "applied-{}",
            stage
                .dir
                .file_name()
                .map(|n| n.to_string_lossy().trim_start_matches("stage-").to_owned())
                .unwrap_or_default()
        ));
        match Journal::apply(&self.cwd, &stage.upper(), &changes, &dir) {
            Ok(journal) => Settled::Applied(Some(Applied { changes, journal: Some(journal) })),
            Err(error) => Settled::Refused(format!("its changes could not be applied ({error}); nothing was applied")),
        }
    }

    fn settle_unstaged(&mut self, before: &Snapshot, exit_code: i32) -> Settled {
        let changes = before.changes_to(&Snapshot::take(&self.cwd, &self.skipped()));
        if let Some(how) = self.refusal(&changes) {
            let kept = self.undo_unstaged(&changes);
            return Settled::Refused(format!("{how}; {kept}"));
        }
        if exit_code != 0 {
            self.undo_unstaged(&changes);
            return Settled::Applied(None);
        }
        Settled::Applied(Some(Applied { changes, journal: None }))
    }

    /// Why `changes` cannot be applied: a file the goal only reads, or one that existed when the goal asks for no
    /// change, was modified or deleted.
    fn refusal(&self, changes: &[Change]) -> Option<String> {
        let touched: Vec<&Change> = changes
            .iter()
            .filter(|c| c.kind != ChangeKind::Created && !c.dir)
            .filter(|c| !self.spec.may_change_existing(&c.path.to_string_lossy()))
            .collect();
        let first = touched.first()?;
        let name = first.path.display();
        let verb = if first.kind == ChangeKind::Deleted { "deleted" } else { "changed" };
        let why = if self.spec.only_reads(&first.path.to_string_lossy()) {
            "which the goal only reads"
        } else {
            "which the goal does not ask to change"
        };
        let more = match touched.len() {
            1 => String::new(),
            n => format!(" (and {} other existing file{})", n - 1, if n == 2 { "" } else { "s" }),
        };
        Some(format!("it {verb} {name}, {why}{more}: leave it as it is and write the result elsewhere, or print it"))
    }

    /// Takes back what it can of an unstaged attempt's `changes`: files it created are removed, protected inputs
    /// restored. Says what stays.
    fn undo_unstaged(&self, changes: &[Change]) -> String {
        let mut stays = Vec::new();
        for change in changes.iter().rev() {
            let path = self.cwd.join(&change.path);
            match change.kind {
                ChangeKind::Created if change.dir => {
                    let _ = std::fs::remove_dir(&path);
                }
                ChangeKind::Created => {
                    let _ = std::fs::remove_file(&path);
                }
                _ if change.dir => {}
                _ => match self.guard.as_ref().and_then(|g| g.get(&change.path)) {
                    Some(copy) => {
                        // Its directory may have gone with it.
                        if let Some(parent) = path.parent() {
                            let _ = std::fs::create_dir_all(parent);
                        }
                        if std::fs::copy(copy, &path).is_err() {
                            stays.push(change.path.display().to_string());
                        }
                    }
                    None => stays.push(change.path.display().to_string()),
                },
            }
        }
        if stays.is_empty() {
            "it was taken back".into()
        } else {
            format!("it could not be staged, so the change to {} stays", stays.join(", "))
        }
    }

    /// Copies the files the goal only reads (and, in a small working directory, every file: see
    /// [`WHOLE_GUARD_BYTES`]), once, before the first unstaged attempt.
    /// Returns the walk it took (the working directory as it is now), if it took one.
    fn protect_inputs(&mut self) -> Option<Snapshot> {
        if self.guard.is_some() {
            return None;
        }
        let mut files: Vec<PathBuf> =
            self.spec.reads.iter().map(|file| crate::claims::resolve(file, &self.cwd)).collect();
        let walk = Snapshot::take(&self.cwd, &self.skipped());
        let (count, bytes) = walk.files().fold((0, 0), |(n, total), (_, len)| (n + 1, total + len));
        if walk.complete && count <= WHOLE_GUARD_FILES && bytes <= WHOLE_GUARD_BYTES {
            files.extend(walk.files().map(|(rel, _)| self.cwd.join(rel)));
        }
        let mut guard = HashMap::new();
        let dir = self.records.join("inputs");
        for path in files {
            // A link is left alone: copied, it would come back as a file of its own.
            let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
            let Ok(rel) = path.strip_prefix(&self.cwd) else { continue };
            if guard.contains_key(rel)
                || !meta.is_file()
                || meta.len() > GUARD_LIMIT
                || std::fs::create_dir_all(&dir).is_err()
            {
                continue;
            }
            let copy = dir.join(format!("{}", guard.len()));
            if std::fs::copy(&path, &copy).is_ok() {
                guard.insert(rel.to_owned(), copy);
            }
        }
        self.guard = Some(guard);
        Some(walk)
    }

    /// After an unstaged attempt is kept, its changes are the state a later failed attempt goes back to: the copies
    /// of what it modified or created are taken again, and those of what it deleted dropped.
    fn refresh_guard(&mut self, changes: &[Change]) {
        let Some(guard) = self.guard.as_mut() else { return };
        let dir = self.records.join("inputs");
        for change in changes.iter().filter(|c| !c.dir) {
            let path = self.cwd.join(&change.path);
            let small = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && m.len() <= GUARD_LIMIT);
            let copy = guard.get(&change.path).cloned().unwrap_or_else(|| dir.join(format!("k{}", guard.len())));
            if change.kind != ChangeKind::Deleted && small && std::fs::copy(&path, &copy).is_ok() {
                guard.insert(change.path.clone(), copy);
            } else if let Some(stale) = guard.remove(&change.path) {
                let _ = std::fs::remove_file(stale);
            }
        }
    }

    /// Takes back an applied attempt whose result check failed.
    ///
    /// Returns whether every change was restored exactly: nothing to take back, or a staged attempt's journal undone
    /// in full (an unstaged attempt's undo is a best effort).
    pub(crate) fn take_back(&mut self, applied: Option<Applied>) -> bool {
        let Some(applied) = applied else { return true };
        match applied.journal {
            Some(mut journal) => match journal.undo() {
                Ok(()) => true,
                Err(error) => {
                    tracing::warn!(%error, "a failed attempt's changes could not be taken back");
                    false
                }
            },
            None => {
                self.undo_unstaged(&applied.changes);
                applied.changes.is_empty()
            }
        }
    }

    /// Keeps an applied attempt: its changes, for the ledger.
    pub(crate) fn keep(&mut self, applied: Option<Applied>) -> Kept {
        let Some(applied) = applied else { return Kept::default() };
        if applied.journal.is_none() {
            self.refresh_guard(&applied.changes);
        }
        Kept { changes: applied.changes, journal: applied.journal.map(|j| j.dir().to_owned()) }
    }
}

impl Drop for Staging<'_> {
    /// The copies taken to protect an unstaged subtask's files are needed only while it runs.
    fn drop(&mut self) {
        if self.guard.is_some() {
            let _ = std::fs::remove_dir_all(self.records.join("inputs"));
        }
    }
}
