//! Shared by the end-to-end tests: directories outside /tmp (the sandbox makes /tmp private), a real HTTP
//! server, and the rule for skipping where a machine cannot run a test.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsString;
use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[path = "listener.rs"]
mod listener;
#[allow(unused_imports, reason = "not every test uses it")]
pub use listener::Listener;

use clive_toolbox::{Launcher, Sandbox, SandboxPolicy};
use tmux_habitat::{Server, Session, SessionOptions};

pub const T: Duration = Duration::from_secs(20);

/// A test's own directories, under cargo's target tmp dir (not /tmp, which is private inside the sandbox,
/// so a test HOME there would be invisible and every check on it vacuous).
pub struct Dirs {
    pub root: tempfile::TempDir,
    pub home: PathBuf,
    pub work: PathBuf,
    pub run: PathBuf,
}

impl Dirs {
    pub fn new() -> Dirs {
        let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let base = root.path().canonicalize().unwrap();
        let (home, work, run) = (base.join("home"), base.join("work"), base.join("run"));
        for dir in [&home, &work, &run] {
            std::fs::create_dir_all(dir).unwrap();
        }
        Dirs { root, home, work, run }
    }

    /// The caller's environment with this HOME.
    pub fn environment(&self, extra: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        let mut vars: Vec<(OsString, OsString)> = std::env::vars_os().filter(|(k, _)| k != "HOME").collect();
        vars.push(("HOME".into(), self.home.clone().into()));
        vars.extend(extra.iter().map(|(k, v)| (OsString::from(k), OsString::from(v))));
        vars
    }
}

/// `bwrap`, or `None` with a message when this machine has none and the run does not require it
/// (`.ci/run` sets `CLIVE_REQUIRE_SANDBOX=1`, so CI fails instead of skipping).
pub async fn sandbox_or_skip(policy: SandboxPolicy) -> Option<Sandbox> {
    match Sandbox::locate(policy).await {
        Ok(sandbox) => Some(sandbox),
        Err(e) if std::env::var_os("CLIVE_REQUIRE_SANDBOX").is_none() => {
            eprintln!("skipped: no usable sandbox on this machine: {e}");
            None
        }
        Err(e) => panic!("CLIVE_REQUIRE_SANDBOX is set but {e}"),
    }
}

/// A server, a session working in `dirs.work`, and a launcher for it.
pub async fn session(dirs: &Dirs) -> (Server, Session) {
    let server = Server::isolated().await.unwrap();
    let session = server.new_session(SessionOptions::new("tools").cwd(&dirs.work)).await.unwrap();
    (server, session)
}

pub fn launcher(dirs: &Dirs, sandbox: Option<Sandbox>, extra_env: &[(&str, &str)]) -> Launcher {
    Launcher::new(&dirs.work).caller_environment(dirs.environment(extra_env)).run_dir(&dirs.run).sandbox(sandbox)
}

/// Whether `tool` is on PATH, for tools a machine may lack by design (`systemctl` in a container).
pub fn present(tool: &str) -> bool {
    clive_toolbox::find_on_path(tool, &std::env::var_os("PATH").unwrap_or_default()).is_some()
}

/// `python3 -m http.server` on a free loopback port, serving `dir`; killed on drop.
pub struct HttpServer {
    child: std::process::Child,
    pub port: u16,
}

impl HttpServer {
    pub fn serve(dir: &Path) -> HttpServer {
        let mut child = std::process::Command::new("python3")
            .args(["-u", "-m", "http.server", "0", "--bind", "127.0.0.1"])
            .current_dir(dir)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("python3 -m http.server");
        // Its first line says the port: "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ...".
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line
            .split_whitespace()
            .skip_while(|w| *w != "port")
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        HttpServer { child, port }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
