//! The false-completion guard: a claim of success is checked against what is known before it is believed.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

/// Words that say a file was made; paths in a summary are checked only next to them, so "there is no
/// config.yaml" is not taken for a claim.
static WROTE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(wrote|written|write|created|create|saved|save|generated|produced|stored|exported|copied|moved|made)\b",
    )
    .ok()
});

/// Path-like words: `/abs/path`, `./rel`, `~/x`, `dir/file`, or `name.ext` with a letter in the extension.
static PATH: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?:^|[\s`'(\x22])((?:~|\.{1,2})?/?[\w.+-]+(?:/[\w.+-]+)*\.[A-Za-z][A-Za-z0-9]{0,7}|(?:~|\.{1,2})?/[\w.+/-]+|[\w.+-]+/[\w.+/-]+)")
        .ok()
});

/// The files a `done` names: those listed explicitly, and path-like words of a summary that says it wrote
/// something. URLs and numbers are not paths.
pub fn claimed_files(summary: &str, listed: &[String]) -> Vec<String> {
    let mut files: Vec<String> = listed.iter().map(|f| f.trim().to_owned()).filter(|f| !f.is_empty()).collect();
    let says_wrote = WROTE.as_ref().is_some_and(|re| re.is_match(summary));
    if says_wrote && let Some(re) = PATH.as_ref() {
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
    fn paths_count_only_when_the_summary_says_it_wrote_them() {
        assert_eq!(claimed_files("Created out/report.txt and ./b.csv.", &[]), ["out/report.txt", "./b.csv"]);
        assert_eq!(claimed_files("wrote the list to /tmp/x/list", &[]), ["/tmp/x/list"]);
        assert!(claimed_files("There is no config.yaml here.", &[]).is_empty());
        assert!(claimed_files("Saved 3.5 MB, version 1.2; see https://example.com/a.html", &[]).is_empty());
        assert_eq!(claimed_files("42 lines", &["a.txt".into(), " ".into()]), ["a.txt"]);
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
