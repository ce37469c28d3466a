//! What an attempt changed in its working directory, and the journal that applies such a change and takes it back.
//!
//! A staged attempt ([`crate::stage`]) leaves its writes in an overlay's upper directory; [`from_upper`] reads them
//! as a change set (created, modified, deleted, with sizes). An attempt that could not be staged is compared by a
//! walk before and after ([`Snapshot`]). A change set is applied to the user's directory by [`Journal::apply`],
//! which keeps the pre-image of every file it replaces or removes in the journal's directory; [`Journal::undo`]
//! restores them, and refuses, naming the file, when a file has changed since it was applied (`clive undo`).

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How a path changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// It did not exist before.
    Created,
    /// It existed and its content, type or mode changed.
    Modified,
    /// It existed and is gone.
    Deleted,
}

/// One changed path, relative to the working directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// The path, relative to the working directory.
    pub path: PathBuf,
    /// How it changed.
    pub kind: ChangeKind,
    /// Its size before (none when created; a directory counts 0).
    pub bytes_before: Option<u64>,
    /// Its size after (none when deleted).
    pub bytes_after: Option<u64>,
    /// Whether it is a directory.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dir: bool,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.path.display();
        let slash = if self.dir { "/" } else { "" };
        match (self.kind, self.bytes_before, self.bytes_after) {
            (ChangeKind::Created, _, Some(after)) if !self.dir => write!(f, "created {path} ({after} bytes)"),
            (ChangeKind::Modified, Some(before), Some(after)) if !self.dir => {
                write!(f, "modified {path} ({before} → {after} bytes)")
            }
            (ChangeKind::Deleted, Some(before), _) if !self.dir => write!(f, "deleted {path} ({before} bytes)"),
            (ChangeKind::Created, ..) => write!(f, "created {path}{slash}"),
            (ChangeKind::Modified, ..) => write!(f, "modified {path}{slash}"),
            (ChangeKind::Deleted, ..) => write!(f, "deleted {path}{slash}"),
        }
    }
}

/// The changes an overlay's `upper` directory holds over `lower`: files and directories it created, files whose
/// content, type or mode it changed, and what it deleted (whiteouts, and what an opaque directory hides). A file
/// copied up without a change is not a change.
pub fn from_upper(lower: &Path, upper: &Path) -> io::Result<Vec<Change>> {
    let mut changes = Vec::new();
    walk_upper(lower, upper, Path::new(""), &mut changes)?;
    Ok(changes)
}

fn walk_upper(lower: &Path, upper: &Path, rel: &Path, changes: &mut Vec<Change>) -> io::Result<()> {
    let mut entries: Vec<fs::DirEntry> = fs::read_dir(upper.join(rel))?.collect::<io::Result<_>>()?;
    entries.sort_by_key(fs::DirEntry::file_name);
    for entry in entries {
        let path = rel.join(entry.file_name());
        let meta = entry.metadata()?;
        let below = fs::symlink_metadata(lower.join(&path)).ok();
        if meta.file_type().is_char_device() && meta.rdev() == 0 {
            // A whiteout: what was below is deleted.
            if let Some(below) = below {
                deleted(lower, &path, &below, changes)?;
            }
        } else if meta.is_dir() {
            match below {
                Some(below) if below.is_dir() => {
                    if opaque(&upper.join(&path)) {
                        // The directory was removed and made again: what it held below is gone.
                        let mut names: Vec<_> = fs::read_dir(lower.join(&path))?.collect::<io::Result<_>>()?;
                        names.sort_by_key(fs::DirEntry::file_name);
                        for old in names {
                            let old_path = path.join(old.file_name());
                            if fs::symlink_metadata(upper.join(&old_path)).is_err() {
                                deleted(lower, &old_path, &old.metadata()?, changes)?;
                            }
                        }
                    }
                    walk_upper(lower, upper, &path, changes)?;
                }
                below => {
                    if let Some(below) = below {
                        deleted(lower, &path, &below, changes)?;
                    }
                    created_tree(upper, &path, changes)?;
                }
            }
        } else {
            match below {
                Some(below) if below.is_dir() => {
                    deleted(lower, &path, &below, changes)?;
                    changes.push(created(&path, &meta));
                }
                Some(below) => {
                    if differs(&lower.join(&path), &below, &upper.join(&path), &meta)? {
                        changes.push(Change {
                            path,
                            kind: ChangeKind::Modified,
                            bytes_before: Some(below.len()),
                            bytes_after: Some(meta.len()),
                            dir: false,
                        });
                    }
                }
                None => changes.push(created(&path, &meta)),
            }
        }
    }
    Ok(())
}

/// Records a directory the attempt made (nothing of it was below) and everything under it as created.
fn created_tree(upper: &Path, rel: &Path, changes: &mut Vec<Change>) -> io::Result<()> {
    changes.push(Change {
        path: rel.to_owned(),
        kind: ChangeKind::Created,
        bytes_before: None,
        bytes_after: Some(0),
        dir: true,
    });
    let mut entries: Vec<fs::DirEntry> = fs::read_dir(upper.join(rel))?.collect::<io::Result<_>>()?;
    entries.sort_by_key(fs::DirEntry::file_name);
    for entry in entries {
        let path = rel.join(entry.file_name());
        let meta = entry.metadata()?;
        if meta.is_dir() {
            created_tree(upper, &path, changes)?;
        } else {
            changes.push(created(&path, &meta));
        }
    }
    Ok(())
}

fn created(path: &Path, meta: &fs::Metadata) -> Change {
    Change {
        path: path.to_owned(),
        kind: ChangeKind::Created,
        bytes_before: None,
        bytes_after: Some(meta.len()),
        dir: false,
    }
}

/// Records `path` (of `lower`) as deleted: a directory's files first, then the directory.
fn deleted(lower: &Path, path: &Path, meta: &fs::Metadata, changes: &mut Vec<Change>) -> io::Result<()> {
    if meta.is_dir() {
        let mut names: Vec<_> = fs::read_dir(lower.join(path))?.collect::<io::Result<_>>()?;
        names.sort_by_key(fs::DirEntry::file_name);
        for entry in names {
            deleted(lower, &path.join(entry.file_name()), &entry.metadata()?, changes)?;
        }
    }
    changes.push(Change {
        path: path.to_owned(),
        kind: ChangeKind::Deleted,
        bytes_before: Some(if meta.is_dir() { 0 } else { meta.len() }),
        bytes_after: None,
        dir: meta.is_dir(),
    });
    Ok(())
}

/// Whether an overlay directory is opaque (made anew over one below): `user.overlay.opaque` (an unprivileged
/// mount) or `trusted.overlay.opaque`.
fn opaque(dir: &Path) -> bool {
    let mut value = [0u8; 4];
    ["user.overlay.opaque", "trusted.overlay.opaque"]
        .iter()
        .any(|name| rustix::fs::getxattr(dir, *name, &mut value).is_ok_and(|n| n >= 1 && value[0] == b'y'))
}

/// Whether two files differ in type, mode or content.
fn differs(a: &Path, a_meta: &fs::Metadata, b: &Path, b_meta: &fs::Metadata) -> io::Result<bool> {
    if a_meta.file_type().is_symlink() || b_meta.file_type().is_symlink() {
        return Ok(a_meta.file_type().is_symlink() != b_meta.file_type().is_symlink()
            || fs::read_link(a)? != fs::read_link(b)?);
    }
    if a_meta.len() != b_meta.len() || a_meta.mode() != b_meta.mode() {
        return Ok(true);
    }
    Ok(fingerprint(a)? != fingerprint(b)?)
}

/// A content fingerprint (FNV-1a, 64 bits): enough to tell whether a file is as it was left.
fn fingerprint(path: &Path) -> io::Result<u64> {
    use std::io::Read;
    let mut file = fs::File::open(path)?;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            return Ok(hash);
        }
        for byte in &buffer[..read] {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// What a walk saw of one path: enough to tell that it changed (not what it held).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    dir: bool,
    len: u64,
    mtime: i64,
    mtime_ns: i64,
    ino: u64,
    mode: u32,
}

/// The most entries a [`Snapshot`] walks; past it, changes further down are not seen (`complete` is false).
const SNAPSHOT_LIMIT: usize = 50_000;

/// A walk of a working directory, to compare with a later one when an attempt could not be staged.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    entries: BTreeMap<PathBuf, Seen>,
    /// Whether the walk saw every entry (it stops at 50,000).
    pub complete: bool,
}

impl Snapshot {
    /// Walks `root`, leaving out `skip` (the run directory, when it is inside).
    pub fn take(root: &Path, skip: &[PathBuf]) -> Snapshot {
        let mut snapshot = Snapshot { entries: BTreeMap::new(), complete: true };
        let mut queue = vec![PathBuf::new()];
        while let Some(rel) = queue.pop() {
            let Ok(entries) = fs::read_dir(root.join(&rel)) else { continue };
            for entry in entries.flatten() {
                if snapshot.entries.len() >= SNAPSHOT_LIMIT {
                    snapshot.complete = false;
                    return snapshot;
                }
                let path = rel.join(entry.file_name());
                let full = root.join(&path);
                if skip.iter().any(|s| full.starts_with(s)) {
                    continue;
                }
                let Ok(meta) = entry.metadata() else { continue };
                let seen = Seen {
                    dir: meta.is_dir(),
                    len: if meta.is_dir() { 0 } else { meta.len() },
                    mtime: meta.mtime(),
                    mtime_ns: meta.mtime_nsec(),
                    ino: meta.ino(),
                    mode: meta.mode(),
                };
                if seen.dir {
                    queue.push(path.clone());
                }
                snapshot.entries.insert(path, seen);
            }
        }
        snapshot
    }

    /// The files (not directories) the walk saw, with their sizes.
    pub fn files(&self) -> impl Iterator<Item = (&Path, u64)> {
        self.entries.iter().filter(|(_, seen)| !seen.dir).map(|(path, seen)| (path.as_path(), seen.len))
    }

    /// What changed from `self` to `after` (a directory whose entries changed is not itself a change).
    pub fn changes_to(&self, after: &Snapshot) -> Vec<Change> {
        let mut changes = Vec::new();
        for (path, now) in &after.entries {
            match self.entries.get(path) {
                None => changes.push(Change {
                    path: path.clone(),
                    kind: ChangeKind::Created,
                    bytes_before: None,
                    bytes_after: Some(now.len),
                    dir: now.dir,
                }),
                Some(was) if was.dir && now.dir => {}
                Some(was) if was != now => changes.push(Change {
                    path: path.clone(),
                    kind: ChangeKind::Modified,
                    bytes_before: Some(was.len),
                    bytes_after: Some(now.len),
                    dir: now.dir,
                }),
                Some(_) => {}
            }
        }
        for (path, was) in self.entries.iter().rev() {
            if !after.entries.contains_key(path) {
                changes.push(Change {
                    path: path.clone(),
                    kind: ChangeKind::Deleted,
                    bytes_before: Some(was.len),
                    bytes_after: None,
                    dir: was.dir,
                });
            }
        }
        changes
    }
}

/// How a file was left by [`Journal::apply`], to tell later whether it changed since.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp {
    len: u64,
    hash: u64,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let meta = fs::symlink_metadata(path).ok()?;
        if meta.is_dir() {
            return Some(Stamp { len: 0, hash: 0 });
        }
        if meta.file_type().is_symlink() {
            let target = fs::read_link(path).ok()?;
            return Some(Stamp { len: meta.len(), hash: target.as_os_str().len() as u64 });
        }
        Some(Stamp { len: meta.len(), hash: fingerprint(path).ok()? })
    }
}

/// One applied change, with what undoing it needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    change: Change,
    /// How the path was left (none when deleted).
    after: Option<Stamp>,
    /// Where its pre-image is kept, relative to the journal's directory (modified and deleted files).
    pre: Option<PathBuf>,
}

/// The record of a change set applied to a working directory: every change, and the pre-image of every file it
/// replaced or removed, kept in the journal's directory (`journal.json` and `pre/`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journal {
    /// The working directory it was applied to.
    pub cwd: PathBuf,
    entries: Vec<Entry>,
    #[serde(skip)]
    dir: PathBuf,
}

/// Why a change could not be undone.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UndoError {
    /// A file changed after the change was applied; nothing was restored.
    #[error(
        "{} has changed since clive {} it; nothing was restored (move it aside and run undo again to restore the rest)",
        path.display(),
        match kind { ChangeKind::Created => "created", ChangeKind::Modified => "changed", ChangeKind::Deleted => "deleted" }
    )]
    ChangedSince {
        /// The file.
        path: PathBuf,
        /// What clive had done to it.
        kind: ChangeKind,
    },
    /// The journal or a file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// What failed.
        #[source]
        source: io::Error,
    },
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> UndoError + '_ {
    move |source| UndoError::Io { path: path.to_owned(), source }
}

/// The journal file in a journal's directory.
pub const JOURNAL_FILE: &str = "journal.json";

impl Journal {
    /// Applies `changes`, taken from `source` (an overlay's upper directory, holding what is created or modified),
    /// to `cwd`, keeping pre-images in `dir`; writes `dir/journal.json`. On an error part-way, what was applied is
    /// undone before the error is returned.
    pub fn apply(cwd: &Path, source: &Path, changes: &[Change], dir: &Path) -> Result<Journal, UndoError> {
        let mut journal = Journal { cwd: cwd.to_owned(), entries: Vec::new(), dir: dir.to_owned() };
        fs::create_dir_all(dir.join("pre")).map_err(io_at(dir))?;
        for change in changes {
            if let Err(error) = journal.apply_one(source, change) {
                let _ = journal.undo();
                return Err(error);
            }
        }
        journal.save()?;
        Ok(journal)
    }

    fn apply_one(&mut self, source: &Path, change: &Change) -> Result<(), UndoError> {
        let target = self.cwd.join(&change.path);
        let from = source.join(&change.path);
        let mut pre = None;
        match change.kind {
            ChangeKind::Created if change.dir => fs::create_dir_all(&target).map_err(io_at(&target))?,
            ChangeKind::Created => place(&from, &target)?,
            ChangeKind::Modified => {
                pre = Some(self.keep(&change.path, &target)?);
                place(&from, &target)?;
            }
            ChangeKind::Deleted if change.dir => match fs::remove_dir(&target) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(UndoError::Io { path: target, source: e }),
            },
            ChangeKind::Deleted => {
                pre = Some(self.keep(&change.path, &target)?);
                fs::remove_file(&target).map_err(io_at(&target))?;
            }
        }
        let after = (change.kind != ChangeKind::Deleted).then(|| Stamp::of(&target)).flatten();
        self.entries.push(Entry { change: change.clone(), after, pre });
        Ok(())
    }

    /// Copies `target` into the journal as the pre-image of `rel`.
    fn keep(&self, rel: &Path, target: &Path) -> Result<PathBuf, UndoError> {
        let pre = Path::new("pre").join(rel);
        let kept = self.dir.join(&pre);
        if let Some(parent) = kept.parent() {
            fs::create_dir_all(parent).map_err(io_at(parent))?;
        }
        copy_entry(target, &kept)?;
        Ok(pre)
    }

    fn save(&self) -> Result<(), UndoError> {
        let path = self.dir.join(JOURNAL_FILE);
        let text =
            serde_json::to_string_pretty(self).map_err(|e| UndoError::Io { path: path.clone(), source: e.into() })?;
        fs::write(&path, text).map_err(io_at(&path))
    }

    /// Reads the journal in `dir`.
    pub fn load(dir: &Path) -> Result<Journal, UndoError> {
        let path = dir.join(JOURNAL_FILE);
        let text = fs::read_to_string(&path).map_err(io_at(&path))?;
        let mut journal: Journal =
            serde_json::from_str(&text).map_err(|e| UndoError::Io { path: path.clone(), source: e.into() })?;
        journal.dir = dir.to_owned();
        Ok(journal)
    }

    /// Its directory (`journal.json` and the pre-images).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the pre-image of `rel` (a file it modified or deleted, relative to the working directory) is kept.
    pub fn pre_image(&self, rel: &Path) -> Option<PathBuf> {
        self.entries.iter().find(|e| e.change.path == rel).and_then(|e| e.pre.as_ref()).map(|pre| self.dir.join(pre))
    }

    /// The changes it applied.
    pub fn changes(&self) -> Vec<Change> {
        self.entries.iter().map(|e| e.change.clone()).collect()
    }

    /// Whether every change can be undone: refuses, naming the file, when one has changed since it was applied.
    pub fn check(&self) -> Result<(), UndoError> {
        for entry in &self.entries {
            let target = self.cwd.join(&entry.change.path);
            let now = Stamp::of(&target);
            let unchanged = match entry.change.kind {
                ChangeKind::Deleted => now.is_none(),
                _ if entry.change.dir => now.is_some(),
                _ => now == entry.after,
            };
            if !unchanged {
                return Err(UndoError::ChangedSince { path: target, kind: entry.change.kind });
            }
        }
        Ok(())
    }

    /// Restores every file to its pre-image and removes what was created, in reverse order; refuses, naming the
    /// file and changing nothing, when any file has changed since it was applied. The journal is emptied (and its
    /// file removed) once undone.
    pub fn undo(&mut self) -> Result<(), UndoError> {
        self.check()?;
        for entry in self.entries.iter().rev() {
            let target = self.cwd.join(&entry.change.path);
            match (entry.change.kind, &entry.pre) {
                (ChangeKind::Created, _) if entry.change.dir => {
                    // A directory that holds something made since is left.
                    let _ = fs::remove_dir(&target);
                }
                (ChangeKind::Created, _) => fs::remove_file(&target).map_err(io_at(&target))?,
                (ChangeKind::Deleted, _) if entry.change.dir => fs::create_dir_all(&target).map_err(io_at(&target))?,
                (_, Some(pre)) => place(&self.dir.join(pre), &target)?,
                (_, None) => {}
            }
        }
        self.entries.clear();
        let path = self.dir.join(JOURNAL_FILE);
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(UndoError::Io { path, source: e }),
        }
    }
}

/// Puts a copy of `from` at `to` in one step (a copy beside it, then a rename), making its parents.
fn place(from: &Path, to: &Path) -> Result<(), UndoError> {
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).map_err(io_at(parent))?;
    }
    let name = to.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temporary = to.with_file_name(format!(".{name}.clive-{}", std::process::id()));
    let _ = fs::remove_file(&temporary);
    copy_entry(from, &temporary)?;
    fs::rename(&temporary, to).map_err(|e| {
        let _ = fs::remove_file(&temporary);
        UndoError::Io { path: to.to_owned(), source: e }
    })
}

/// Copies a file (content and mode) or a symbolic link.
fn copy_entry(from: &Path, to: &Path) -> Result<(), UndoError> {
    let meta = fs::symlink_metadata(from).map_err(io_at(from))?;
    if meta.file_type().is_symlink() {
        let target = fs::read_link(from).map_err(io_at(from))?;
        std::os::unix::fs::symlink(target, to).map_err(io_at(to))
    } else {
        fs::copy(from, to).map(|_| ()).map_err(io_at(to))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn snapshots_see_created_modified_and_deleted_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "a.txt", "a");
        write(root, "b.txt", "b");
        write(root, "sub/c.txt", "c");
        let before = Snapshot::take(root, &[]);
        write(root, "a.txt", "aa");
        fs::remove_file(root.join("b.txt")).unwrap();
        write(root, "sub/new.txt", "new");
        let after = Snapshot::take(root, &[]);
        let changes: Vec<String> = before.changes_to(&after).iter().map(ToString::to_string).collect();
        assert_eq!(
            changes,
            ["modified a.txt (1 → 2 bytes)", "created sub/new.txt (3 bytes)", "deleted b.txt (1 bytes)"]
        );
        assert!(after.complete);
    }

    #[test]
    fn an_upper_layer_reads_as_created_modified_and_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let (lower, upper) = (dir.path().join("lower"), dir.path().join("upper"));
        write(&lower, "same.txt", "same");
        write(&lower, "edit.txt", "old");
        write(&lower, "keep/k.txt", "k");
        // Copied up unchanged, changed, a new directory with a file, a new file in an old directory.
        write(&upper, "same.txt", "same");
        write(&upper, "edit.txt", "newer");
        write(&upper, "made/deep/x.txt", "x");
        write(&upper, "keep/new.txt", "n");
        let changes: Vec<String> = from_upper(&lower, &upper).unwrap().iter().map(ToString::to_string).collect();
        assert_eq!(
            changes,
            [
                "modified edit.txt (3 → 5 bytes)",
                "created keep/new.txt (1 bytes)",
                "created made/",
                "created made/deep/",
                "created made/deep/x.txt (1 bytes)"
            ]
        );
    }

    #[test]
    fn a_journal_applies_and_undoes_and_refuses_a_file_changed_since() {
        let dir = tempfile::tempdir().unwrap();
        let (cwd, upper, journal_dir) = (dir.path().join("cwd"), dir.path().join("upper"), dir.path().join("j"));
        write(&cwd, "keep.txt", "old");
        write(&cwd, "gone.txt", "bye");
        write(&upper, "keep.txt", "new!");
        write(&upper, "made/x.txt", "x");
        let changes = vec![
            Change {
                path: "keep.txt".into(),
                kind: ChangeKind::Modified,
                bytes_before: Some(3),
                bytes_after: Some(4),
                dir: false,
            },
            Change {
                path: "made".into(),
                kind: ChangeKind::Created,
                bytes_before: None,
                bytes_after: Some(0),
                dir: true,
            },
            Change {
                path: "made/x.txt".into(),
                kind: ChangeKind::Created,
                bytes_before: None,
                bytes_after: Some(1),
                dir: false,
            },
            Change {
                path: "gone.txt".into(),
                kind: ChangeKind::Deleted,
                bytes_before: Some(3),
                bytes_after: None,
                dir: false,
            },
        ];
        let journal = Journal::apply(&cwd, &upper, &changes, &journal_dir).unwrap();
        assert_eq!(fs::read_to_string(cwd.join("keep.txt")).unwrap(), "new!");
        assert_eq!(fs::read_to_string(cwd.join("made/x.txt")).unwrap(), "x");
        assert!(!cwd.join("gone.txt").exists());
        assert_eq!(journal.changes(), changes);

        // Changed since: refused, nothing restored.
        write(&cwd, "made/x.txt", "edited by the user");
        let mut loaded = Journal::load(&journal_dir).unwrap();
        let error = loaded.undo().unwrap_err().to_string();
        assert!(error.contains("made/x.txt has changed since clive created it"), "{error}");
        assert_eq!(fs::read_to_string(cwd.join("keep.txt")).unwrap(), "new!");

        write(&cwd, "made/x.txt", "x");
        Journal::load(&journal_dir).unwrap().undo().unwrap();
        assert_eq!(fs::read_to_string(cwd.join("keep.txt")).unwrap(), "old");
        assert_eq!(fs::read_to_string(cwd.join("gone.txt")).unwrap(), "bye");
        assert!(!cwd.join("made").exists());
        assert!(!journal_dir.join(JOURNAL_FILE).exists());
    }
}
