//! Who may type into which pane. Read-only unless the person who started the server said otherwise.

use std::collections::BTreeMap;

use serde::Serialize;

/// What the page may do to a pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Watch only.
    #[default]
    ReadOnly,
    /// Watch, and answer recognised approval dialogs with their buttons.
    Approvals,
    /// Watch, answer dialogs, and type.
    Input,
}

/// The access each session gets.
///
/// ```
/// use clive_serve::{Access, InputPolicy};
///
/// let policy = InputPolicy::read_only().allow_session("lane-claude", Access::Input);
/// assert_eq!(policy.access_for("lane-claude"), Access::Input);
/// assert_eq!(policy.access_for("clive-ab12"), Access::ReadOnly);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputPolicy {
    default: Access,
    sessions: BTreeMap<String, Access>,
}

impl InputPolicy {
    /// Nothing may be typed anywhere (the default).
    pub fn read_only() -> InputPolicy {
        InputPolicy::default()
    }

    /// Every session gets `access` unless named otherwise.
    pub fn everywhere(access: Access) -> InputPolicy {
        InputPolicy { default: access, sessions: BTreeMap::new() }
    }

    /// The session named `session` gets at least `access`.
    pub fn allow_session(mut self, session: impl Into<String>, access: Access) -> InputPolicy {
        self.sessions.insert(session.into(), access);
        self
    }

    /// The access of the session named `session`.
    pub fn access_for(&self, session: &str) -> Access {
        self.sessions.get(session).copied().map_or(self.default, |a| a.max(self.default))
    }
}
