//! Where a fix's words came from: the fix-and-rerun loop's success rests on the program exiting 0, and a program
//! that accepts a value proves only that the value has the right form. A fix that wrote words nothing gives — not the
//! goal, the program's text, its output, the file as it was, nor a name in the directory — guessed them (an input
//! file filled with made-up rows, a setting given a plausible number), so for a small model such an exit 0 is not a
//! checked result ([`crate::AgentConfig::trace_fixes`]). `sed -i 's/cvs/csv/' export.ini` after an error saying the
//! format must be `csv` guessed nothing.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::changes::{Change, ChangeKind};

/// The most bytes of a file read to trace its words: past that, the file is not judged.
const MAX_BYTES: u64 = 64 * 1024;

/// The most directory entries whose names count as sources.
const MAX_NAMES: usize = 2000;

/// The words a fix wrote (`changes`, applied to `cwd`; `pre_image` finds where a modified file's old content is
/// kept) that neither the file before, `sources` (the goal, the program's text and output) nor a name under `cwd`
/// holds, in the order written. A modified file whose old content is not kept, or a file too big or not text, is not
/// judged.
pub(crate) fn guessed(
    changes: &[Change],
    pre_image: impl Fn(&Path) -> Option<PathBuf>,
    cwd: &Path,
    sources: &str,
) -> Vec<String> {
    let mut known: Option<HashSet<String>> = None;
    let mut guessed = Vec::new();
    for change in changes.iter().filter(|c| !c.dir) {
        let had: HashSet<String> = match change.kind {
            ChangeKind::Created => HashSet::new(),
            ChangeKind::Modified => match pre_image(&change.path).and_then(|pre| read_small(&pre)) {
                Some(before) => words(&before).collect(),
                None => continue,
            },
            ChangeKind::Deleted => continue,
        };
        let Some(after) = read_small(&cwd.join(&change.path)) else { continue };
        let known = known.get_or_insert_with(|| {
            let mut known: HashSet<String> = words(sources).collect();
            known.extend(names_under(cwd).iter().flat_map(|n| words(n).collect::<Vec<_>>()));
            known
        });
        for word in words(&after) {
            if !had.contains(&word) && !known.contains(&word) && !guessed.contains(&word) {
                guessed.push(word);
            }
        }
    }
    guessed
}

/// The words of `text` that can carry a value: runs of letters, digits and `_`, two characters or more, lower-cased.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| w.chars().count() >= 2).map(str::to_lowercase)
}

/// A file's text, when it is small and UTF-8.
fn read_small(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_BYTES {
        return None;
    }
    String::from_utf8(std::fs::read(path).ok()?).ok()
}

/// The names of the entries under `dir` (at most [`MAX_NAMES`], breadth first, hidden ones too): a fix that names a
/// file or folder that is there guessed nothing.
fn names_under(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let mut queue = std::collections::VecDeque::from([dir.to_path_buf()]);
    while let Some(next) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&next) else { continue };
        for entry in entries.flatten() {
            if names.len() >= MAX_NAMES {
                return names;
            }
            names.push(entry.file_name().to_string_lossy().into_owned());
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                queue.push_back(entry.path());
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(path: &str, kind: ChangeKind) -> Change {
        Change { path: path.into(), kind, bytes_before: None, bytes_after: None, dir: false }
    }

    /// `file` changed from `before` to `after` in a fresh directory, its old content kept aside: the words guessed.
    fn fix(file: &str, before: Option<&str>, after: &str, sources: &str, dirs: &[&str]) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let pre = tempfile::tempdir().unwrap();
        for d in dirs {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        std::fs::write(dir.path().join(file), after).unwrap();
        if let Some(before) = before {
            std::fs::write(pre.path().join(file), before).unwrap();
        }
        let kind = if before.is_some() { ChangeKind::Modified } else { ChangeKind::Created };
        guessed(&[change(file, kind)], |rel| Some(pre.path().join(rel)), dir.path(), sources)
    }

    #[test]
    fn a_value_the_error_gives_is_no_guess() {
        let sources = "Run ./export.py and fix what it complains about.\nformat must be 'csv' or 'tsv', got 'cvs'";
        let words = fix("export.ini", Some("[export]\nformat = cvs\n"), "[export]\nformat = csv\n", sources, &[]);
        assert!(words.is_empty(), "{words:?}");
    }

    #[test]
    fn made_up_content_is_a_guess() {
        let sources = "Run ./report.sh until it works.\nreport: people.csv not found (columns: name,age)";
        assert_eq!(fix("people.csv", None, "name,age\nAlice,30\n", sources, &[]), ["alice", "30"]);
        let sources = "Run ./serve.sh until it works.\nserve: port must be above 1024";
        assert_eq!(fix("serve.conf", Some("port = 80\n"), "port = 8080\n", sources, &[]), ["8080"]);
    }

    #[test]
    fn a_name_in_the_directory_is_no_guess() {
        let words =
            fix("sync.cfg", Some("source =\n"), "source = data/incoming\n", "sync: no source", &["data/incoming"]);
        assert!(words.is_empty(), "{words:?}");
    }

    #[test]
    fn deletions_directories_and_unkept_old_content_are_not_judged() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("site")).unwrap();
        std::fs::write(dir.path().join("app.ini"), "mode = turbo\n").unwrap();
        let mut made = change("site", ChangeKind::Created);
        made.dir = true;
        let changes = [made, change("old.lock", ChangeKind::Deleted), change("app.ini", ChangeKind::Modified)];
        assert!(guessed(&changes, |_| None, dir.path(), "").is_empty());
    }
}
