//! Which tools this machine has: found on `PATH` as `command -v` finds them (cheap, checked every time, so a
//! tool removed from `PATH` is never offered), with versions (cached by binary, so asked once).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::Duration;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::card::ToolCard;
use crate::kind::PaneKind;

/// How long one tool may take to print its version.
pub const VERSION_DEADLINE: Duration = Duration::from_secs(3);

/// What we know about one tool here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolStatus {
    /// The command.
    pub tool: String,
    /// The pane kind it belongs to.
    pub pane: PaneKind,
    /// What it is for (from its card).
    pub summary: String,
    /// Where `command -v` finds it; `None` when it is not installed (not on `PATH`).
    pub path: Option<PathBuf>,
    /// Its version, when it says one.
    pub version: Option<String>,
}

impl ToolStatus {
    /// Whether the tool is installed.
    pub fn available(&self) -> bool {
        self.path.is_some()
    }
}

/// How to probe.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    /// The `PATH` to search (default: this process's).
    pub path: OsString,
    /// Where versions are cached between runs (`None`: no cache).
    pub cache_file: Option<PathBuf>,
    /// Whether to ask for versions at all (they cost a process per tool not in the cache).
    pub versions: bool,
}

impl Default for ProbeOptions {
    fn default() -> Self {
        ProbeOptions { path: std::env::var_os("PATH").unwrap_or_default(), cache_file: None, versions: true }
    }
}

impl ProbeOptions {
    /// The default cache file: `$CLIVE_HOME/cache/tools.json`, else `$XDG_CACHE_HOME/clive/tools.json`, else
    /// `~/.cache/clive/tools.json`.
    pub fn default_cache_file() -> Option<PathBuf> {
        ProbeOptions::cache_file_with(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
    }

    /// Like [`ProbeOptions::default_cache_file`], reading the environment through `lookup`.
    pub fn cache_file_with(lookup: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
        let dir = lookup("CLIVE_HOME")
            .map(|home| PathBuf::from(home).join("cache"))
            .or_else(|| lookup("XDG_CACHE_HOME").map(|dir| PathBuf::from(dir).join("clive")))
            .or_else(|| lookup("HOME").map(|home| PathBuf::from(home).join(".cache/clive")))?;
        Some(dir.join("tools.json"))
    }
}

/// The tools of some cards, probed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Availability {
    tools: Vec<ToolStatus>,
}

impl Availability {
    /// Finds each card's tool on the `PATH` and asks the found ones for their versions (in parallel, each
    /// with a deadline; from the cache when the binary is unchanged).
    pub async fn probe<'a>(cards: impl IntoIterator<Item = &'a ToolCard>, options: &ProbeOptions) -> Availability {
        let (mut tools, version_args): (Vec<ToolStatus>, Vec<Option<Vec<String>>>) = cards
            .into_iter()
            .map(|card| {
                let status = ToolStatus {
                    tool: card.tool.clone(),
                    pane: card.pane,
                    summary: card.summary.clone(),
                    path: find_on_path(&card.tool, &options.path),
                    version: None,
                };
                (status, card.version_args.clone())
            })
            .unzip();
        if options.versions {
            fill_versions(&mut tools, &version_args, options).await;
        }
        Availability { tools }
    }

    /// Builds an availability from known statuses (for tests and embedders with their own probe).
    pub fn from_statuses(tools: Vec<ToolStatus>) -> Availability {
        Availability { tools }
    }

    /// Every probed tool.
    pub fn tools(&self) -> &[ToolStatus] {
        &self.tools
    }

    /// The status of `tool`, if it was probed.
    pub fn get(&self, tool: &str) -> Option<&ToolStatus> {
        self.tools.iter().find(|t| t.tool == tool)
    }

    /// Whether `tool` was probed and found.
    pub fn is_available(&self, tool: &str) -> bool {
        self.get(tool).is_some_and(ToolStatus::available)
    }
}

/// Where `command -v tool` would find an executable `tool` on `path` (for a name without `/`).
pub fn find_on_path(tool: &str, path: &OsStr) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    if tool.is_empty() || tool.contains('/') {
        return None;
    }
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(tool))
        .find(|file| std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// One cached version, valid while the binary keeps its size and modification time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct CacheEntry {
    size: u64,
    modified_ns: u128,
    version: Option<String>,
}

fn fingerprint(path: &Path) -> Option<(u64, u128)> {
    let meta = std::fs::metadata(path).ok()?;
    let modified = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos();
    Some((meta.len(), modified))
}

async fn fill_versions(tools: &mut [ToolStatus], version_args: &[Option<Vec<String>>], options: &ProbeOptions) {
    let mut cache: BTreeMap<PathBuf, CacheEntry> = options
        .cache_file
        .as_ref()
        .and_then(|file| std::fs::read(file).ok())
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    let mut asks = tokio::task::JoinSet::new();
    for (index, status) in tools.iter_mut().enumerate() {
        let Some(path) = status.path.clone() else { continue };
        let Some((size, modified_ns)) = fingerprint(&path) else { continue };
        match cache.get(&path) {
            Some(entry) if entry.size == size && entry.modified_ns == modified_ns => {
                status.version = entry.version.clone();
            }
            _ => {
                let args = version_args.get(index).cloned().flatten();
                asks.spawn(async move {
                    let version = match args {
                        Some(args) => ask_version(&path, &args).await,
                        None => None,
                    };
                    (index, path, CacheEntry { size, modified_ns, version })
                });
            }
        }
    }
    if asks.is_empty() {
        return;
    }
    while let Some(done) = asks.join_next().await {
        let Ok((index, path, entry)) = done else { continue };
        tools[index].version = entry.version.clone();
        cache.insert(path, entry);
    }
    if let Some(file) = &options.cache_file {
        write_cache(file, &cache);
    }
}

/// Writes the cache through a temporary file and a rename, so a reader never sees half of it. A cache that
/// cannot be written costs the next run a few version calls, nothing more.
fn write_cache(file: &Path, cache: &BTreeMap<PathBuf, CacheEntry>) {
    let Ok(text) = serde_json::to_vec_pretty(cache) else { return };
    let Some(dir) = file.parent() else { return };
    let temporary = file.with_extension(format!("tmp-{}", std::process::id()));
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&temporary, text))
        .and_then(|()| std::fs::rename(&temporary, file));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temporary);
        tracing::debug!(file = %file.display(), %e, "tool version cache not written");
    }
}

/// How many times a tool is started when the system says its file is busy being written.
const BUSY_TRIES: u32 = 5;

async fn ask_version(path: &Path, args: &[String]) -> Option<String> {
    let spawn = || {
        tokio::process::Command::new(path)
            .args(args)
            .env("LC_ALL", "C")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
    };
    // ETXTBSY: the file is open for writing somewhere (being installed or upgraded, or, in a process that starts
    // programs from several threads, inherited by a child between its fork and its exec). It passes in moments.
    let mut tries = 1;
    let child = loop {
        match spawn() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < BUSY_TRIES => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(20 * u64::from(tries))).await;
            }
            other => break other.ok()?,
        }
    };
    let output = tokio::time::timeout(VERSION_DEADLINE, child.wait_with_output()).await.ok()?.ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let text = if text.trim().is_empty() { String::from_utf8_lossy(&output.stderr) } else { text };
    parse_version(&text)
}

static VERSION: LazyLock<Regex> = LazyLock::new(|| {
    #[allow(clippy::unwrap_used, reason = "a constant pattern, tested")]
    Regex::new(r"\d+(?:\.\d+)+(?:[a-z]+[0-9.]*)?").unwrap()
});

/// The version in a `--version` text: the first dotted number of its first line that has one.
pub fn parse_version(text: &str) -> Option<String> {
    text.lines().find_map(|line| VERSION.find(line)).map(|m| m.as_str().trim_end_matches('.').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_what_tools_print() {
        for (text, expected) in [
            ("GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)\n", "5.2.15"),
            ("jq-1.6\n", "1.6"),
            ("Lynx Version 2.9.0dev.12 (02 Jan 2023)\nlibwww-FM 2.14\n", "2.9.0dev.12"),
            ("curl 7.88.1 (x86_64-pc-linux-gnu) libcurl/7.88.1\n", "7.88.1"),
            ("3.40.1 2022-12-28 14:03:47 df5c\n", "3.40.1"),
            ("Python 3.11.7\n", "3.11.7"),
            ("\npdftotext version 22.02.0\nCopyright 2005-2022\n", "22.02.0"),
            ("mlr 6.8.0\n", "6.8.0"),
        ] {
            assert_eq!(parse_version(text).as_deref(), Some(expected), "{text:?}");
        }
        assert_eq!(parse_version("no version here\n"), None);
    }

    #[tokio::test]
    async fn versions_are_asked_once_per_binary_and_again_when_it_changes() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let asked = dir.path().join("asked");
        let tool = dir.path().join("faketool");
        let write_tool = |version: &str| {
            let script = format!("#!/bin/sh\necho x >> '{}'\necho 'faketool {version}'\n", asked.display());
            std::fs::write(&tool, script).unwrap();
            std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        write_tool("1.2.3");
        let card = ToolCard::parse(
            "faketool.md",
            "---\ntool: faketool\npane: data\nsummary: s\nversion: --version\n---\nbody\n",
        )
        .unwrap();
        let options = ProbeOptions {
            path: dir.path().as_os_str().to_owned(),
            cache_file: Some(dir.path().join("cache/tools.json")),
            versions: true,
        };
        let times_asked = || std::fs::read_to_string(&asked).map(|t| t.lines().count()).unwrap_or(0);
        for _ in 0..3 {
            let found = Availability::probe([&card], &options).await;
            assert_eq!(found.get("faketool").unwrap().version.as_deref(), Some("1.2.3"));
        }
        assert_eq!(times_asked(), 1, "asked once, then read from the cache");
        write_tool("1.2.40");
        let found = Availability::probe([&card], &options).await;
        assert_eq!(found.get("faketool").unwrap().version.as_deref(), Some("1.2.40"));
        assert_eq!(times_asked(), 2);
        std::fs::remove_file(&tool).unwrap();
        let found = Availability::probe([&card], &options).await;
        assert!(!found.is_available("faketool"), "a removed tool is seen at once, cache or not");
    }

    #[tokio::test(start_paused = true)]
    async fn a_tool_that_hangs_when_asked_its_version_is_given_up_on_at_the_deadline() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("hangtool");
        std::fs::write(&tool, "#!/bin/sh\nexec sleep 600\n").unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        let card =
            ToolCard::parse("hangtool.md", "---\ntool: hangtool\npane: data\nsummary: s\nversion: --version\n---\nb\n")
                .unwrap();
        let options = ProbeOptions { path: dir.path().as_os_str().to_owned(), cache_file: None, versions: true };
        let started = tokio::time::Instant::now();
        let found = Availability::probe([&card], &options).await;
        let waited = started.elapsed();
        assert!(found.is_available("hangtool"), "a tool on PATH is offered even without a version");
        assert_eq!(found.get("hangtool").unwrap().version, None);
        assert!(waited >= VERSION_DEADLINE && waited < VERSION_DEADLINE * 2, "{waited:?}");
    }

    #[test]
    fn path_lookup_finds_executables_only_in_order() {
        use std::os::unix::fs::PermissionsExt;
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let plain = a.path().join("tool");
        std::fs::write(&plain, "not executable").unwrap();
        let runnable = b.path().join("tool");
        std::fs::write(&runnable, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&runnable, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = std::env::join_paths([a.path(), b.path()]).unwrap();
        assert_eq!(find_on_path("tool", &path), Some(runnable));
        assert_eq!(find_on_path("absent", &path), None);
        assert_eq!(find_on_path("../tool", &path), None);
    }
}
