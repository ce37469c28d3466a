//! The plan format: what planners and people write (docs/plan.md has the JSON Schema).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::DagError;

/// The plan format version this crate reads and writes.
pub const PLAN_VERSION: u32 = 1;

/// The JSON Schema of the plan format (also in docs/plan.md).
pub const PLAN_JSON_SCHEMA: &str = include_str!("../plan.schema.json");

/// A plan: subtasks and the dependencies between them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// The format version: [`PLAN_VERSION`]. A plan without one is read as the current version
    /// (planners and people often leave it out); any other version is refused.
    #[serde(default = "current_version")]
    pub version: u32,
    /// Optional declaration of the pane names the plan uses. When present, a subtask naming
    /// a pane that is not declared is an error; when absent, any well-formed name goes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub panes: Option<Vec<String>>,
    /// The subtasks, in the order they are listed (also the order ties are started in).
    pub subtasks: Vec<Subtask>,
}

/// One unit of work, run in one pane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subtask {
    /// Unique id: letters, digits, `_` and `-`, starting with a letter or digit, at most 64 characters.
    pub id: String,
    /// What the subtask is for, in words.
    #[serde(default)]
    pub description: String,
    /// The named pane (a tmux window) it runs in. Subtasks on one pane run one after another and
    /// share that pane's shell state (working directory, exported variables).
    pub pane: String,
    /// How it runs.
    #[serde(default)]
    pub mode: Mode,
    /// The command line, for [`Mode::Direct`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Ids of the subtasks that must succeed before this one starts.
    #[serde(default)]
    pub depends_on: Vec<String>,
    /// Time limit in seconds; the executor's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
    /// The agent's host (an SSH host name or alias, as in `clive@<host>`), for [`Mode::Remote`]. Added in
    /// version 1 without a version change: plans without it read as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

impl Subtask {
    /// The time limit, if the plan gives a valid one.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout.filter(|t| t.is_finite() && *t > 0.0).map(Duration::from_secs_f64)
    }
}

/// How a subtask runs; each mode is served by a [`crate::Runner`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Type `command` into the pane as it is and wait for it to finish.
    #[default]
    Direct,
    /// A model writes one script for `description`; it runs in the pane (crates/agent).
    Script,
    /// A model reads the pane and types, turn by turn, towards `description` (crates/agent).
    Interactive,
    /// A model writes text (a summary, a translation) from the dependencies' results; no pane.
    Llm,
    /// A model answers the question in `description`; no pane.
    Answer,
    /// Reserved: an agent in the pane.
    Agent,
    /// The clive on `host` does `description` and reports back over the turn protocol (crates/remote).
    Remote,
}

impl Mode {
    /// Whether a model works towards the subtask's `description` (every mode but `direct` and `agent`; for
    /// `remote`, the remote clive's model).
    pub fn needs_goal(self) -> bool {
        matches!(self, Mode::Script | Mode::Interactive | Mode::Llm | Mode::Answer | Mode::Remote)
    }

    /// The name used in plans.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Direct => "direct",
            Mode::Script => "script",
            Mode::Interactive => "interactive",
            Mode::Llm => "llm",
            Mode::Answer => "answer",
            Mode::Agent => "agent",
            Mode::Remote => "remote",
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Plan {
    /// Parses a plan from JSON. Malformed JSON or a wrong field gives [`DagError::MalformedPlan`]
    /// with line and column; a wrong version gives [`DagError::UnsupportedVersion`].
    /// Parsing does not validate the graph: see [`crate::ValidatedPlan::new`].
    pub fn from_json(text: &str) -> Result<Plan, DagError> {
        // Read the version first, so a future plan gets "unsupported version" rather than
        // a complaint about a field this version does not know. No version means this one.
        if let Ok(VersionProbe { version: Some(found) }) = serde_json::from_str::<VersionProbe>(text)
            && found != PLAN_VERSION
        {
            return Err(DagError::UnsupportedVersion { found: Some(found) });
        }
        serde_json::from_str(text).map_err(|source| DagError::MalformedPlan {
            line: source.line(),
            column: source.column(),
            source,
        })
    }

    /// The plan as pretty JSON.
    pub fn to_json_pretty(&self) -> String {
        // Serializing plain data with string keys cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

fn current_version() -> u32 {
    PLAN_VERSION
}

#[derive(Deserialize)]
struct VersionProbe {
    version: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_plan_parses_with_defaults() {
        let plan = Plan::from_json(r#"{"version":1,"subtasks":[{"id":"a","pane":"main","command":"ls"}]}"#).unwrap();
        let subtask = &plan.subtasks[0];
        assert_eq!(subtask.mode, Mode::Direct);
        assert!(subtask.depends_on.is_empty());
        assert_eq!(subtask.timeout(), None);
        assert_eq!(plan.panes, None);
    }

    #[test]
    fn malformed_json_reports_line_and_column() {
        let error = Plan::from_json("{\"version\": 1,\n \"subtasks\": [\n  {\"id\": \"a\",, }]}").unwrap_err();
        match &error {
            DagError::MalformedPlan { line, column, .. } => assert_eq!((*line, *column), (3, 14)),
            other => panic!("unexpected {other:?}"),
        }
        assert!(error.to_string().contains("line 3, column 14"), "{error}");
    }

    #[test]
    fn unknown_fields_and_modes_are_named() {
        let error = Plan::from_json(r#"{"version":1,"subtasks":[{"id":"a","pane":"p","depends":["b"]}]}"#).unwrap_err();
        assert!(error.to_string().contains("unknown field `depends`"), "{error}");
        let error = Plan::from_json(r#"{"version":1,"subtasks":[{"id":"a","pane":"p","mode":"magic"}]}"#).unwrap_err();
        assert!(error.to_string().contains("unknown variant `magic`"), "{error}");
    }

    #[test]
    fn other_versions_are_refused() {
        let error = Plan::from_json(r#"{"version":2,"subtasks":[],"new_thing":1}"#).unwrap_err();
        assert!(matches!(error, DagError::UnsupportedVersion { found: Some(2) }), "{error:?}");
        assert!(error.to_string().contains("\"version\": 2") && error.to_string().contains("newer"), "{error}");
        let error = Plan::from_json(r#"{"version":0,"subtasks":[]}"#).unwrap_err();
        assert!(matches!(error, DagError::UnsupportedVersion { found: Some(0) }), "{error:?}");
    }

    #[test]
    fn a_plan_without_version_is_the_current_version() {
        let plan = Plan::from_json(r#"{"subtasks":[{"id":"a","pane":"p","command":"ls"}]}"#).unwrap();
        assert_eq!(plan.version, PLAN_VERSION);
        assert!(plan.to_json_pretty().contains("\"version\": 1"), "written plans always carry the version");
    }

    #[test]
    fn schema_is_valid_json_and_mentions_every_field() {
        let schema: serde_json::Value = serde_json::from_str(PLAN_JSON_SCHEMA).unwrap();
        let properties = &schema["$defs"]["subtask"]["properties"];
        for field in ["id", "description", "pane", "mode", "command", "depends_on", "timeout", "host"] {
            assert!(properties.get(field).is_some(), "schema lacks {field}");
        }
    }

    #[test]
    fn docs_carry_the_same_schema() {
        let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/plan.md")).unwrap();
        assert!(docs.contains(PLAN_JSON_SCHEMA.trim_end()), "docs/plan.md does not carry plan.schema.json verbatim");
    }

    #[test]
    fn a_remote_subtask_names_its_host() {
        let plan = Plan::from_json(
            r#"{"version":1,"subtasks":[{"id":"a","pane":"agent-gpu","mode":"remote","host":"gpu","description":"render"}]}"#,
        )
        .unwrap();
        assert_eq!((plan.subtasks[0].mode, plan.subtasks[0].host.as_deref()), (Mode::Remote, Some("gpu")));
        assert!(!plan.to_json_pretty().contains("\"host\": null"));
        let local = Plan::from_json(r#"{"subtasks":[{"id":"a","pane":"p","command":"ls"}]}"#).unwrap();
        assert!(!local.to_json_pretty().contains("host"), "plans without a host are written as before");
    }

    #[test]
    fn round_trips_through_json() {
        let text = r#"{"version":1,"panes":["a"],"subtasks":[{"id":"x","description":"d","pane":"a","mode":"direct","command":"true","depends_on":[],"timeout":2.5}]}"#;
        let plan = Plan::from_json(text).unwrap();
        assert_eq!(Plan::from_json(&plan.to_json_pretty()).unwrap(), plan);
    }
}
