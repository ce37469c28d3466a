//! Running a plan for a task and for a plan file: the session and its panes, the model and its budget, the
//! runners, the events and the caller's cancellation, and what is kept afterwards.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agent::{Agent, AgentConfig, PaneProfile};
use dag_sched::{
    CancelToken, Executor, LaunchError, Mode, PaneLauncher, PanePool, RunOptions, RunSummary, ShellRunner,
    ValidatedPlan,
};
use llm::{Budgeted, ChatModel, ModelTier, ProfileChoice, ProviderConfig, ProviderKind, TokenBudget};
use router::safety::GatePolicy;
use tmux_habitat::{Server, Session};

use crate::config::{ModelOptions, Provider};
use crate::error::Error;
use crate::event::{Event, Events};
use crate::recording::Recorder;
use crate::remote_runner::{AnswerCounter, remote_runner};
use crate::session_record::{self, SESSION_PREFIX};
use crate::settings::Settings;
use crate::tools::{TASK_PANE, ToolsChoice};

/// What a run needs besides its plan.
#[derive(Clone)]
pub struct EngineOptions {
    /// The directory panes start in.
    pub cwd: PathBuf,
    /// The time limit of subtasks without their own.
    pub timeout: Duration,
    /// How long a kept session stays.
    pub retention: Duration,
    /// What the safety gate lets through.
    pub gate: GatePolicy,
    /// The model settings; `None` runs `direct` subtasks only.
    pub model: Option<ModelOptions>,
    /// The label recorded on the session (`clive sessions` shows it).
    pub label: String,
    /// The toolset and the sandbox of panes a model types into.
    pub tools: ToolsChoice,
    /// What the user wrote (the task, or the plan file): the hosts it names are the only ones panes a model
    /// types into may reach (docs/tools.md).
    pub network_from: String,
    /// Who answers a remote agent's question when the model cannot (`clive` asks the user on its terminal).
    pub answerer: Option<Arc<dyn remote::Answerer>>,
    /// Where remote agents' questions are told (the plan's own events go where [`Engine::run`] is told).
    pub events: Events,
}

/// The model a run uses, with its budget.
pub struct ModelSetup {
    /// The model, drawing from the budget.
    pub model: Arc<dyn ChatModel>,
    /// The run's budget.
    pub budget: Arc<TokenBudget>,
    /// The model the runners use and its profile.
    pub choice: ModelChoice,
}

/// The model a run's runners use (the provider's `default` tier), and its profile ([`llm::ModelProfile`]): what
/// decides whether the run gets what helps a small model (`AgentConfig::for_profile`, no shell tool cards, the
/// router's command not the first attempt). `clive tools` and `--json` reports show it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ModelChoice {
    /// The provider.
    pub provider: ProviderKind,
    /// The model's name, as the provider is sent it (`default` for a single-model server such as llama.cpp's).
    pub name: String,
    /// Its profile, where that came from (`config`, `name`, `default`) and why.
    #[serde(flatten)]
    pub profile: ProfileChoice,
}

impl ModelChoice {
    /// The runners' model of `config` and its profile: the config file's (`providers:`, `file`) over what its
    /// name tells over the provider's default ([`ProfileChoice::resolve`]).
    pub fn of(config: &ProviderConfig, file: &toolbox::UserConfig) -> ModelChoice {
        let name = config.models.for_tier(ModelTier::Default).to_owned();
        let profile = ProfileChoice::resolve(config.kind, &name, file.model_profile(config.kind, &name));
        ModelChoice { provider: config.kind, name, profile }
    }

    /// Whether the model gets what helps a small one.
    pub fn is_small(&self) -> bool {
        self.profile.profile.is_small()
    }

    /// One line for people: `ollama llama3.3:70b, profile large (its name says 70B parameters)`.
    pub fn describe(&self) -> String {
        format!("{} {}, profile {} ({})", self.provider, self.name, self.profile.profile, self.profile.reason)
    }
}

/// Connects to `provider`, drawing from `budget` (the router's calls and the runners' share it); the model's profile
/// comes from `file` (the user's config file) and the model's name. `Ok(None)` when no provider is configured.
pub fn connect_model(
    provider: &Provider,
    file: &toolbox::UserConfig,
    budget: Arc<TokenBudget>,
) -> Result<Option<ModelSetup>, Error> {
    let Some(config) = provider.config()? else { return Ok(None) };
    let choice = ModelChoice::of(&config, file);
    let inner = llm::connect(config).map_err(Error::Provider)?;
    let model: Arc<dyn ChatModel> = Arc::new(Budgeted::new(inner, budget.clone()));
    Ok(Some(ModelSetup { model, budget, choice }))
}

/// Opens a plan's panes with the toolbox's launcher: the never-hang environment, and the sandbox for panes a
/// model types into (docs/tools.md).
/// Each pane is recorded from its start.
struct ToolboxPanes {
    launcher: toolbox::Launcher,
    recorder: Arc<Recorder>,
}

#[async_trait::async_trait]
impl PaneLauncher for ToolboxPanes {
    async fn launch(&self, session: &Session, name: &str) -> Result<tmux_habitat::Pane, LaunchError> {
        let pane = self.launcher.open(session, name).await?;
        self.recorder.record(&pane, name).await;
        Ok(pane)
    }
}

/// A run in progress: its session (when the plan needs panes), run directory and runners.
pub struct Engine {
    server: Option<Server>,
    session: Option<Session>,
    /// The session's name (`clive-<id>`), also the run directory's name.
    pub session_name: String,
    /// Where results and records go.
    pub run_dir: PathBuf,
    /// The agent, when a model is configured.
    pub agent: Option<Agent>,
    /// The model calls that answered remote agents' questions (plans with `remote` subtasks).
    pub remote_answers: Option<Arc<AnswerCounter>>,
    /// Each pane's network (`On` where commands run as typed).
    pub networks: BTreeMap<String, toolbox::Network>,
    executor: Executor,
    recorder: Option<Arc<Recorder>>,
}

impl Engine {
    /// Opens what `plan` needs: a session in `options.cwd` when any subtask types into a pane (its first window
    /// is the pane `shell`), and the model when any subtask needs one.
    pub async fn start(
        settings: &Settings,
        plan: &ValidatedPlan,
        options: &EngineOptions,
        model: Option<ModelSetup>,
    ) -> Result<Engine, Error> {
        // An llm subtask whose goal names a file writes it in the pane's directory: it needs the pane too.
        let needs_panes = plan.subtasks().iter().any(|s| match s.mode {
            Mode::Llm => !agent::goal_destinations(&s.description).is_empty(),
            Mode::Answer => false,
            _ => true,
        });
        let model_panes = plan.subtasks().iter().any(|s| matches!(s.mode, Mode::Script | Mode::Interactive));
        let session_name = format!("{SESSION_PREFIX}{}", session_record::new_session_id());
        let run_dir = settings.state_dir.join("runs").join(&session_name);
        let installed = options.tools.installed().await;
        let mut networks = BTreeMap::new();
        let (server, session, pool, recorder) = if needs_panes {
            // Panes a model types into run sandboxed (unless turned off); a plan of the user's commands only
            // runs as typed.
            // The sandbox binds the run directory writable: it must exist before the first pane starts.
            std::fs::create_dir_all(&run_dir).map_err(|e| Error::io("creating the run directory", &run_dir, e))?;
            let launcher = if model_panes {
                let networks = options.tools.pane_networks(&options.network_from, plan.plan());
                options.tools.model_pane_launcher(&options.cwd, &run_dir, &networks).await?
            } else {
                toolbox::Launcher::new(&options.cwd).run_dir(&run_dir)
            };
            networks = plan.panes().iter().map(|pane| (pane.clone(), launcher.network_of(pane))).collect();
            let server = settings.run_server().await?;
            let session_options = launcher.session(&server, &session_name, TASK_PANE)?.window_name(TASK_PANE);
            let session = server.new_session(session_options).await?;
            let backstop = options.timeout + options.retention + Duration::from_secs(3600);
            session_record::record_start(&server, &session_name, &options.label, backstop).await?;
            let first = session.first_pane().clone();
            // Everything the panes print from here on is recorded (`clive replay`, `clive serve`).
            let recorder = Arc::new(Recorder::new(settings, &session_name, &options.label));
            recorder.record_first(&first).await;
            first.wait_ready(Duration::from_secs(15)).await?;
            let launcher = ToolboxPanes { launcher, recorder: recorder.clone() };
            let pool = Arc::new(PanePool::with_launcher(session.clone(), Arc::new(launcher)));
            pool.insert(TASK_PANE, first).await;
            (Some(server), Some(session), Some(pool), Some(recorder))
        } else {
            (None, None, None, None)
        };
        let answer_model = model.as_ref().map(|setup| setup.model.clone());
        let agent = model.map(|setup| {
            let small = setup.choice.is_small();
            let model_options = options.model.clone().unwrap_or(ModelOptions { max_tokens: 0, max_turns: 8 });
            // What helps a small model (greedy sampling, the worked examples, the shell's fixes, no final look) for
            // a small one only: the model's profile, not its transport, decides.
            let config = AgentConfig {
                max_turns: model_options.max_turns,
                gate: options.gate,
                // clive's own state (run records, recordings, logs) changes while a task runs: not the task's
                // change, even when the task works in a directory that holds it.
                private_dirs: vec![settings.state_dir.clone()],
                ..AgentConfig::for_profile(setup.choice.profile.profile)
            };
            let mut builder = Agent::builder(setup.model).config(config).budget(setup.budget);
            // What the model is told about each pane of the plan: its kind (by name: `shell`, `browser-2`) and
            // the cards of the installed tools of that kind. Not the shell's cards for a small model: it copies
            // their examples into its commands (`find . -name '*.rs' | wc -l` to count the lines of notes.txt;
            // docs/evals.md), and bash and git are what it knows best anyway.
            for pane in plan.panes() {
                let kind = toolbox::PaneKind::of_pane_name(&pane);
                let notes = if small && kind == toolbox::PaneKind::Shell {
                    String::new()
                } else {
                    installed.notes_for_pane(&pane)
                };
                builder = builder.profile(pane.clone(), PaneProfile::new(kind.name(), notes));
            }
            if let Some(pool) = &pool {
                builder = builder.pool(pool.clone());
            }
            builder.build()
        });
        let mut remote_answers = None;
        let mut executor = match (&agent, &pool) {
            (Some(agent), _) => agent.executor(),
            (None, Some(pool)) => {
                Executor::new().with_runner(Mode::Direct, Arc::new(ShellRunner::with_pool(pool.clone())))
            }
            (None, None) => Executor::new(),
        }
        .with_default_timeout(options.timeout);
        if let Some(session) = &session
            && plan.subtasks().iter().any(|s| s.mode == Mode::Remote)
        {
            let (mut runner, counter) =
                remote_runner(session.clone(), answer_model, options.answerer.clone(), options.events.clone())?;
            // Agent panes are recorded like the plan's other panes (`clive replay`, `clive serve`).
            if let Some(recorder) = &recorder {
                runner = runner.watch_panes(recorder.clone());
            }
            executor = executor.with_runner(Mode::Remote, Arc::new(runner));
            remote_answers = Some(counter);
        }
        Ok(Engine { server, session, session_name, run_dir, agent, remote_answers, networks, executor, recorder })
    }

    /// Runs `plan`, sending [`Event::PlanStarted`] and then every subtask's events to `events`; cancelling
    /// `cancel` cancels the run (busy panes get C-c; the session stays).
    pub async fn run(&self, plan: &ValidatedPlan, events: &Events, cancel: &CancelToken) -> Result<RunSummary, Error> {
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
        let options = RunOptions::new(&self.run_dir).events(sender).cancel(cancel.clone());
        events.emit(Event::PlanStarted { plan: plan.plan().clone(), session: self.session().map(str::to_owned) });
        let run = self.executor.run(plan, options);
        tokio::pin!(run);
        let summary = loop {
            tokio::select! {
                result = &mut run => break result.map_err(|e| Error::PlanRun(Box::new(e)))?,
                Some(event) = receiver.recv() => events.emit(Event::Subtask(event)),
            }
        };
        while let Ok(event) = receiver.try_recv() {
            events.emit(Event::Subtask(event));
        }
        Ok(summary)
    }

    /// Removes the session after a success; keeps it for `retention` otherwise; then lets go of the server
    /// (its control client leaves in turn with other `clive`s). Returns whether the session was kept.
    pub async fn close(&self, success: bool, exit_code: i32, retention: Duration) -> Result<bool, Error> {
        let (Some(server), Some(session)) = (&self.server, &self.session) else { return Ok(false) };
        if let Some(recorder) = &self.recorder {
            recorder.stop_all().await;
        }
        let kept = if success {
            session.kill().await.map(|()| false).map_err(Error::from)
        } else {
            session_record::record_end(server, &self.session_name, Some(exit_code), retention).await.map(|()| true)
        };
        server.close().await;
        kept
    }

    /// Sends [`Event::NetworkRefused`] when the network proxy refused requests of the run's panes (the model saw
    /// it in its pane already).
    pub fn report_refused_requests(&self, events: &Events) {
        let log = self.run_dir.join(toolbox::NETWORK_LOG);
        let refused = toolbox::refused_in_log(&log);
        if !refused.is_empty() {
            events.emit(Event::NetworkRefused { refused, log });
        }
    }

    /// The session's name, when the run has one.
    pub fn session(&self) -> Option<&str> {
        self.session.as_ref().map(|_| self.session_name.as_str())
    }
}

/// The directory a task runs in: `-C DIR`, else the current one.
pub fn task_directory(cwd: Option<&Path>) -> Result<PathBuf, Error> {
    match cwd {
        Some(dir) => Ok(dir.to_owned()),
        None => std::env::current_dir().map_err(|e| Error::io("reading the current directory", ".", e)),
    }
}
