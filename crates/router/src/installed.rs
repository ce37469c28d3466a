//! Which programs are installed: what tier 0 asks about a command word outside its table.
//!
//! Tier 0 runs `seq 1 5`, `npm test` or `./build.sh` without a model when the program exists here: a
//! name found on `PATH`, or a path (`./build.sh`, `~/bin/x`, `/opt/x/bin/y`) naming an executable file.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Where tier 0 looks for programs outside its table: a search path (`PATH`), the directory relative
/// paths start from, and the home directory `~/` means.
///
/// ```
/// let installed = clive_router::Installed::from_env();
/// assert!(installed.has("sh"));
/// assert!(!installed.has("surely-no-such-program-here"));
/// assert!(!clive_router::Installed::none().has("sh"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Installed {
    path: Option<OsString>,
    cwd: Option<PathBuf>,
    home: Option<PathBuf>,
    /// Whether what is not given is read from the process environment, when a word is looked up (a task of
    /// table programs only costs no environment reads).
    from_env: bool,
}

impl Installed {
    /// This process's `PATH`, working directory and `HOME`, read when a word is looked up.
    pub fn from_env() -> Self {
        Installed { from_env: true, ..Installed::default() }
    }

    /// This process's `PATH` and `HOME`, with relative paths (`./build.sh`) taken from `cwd`: the directory
    /// the command will run in.
    pub fn in_dir(cwd: impl Into<PathBuf>) -> Self {
        Installed { cwd: Some(cwd.into()), from_env: true, ..Installed::default() }
    }

    /// This search path (`PATH`'s syntax) and working directory, no home: for tests and embedders that
    /// decide what counts as installed.
    pub fn with_path(path: impl Into<OsString>, cwd: impl Into<PathBuf>) -> Self {
        Installed { path: Some(path.into()), cwd: Some(cwd.into()), home: None, from_env: false }
    }

    /// Nothing is installed: tier 0 takes the programs of its table only, with no I/O.
    pub fn none() -> Self {
        Installed::default()
    }

    /// Whether `word`, a command word as typed, names an executable file: a path (it contains `/`), or a
    /// name found in a directory of the search path.
    pub fn has(&self, word: &str) -> bool {
        if word.is_empty() {
            return false;
        }
        if self.from_env {
            let resolved = Installed {
                path: self.path.clone().or_else(|| std::env::var_os("PATH")),
                cwd: self.cwd.clone().or_else(|| std::env::current_dir().ok()),
                home: self.home.clone().or_else(|| std::env::var_os("HOME").map(PathBuf::from)),
                from_env: false,
            };
            return resolved.has(word);
        }
        if word.contains('/') {
            return self.resolve(word).is_some_and(|path| is_executable(&path));
        }
        let Some(path) = &self.path else { return false };
        // An empty entry would mean the working directory: a name typed bare never runs from there here.
        std::env::split_paths(path).any(|dir| dir.is_absolute() && is_executable(&dir.join(word)))
    }

    fn resolve(&self, word: &str) -> Option<PathBuf> {
        if let Some(rest) = word.strip_prefix("~/") {
            return self.home.as_ref().map(|home| home.join(rest));
        }
        let path = Path::new(word);
        if path.is_absolute() {
            return Some(path.to_path_buf());
        }
        // `$DIR/x` or `~user/x` would need the shell's expansion: not judged, not taken.
        if word.starts_with(['$', '~']) {
            return None;
        }
        self.cwd.as_ref().map(|cwd| cwd.join(path))
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(dir: &Path, name: &str, mode: u32) {
        use std::os::unix::fs::PermissionsExt as _;
        let path = dir.join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn names_on_the_path_and_paths_that_are_executable_files() {
        let bin = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        tool(bin.path(), "npm", 0o755);
        tool(bin.path(), "notes", 0o644);
        std::fs::create_dir(bin.path().join("adir")).unwrap();
        tool(work.path(), "build.sh", 0o755);
        let installed = Installed::with_path(bin.path(), work.path());
        assert!(installed.has("npm"));
        assert!(!installed.has("notes"), "not executable");
        assert!(!installed.has("adir"), "a directory");
        assert!(!installed.has("pytest"));
        assert!(installed.has("./build.sh"));
        assert!(installed.has(&work.path().join("build.sh").display().to_string()));
        assert!(!installed.has("build.sh"), "a bare name is looked up on the path only");
        assert!(!installed.has("./missing.sh"));
        assert!(!installed.has("$DIR/build.sh"));
        assert!(!installed.has("~/build.sh"), "no home given");
        let home = Installed { home: Some(work.path().to_path_buf()), ..installed };
        assert!(home.has("~/build.sh"));
    }

    #[test]
    fn relative_entries_of_the_path_do_not_count() {
        let work = tempfile::tempdir().unwrap();
        tool(work.path(), "x", 0o755);
        assert!(!Installed::with_path(".:", work.path()).has("x"));
    }
}
