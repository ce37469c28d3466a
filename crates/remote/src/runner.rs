//! The `remote` mode of a plan: hand the subtask to the clive on its host and follow it with the model-free
//! [`AgentSession`]. The only judgement it needs, an answer to the inner's question, comes from an
//! [`Answerer`] (clive-cli's asks its model); everything else is shell.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use dag_sched::{DagError, Event, RunOutcome, RunRequest, Runner, SubtaskResult, SubtaskStatus};
use tmux_habitat::Session;
use turn_protocol::{Context, NONCE_ENV_VAR, Nonce};

use crate::address::Address;
use crate::connect_error::{ConnectError, classify};
use crate::driver::{AgentSession, DriveError, Update, open_agent_pane};
use crate::registry::{AgentHost, Registry};
use crate::ssh::{SshCommand, accept_env_line};

/// How long a one-off ssh command (copying a file) may take.
const ONE_OFF_DEADLINE: Duration = Duration::from_secs(60);

/// How long a cancelled inner gets to interrupt its subtasks, say so and leave: within dag-sched's 10 s grace
/// for runners after a cancellation (the inner's own shell runner presses C-c up to twice, 3 s each).
const INTERRUPT_DEADLINE: Duration = Duration::from_secs(8);

/// What the inner asked, for an [`Answerer`].
#[derive(Debug, Clone)]
pub struct AnswerRequest<'a> {
    /// The agent's alias.
    pub host: &'a str,
    /// The subtask's goal, as handed to the inner.
    pub task: &'a str,
    /// The question (`None`: the inner waits without saying what for).
    pub question: Option<&'a str>,
    /// The results of the subtasks this one depends on.
    pub dependencies: &'a [SubtaskResult],
}

/// Answers an inner clive's question: from the outer's own context (a model) or by asking the user.
#[async_trait]
pub trait Answerer: Send + Sync {
    /// The answer, or `None` when there is none (the subtask then fails, naming the question).
    async fn answer(&self, request: AnswerRequest<'_>) -> Option<String>;
}

/// Told of each agent pane the runner opens, as it opens it (clive-core records it, as it records the plan's
/// other panes). A reconnect opens a new pane: it is told as `<pane>-2`, `<pane>-3`, ….
#[async_trait]
pub trait PaneWatcher: Send + Sync {
    /// `pane` was opened for the plan's pane `name`.
    async fn opened(&self, pane: &tmux_habitat::Pane, name: &str);
}

/// Settings of the remote runner.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RemoteOptions {
    /// How long the inner may stay silent while it works (turn-protocol's stall limit).
    pub stall_after: Duration,
    /// How many times a dropped connection is re-established (with backoff from 0.5 s doubling to 8 s).
    pub reconnect_attempts: u32,
    /// The `ssh` program.
    pub ssh_program: String,
}

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions { stall_after: Duration::from_secs(300), reconnect_attempts: 5, ssh_program: "ssh".to_owned() }
    }
}

/// Runs `remote` subtasks: one ssh pane (a window of the run's session) and one conversation per subtask.
pub struct RemoteRunner {
    session: Session,
    registry: Arc<Registry>,
    env: Vec<(String, String)>,
    control_dir: PathBuf,
    answerer: Option<Arc<dyn Answerer>>,
    watcher: Option<Arc<dyn PaneWatcher>>,
    options: RemoteOptions,
}

impl std::fmt::Debug for RemoteRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `env` holds the provider keys: never printed.
        f.debug_struct("RemoteRunner").field("session", &self.session.name()).finish_non_exhaustive()
    }
}

impl RemoteRunner {
    /// A runner opening its panes in `session`, resolving hosts with `registry`, sending the variables `env`
    /// (name, value: the provider keys; they go into the ssh pane's environment and travel with `SendEnv`),
    /// sharing connections through sockets in `control_dir`.
    pub fn new(session: Session, registry: Arc<Registry>, env: Vec<(String, String)>, control_dir: PathBuf) -> Self {
        RemoteRunner {
            session,
            registry,
            env,
            control_dir,
            answerer: None,
            watcher: None,
            options: RemoteOptions::default(),
        }
    }

    /// Who answers the inner's questions (without one, a question fails the subtask).
    pub fn answerer(mut self, answerer: Arc<dyn Answerer>) -> Self {
        self.answerer = Some(answerer);
        self
    }

    /// Who is told of each agent pane opened (clive-core records them).
    pub fn watch_panes(mut self, watcher: Arc<dyn PaneWatcher>) -> Self {
        self.watcher = Some(watcher);
        self
    }

    /// Other settings.
    pub fn options(mut self, options: RemoteOptions) -> Self {
        self.options = options;
        self
    }

    fn ssh_for(&self, agent: &AgentHost, conversation: &str) -> SshCommand {
        let mut remote = agent.command.clone();
        remote.extend(["--conversational".to_owned(), "--attach".to_owned(), conversation.to_owned()]);
        if let Some(toolset) = &agent.toolset {
            remote.extend(["--tools".to_owned(), toolset.clone()]);
        }
        SshCommand::new(agent, self.env.iter().map(|(name, _)| name.as_str()))
            .program(self.options.ssh_program.clone())
            .control_dir(&self.control_dir)
            .remote(remote)
    }

    /// Opens an agent pane and tells the watcher.
    async fn open_pane(
        &self,
        name: &str,
        recorded_as: &str,
        ssh: &SshCommand,
        env: &[(String, String)],
    ) -> tmux_habitat::Result<tmux_habitat::Pane> {
        let pane = open_agent_pane(&self.session, name, ssh, env).await?;
        if let Some(watcher) = &self.watcher {
            watcher.opened(&pane, recorded_as).await;
        }
        Ok(pane)
    }

    /// Runs the conversation; the session it follows is left in `following`, so that a cancellation (which
    /// drops this future) can still interrupt the inner.
    async fn converse(
        &self,
        request: &RunRequest,
        deadline: tokio::time::Instant,
        following: &mut Option<(AgentSession, String)>,
    ) -> Result<RunOutcome, DagError> {
        let subtask = &request.subtask;
        let failed = |reason: String| Ok(RunOutcome::with_status(SubtaskStatus::Failed, reason));
        let address = match Address::new(subtask.host.as_deref().unwrap_or_default()) {
            Ok(address) => address,
            Err(error) => return failed(error.to_string()),
        };
        let agent = self.registry.resolve(&address);
        let conversation = format!("{:012x}", rand::random::<u64>() & 0xffff_ffff_ffff);
        let ssh = self.ssh_for(&agent, &conversation);
        let nonce = Nonce::generate();
        let mut env = self.env.clone();
        env.push((NONCE_ENV_VAR.to_owned(), nonce.to_hex()));
        let pane_error = |e: tmux_habitat::Error| DagError::runner(&subtask.id, e);
        let pane = self.open_pane(&subtask.pane, &subtask.pane, &ssh, &env).await.map_err(pane_error)?;
        let followed = AgentSession::follow(pane, nonce, self.options.stall_after).await;
        let (session, _) =
            following.insert((followed.map_err(|e| DagError::runner(&subtask.id, e))?, agent.alias.clone()));
        // The remote clive must have connected and said its first line within the connect deadline (plus its
        // own start).
        let connect_deadline = tokio::time::Instant::now() + agent.connect_timeout + Duration::from_secs(10);
        let accept_env = accept_env_line(self.env.iter().map(|(name, _)| name.as_str()));
        let mut task_sent = false;
        let mut transcript = String::new();
        let mut progress_count = 0;
        loop {
            let limit = if session.heard_from_inner() { deadline } else { deadline.min(connect_deadline) };
            let update = match session.next(limit).await {
                Ok(update) => update,
                Err(DriveError::Deadline) if !session.heard_from_inner() && tokio::time::Instant::now() < deadline => {
                    // A failure the pane already names (the inner's missing nonce, a host key, a refused login)
                    // is that failure, even when the deadline came before the connection's end was seen (on a
                    // loaded machine).
                    let known = classify(&agent.alias, session.screen(), &accept_env);
                    if !matches!(known, ConnectError::Other { .. } | ConnectError::RemoteCliveMissing { .. }) {
                        let _ = session.pane().kill().await;
                        return failed(known.to_string());
                    }
                    let shown: Vec<&str> = session.screen().lines().map(str::trim).filter(|l| !l.is_empty()).collect();
                    let tail = shown[shown.len().saturating_sub(3)..].join(" / ");
                    let _ = session.pane().kill().await;
                    let waited = agent.connect_timeout;
                    let error = ConnectError::TimedOut { host: agent.alias.clone(), waited };
                    return failed(if tail.is_empty() {
                        error.to_string()
                    } else {
                        format!("{error}; the pane showed: {tail}")
                    });
                }
                Err(DriveError::Deadline) => {
                    return Ok(RunOutcome::with_status(
                        SubtaskStatus::TimedOut,
                        "the remote agent did not finish in time",
                    ));
                }
                Err(error) => return Err(DagError::runner(&subtask.id, error)),
            };
            match update {
                Update::Progress(text) => {
                    progress_count += 1;
                    transcript.push_str(&format!("PROGRESS: {text}\n"));
                    request.events.send(Event::Progress {
                        id: subtask.id.clone(),
                        turn: progress_count,
                        tokens: 0,
                        note: format!("clive@{}: {text}", agent.alias),
                    });
                }
                Update::NeedsAnswer { question: None } if !task_sent => {
                    // The files of earlier steps go to this host first (over the connection just made), so the
                    // task can name them where the inner can read them.
                    let uploaded = match upload(&ssh, &conversation, &request.context.dependencies).await {
                        Ok(uploaded) => uploaded,
                        Err(reason) => return failed(reason),
                    };
                    let line = task_line(&subtask.description, &request.context.dependencies, &uploaded);
                    transcript.push_str(&format!("TASK: {line}\n"));
                    session.send_line(&line).await.map_err(|e| DagError::runner(&subtask.id, e))?;
                    task_sent = true;
                }
                Update::NeedsAnswer { question } => {
                    let asked = AnswerRequest {
                        host: &agent.alias,
                        task: &subtask.description,
                        question: question.as_deref(),
                        dependencies: &request.context.dependencies,
                    };
                    let answer = match &self.answerer {
                        Some(answerer) => answerer.answer(asked).await,
                        None => None,
                    };
                    let question = question.unwrap_or_else(|| "(it waits for input)".to_owned());
                    transcript.push_str(&format!("QUESTION: {question}\n"));
                    let Some(answer) = answer else {
                        let _ = session.pane().send_keys(&[tmux_habitat::Key::CTRL_C]).await;
                        return failed(format!("clive@{} asked \"{question}\" and there was no answer", agent.alias));
                    };
                    transcript.push_str(&format!("ANSWER: {answer}\n"));
                    session.send_line(&answer).await.map_err(|e| DagError::runner(&subtask.id, e))?;
                }
                Update::Done { context } => {
                    let context = context.unwrap_or_default();
                    let copied = self.copy_files(&ssh, &context, &request.context.subtask_dir).await;
                    let _ = session.release().await;
                    let result = context.result().unwrap_or_default().to_owned();
                    transcript.push_str(&format!("RESULT: {result}\n"));
                    // The copies are in the subtask's directory, where dag-sched finds them itself.
                    if let Err(reason) = copied {
                        return failed(reason);
                    }
                    tracing::info!(host = %agent.alias, stats = ?session.stats(), "remote subtask done");
                    return Ok(RunOutcome {
                        status: SubtaskStatus::Succeeded,
                        exit_code: None,
                        output: transcript,
                        summary: Some(result),
                        reason: None,
                        files: Vec::new(),
                    });
                }
                Update::Failed { context } => {
                    let _ = session.release().await;
                    let context = context.unwrap_or_default();
                    let why = context
                        .result()
                        .or_else(|| context.get("error").and_then(|v| v.as_str()))
                        .unwrap_or("no reason given");
                    return failed(format!("clive@{} failed: {why}", agent.alias));
                }
                Update::Stalled { silent_for } => {
                    return failed(format!(
                        "clive@{} said nothing for {}s while working; its pane is kept",
                        agent.alias,
                        silent_for.as_secs()
                    ));
                }
                Update::Disconnected { status, screen } => {
                    if !session.heard_from_inner() {
                        return failed(classify(&agent.alias, &screen, &accept_env).to_string());
                    }
                    tracing::warn!(host = %agent.alias, ?status, "the connection to the remote agent dropped; reconnecting");
                    transcript.push_str("RECONNECT\n");
                    self.reconnect(session, &ssh, &env, &subtask.pane, &agent, deadline).await?;
                }
            }
        }
    }

    /// Opens the pane again (same conversation: the remote clive reattaches to its session), with backoff.
    async fn reconnect(
        &self,
        session: &mut AgentSession,
        ssh: &SshCommand,
        env: &[(String, String)],
        pane_name: &str,
        agent: &AgentHost,
        deadline: tokio::time::Instant,
    ) -> Result<(), DagError> {
        let mut wait = Duration::from_millis(500);
        let old = session.pane().clone();
        for attempt in 1..=self.options.reconnect_attempts.max(1) {
            if tokio::time::Instant::now() + wait >= deadline {
                break;
            }
            // Backoff between attempts (not a synchronisation: the host needs time to come back).
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(Duration::from_secs(8));
            let _ = old.kill().await;
            let pane = match self.open_pane(pane_name, &format!("{pane_name}-{}", attempt + 1), ssh, env).await {
                Ok(pane) => pane,
                Err(error) => {
                    tracing::warn!(attempt, %error, "reopening the agent pane failed");
                    continue;
                }
            };
            match session.reattach(pane).await {
                Ok(()) => return Ok(()),
                Err(error) => tracing::warn!(attempt, %error, "following the reopened agent pane failed"),
            }
        }
        Err(DagError::runner(
            pane_name,
            format!("the connection to clive@{} dropped and could not be re-established", agent.alias),
        ))
    }

    /// Copies the files the inner's CONTEXT names into `dir/files/` over the shared connection.
    async fn copy_files(&self, ssh: &SshCommand, context: &Context, dir: &Path) -> Result<Vec<PathBuf>, String> {
        let remote_files = context.file_list();
        if remote_files.is_empty() {
            return Ok(Vec::new());
        }
        let target = dir.join("files");
        std::fs::create_dir_all(&target).map_err(|e| format!("creating {}: {e}", target.display()))?;
        let mut copied = Vec::new();
        for remote in remote_files {
            let name = remote.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "file".into());
            let mut local = target.join(&name);
            let mut n = 1;
            while copied.contains(&local) {
                n += 1;
                local = target.join(format!("{n}-{name}"));
            }
            let argv = ssh.one_off(["cat".to_owned(), "--".to_owned(), remote.display().to_string()]);
            fetch(&argv, &local).await.map_err(|why| format!("copying {} back: {why}", remote.display()))?;
            copied.push(local);
        }
        Ok(copied)
    }
}

/// Puts the dependencies' files on the agent's host, under `~/.cache/clive/incoming/<conversation>/`; returns
/// (local path, path on the host) for each.
async fn upload(
    ssh: &SshCommand,
    conversation: &str,
    dependencies: &[SubtaskResult],
) -> Result<Vec<(PathBuf, String)>, String> {
    /// Makes the directory, writes stdin to the file, prints the file's absolute path.
    const RECEIVE: &str =
        r#"d="$HOME/.cache/clive/incoming/$1" && mkdir -p "$d" && cat > "$d/$2" && printf '%s' "$d/$2""#;
    let mut uploaded = Vec::new();
    for local in dependencies.iter().flat_map(|d| d.files.iter()).filter(|f| f.is_file()) {
        let name = local.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "file".into());
        let name = if uploaded.iter().any(|(_, remote): &(PathBuf, String)| remote.ends_with(&format!("/{name}"))) {
            format!("{}-{name}", uploaded.len() + 1)
        } else {
            name
        };
        let argv = ssh.one_off(["sh", "-c", RECEIVE, "clive-receive", conversation, &name]);
        let input = std::fs::File::open(local).map_err(|e| format!("reading {}: {e}", local.display()))?;
        let mut out = Vec::new();
        one_off(&argv, input.into(), std::process::Stdio::piped(), Some(&mut out))
            .await
            .map_err(|why| format!("copying {} to the agent's host: {why}", local.display()))?;
        uploaded.push((local.clone(), String::from_utf8_lossy(&out).trim().to_owned()));
    }
    Ok(uploaded)
}

/// Runs `argv` (an ssh one-off) with its output into `local`, under [`ONE_OFF_DEADLINE`].
async fn fetch(argv: &[String], local: &Path) -> Result<(), String> {
    let file = std::fs::File::create(local).map_err(|e| e.to_string())?;
    one_off(argv, std::process::Stdio::null(), file.into(), None).await
}

/// Runs an ssh one-off under [`ONE_OFF_DEADLINE`]; its stdout goes to `stdout`, or into `captured` when that
/// is piped.
async fn one_off(
    argv: &[String],
    stdin: std::process::Stdio,
    stdout: std::process::Stdio,
    captured: Option<&mut Vec<u8>>,
) -> Result<(), String> {
    let (program, args) = argv.split_first().ok_or("no command")?;
    let child = tokio::process::Command::new(program)
        .args(args)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("starting {program}: {e}"))?;
    match tokio::time::timeout(ONE_OFF_DEADLINE, child.wait_with_output()).await {
        Ok(Ok(out)) if out.status.success() => {
            if let Some(captured) = captured {
                *captured = out.stdout;
            }
            Ok(())
        }
        Ok(Ok(out)) => Err(String::from_utf8_lossy(&out.stderr).trim().to_owned()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!("no end within {}s", ONE_OFF_DEADLINE.as_secs())),
    }
}

/// The line typed for the inner: the goal, then what the steps before it reported and where their files are
/// now (`uploaded`: local path, path on the inner's host), on one line: the inner reads one line.
pub fn task_line(goal: &str, dependencies: &[SubtaskResult], uploaded: &[(PathBuf, String)]) -> String {
    let mut line = goal.trim().to_owned();
    for dependency in dependencies {
        let summary = dependency.summary.split_whitespace().collect::<Vec<_>>().join(" ");
        line.push_str(&format!(" [The earlier step `{}` reported: {summary}", dependency.id));
        let files: Vec<&str> = uploaded
            .iter()
            .filter(|(local, _)| dependency.files.contains(local))
            .map(|(_, remote)| remote.as_str())
            .collect();
        if !files.is_empty() {
            line.push_str(&format!("; its files, copied to this machine: {}", files.join(", ")));
        }
        line.push(']');
    }
    line
}

/// Stops a cancelled inner: C-c on its terminal (the inner's Ctrl-C: it interrupts its subtasks, keeps its
/// session for the retention period and reports `TURN: failed`), then end of input once it has said so (it
/// leaves, and ssh ends). Bounded by [`INTERRUPT_DEADLINE`]; says how it went.
async fn interrupt(session: &mut AgentSession, host: &str) -> String {
    if !session.heard_from_inner() {
        // Still connecting: nothing runs on the host yet.
        let _ = session.pane().kill().await;
        return format!("the connection to clive@{host} was closed before it answered");
    }
    let deadline = tokio::time::Instant::now() + INTERRUPT_DEADLINE;
    if let Err(error) = session.pane().send_keys(&[tmux_habitat::Key::CTRL_C]).await {
        return format!("clive@{host} could not be interrupted: {error}");
    }
    // Its turn ends (failed, or done if it finished meanwhile), or it was waiting for input anyway. Each of
    // these is a state `next` reports again at once: the first one is the answer.
    let stopped = loop {
        match session.next(deadline).await {
            Ok(Update::Progress(_)) => {}
            Ok(update @ (Update::Failed { .. } | Update::Done { .. } | Update::NeedsAnswer { .. })) => {
                tracing::debug!(?update, "the interrupted inner's turn");
                break true;
            }
            Ok(Update::Disconnected { .. }) => {
                return format!("clive@{host} was interrupted and the connection ended");
            }
            // Silent past the stall limit, or past the deadline: it did not confirm.
            Ok(Update::Stalled { .. }) | Err(_) => break false,
        }
    };
    // End of input: the inner leaves and ssh ends with it.
    let ended = stopped && session.release().await.is_ok() && session.wait_ended(deadline).await.is_ok();
    match (stopped, ended) {
        (true, true) => format!("clive@{host} interrupted its work and left (its session is kept on its host)"),
        (true, false) => format!(
            "clive@{host} interrupted its work; the connection did not end within {}s",
            INTERRUPT_DEADLINE.as_secs()
        ),
        (false, _) => {
            let _ = session.pane().kill().await;
            format!(
                "clive@{host} did not confirm the interruption within {}s; the connection was closed",
                INTERRUPT_DEADLINE.as_secs()
            )
        }
    }
}

#[async_trait]
impl Runner for RemoteRunner {
    async fn run(&self, request: RunRequest) -> Result<RunOutcome, DagError> {
        let deadline = tokio::time::Instant::now() + request.timeout;
        let mut following = None;
        tokio::select! {
            outcome = self.converse(&request, deadline, &mut following) => return outcome,
            () = request.cancel.cancelled() => {}
        }
        // Cancelled (the user's Ctrl-C): the inner is interrupted too, not left running on its host.
        let how = match &mut following {
            Some((session, host)) => interrupt(session, host).await,
            None => "before the agent pane was open".to_owned(),
        };
        tracing::info!(id = %request.subtask.id, how, "remote subtask cancelled");
        Ok(RunOutcome::with_status(SubtaskStatus::Cancelled, format!("the run was cancelled; {how}")))
    }
}
