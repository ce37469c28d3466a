//! What a run tells its caller while it works: the route, the command or the plan it starts, each subtask's
//! start, turns and end, and what the network proxy refused. The caller renders them (the `clive` binary draws
//! progress lines on stderr) or ignores them; the engine never writes to a terminal.

use std::path::PathBuf;

use router::{Routed, Tier, TierStep};

/// One thing that happened in a run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Event {
    /// The task was routed: the tier that decided and what each tier did.
    Routed {
        /// The route's kind (`direct`, `answer`, `clarify`, `plan`).
        route: &'static str,
        /// The tier that decided.
        tier: Tier,
        /// Every tier that looked at the task.
        steps: Vec<TierStep>,
    },
    /// One shell command is about to run in a fresh session.
    CommandStarted {
        /// The session it runs in.
        session: String,
        /// The command line.
        command: String,
    },
    /// A plan is about to run (its subtasks' events follow).
    PlanStarted {
        /// The plan.
        plan: dag_sched::Plan,
        /// The tmux session its panes live in, when it needs panes.
        session: Option<String>,
    },
    /// A subtask started, made progress (a turn), ended, was skipped or cancelled.
    Subtask(dag_sched::Event),
    /// What a subtask changed in the working directory (the run's `clive undo` takes it back), once it ended.
    Changes {
        /// The subtask id.
        subtask: String,
        /// Its changes, in the order it made them.
        changes: Vec<agent::changes::Change>,
    },
    /// A remote agent (`clive@host`) asked a question; the model answers it, else the task's answerer.
    Question {
        /// The agent's host.
        host: String,
        /// Its question (`None`: it waits for input without one).
        question: Option<String>,
    },
    /// The network proxy refused requests of panes a model typed into.
    NetworkRefused {
        /// Each refused request: the pane and the host.
        refused: Vec<(String, String)>,
        /// The proxy's log.
        log: PathBuf,
    },
}

impl Event {
    /// The event for a routing decision.
    pub fn routed(routed: &Routed) -> Event {
        Event::Routed { route: routed.route.kind(), tier: routed.tier, steps: routed.steps.clone() }
    }
}

/// Where a run's events go: a channel the caller reads, or nowhere.
#[derive(Debug, Clone, Default)]
pub struct Events {
    sender: Option<tokio::sync::mpsc::UnboundedSender<Event>>,
}

impl Events {
    /// Events sent to `sender`; a receiver that is gone loses them, never the run.
    pub fn to(sender: tokio::sync::mpsc::UnboundedSender<Event>) -> Events {
        Events { sender: Some(sender) }
    }

    /// Sends one event.
    pub fn emit(&self, event: Event) {
        if let Some(sender) = &self.sender {
            let _ = sender.send(event);
        }
    }
}
