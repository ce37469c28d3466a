//! The false-completion guard: a claim of success is checked against what is known before it is believed.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

/// Words that say a file was made; paths in a summary are checked only next to them, so "there is no
/// config.yaml" is not taken for a claim.
static WROTE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(wrote|written|write|created|create|saved|save|generated|produced|stored|exported|copied|moved|made)\b",
    )
});

/// Path-like words: `/abs/path`, `./rel`, `~/x`, `dir/file`, or `name.ext` with a letter in the extension.
static PATH: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?:^|[\s`'(\x22])((?:~|\.{1,2})?/?[\w.+-]+(?:/[\w.+-]+)*\.[A-Za-z][A-Za-z0-9]{0,7}|(?:~|\.{1,2})?/[\w.+/-]+|[\w.+-]+/[\w.+/-]+)",
    )
});

/// The files a `done` names: those listed explicitly, and path-like words of a summary that says it wrote
/// something. URLs and numbers are not paths.
pub fn claimed_files(summary: &str, listed: &[String]) -> Vec<String> {
    let mut files: Vec<String> = listed.iter().map(|f| f.trim().to_owned()).filter(|f| !f.is_empty()).collect();
    let says_wrote = WROTE.is_match(summary);
    if says_wrote {
        let re = &*PATH;
        for found in re.captures_iter(summary).filter_map(|c| c.get(1)) {
            let word = found.as_str().trim_end_matches(['.', ',', ':', ';']);
            let start = found.start();
            let url = summary[..start].ends_with("://") || summary[start..].starts_with("//");
            if !url && !word.is_empty() && !files.iter().any(|f| f == word) {
                files.push(word.to_owned());
            }
        }
    }
    files
}

/// The files and directories a goal says to make or change ([`crate::GoalSpec::destinations`]), so a claim of
/// success can be checked against the disk. A path after "to" governed by a verb of comparison ("compare a.txt to
/// b.txt") is read, not a destination.
pub fn goal_destinations(goal: &str) -> Vec<String> {
    crate::goal_spec::GoalSpec::parse(goal).destinations()
}

/// `file` resolved against `cwd` (`~` is the home directory).
pub fn resolve(file: &str, cwd: &Path) -> PathBuf {
    if let Some(rest) = file.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest);
    }
    cwd.join(file)
}

/// Splits claimed files into those that exist (absolute paths) and those that do not (as written).
pub fn check_files(files: &[String], cwd: &Path) -> (Vec<PathBuf>, Vec<String>) {
    let mut present = Vec::new();
    let mut missing = Vec::new();
    for file in files {
        let path = resolve(file, cwd);
        if path.exists() {
            present.push(path);
        } else {
            missing.push(file.clone());
        }
    }
    (present, missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_patterns_compile() {
        for re in [&*WROTE, &*PATH] {
            assert!(!re.as_str().is_empty());
        }
    }

    #[test]
    fn paths_count_only_when_the_summary_says_it_wrote_them() {
        assert_eq!(claimed_files("Created out/report.txt and ./b.csv.", &[]), ["out/report.txt", "./b.csv"]);
        assert_eq!(claimed_files("wrote the list to /tmp/x/list", &[]), ["/tmp/x/list"]);
        assert!(claimed_files("There is no config.yaml here.", &[]).is_empty());
        assert!(claimed_files("Saved 3.5 MB, version 1.2; see https://example.com/a.html", &[]).is_empty());
        assert_eq!(claimed_files("42 lines", &["a.txt".into(), " ".into()]), ["a.txt"]);
    }

    #[test]
    fn goals_name_what_they_make() {
        assert_eq!(
            goal_destinations("Count the lines in notes.txt and write just the number to lines.txt."),
            ["lines.txt"]
        );
        assert_eq!(goal_destinations("Copy config.json to backup/config.json."), ["backup/config.json"]);
        assert_eq!(goal_destinations("Create a directory named build."), ["build"]);
        assert_eq!(goal_destinations("Write the word hello into a file named greeting.txt."), ["greeting.txt"]);
        assert!(goal_destinations("Convert data.csv to JSON and send it to alice").is_empty());
        assert!(goal_destinations("Rename every .txt file to .md").is_empty());
        assert!(goal_destinations("How many .log files are here? Answer with the number.").is_empty());
        assert!(goal_destinations("Post it to https://example.com/x.json").is_empty());
        assert_eq!(
            goal_destinations("Write the line 'hi' (without the quotes) to the file reports/2024/summary.txt."),
            ["reports/2024/summary.txt"]
        );
        assert_eq!(
            goal_destinations("List the chapters under book/ that quote Keats, one path per line, in found.txt."),
            ["found.txt"]
        );
        assert!(goal_destinations("Count the lines in notes.txt and print the number.").is_empty());
        assert!(goal_destinations("What is the last line in hosts.cfg? Answer briefly.").is_empty());
        assert!(goal_destinations("According to door.log, how many badges were used?").is_empty());
        assert_eq!(
            goal_destinations("Relative to src/, list the files and save them to out/list.txt."),
            ["out/list.txt"]
        );
    }

    #[test]
    fn files_are_checked_against_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("here.txt"), "x").unwrap();
        let (present, missing) = check_files(&["here.txt".into(), "gone.txt".into()], dir.path());
        assert_eq!(present, [dir.path().join("here.txt")]);
        assert_eq!(missing, ["gone.txt"]);
    }
}
