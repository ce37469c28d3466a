//! The kinds of pane a toolset is made of.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// What a pane is for. Each kind is a tmux window running a shell; the kind decides which tools are offered
/// in it and which tool cards its prompts carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum PaneKind {
    /// bash and the everyday command line (git, rg).
    Shell,
    /// Web pages and HTTP: lynx or w3m for pages, curl for requests.
    Browser,
    /// Structured data: jq, mlr, sqlite3, python3.
    Data,
    /// Documents: pandoc, pdftotext.
    Docs,
}

impl PaneKind {
    /// Every kind, in the order panes are listed.
    pub const ALL: [PaneKind; 4] = [PaneKind::Shell, PaneKind::Browser, PaneKind::Data, PaneKind::Docs];

    /// The kind's name, which is also the name of its pane: `shell`, `browser`, `data`, `docs`.
    pub fn name(self) -> &'static str {
        match self {
            PaneKind::Shell => "shell",
            PaneKind::Browser => "browser",
            PaneKind::Data => "data",
            PaneKind::Docs => "docs",
        }
    }

    /// The kind of a pane a plan names: a kind's name, or one followed by `-…`, `_…` or digits
    /// (`browser`, `data-2`, `shell_build`, `docs1`); any other name is a shell pane.
    pub fn of_pane_name(name: &str) -> PaneKind {
        PaneKind::ALL
            .into_iter()
            .find(|kind| {
                name.strip_prefix(kind.name()).is_some_and(|rest| {
                    rest.is_empty() || rest.starts_with(['-', '_']) || rest.chars().all(|c| c.is_ascii_digit())
                })
            })
            .unwrap_or(PaneKind::Shell)
    }
}

impl fmt::Display for PaneKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PaneKind {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        PaneKind::ALL.into_iter().find(|kind| kind.name() == text).ok_or_else(|| Error::Invalid {
            what: "pane kind",
            value: text.to_owned(),
            reason: format!("expected one of {}", PaneKind::ALL.map(PaneKind::name).join(", ")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_pane_names_map_to_kinds() {
        assert_eq!(PaneKind::of_pane_name("browser"), PaneKind::Browser);
        assert_eq!(PaneKind::of_pane_name("data-2"), PaneKind::Data);
        assert_eq!(PaneKind::of_pane_name("docs1"), PaneKind::Docs);
        assert_eq!(PaneKind::of_pane_name("shell_build"), PaneKind::Shell);
        assert_eq!(PaneKind::of_pane_name("database"), PaneKind::Shell, "a longer word is not the kind");
        assert_eq!(PaneKind::of_pane_name("build"), PaneKind::Shell);
    }

    #[test]
    fn names_round_trip() {
        for kind in PaneKind::ALL {
            assert_eq!(kind.name().parse::<PaneKind>().unwrap(), kind);
        }
        let error = "web".parse::<PaneKind>().unwrap_err().to_string();
        assert!(error.contains("shell, browser, data, docs"), "{error}");
    }
}
