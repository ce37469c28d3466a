//! The decision a router makes for one task.

use serde::{Deserialize, Serialize};

/// The tiers, cheapest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Tier 0: the task is a shell command; no model call.
    Direct,
    /// Tier 1: a small model classifies the task (answer, single command, or plan).
    Classifier,
    /// Tier 2: a planner model writes a plan of subtasks.
    Planner,
}

impl Tier {
    /// The tier's number (0, 1, 2).
    pub fn number(self) -> u8 {
        match self {
            Tier::Direct => 0,
            Tier::Classifier => 1,
            Tier::Planner => 2,
        }
    }
}

/// Where a task goes.
///
/// Serialized with a `tier` tag: `{"tier":"direct","command":"ls -la",...}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "tier", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Route {
    /// Tier 0: type this command into a shell as it is.
    Direct(DirectRoute),
    /// Tier 1: ask the classifier.
    Classifier(Escalation),
    /// Tier 2: ask the planner.
    Planner(Escalation),
}

impl Route {
    /// The tier this route goes to.
    pub fn tier(&self) -> Tier {
        match self {
            Route::Direct(_) => Tier::Direct,
            Route::Classifier(_) => Tier::Classifier,
            Route::Planner(_) => Tier::Planner,
        }
    }

    /// Whether the route needs a model call.
    pub fn needs_model(&self) -> bool {
        self.tier() != Tier::Direct
    }

    /// The direct route, if this is tier 0.
    pub fn as_direct(&self) -> Option<&DirectRoute> {
        match self {
            Route::Direct(direct) => Some(direct),
            _ => None,
        }
    }
}

/// A task that tier 0 runs in the shell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectRoute {
    /// The command line to type, the task with surrounding whitespace removed.
    pub command: String,
    /// The programs of its simple commands, in order (`ls | wc -l` → `["ls", "wc"]`).
    pub programs: Vec<String>,
    /// Whether a command runs under `sudo`/`doas` (the pane may ask for a password).
    pub privileged: bool,
}

/// A task handed to a model tier, with why the cheaper tier declined it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Escalation {
    /// The task as given.
    pub task: String,
    /// Why tier 0 did not take it.
    pub declined: Decline,
}

/// Why tier 0 declined a task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Decline {
    /// The task is empty.
    Empty,
    /// A quote or substitution is left open (`what's up`): English, not a command line.
    UnterminatedQuote,
    /// The line uses syntax tier 0 does not judge (subshells, function definitions, a
    /// leading redirection).
    UnsupportedSyntax,
    /// A command word is not in the direct-command table.
    UnknownCommand {
        /// The word.
        word: String,
    },
    /// An argument reads as English (`find the largest file`).
    NaturalLanguage {
        /// The program whose arguments read as English.
        program: String,
        /// The word that gave it away.
        word: String,
    },
    /// The program would wait on the terminal without an operand (`cat`, `python3`).
    MissingOperand {
        /// The program.
        program: String,
    },
    /// The program is interactive without a flag (`top` without `-b`).
    Interactive {
        /// The program.
        program: String,
        /// The flag that would make it non-interactive.
        needs_flag: String,
    },
}
