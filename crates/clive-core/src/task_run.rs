//! Running one task end to end: route it, gate it, run it in a fresh session, report, clean up.

use std::time::{Duration, Instant};

use router::safety::{self, GateDecision, GatePolicy};
use router::{Route, Routed, Tier, TierStep};
use serde::Serialize;
use tmux_habitat::{Key, Server};
use toolbox::Sandbox;

use crate::archive;
use crate::config::TaskOptions;
use crate::error::Error;
use crate::event::{Event, Events};
use crate::provider;
use crate::session_record::{self, SESSION_PREFIX};
use crate::settings::Settings;
use crate::tools::TASK_PANE;
use dag_sched::CancelToken;

/// How long a fresh shell may take to show it reads input.
const SHELL_READY_TIMEOUT: Duration = Duration::from_secs(15);

/// What a task run produced: `--json` prints exactly this.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskReport {
    /// The task as given.
    pub task: String,
    /// Where the router sent it.
    pub route: Route,
    /// Which tier decided and what routing cost.
    pub routing: RoutingReport,
    /// Model calls of the whole run (here: routing's).
    pub model_calls: u32,
    /// Tokens of the whole run (here: routing's).
    pub tokens: TokenCount,
    /// The command line typed into the pane.
    pub command: String,
    /// The command's exit code.
    pub exit_code: i32,
    /// What the command printed.
    pub output: String,
    /// From typing the command to its end, in milliseconds.
    pub duration_ms: u64,
    /// The tmux session it ran in.
    pub session: String,
    /// Whether the session was kept (failed or `--keep`); removed after the retention period.
    pub kept: bool,
    /// The start of the output scrolled out of the pane's history.
    pub truncated: bool,
    /// Whether the command ran in the sandbox (a model wrote it; docs/tools.md).
    pub sandboxed: bool,
    /// What its pane could reach: `on` for a command the user typed; for a model's, `off`, or
    /// `{"hosts": [...]}` named in the task, through clive's proxy.
    pub network: toolbox::Network,
    /// `direct`: one command, typed as it is.
    pub modes: Vec<dag_sched::Mode>,
    /// Whether clive reports the task done (the command exited 0).
    pub claimed_success: bool,
    /// From the start of the run to its report.
    pub wall_ms: u64,
    /// Time spent waiting for the model (routing).
    pub model_ms: u64,
    /// Time spent waiting for the command.
    pub command_ms: u64,
    /// clive's own time: wall time minus model and command time.
    pub overhead_ms: u64,
}

/// What routing a task cost, as `--json` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoutingReport {
    /// The tier that decided.
    pub tier: Tier,
    /// Model calls made to route the task.
    pub model_calls: u32,
    /// Input tokens of those calls.
    pub input_tokens: u64,
    /// Output tokens of those calls.
    pub output_tokens: u64,
    /// Every tier that looked at the task: model, calls, tokens, latency, why it passed the task on.
    pub steps: Vec<TierStep>,
}

/// Tokens in and out, as `--json` shows them (`{"input": …, "output": …}`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TokenCount {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
}

impl TokenCount {
    /// The tokens routing `routed` cost.
    pub fn of_routing(routed: &Routed) -> Self {
        let usage = routed.usage();
        TokenCount { input: usage.input_tokens, output: usage.output_tokens }
    }
}

impl From<&Routed> for RoutingReport {
    fn from(routed: &Routed) -> Self {
        let usage = routed.usage();
        RoutingReport {
            tier: routed.tier,
            model_calls: routed.model_calls(),
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            steps: routed.steps.clone(),
        }
    }
}

/// Decides what runs: the tier-0 command, passed by the safety gate. Touches no tmux.
pub fn plan_task(task: &str, allow_destructive: bool) -> Result<(Route, String), Error> {
    plan_task_in(task, allow_destructive, |name| std::env::var(name).ok())
}

/// [`plan_task`] with the environment given by `env`.
fn plan_task_in(
    task: &str,
    allow_destructive: bool,
    env: impl Fn(&str) -> Option<String>,
) -> Result<(Route, String), Error> {
    let route = router::route(task);
    let command = match &route {
        Route::Direct(direct) => direct.command.clone(),
        other => {
            let reason = match other {
                Route::NeedsModel(escalation) => format!("tier 0 declined: {}", escalation.declined),
                _ => "not a shell command".to_owned(),
            };
            return Err(match provider::configured_provider(env) {
                None => Error::NoProvider { reason },
                Some(_) => Error::ModelTierUnavailable { reason },
            });
        }
    };
    gate(&command, allow_destructive)?;
    Ok((route, command))
}

/// Runs `task` when it is a shell command (tier 0; a task in words is an error here, see
/// `clive_core::run`): gates it, sweeps expired sessions, runs the command in a fresh detached session
/// `clive-<id>` in the caller's directory and environment, and removes the session after a success (keeps it
/// after a failure or with `keep`).
pub async fn run_task(settings: &Settings, task: &str, options: &TaskOptions) -> Result<TaskReport, Error> {
    let started = Instant::now();
    let (route, command) = plan_task(task, options.allow_destructive)?;
    let routed = Routed { route, tier: Tier::Direct, steps: vec![TierStep::new(Tier::Direct, started.elapsed())] };
    run_command(settings, task, &routed, &command, options, &Events::default(), &CancelToken::new()).await
}

/// Runs one command a router chose for `task` (tier 0, or the classifier's command), like [`run_task`]; the
/// command passes the safety gate first. Cancelling `cancel` interrupts it (C-c in its pane; the session stays).
pub async fn run_command(
    settings: &Settings,
    task: &str,
    routed: &Routed,
    command: &str,
    options: &TaskOptions,
    events: &Events,
    cancel: &CancelToken,
) -> Result<TaskReport, Error> {
    gate(command, options.allow_destructive)?;
    let server = settings.run_server().await?;
    let report = run_on(settings, &server, (task, routed, command), options, events, cancel).await;
    server.close().await;
    report
}

fn gate(command: &str, allow_destructive: bool) -> Result<(), Error> {
    match safety::check(command, GatePolicy { allow_destructive })? {
        GateDecision::Clear => {}
        GateDecision::Overridden(findings) => {
            for finding in findings {
                tracing::warn!(%finding, "destructive command allowed by --allow-destructive");
            }
        }
    }
    Ok(())
}

async fn run_on(
    settings: &Settings,
    server: &Server,
    (task, routed, command): (&str, &Routed, &str),
    options: &TaskOptions,
    events: &Events,
    cancel: &CancelToken,
) -> Result<TaskReport, Error> {
    let started = Instant::now();
    let server = server.clone();
    sweep_if_running(settings, &server).await;

    let session_name = format!("{SESSION_PREFIX}{}", session_record::new_session_id());
    let cwd = match &options.cwd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().map_err(|e| Error::io("reading the current directory", ".", e))?,
    };
    // A command a model wrote runs sandboxed (unless turned off); one the user typed runs as typed.
    let sandbox = match &options.tools.sandbox {
        Some(policy) if routed.tier != Tier::Direct => {
            Some(Sandbox::locate(policy.clone()).await.map_err(toolbox::Error::from)?)
        }
        _ => None,
    };
    let sandboxed = sandbox.is_some();
    let pane = TASK_PANE;
    let network =
        options.tools.network.network_for(task, &format!("{task}\n{command}"), &options.tools.config.sandbox.hosts);
    let launcher =
        toolbox::Launcher::new(&cwd).sandbox(sandbox).bridge(options.tools.bridge.clone()).pane_network(pane, network);
    let network = launcher.network_of(pane);
    let session_options = launcher.session(&server, &session_name, pane)?;
    let session = server.new_session(session_options).await?;
    tracing::debug!(session = %session_name, "session created");
    // Everything the pane prints from here on is recorded (`clive replay`, `clive serve`).
    let recorder = crate::recording::Recorder::new(settings, &session_name, task);
    recorder.record_first(session.first_pane()).await;
    events.emit(Event::CommandStarted { session: session_name.clone(), command: command.to_owned() });
    let report =
        run_in_session(started, &session, (task, routed, command), options, (sandboxed, network), cancel).await;
    recorder.stop_all().await;
    report
}

/// The part of a run that happens in its session: record it, run the command, keep or remove the session.
async fn run_in_session(
    started: Instant,
    session: &tmux_habitat::Session,
    (task, routed, command): (&str, &Routed, &str),
    options: &TaskOptions,
    (sandboxed, network): (bool, toolbox::Network),
    cancel: &CancelToken,
) -> Result<TaskReport, Error> {
    let server = session.server().clone();
    let session_name = session.name().to_owned();
    // If this process dies, the session still expires: after the timeout and a retention period.
    session_record::record_start(&server, &session_name, task, options.timeout + options.retention).await?;
    let pane = session.first_pane().clone();
    pane.wait_ready(SHELL_READY_TIMEOUT).await?;

    let outcome = tokio::select! {
        outcome = pane.run(command, options.timeout) => outcome,
        _ = cancel.cancelled() => {
            let _ = pane.send_keys(&[Key::CTRL_C]).await;
            let _ = session_record::record_end(&server, &session_name, None, options.retention).await;
            return Err(Error::Interrupted { session: session_name });
        }
    };
    let output = match outcome {
        Ok(output) => output,
        Err(tmux_habitat::Error::Timeout { .. }) => {
            session_record::record_end(&server, &session_name, None, options.retention).await?;
            return Err(Error::TimedOut { session: session_name, timeout: options.timeout });
        }
        Err(e) => {
            let _ = session_record::record_end(&server, &session_name, None, options.retention).await;
            return Err(e.into());
        }
    };
    let kept = options.keep || !output.success();
    if kept {
        session_record::record_end(&server, &session_name, Some(output.exit_code), options.retention).await?;
    } else {
        session.kill().await?;
    }
    let command_ms = u64::try_from(output.duration.as_millis()).unwrap_or(u64::MAX);
    let model_ms = routing_ms(routed);
    let wall_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX) + model_ms;
    Ok(TaskReport {
        task: task.to_owned(),
        route: routed.route.clone(),
        routing: RoutingReport::from(routed),
        model_calls: routed.model_calls(),
        tokens: TokenCount::of_routing(routed),
        command: command.to_owned(),
        exit_code: output.exit_code,
        output: output.output,
        duration_ms: command_ms,
        session: session_name,
        kept,
        truncated: output.truncated,
        sandboxed,
        network,
        modes: vec![dag_sched::Mode::Direct],
        claimed_success: output.exit_code == 0,
        wall_ms,
        model_ms,
        command_ms,
        overhead_ms: wall_ms.saturating_sub(model_ms + command_ms),
    })
}

/// The time routing `routed` spent in model tiers, in milliseconds (tier 0 calls no model).
pub fn routing_ms(routed: &Routed) -> u64 {
    let ms: f64 = routed.steps.iter().filter(|s| s.calls > 0).map(|s| s.latency_ms).sum();
    ms.round() as u64
}

/// Every start sweeps expired sessions; a failed sweep never stops the task.
async fn sweep_if_running(settings: &Settings, server: &Server) {
    if !settings.server_may_run() {
        return;
    }
    match archive::sweep(server, settings, session_record::unix_now(), false).await {
        Ok(removed) if !removed.is_empty() => tracing::info!(count = removed.len(), "expired sessions archived"),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "sweeping expired sessions failed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_needs_a_model_and_no_provider_names_the_variables() {
        let err = plan_task_in("what is the largest file here", false, |_| None).unwrap_err();
        assert!(matches!(err, Error::NoProvider { .. }), "{err:?}");
        let text = err.to_string();
        for name in provider::provider_variables() {
            assert!(text.contains(name), "{text}");
        }
        let with_key = |name: &str| (name == "OPENAI_BASE_URL").then(|| "http://127.0.0.1:1/v1".to_owned());
        let err = plan_task_in("what is the largest file here", false, with_key).unwrap_err();
        assert!(matches!(err, Error::ModelTierUnavailable { .. }), "{err:?}");
    }

    #[test]
    fn destructive_commands_are_refused_unless_allowed() {
        let err = plan_task("rm -rf ~", false).unwrap_err();
        assert!(matches!(err, Error::Refused(_)), "{err:?}");
        assert!(err.to_string().contains("--allow-destructive"), "{err}");
        assert!(plan_task("rm -rf ~", true).is_ok());
    }
}
