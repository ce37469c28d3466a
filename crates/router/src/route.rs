//! The decision a router makes for one task.

use std::fmt;

use dag_sched::{Mode, PLAN_VERSION, Plan, Subtask};
use serde::{Deserialize, Serialize};

use crate::shell_syntax;

/// The tiers, cheapest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Tier 0: the task is a shell command; no model call.
    Direct,
    /// Tier 1: a small, fast model classifies the task (answer, question, one command, one subtask or a plan).
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

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Tier::Direct => "direct",
            Tier::Classifier => "classifier",
            Tier::Planner => "planner",
        };
        write!(f, "tier {} ({name})", self.number())
    }
}

/// Where a task goes.
///
/// Serialized with a `route` tag: `{"route":"direct","command":"ls -la",...}`,
/// `{"route":"answer","text":"4"}`, `{"route":"plan","plan":{...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "route", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Route {
    /// Type this command into a shell: the task itself (tier 0) or a command the classifier wrote
    /// (tier 1, passed by the safety gate).
    Direct(DirectRoute),
    /// Reply to the user with this text; nothing runs.
    Answer(Answer),
    /// Ask the user this question; nothing runs.
    Clarify(Clarification),
    /// Run this plan: one subtask the classifier chose, or the planner's plan. Always valid
    /// ([`dag_sched::ValidatedPlan::new`] accepted it).
    Plan(PlanRoute),
    /// Tier 0 alone ([`crate::route`]) cannot take the task: a model tier must decide.
    /// [`crate::Router::route`] never returns this.
    NeedsModel(Escalation),
}

impl Route {
    /// Whether a model tier must still decide (only tier 0's [`crate::route`] returns such a route).
    pub fn needs_model(&self) -> bool {
        matches!(self, Route::NeedsModel(_))
    }

    /// The direct route, if the route is one shell command.
    pub fn as_direct(&self) -> Option<&DirectRoute> {
        match self {
            Route::Direct(direct) => Some(direct),
            _ => None,
        }
    }

    /// The route's name as serialized (`direct`, `answer`, `clarify`, `plan`, `needs_model`).
    pub fn kind(&self) -> &'static str {
        match self {
            Route::Direct(_) => "direct",
            Route::Answer(_) => "answer",
            Route::Clarify(_) => "clarify",
            Route::Plan(_) => "plan",
            Route::NeedsModel(_) => "needs_model",
        }
    }

    /// The route as a plan a `dag_sched::Executor` runs: the plan itself, or a one-subtask plan
    /// typing the direct command into the pane `shell`. `None` when nothing runs.
    ///
    /// ```
    /// let route = clive_router::route("ls -la");
    /// let plan = route.to_plan().unwrap();
    /// assert_eq!(plan.subtasks[0].command.as_deref(), Some("ls -la"));
    /// assert!(dag_sched::ValidatedPlan::new(plan).is_ok());
    /// ```
    pub fn to_plan(&self) -> Option<Plan> {
        match self {
            Route::Direct(direct) => Some(single_subtask_plan(Subtask {
                id: "task".to_owned(),
                description: String::new(),
                pane: DEFAULT_PANE.to_owned(),
                mode: Mode::Direct,
                command: Some(direct.command.clone()),
                depends_on: Vec::new(),
                timeout: None,
                host: None,
            })),
            Route::Plan(plan) => Some(plan.plan.clone()),
            _ => None,
        }
    }
}

/// The pane a plan uses when the context names none.
pub const DEFAULT_PANE: &str = "shell";

pub(crate) fn single_subtask_plan(subtask: Subtask) -> Plan {
    Plan { version: PLAN_VERSION, panes: None, subtasks: vec![subtask] }
}

/// One shell command to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectRoute {
    /// The command line to type, without surrounding whitespace.
    pub command: String,
    /// The programs of its simple commands, in order (`ls | wc -l` → `["ls", "wc"]`).
    pub programs: Vec<String>,
    /// Whether a command runs under `sudo`/`doas` (the pane may ask for a password).
    pub privileged: bool,
}

impl DirectRoute {
    /// Describes any command line (no tier-0 rules applied): its programs and whether it runs
    /// under `sudo`/`doas`.
    ///
    /// ```
    /// let direct = clive_router::DirectRoute::describe(" sudo du -sh /var | sort -h ");
    /// assert_eq!((direct.programs, direct.privileged), (vec!["du".to_string(), "sort".to_string()], true));
    /// ```
    pub fn describe(command_line: &str) -> DirectRoute {
        let command = command_line.trim();
        let line = shell_syntax::parse(command);
        let mut programs = Vec::new();
        let mut privileged = false;
        for simple in line.commands() {
            let (rest, prefixes) = shell_syntax::strip_prefixes(&simple.words);
            privileged |= prefixes.privileged;
            if let Some(first) = rest.first() {
                programs.push(shell_syntax::program_name(&first.text).to_owned());
            }
        }
        DirectRoute { command: command.to_owned(), programs, privileged }
    }
}

/// A reply to the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// The reply.
    pub text: String,
}

/// One question for the user, when the task is too vague to act on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clarification {
    /// The question.
    pub question: String,
}

/// A plan to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanRoute {
    /// The plan, valid for `dag_sched::ValidatedPlan::new`.
    pub plan: Plan,
}

/// A task tier 0 hands to a model tier, with why tier 0 declined it.
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
    /// A command word is neither in the direct-command table nor an installed program.
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
    /// Tier 0 never runs this program as typed (`vim`, bare `yes`, `write a poem`): docs/router.md lists them.
    NotDirect {
        /// The program.
        program: String,
        /// Why.
        why: String,
    },
}

impl fmt::Display for Decline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decline::Empty => f.write_str("the task is empty"),
            Decline::UnterminatedQuote => f.write_str("a quote is left open (English, not a command line)"),
            Decline::UnsupportedSyntax => f.write_str("shell syntax tier 0 does not judge"),
            Decline::UnknownCommand { word } => {
                write!(f, "`{word}` is neither a known direct command nor an installed program")
            }
            Decline::NaturalLanguage { program, word } => {
                write!(f, "the arguments of `{program}` read as English (`{word}`)")
            }
            Decline::MissingOperand { program } => write!(f, "`{program}` without an operand would wait for input"),
            Decline::Interactive { program, needs_flag } => {
                write!(f, "`{program}` is interactive without `{needs_flag}`")
            }
            Decline::NotDirect { program, why } => write!(f, "tier 0 does not run `{program}`: {why}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_names_programs_behind_prefixes() {
        let direct = DirectRoute::describe("LANG=C sort -u a.txt && env FOO=1 nice wc -l b");
        assert_eq!(direct.programs, ["sort", "wc"]);
        assert!(!direct.privileged);
        assert_eq!(direct.command, "LANG=C sort -u a.txt && env FOO=1 nice wc -l b");
    }

    #[test]
    fn direct_routes_become_one_subtask_plans() {
        let plan = Route::Direct(DirectRoute::describe("ls")).to_plan().unwrap();
        assert_eq!((plan.subtasks.len(), plan.subtasks[0].pane.as_str()), (1, DEFAULT_PANE));
        assert_eq!(Route::Answer(Answer { text: "4".into() }).to_plan(), None);
    }
}
