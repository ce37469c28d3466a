//! The lane registry: a YAML file in the config dir listing lanes with purpose, agent and model.
//!
//! ```yaml
//! lanes:
//!   - name: backend
//!     purpose: API refactor
//!     agent: claude
//!     model: opus
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::Agent;
use crate::error::Error;

/// One registered lane.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaneEntry {
    /// The tmux session name.
    pub name: String,
    /// What the lane works on.
    #[serde(default)]
    pub purpose: Option<String>,
    /// Which agent runs there.
    #[serde(default)]
    pub agent: Option<Agent>,
    /// Which model the agent uses.
    #[serde(default)]
    pub model: Option<String>,
}

/// What is wrong with a registry file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryProblem {
    /// The YAML does not have the registry's shape.
    #[error("{0}")]
    Yaml(#[from] serde_saphyr::Error),
    /// A lane is listed twice.
    #[error("lane {lane:?} is listed twice")]
    Duplicate {
        /// The lane.
        lane: String,
    },
}

/// The whole registry.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Registry {
    /// Registered lanes.
    #[serde(default)]
    pub lanes: Vec<LaneEntry>,
}

impl Registry {
    /// Loads the registry; a missing file is an empty registry.
    pub fn load(path: &Path) -> Result<Self, Error> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(source) => return Err(Error::io("read", path, source)),
        };
        Self::parse(&text).map_err(|problem| Error::Registry { path: path.to_path_buf(), problem: Box::new(problem) })
    }

    /// Parses registry YAML.
    pub fn parse(text: &str) -> Result<Self, RegistryProblem> {
        if text.trim().is_empty() {
            return Ok(Self::default());
        }
        let registry: Registry = serde_saphyr::from_str(text)?;
        let mut seen = std::collections::BTreeSet::new();
        for lane in &registry.lanes {
            if !seen.insert(lane.name.as_str()) {
                return Err(RegistryProblem::Duplicate { lane: lane.name.clone() });
            }
        }
        Ok(registry)
    }

    /// The entry for a lane.
    pub fn get(&self, name: &str) -> Option<&LaneEntry> {
        self.lanes.iter().find(|lane| lane.name == name)
    }
}

/// One row of `lane-send ls`: a live session, a registry entry, or both.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LaneRow {
    /// Session name.
    pub name: String,
    /// A session with this name exists now.
    pub live: bool,
    /// The registry entry, if any.
    pub registered: Option<LaneEntry>,
    /// The agent whose frame is on screen now (`None` when unknown or not live).
    pub detected_agent: Option<Agent>,
    /// What the screen shows now, in words.
    pub screen: String,
}

/// Joins live sessions (with what their screen shows) and registry entries, sorted by name.
pub fn join_lanes(live: Vec<(String, Option<Agent>, String)>, registry: &Registry) -> Vec<LaneRow> {
    let mut rows: Vec<LaneRow> = live
        .into_iter()
        .map(|(name, detected_agent, screen)| LaneRow {
            registered: registry.get(&name).cloned(),
            name,
            live: true,
            detected_agent,
            screen,
        })
        .collect();
    for entry in &registry.lanes {
        if !rows.iter().any(|row| row.name == entry.name) {
            rows.push(LaneRow {
                name: entry.name.clone(),
                live: false,
                registered: Some(entry.clone()),
                detected_agent: None,
                screen: "no live session".to_string(),
            });
        }
    }
    rows.sort_by(|a, b| a.name.cmp(&b.name));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_joins() {
        let registry = Registry::parse(
            "lanes:\n  - name: api\n    purpose: refactor\n    agent: codex\n    model: gpt-5\n  - name: gone\n",
        )
        .unwrap();
        assert_eq!(registry.get("api").unwrap().agent, Some(Agent::Codex));
        let rows = join_lanes(vec![("api".into(), Some(Agent::Codex), "codex box".into())], &registry);
        assert_eq!(rows.len(), 2);
        assert!(rows[0].live && rows[0].registered.is_some());
        assert!(!rows[1].live);
    }

    #[test]
    fn bad_registry_says_what_is_wrong() {
        let twice = Registry::parse("lanes:\n  - name: a\n  - name: a\n").unwrap_err();
        assert!(matches!(&twice, RegistryProblem::Duplicate { lane } if lane == "a"), "{twice}");
        assert!(Registry::parse("lanes:\n  - name: a\n    agent: vim\n").is_err());
        assert!(Registry::parse("lanes:\n  - nmae: a\n").is_err());
    }
}
