//! The [`Agent`]: one model, one pane pool, one ledger, and a runner per mode built over them.

use std::collections::HashMap;
use std::sync::Arc;

use dag_sched::{DagError, Executor, Mode, PanePool, ShellRunner, SubtaskContext};
use llm::{ChatModel, TokenBudget};

use crate::config::AgentConfig;
use crate::gate::GatedPane;
use crate::model::Caller;
use crate::prompt::PaneProfile;
use crate::runners::{AnswerRunner, InteractiveRunner, LlmRunner, ScriptRunner};
use crate::stats::RunLedger;

/// A model and the panes it works in, with the runners of every model-driven mode.
///
/// Cheap to clone; the runners it builds share its pool, ledger and budget.
#[derive(Clone)]
pub struct Agent {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("provider", &self.shared.model.provider())
            .field("pool", &self.shared.pool)
            .field("config", &self.shared.config)
            .finish_non_exhaustive()
    }
}

pub(crate) struct Shared {
    pub model: Arc<dyn ChatModel>,
    pub config: Arc<AgentConfig>,
    pub pool: Option<Arc<PanePool>>,
    pub profiles: HashMap<String, PaneProfile>,
    pub ledger: RunLedger,
    pub budget: Option<Arc<TokenBudget>>,
    /// Panes where an attempt could not be staged, with why: their later attempts run unstaged at once.
    pub unstageable: std::sync::Mutex<HashMap<String, String>>,
}

impl Shared {
    /// The profile of pane `name` (a plain shell when none was given).
    pub(crate) fn profile(&self, name: &str) -> PaneProfile {
        self.profiles.get(name).cloned().unwrap_or_default()
    }

    /// The pane `name`, behind the gate.
    pub(crate) async fn gated_pane(&self, name: &str) -> Result<GatedPane, DagError> {
        let pool = self.pool.as_ref().ok_or_else(|| DagError::Pane {
            pane: name.to_owned(),
            source: "this agent has no panes (build it with a pane pool)".into(),
        })?;
        Ok(GatedPane::new(pool.pane(name).await?, self.config.gate))
    }

    /// Forgets a pane whose shell died.
    pub(crate) async fn forget_pane(&self, name: &str) {
        if let Some(pool) = &self.pool {
            pool.forget(name).await;
        }
    }

    /// A caller recording into subtask `id`'s ledger entry and transcript.
    pub(crate) fn caller(&self, id: &str, context: Option<&SubtaskContext>) -> Caller {
        let transcript = context.and_then(|c| c.runner_dir().ok()).map(|dir| dir.join("transcript.jsonl"));
        Caller::new(self.model.clone(), self.config.clone(), self.ledger.clone(), id, transcript)
    }

    /// Why attempts on pane `name` cannot be staged, once one found out.
    pub(crate) fn unstageable(&self, name: &str) -> Option<String> {
        self.unstageable.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(name).cloned()
    }

    /// Remembers that attempts on pane `name` cannot be staged.
    pub(crate) fn remember_unstageable(&self, name: &str, reason: &str) {
        tracing::info!(pane = name, reason, "attempts on this pane run unstaged");
        self.unstageable
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(name.to_owned(), reason.to_owned());
    }

    /// Whether the run's budget refused a call already: every runner stops.
    pub(crate) fn budget_spent(&self) -> bool {
        self.budget.as_ref().is_some_and(|b| b.is_exhausted())
    }
}

/// Builds an [`Agent`].
pub struct AgentBuilder {
    model: Arc<dyn ChatModel>,
    config: AgentConfig,
    pool: Option<Arc<PanePool>>,
    profiles: HashMap<String, PaneProfile>,
    budget: Option<Arc<TokenBudget>>,
    ledger: RunLedger,
}

impl AgentBuilder {
    /// Limits and choices (default: [`AgentConfig::default`]).
    pub fn config(mut self, config: AgentConfig) -> AgentBuilder {
        self.config = config;
        self
    }

    /// The panes the runners type into. Without a pool only the `llm` and `answer` modes run.
    pub fn pool(mut self, pool: Arc<PanePool>) -> AgentBuilder {
        self.pool = Some(pool);
        self
    }

    /// What the model is told about pane `name` (default: a plain shell).
    pub fn profile(mut self, name: impl Into<String>, profile: PaneProfile) -> AgentBuilder {
        self.profiles.insert(name.into(), profile);
        self
    }

    /// The run's token budget, so runners stop cleanly once it is spent. The model itself must draw from it
    /// (wrap it in [`llm::Budgeted`]); this only lets the runners see it.
    pub fn budget(mut self, budget: Arc<TokenBudget>) -> AgentBuilder {
        self.budget = Some(budget);
        self
    }

    /// Records into `ledger` instead of a new one (to share it with other parts of a run).
    pub fn ledger(mut self, ledger: RunLedger) -> AgentBuilder {
        self.ledger = ledger;
        self
    }

    /// The agent.
    pub fn build(self) -> Agent {
        Agent {
            shared: Arc::new(Shared {
                model: self.model,
                config: Arc::new(self.config),
                pool: self.pool,
                profiles: self.profiles,
                ledger: self.ledger,
                budget: self.budget,
                unstageable: std::sync::Mutex::default(),
            }),
        }
    }
}

impl Agent {
    /// Starts building an agent over `model`.
    pub fn builder(model: Arc<dyn ChatModel>) -> AgentBuilder {
        AgentBuilder {
            model,
            config: AgentConfig::default(),
            pool: None,
            profiles: HashMap::new(),
            budget: None,
            ledger: RunLedger::new(),
        }
    }

    /// An executor with a runner for every mode this agent can run: `direct` (the shell runner), `script` and
    /// `interactive` when it has panes, `llm` and `answer` always.
    pub fn executor(&self) -> Executor {
        let mut executor = Executor::new()
            .with_runner(Mode::Llm, Arc::new(LlmRunner::new(self.clone())))
            .with_runner(Mode::Answer, Arc::new(AnswerRunner::new(self.clone())));
        if let Some(pool) = &self.shared.pool {
            executor = executor
                .with_runner(Mode::Direct, Arc::new(ShellRunner::with_pool(pool.clone())))
                .with_runner(Mode::Script, Arc::new(ScriptRunner::new(self.clone())))
                .with_runner(Mode::Interactive, Arc::new(InteractiveRunner::new(self.clone())));
        }
        executor
    }

    /// Every subtask's record so far.
    pub fn ledger(&self) -> &RunLedger {
        &self.shared.ledger
    }

    /// The limits and choices in use.
    pub fn config(&self) -> &AgentConfig {
        &self.shared.config
    }

    /// The model.
    pub fn model(&self) -> &Arc<dyn ChatModel> {
        &self.shared.model
    }

    /// The run's budget, if one was given.
    pub fn budget(&self) -> Option<&Arc<TokenBudget>> {
        self.shared.budget.as_ref()
    }

    /// The pane pool, if any.
    pub fn pool(&self) -> Option<&Arc<PanePool>> {
        self.shared.pool.as_ref()
    }
}
