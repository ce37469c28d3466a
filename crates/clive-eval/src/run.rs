//! Running tasks: each run gets a fresh directory with the task's fixtures, its own tmux socket and
//! `CLIVE_HOME`, a wall-time limit, and then the task's check.
//!
//! A run's directory holds `work/` (where the agent runs and the check looks), `home/` (`CLIVE_HOME`),
//! `agent.out`/`agent.err`, `answer.txt` (the answer the check reads as `$EVAL_OUTPUT`: the report's answer
//! field, or the raw stdout when it is not JSON), `check.out`/`check.err` and, with the fake backend,
//! `requests.json` (every request the model server received). They are removed after the run unless
//! [`RunOptions::artifacts`] names a directory to keep them in.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::process::Command;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::agent_report::{AgentReport, Figures};
use crate::error::Error;
use crate::process::{Ended, run_limited};
use crate::replies::{FakeModel, FakeUsage, PROVIDER_VARIABLES, ReplyScript};
use crate::report::{Report, RunRecord, Status};
use crate::task::Task;

/// How long a check may take.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(60);

/// After its time limit, how long an agent has to stop after SIGINT (and report what it spent) before it is
/// killed.
pub const STOP_GRACE: Duration = Duration::from_secs(5);

/// What does the tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Agent {
    /// The `clive` binary at this path, run as `clive --json [--max-tokens N] [args] -- "<task>"`.
    Clive(PathBuf),
    /// Each task's `solution.sh` (proves the checks pass on a known-good result).
    Reference,
    /// Nothing: the check runs on the untouched fixtures (proves the checks fail there).
    Nothing,
}

impl Agent {
    /// `clive`, `reference` or `none`.
    pub fn name(&self) -> &'static str {
        match self {
            Agent::Clive(_) => "clive",
            Agent::Reference => "reference",
            Agent::Nothing => "none",
        }
    }
}

/// Which model the agent talks to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// Whatever the environment configures (the usual provider variables), unchanged.
    Env,
    /// A scripted fake server per run, loaded with the task's `replies.toml` (see [`crate::replies`]).
    Fake,
    /// An OpenAI-compatible server at this root URL (llama.cpp: `LOCAL_LLM_URL`); other providers are unset.
    Local(String),
}

impl Backend {
    /// `env`, `fake` or `local`.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Env => "env",
            Backend::Fake => "fake",
            Backend::Local(_) => "local",
        }
    }
}

/// How to run a set of tasks.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// What does the tasks.
    pub agent: Agent,
    /// Which model it uses.
    pub backend: Backend,
    /// Runs per task.
    pub repeats: u32,
    /// Runs at the same time.
    pub jobs: usize,
    /// Overrides every task's wall-time limit.
    pub timeout: Option<Duration>,
    /// Keep each run's directory under `<artifacts>/<task>/<repeat>/`.
    pub artifacts: Option<PathBuf>,
    /// Keep held-out tasks' run directories too: their files show whoever reads them the task, its fixtures and
    /// what the agent did, so by default a held-out run is deleted like one without `artifacts`.
    pub held_out_artifacts: bool,
    /// Where the run's temporary directory (run directories, tmux sockets) is made [default: the system's].
    pub scratch: Option<PathBuf>,
}

impl RunOptions {
    /// One run of each task with `agent`, the environment's model, as many at once as the machine has cores.
    pub fn new(agent: Agent) -> RunOptions {
        RunOptions {
            agent,
            backend: Backend::Env,
            repeats: 1,
            jobs: default_jobs(),
            timeout: None,
            artifacts: None,
            held_out_artifacts: false,
            scratch: None,
        }
    }
}

/// As many runs at once as there are cores (2 on the reference machine): a run mostly waits on its model and
/// its commands.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map(usize::from).unwrap_or(1)
}

/// Where `clive` is by default: next to this executable (`target/<profile>/clive` in a checkout).
pub fn default_clive() -> Option<PathBuf> {
    Some(std::env::current_exe().ok()?.parent()?.join("clive"))
}

/// Runs every task `options.repeats` times, `options.jobs` at once; `progress` hears of each finished run
/// with the count done and the total.
pub async fn run_suite(
    tasks: &[Task],
    options: &RunOptions,
    progress: impl Fn(&RunRecord, usize, usize),
) -> Result<Report, Error> {
    if let Agent::Clive(path) = &options.agent
        && !path.is_file()
    {
        return Err(Error::CliveNotFound { path: path.clone() });
    }
    // Every path handed to a child must be absolute: children run in their own working directories.
    let absolute =
        |path: &Path| std::path::absolute(path).map_err(|source| Error::Io { path: path.to_owned(), source });
    let mut options = options.clone();
    if let Agent::Clive(path) = &options.agent {
        options.agent = Agent::Clive(absolute(path)?);
    }
    options.artifacts = options.artifacts.as_deref().map(absolute).transpose()?;
    options.scratch = options.scratch.as_deref().map(absolute).transpose()?;
    let options = &options;
    let parent = options.scratch.clone().unwrap_or_else(std::env::temp_dir);
    let scratch = tempfile::Builder::new()
        .prefix("clive-eval")
        .tempdir_in(&parent)
        .map_err(|source| Error::Io { path: parent, source })?;
    let shared = Arc::new(Shared {
        options: options.clone(),
        max_tokens_flag: match &options.agent {
            Agent::Clive(path) => supports_max_tokens(path, scratch.path()).await,
            _ => false,
        },
        scratch: scratch.path().to_owned(),
    });
    // Reply scripts are read up front, so a malformed one stops the run before anything starts.
    let mut scripts = Vec::with_capacity(tasks.len());
    for task in tasks {
        scripts.push(match (&options.backend, task.replies_file()) {
            (Backend::Fake, Some(path)) => Arc::new(ReplyScript::load(&path)?),
            _ => Arc::new(ReplyScript::default()),
        });
    }
    let limit = Arc::new(Semaphore::new(options.jobs.max(1)));
    let mut running = JoinSet::new();
    let mut index = 0;
    for repeat in 1..=options.repeats.max(1) {
        for (task, script) in tasks.iter().zip(&scripts) {
            index += 1;
            let (shared, limit, task, script) = (shared.clone(), limit.clone(), task.clone(), script.clone());
            running.spawn(async move {
                let _permit = limit.acquire_owned().await;
                run_one(&shared, &task, &script, repeat, index).await
            });
        }
    }
    let total = index;
    let mut runs = Vec::with_capacity(total);
    while let Some(joined) = running.join_next().await {
        // A run never fails (errors are records); a panic in one is a bug, passed on as such.
        let record = joined.unwrap_or_else(|error| std::panic::resume_unwind(error.into_panic()));
        progress(&record, runs.len() + 1, total);
        runs.push(record);
    }
    Ok(Report::new(options.agent.name(), options.backend.name(), options.repeats.max(1), runs))
}

struct Shared {
    options: RunOptions,
    max_tokens_flag: bool,
    scratch: PathBuf,
}

/// One run of one task; never an `Err`: whatever goes wrong is the record's `error` status.
async fn run_one(shared: &Shared, task: &Task, script: &ReplyScript, repeat: u32, index: usize) -> RunRecord {
    let kept = shared.options.artifacts.as_ref().filter(|_| shared.options.held_out_artifacts || !task.is_held_out());
    let dir = match kept {
        Some(root) => root.join(&task.name).join(repeat.to_string()),
        None => shared.scratch.join(format!("{index}")),
    };
    // tmux refuses socket paths past ~100 bytes, so sockets live in the short scratch directory.
    let socket = shared.scratch.join(format!("{index}.sock"));
    let result = run_in(shared, task, script, repeat, &dir, &socket).await;
    if kept.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    result.unwrap_or_else(|error| {
        let mut record = blank_record(task, repeat);
        record.status = Status::Error;
        record.reasons.push(error.to_string());
        record
    })
}

async fn run_in(
    shared: &Shared,
    task: &Task,
    script: &ReplyScript,
    repeat: u32,
    dir: &Path,
    socket: &Path,
) -> Result<RunRecord, Error> {
    let options = &shared.options;
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| Error::Io { path, source }
    };
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(io(dir))?;
    }
    let (work, home) = (dir.join("work"), dir.join("home"));
    std::fs::create_dir_all(&work).map_err(io(&work))?;
    std::fs::create_dir_all(&home).map_err(io(&home))?;
    if task.fixtures().is_dir() {
        copy_tree(&task.fixtures(), &work)?;
    }
    let fake = match options.backend {
        Backend::Fake => Some(FakeModel::start(script).await?),
        _ => None,
    };
    let limit = options.timeout.unwrap_or_else(|| task.spec.limits.timeout());
    let (stdout_path, stderr_path) = (dir.join("agent.out"), dir.join("agent.err"));
    let agent_command = match &options.agent {
        Agent::Clive(clive) => {
            let mut command = Command::new(clive);
            command.arg("--json");
            if let Some(max) = task.spec.limits.max_tokens.filter(|_| shared.max_tokens_flag) {
                command.arg("--max-tokens").arg(max.to_string());
            }
            command.args(&task.spec.args).arg("--").arg(&task.spec.task);
            Some(command)
        }
        Agent::Reference => {
            let mut command = Command::new("bash");
            command.arg(task.solution());
            Some(command)
        }
        Agent::Nothing => None,
    };
    let ended = match agent_command {
        Some(mut command) => {
            command
                .current_dir(&work)
                .env("CLIVE_TMUX_SOCKET", socket)
                .env("CLIVE_HOME", &home)
                .env_remove("TMUX")
                .env_remove("TMUX_PANE");
            match (&options.backend, &fake) {
                (Backend::Fake, Some(fake)) => {
                    remove_providers(&mut command);
                    command.envs(fake.env());
                }
                (Backend::Local(url), _) => {
                    remove_providers(&mut command);
                    command.env("OPENAI_BASE_URL", format!("{}/v1", url.trim_end_matches('/')));
                }
                _ => {}
            }
            let ended = run_limited(command, &stdout_path, &stderr_path, limit, STOP_GRACE).await;
            stop_tmux(socket).await;
            Some(ended?)
        }
        None => None,
    };
    let fake_usage = fake.as_ref().map(FakeModel::usage);
    if let Some(fake) = &fake {
        let requests: Vec<_> = fake
            .requests()
            .into_iter()
            .map(|r| serde_json::json!({"method": r.method, "path": r.path, "body": r.body}))
            .collect();
        let path = dir.join("requests.json");
        std::fs::write(&path, serde_json::to_string_pretty(&requests).unwrap_or_default()).map_err(io(&path))?;
    }
    drop(fake);

    let stdout = std::fs::read_to_string(&stdout_path).unwrap_or_default();
    let report = match (&options.agent, ended) {
        (Agent::Nothing, _) | (_, None) => AgentReport::default(),
        (_, Some(ended)) => AgentReport::parse(&stdout, ended.code),
    };
    // A JSON report without an answer field answered nothing (its error text is no answer).
    let answer = if report.json { report.answer.clone().unwrap_or_default() } else { stdout };
    let answer_path = dir.join("answer.txt");
    std::fs::write(&answer_path, answer).map_err(io(&answer_path))?;

    let mut check = Command::new("bash");
    check
        .arg(task.check())
        .current_dir(&work)
        .env("EVAL_OUTPUT", &answer_path)
        .env("EVAL_STDOUT", &stdout_path)
        .env("EVAL_FIXTURES", task.fixtures())
        .env("EVAL_TASK_DIR", &task.dir);
    let (check_out, check_err) = (dir.join("check.out"), dir.join("check.err"));
    let checked = run_limited(check, &check_out, &check_err, CHECK_TIMEOUT, Duration::ZERO).await?;
    let said = last_line(&check_err).or_else(|| last_line(&check_out));
    let ran = Ran { ended, limit };
    Ok(judge(task, repeat, ran, &report.figures, checked, said, fake_usage))
}

/// How the agent's process ended (`None`: no agent ran), and the time it was given.
struct Ran {
    ended: Option<Ended>,
    limit: Duration,
}

/// The record of a run, from what happened (`said`: the check's last line of output).
fn judge(
    task: &Task,
    repeat: u32,
    Ran { ended, limit }: Ran,
    figures: &Figures,
    checked: Ended,
    said: Option<String>,
    fake: Option<FakeUsage>,
) -> RunRecord {
    let mut record = blank_record(task, repeat);
    let check_passed = !checked.timed_out && checked.code == Some(0);
    let mut reasons = Vec::new();
    let timed_out = ended.is_some_and(|e| e.timed_out);
    if timed_out {
        // The limit, not the time it took to stop: a program that ignores SIGINT (inherited from a shell that
        // started the run in the background) is stopped only after the grace, and the reason stays the same.
        reasons.push(format!("timed out after {} s", limit.as_secs()));
    }
    if checked.timed_out {
        reasons.push(format!("the check did not finish within {} s", CHECK_TIMEOUT.as_secs()));
    } else if !check_passed {
        reasons.push(format!("check: {}", said.as_deref().unwrap_or("failed, saying nothing")));
    }
    let expect = &task.spec.expect;
    if let Some(route) = &figures.route
        && !expect.route.is_empty()
        && !expect.route.iter().any(|r| r.eq_ignore_ascii_case(route))
    {
        reasons.push(format!("route {route}, expected {}", expect.route.join(" or ")));
    }
    if let Some(modes) = &figures.modes {
        for missing in expect.modes.iter().filter(|m| !modes.iter().any(|used| used.eq_ignore_ascii_case(m))) {
            reasons.push(format!("mode {missing} was not used"));
        }
    }
    let limits = &task.spec.limits;
    if let (Some(used), Some(max)) = (figures.tokens_total(), limits.max_tokens)
        && used > max
    {
        reasons.push(format!("{used} tokens, over the limit of {max}"));
    }
    if let (Some(turns), Some(max)) = (figures.turns, limits.max_turns)
        && turns > max
    {
        reasons.push(format!("{turns} turns, over the limit of {max}"));
    }
    let wall_ms = ended.map_or(0, |e| e.wall.as_millis() as u64);
    record.status = match (timed_out, reasons.is_empty()) {
        (true, _) => Status::Timeout,
        (false, true) => Status::Pass,
        (false, false) => Status::Fail,
    };
    record.reasons = reasons;
    record.check_passed = (!checked.timed_out).then_some(check_passed);
    record.exit_code = ended.and_then(|e| e.code);
    record.false_completion = figures.claimed_success == Some(true) && !check_passed;
    record.wall_ms = wall_ms;
    record.overhead_ms = match (ended, figures.model_ms, figures.command_ms) {
        (Some(_), Some(model), Some(command)) => Some(wall_ms.saturating_sub(model).saturating_sub(command)),
        _ => None,
    };
    record.reported = figures.clone();
    record.fake = fake;
    record
}

fn blank_record(task: &Task, repeat: u32) -> RunRecord {
    RunRecord {
        task: task.name.clone(),
        repeat,
        status: Status::Error,
        reasons: vec![],
        check_passed: None,
        exit_code: None,
        false_completion: false,
        reported: Figures::default(),
        wall_ms: 0,
        overhead_ms: None,
        fake: None,
    }
}

fn last_line(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().rev().map(str::trim).find(|l| !l.is_empty())?;
    Some(line.chars().take(300).collect())
}

fn remove_providers(command: &mut Command) {
    for name in PROVIDER_VARIABLES {
        command.env_remove(name);
    }
}

/// Kills the run's private tmux server (clive keeps a failed task's session for a look; nobody will look):
/// `kill-server` over the socket, then by its process whatever is left on that socket: a server whose socket
/// file is already gone (so `kill-server` cannot reach it) or that did not answer.
async fn stop_tmux(socket: &Path) {
    const DEADLINE: Duration = Duration::from_secs(10);
    // Also removes the socket's turn lock file, with the server there or not.
    if let Ok(server) = tmux_habitat::Server::existing(tmux_habitat::SocketSpec::Path(socket.to_owned()))
        && tokio::time::timeout(DEADLINE, server.kill()).await.is_err()
    {
        tracing::warn!(socket = %socket.display(), "tmux did not answer kill-server within 10 s");
    }
    match tmux_habitat::kill_servers_on(socket, DEADLINE).await {
        Ok(0) => {}
        // Usually a server still on its way out after kill-server; sometimes one its socket no longer reached.
        Ok(killed) => tracing::debug!(socket = %socket.display(), killed, "killed the tmux server by its process"),
        Err(e) => tracing::warn!(socket = %socket.display(), error = %e, "could not kill the run's tmux server"),
    }
    let _ = std::fs::remove_file(socket);
}

/// Whether this clive takes `--max-tokens` (it is passed only when it does).
async fn supports_max_tokens(clive: &Path, scratch: &Path) -> bool {
    let mut command = Command::new(clive);
    command.arg("--help");
    let (out, err) = (scratch.join("help.out"), scratch.join("help.err"));
    let ran = run_limited(command, &out, &err, Duration::from_secs(10), Duration::ZERO).await;
    ran.is_ok() && std::fs::read_to_string(&out).is_ok_and(|help| help.contains("--max-tokens"))
}

/// Copies a directory tree (files keep their permissions; symbolic links are copied as links).
fn copy_tree(from: &Path, to: &Path) -> Result<(), Error> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| Error::Io { path, source }
    };
    for entry in std::fs::read_dir(from).map_err(io(from))? {
        let entry = entry.map_err(io(from))?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().map_err(io(&source))?;
        if kind.is_dir() {
            std::fs::create_dir_all(&target).map_err(io(&target))?;
            copy_tree(&source, &target)?;
        } else if kind.is_symlink() {
            let link = std::fs::read_link(&source).map_err(io(&source))?;
            std::os::unix::fs::symlink(link, &target).map_err(io(&target))?;
        } else {
            std::fs::copy(&source, &target).map_err(io(&source))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What clive's leftover servers looked like after local-model runs: running, their socket file gone.
    #[tokio::test]
    async fn a_tmux_server_whose_socket_file_is_gone_is_stopped_all_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("0.sock");
        let server = tmux_habitat::Server::builder().socket_path(&socket).keep_on_drop(true).start().await.unwrap();
        server.new_session(tmux_habitat::SessionOptions::new("left")).await.unwrap();
        let on_socket = || servers_naming(&socket);
        assert!(!on_socket().is_empty(), "the server runs");
        std::fs::remove_file(&socket).unwrap();
        stop_tmux(&socket).await;
        assert_eq!(on_socket(), Vec::<u32>::new(), "a tmux server is still running on {}", socket.display());
        drop(server);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing left beside the socket");
    }

    /// Running tmux servers whose command line names `socket` (an exited one, not yet reaped, has none).
    fn servers_naming(socket: &Path) -> Vec<u32> {
        let needle = socket.to_string_lossy().into_owned();
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
            let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            if comm.starts_with("tmux: server") && String::from_utf8_lossy(&cmdline).contains(&needle) {
                found.push(pid);
            }
        }
        found
    }
}
