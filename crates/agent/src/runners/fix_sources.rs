//! Where a fix's words came from: the fix-and-rerun loop's success rests on the program exiting 0, and a program
//! that accepts a value proves only that the value has the right form. A value a fix typed that nothing gives — not
//! the goal, the program's text, its output, the file as it was, nor a name in the directory — is a guess (an input
//! file filled with made-up rows, a setting given a plausible number), so for a small model such an exit 0 is not a
//! checked result ([`crate::AgentConfig::trace_fixes`]). `sed -i 's/cvs/csv/' export.ini` after an error saying the
//! format must be `csv` guessed nothing; neither did `cp app.example.ini app.ini`, whose words the model never typed.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::changes::{Change, ChangeKind};

/// The most bytes of a file read to trace its words.
const MAX_BYTES: u64 = 64 * 1024;

/// The most directory entries whose names count as sources.
const MAX_NAMES: usize = 2000;

/// The most files of one fix judged; the most guesses kept.
const MAX_FILES: usize = 20;
const MAX_GUESSES: usize = 20;

/// Directories whose names are no source: tools' own trees.
const UNWALKED: &[&str] = &[".git", "node_modules", ".venv", "venv", "__pycache__", "target"];

/// What the fixes of one fix-and-rerun loop wrote that nothing gave.
#[derive(Debug)]
pub(crate) struct Tracer {
    cwd: PathBuf,
    /// The names under the working directory before any fix, and the parts of its own path.
    names: HashSet<String>,
    guesses: Vec<String>,
    /// Files a fix wrote whose words could not be traced (their earlier content not kept, too big, not text).
    unjudged: Vec<PathBuf>,
    /// The files the fixes wrote.
    written: Vec<PathBuf>,
    /// Values a `set` fix chose among those an error offered, and the one of them the goal names.
    passed_over: Vec<(String, String)>,
}

impl Tracer {
    /// Starts tracing in `cwd`, before any fix: the names under it (but in `skipped` and tools' own trees) are
    /// sources.
    pub(crate) fn new(cwd: &Path, skipped: &[PathBuf]) -> Tracer {
        let mut names: HashSet<String> = HashSet::new();
        names.extend(words(&cwd.to_string_lossy()));
        for name in names_under(cwd, skipped) {
            names.extend(words(&name));
        }
        Tracer {
            cwd: cwd.to_owned(),
            names,
            guesses: Vec::new(),
            unjudged: Vec::new(),
            written: Vec::new(),
            passed_over: Vec::new(),
        }
    }

    /// Traces one kept fix: `command` as the model wrote it, its `changes` (applied; `pre_image` finds where a
    /// modified file's old content is kept), `sources` (the goal, the program's text and its output so far). A code
    /// file is not traced: a fix to a program is run by the program's next run.
    pub(crate) fn fix(
        &mut self,
        command: &str,
        changes: &[Change],
        pre_image: impl Fn(&Path) -> Option<PathBuf>,
        sources: &str,
    ) {
        // `printf 'a\nb'` typed `a` and `b`, not `nb`.
        let unescaped = command.replace("\\n", " ").replace("\\t", " ");
        let typed: HashSet<String> = words(&unescaped).collect();
        let known: HashSet<String> = words(sources).collect();
        let files = changes.iter().filter(|c| {
            !c.dir && c.kind != ChangeKind::Deleted && !crate::goal_spec::is_program(&c.path.to_string_lossy())
        });
        for change in files.take(MAX_FILES) {
            if !self.written.contains(&change.path) {
                self.written.push(change.path.clone());
            }
            let had: HashSet<String> = match change.kind {
                ChangeKind::Modified => match pre_image(&change.path).and_then(|pre| read_small(&pre)) {
                    Some(before) => words(&before).collect(),
                    None => {
                        self.unjudged.push(change.path.clone());
                        continue;
                    }
                },
                _ => HashSet::new(),
            };
            let Some(after) = read_small(&self.cwd.join(&change.path)) else {
                self.unjudged.push(change.path.clone());
                continue;
            };
            for word in words(&after) {
                let given = had.contains(&word) || known.contains(&word) || self.names.contains(&word);
                if typed.contains(&word) && !given && !self.guesses.contains(&word) && self.guesses.len() < MAX_GUESSES
                {
                    self.guesses.push(word);
                }
            }
        }
    }

    /// Traces the value a `set` fix gave `key`: it must come from the goal, the output the fix answers, the lines of
    /// the program's text that name the key, or a name in the directory. That the file or the program held it
    /// elsewhere does not count: the 1.5B and the 0.5B answered "retries must be a whole number, got 'three'" with the
    /// 30 an earlier error had asked of another key ("no 'timeout' (use 30)"). Nor does a value the output offers
    /// beside the one the goal names: "MODE must be staging or production" set to `staging` for a goal that says
    /// production.
    pub(crate) fn set_value(&mut self, key: &str, value: &str, goal: &str, output: &str, program: &str) {
        let key = key.to_lowercase();
        let naming_key: Vec<&str> = program.lines().filter(|line| line.to_lowercase().contains(&key)).collect();
        let goal_words: HashSet<String> = words(goal).collect();
        let mut known = goal_words.clone();
        known.extend(words(output).chain(naming_key.iter().flat_map(|line| words(line))));
        for word in words(value) {
            if !known.contains(&word) && !self.names.contains(&word) && !self.guesses.contains(&word) {
                self.guesses.push(word);
            }
        }
        let value = value.trim().to_lowercase();
        if goal_words.contains(&value) {
            return;
        }
        if let Some(named) = offered_with(output, &value).into_iter().find(|other| goal_words.contains(other)) {
            self.passed_over.push((value, named));
        }
    }

    /// Why the program's exit 0 does not check the fixes, if it does not: guesses that are still in the files the
    /// fixes wrote, or a file whose words could not be traced.
    pub(crate) fn doubt(&self) -> Option<String> {
        let mut now: HashSet<String> = HashSet::new();
        for path in &self.written {
            now.extend(read_small(&self.cwd.join(path)).iter().flat_map(|text| words(text).collect::<Vec<_>>()));
        }
        if let Some((value, named)) = self.passed_over.iter().find(|(value, _)| now.contains(value)) {
            return Some(format!(
                "a fix chose `{value}` where the program offered `{named}` too, which the task names: the program \
                 accepting either does not check it"
            ));
        }
        let left: Vec<String> =
            self.guesses.iter().filter(|w| now.contains(*w)).take(5).map(|w| format!("`{w}`")).collect();
        if !left.is_empty() {
            return Some(format!(
                "a fix wrote {}, which neither the task, the program nor its output gives: the program accepting a \
                 guess does not check it",
                left.join(", ")
            ));
        }
        let unjudged: Vec<String> = self.unjudged.iter().take(3).map(|p| p.display().to_string()).collect();
        (!unjudged.is_empty()).then(|| {
            format!(
                "a fix changed {}, whose words could not be traced to the task or the program (its earlier content \
                 not kept, or too big to read)",
                unjudged.join(", ")
            )
        })
    }
}

/// The words of `text` that can carry a value, lower-cased: a number (`3`, `0.75`) whatever its length, else a run
/// of letters, digits and `_` of two characters or more.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    static WORD: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| crate::patterns::constant(r"\d+(?:\.\d+)+|\w+"));
    WORD.find_iter(text)
        .map(|m| m.as_str())
        .filter(|w| w.chars().count() >= 2 || w.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_lowercase)
}

/// The other values `text` offers beside `value` in a list of choices on one line ("staging or production", "one of
/// json, csv | xml"), lower-cased; empty when no such list holds `value`.
fn offered_with(text: &str, value: &str) -> Vec<String> {
    static CHOICES: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        crate::patterns::constant(r"(?i)[\w.-]+(?:(?:\s*,\s*|\s+or\s+|\s*\|\s*)[\w.-]+)*(?:\s+or\s+|\s*\|\s*)[\w.-]+")
    });
    static SEPARATOR: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| crate::patterns::constant(r"(?i)\s*,\s*|\s+or\s+|\s*\|\s*"));
    for choices in CHOICES.find_iter(text) {
        let members: Vec<String> = SEPARATOR.split(choices.as_str()).map(str::to_lowercase).collect();
        if members.iter().any(|m| m == value) {
            return members.into_iter().filter(|m| m != value).collect();
        }
    }
    Vec::new()
}

/// A file's text, when it is small and UTF-8.
fn read_small(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_BYTES {
        return None;
    }
    String::from_utf8(std::fs::read(path).ok()?).ok()
}

/// The names of the entries under `dir` (at most [`MAX_NAMES`], breadth first, hidden ones too), but in `skipped`
/// and [`UNWALKED`] trees.
fn names_under(dir: &Path, skipped: &[PathBuf]) -> Vec<String> {
    let mut names = Vec::new();
    let mut queue = std::collections::VecDeque::from([dir.to_path_buf()]);
    while let Some(next) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&next) else { continue };
        for entry in entries.flatten() {
            if names.len() >= MAX_NAMES {
                return names;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if UNWALKED.contains(&name.as_str()) || skipped.iter().any(|s| path.starts_with(s)) {
                continue;
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                queue.push_back(path);
            }
            names.push(name);
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

    fn dir_made(path: &str) -> Change {
        Change { dir: true, ..change(path, ChangeKind::Created) }
    }

    /// `command` changed `file` from `before` to `after` in a directory holding `dirs`, its old content kept aside:
    /// the doubt about the program's exit 0.
    fn fix(
        command: &str,
        file: &str,
        before: Option<&str>,
        after: &str,
        sources: &str,
        dirs: &[&str],
    ) -> Option<String> {
        let dir = tempfile::tempdir().unwrap();
        let pre = tempfile::tempdir().unwrap();
        for d in dirs {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        let mut tracer = Tracer::new(dir.path(), &[]);
        std::fs::write(dir.path().join(file), after).unwrap();
        if let Some(before) = before {
            std::fs::write(pre.path().join(file), before).unwrap();
        }
        let kind = if before.is_some() { ChangeKind::Modified } else { ChangeKind::Created };
        tracer.fix(command, &[change(file, kind)], |rel| Some(pre.path().join(rel)), sources);
        tracer.doubt()
    }

    #[test]
    fn a_value_the_error_gives_is_no_guess() {
        let sources = "Run ./export.py and fix what it complains about.\nformat must be 'csv' or 'tsv', got 'cvs'";
        let sed = "sed -i 's/cvs/csv/' export.ini";
        assert_eq!(
            fix(sed, "export.ini", Some("[export]\nformat = cvs\n"), "[export]\nformat = csv\n", sources, &[]),
            None
        );
    }

    #[test]
    fn a_set_value_comes_from_the_complaint_it_answers_not_from_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("mirror")).unwrap();
        std::fs::write(dir.path().join("s.ini"), "[remote]\ntimeout = 30\nretries = 30\n").unwrap();
        let program = "if 'timeout' not in remote: exit(\"s: [remote] has no timeout (seconds; use 30)\")\n\
                       for key in ('timeout', 'retries'): check(key)\n";
        let mut tracer = Tracer::new(dir.path(), &[]);
        tracer.written.push("s.ini".into());
        let task = "Run ./s.py and fix s.ini until it works.";
        tracer.set_value("timeout", "30", task, "s: [remote] has no timeout (seconds; use 30)", program);
        tracer.set_value("target", "mirror", task, "s: no target folder", program);
        tracer.set_value("timeout", "30", task, "s: timeout must be a whole number", program);
        assert_eq!(tracer.doubt(), None, "a value the error gives, a name in the directory, the key's own line");
        tracer.set_value("retries", "30", task, "s: retries must be a whole number, got 'three'", program);
        assert!(tracer.doubt().unwrap().starts_with("a fix wrote `30`, which neither"), "{:?}", tracer.doubt());
    }

    #[test]
    fn a_set_value_the_error_offers_beside_the_one_the_goal_names_is_no_check() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("d.conf"), "MODE=staging\n").unwrap();
        let mut tracer = Tracer::new(dir.path(), &[]);
        tracer.written.push("d.conf".into());
        let error = "d: MODE in d.conf must be staging or production (it is 'prod')";
        tracer.set_value("MODE", "production", "Run ./d.sh; it should go to production.", error, "");
        tracer.set_value("MODE", "staging", "Run ./d.sh and fix what it complains about.", error, "");
        assert_eq!(tracer.doubt(), None, "the goal names the value, or none of those offered");
        tracer.set_value("MODE", "staging", "Run ./d.sh; it should go to production.", error, "");
        assert_eq!(
            tracer.doubt().unwrap(),
            "a fix chose `staging` where the program offered `production` too, which the task names: the program \
             accepting either does not check it"
        );
        assert_eq!(offered_with("format must be one of json, csv | xml", "csv"), ["json", "xml"]);
        assert!(offered_with("the file is missing", "missing").is_empty());
    }

    #[test]
    fn made_up_content_is_a_guess() {
        let sources = "Run ./report.sh until it works.\nreport: people.csv not found (columns: name,age)";
        let doubt = fix(
            "printf 'name,age\\nAlice,30\\n' > people.csv",
            "people.csv",
            None,
            "name,age\nAlice,30\n",
            sources,
            &[],
        );
        assert!(doubt.unwrap().starts_with("a fix wrote `alice`, `30`, which neither"));
        let sources = "Run ./serve.sh until it works.\nserve: workers must be set";
        let doubt = fix(
            "echo 'workers = 4' >> serve.conf",
            "serve.conf",
            Some("port = 80\n"),
            "port = 80\nworkers = 4\n",
            sources,
            &[],
        );
        assert!(doubt.unwrap().contains("`4`"), "a one-digit number is a value");
    }

    #[test]
    fn words_copied_from_a_file_or_named_in_the_directory_are_no_guess() {
        let cp = "cp app.example.ini app.ini";
        assert_eq!(fix(cp, "app.ini", None, "[db]\nhost = alpha\n", "app: app.ini missing", &[]), None);
        let set = "sed -i 's|^source =.*|source = data/incoming|' sync.cfg";
        assert_eq!(
            fix(set, "sync.cfg", Some("source =\n"), "source = data/incoming\n", "sync: no source", &["data/incoming"]),
            None
        );
    }

    #[test]
    fn a_name_the_fix_made_itself_is_still_a_guess() {
        let fix_made = "mkdir -p backup && printf 'target=backup\\n' > sync.cfg";
        let dir = tempfile::tempdir().unwrap();
        let mut tracer = Tracer::new(dir.path(), &[]);
        std::fs::create_dir(dir.path().join("backup")).unwrap();
        std::fs::write(dir.path().join("sync.cfg"), "target=backup\n").unwrap();
        let changes = [dir_made("backup"), change("sync.cfg", ChangeKind::Created)];
        tracer.fix(fix_made, &changes, |_| None, "sync: no target set");
        assert!(tracer.doubt().unwrap().contains("`backup`"));
    }

    #[test]
    fn a_guess_a_later_fix_replaced_is_no_doubt() {
        let dir = tempfile::tempdir().unwrap();
        let pre = tempfile::tempdir().unwrap();
        let mut tracer = Tracer::new(dir.path(), &[]);
        std::fs::write(dir.path().join("serve.conf"), "port = 8080\n").unwrap();
        std::fs::write(pre.path().join("serve.conf"), "port = 80\n").unwrap();
        let modified = [change("serve.conf", ChangeKind::Modified)];
        tracer.fix("sed -i 's/80/8080/' serve.conf", &modified, |rel| Some(pre.path().join(rel)), "port below 1024");
        assert!(tracer.doubt().is_some());
        std::fs::write(pre.path().join("serve.conf"), "port = 8080\n").unwrap();
        std::fs::write(dir.path().join("serve.conf"), "port = 2048\n").unwrap();
        tracer.fix("sed -i 's/8080/2048/' serve.conf", &modified, |rel| Some(pre.path().join(rel)), "use port 2048");
        assert_eq!(tracer.doubt(), None);
    }

    #[test]
    fn code_deletions_and_directories_are_not_traced_but_unkept_old_content_is_a_doubt() {
        let dir = tempfile::tempdir().unwrap();
        let mut tracer = Tracer::new(dir.path(), &[]);
        std::fs::create_dir(dir.path().join("site")).unwrap();
        std::fs::write(dir.path().join("tool.py"), "open(p, encoding='utf-8')\n").unwrap();
        let changes =
            [dir_made("site"), change("old.lock", ChangeKind::Deleted), change("tool.py", ChangeKind::Modified)];
        tracer.fix("sed -i \"s/open(p)/open(p, encoding='utf-8')/\" tool.py", &changes, |_| None, "");
        assert_eq!(tracer.doubt(), None);
        std::fs::write(dir.path().join("app.ini"), "mode = turbo\n").unwrap();
        tracer.fix("sed -i 's/slow/turbo/' app.ini", &[change("app.ini", ChangeKind::Modified)], |_| None, "");
        assert!(tracer.doubt().unwrap().starts_with("a fix changed app.ini, whose words could not be traced"));
    }
}
