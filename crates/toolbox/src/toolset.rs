//! Toolsets: which panes an agent gets and which tools each offers, chosen by a profile or a list.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::card::{Catalog, ToolCard};
use crate::error::{Error, Result};
use crate::kind::PaneKind;

/// The built-in profiles: name, pane kinds, what it is for.
pub const PROFILES: [(&str, &[PaneKind], &str); 3] = [
    ("minimal", &[PaneKind::Shell], "a shell pane only"),
    ("standard", &[PaneKind::Shell, PaneKind::Browser, PaneKind::Data], "shell, browser and data panes"),
    ("full", &PaneKind::ALL, "every pane kind: shell, browser, data and docs"),
];

/// The profile used when neither `--tools` nor the config file chooses one.
pub const DEFAULT_PROFILE: &str = "minimal";

/// One pane of a toolset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolsetPane {
    /// Its kind (also its name: `shell`, `browser`, …).
    pub kind: PaneKind,
    /// The tools it offers: `None` for every tool of its kind, else the ones named (`--tools shell,jq`).
    pub tools: Option<Vec<String>>,
}

impl ToolsetPane {
    /// Whether this pane offers `card`'s tool.
    pub fn offers(&self, card: &ToolCard) -> bool {
        card.pane == self.kind && self.tools.as_ref().is_none_or(|tools| tools.contains(&card.tool))
    }
}

/// The panes an agent may use, in order (the shell pane first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Toolset {
    panes: Vec<ToolsetPane>,
}

impl Default for Toolset {
    fn default() -> Self {
        Toolset { panes: vec![ToolsetPane { kind: PaneKind::Shell, tools: None }] }
    }
}

impl Toolset {
    /// Reads a toolset: profile names, pane kinds and tool names, separated by `,` or `+`
    /// (`standard`, `shell,browser`, `minimal+jq`). A tool name adds its pane offering just the tools named;
    /// the shell pane is always there. `profiles` are the user's own (from the config file); each lists
    /// built-in profiles, kinds or tools.
    pub fn parse(spec: &str, catalog: &Catalog, profiles: &BTreeMap<String, Vec<String>>) -> Result<Toolset> {
        let mut set = Toolset::default();
        let items: Vec<&str> = spec.split([',', '+']).map(str::trim).filter(|s| !s.is_empty()).collect();
        if items.is_empty() {
            return Err(invalid(spec, "it names nothing".into(), catalog, profiles));
        }
        for item in items {
            if let Some(own) = profiles.get(item) {
                for inner in own {
                    set.add_item(inner, catalog).map_err(|reason| {
                        invalid(spec, format!("profile `{item}` from the config file: {reason}"), catalog, profiles)
                    })?;
                }
            } else {
                set.add_item(item, catalog).map_err(|reason| invalid(spec, reason, catalog, profiles))?;
            }
        }
        Ok(set)
    }

    fn add_item(&mut self, item: &str, catalog: &Catalog) -> std::result::Result<(), String> {
        if let Some((_, kinds, _)) = PROFILES.iter().find(|(name, _, _)| *name == item) {
            kinds.iter().for_each(|kind| self.add_pane(*kind, None));
        } else if let Ok(kind) = item.parse::<PaneKind>() {
            self.add_pane(kind, None);
        } else if let Some(card) = catalog.get(item) {
            self.add_pane(card.pane, Some(card.tool.clone()));
        } else {
            return Err(format!("`{item}` is not a profile, a pane kind or a tool with a card"));
        }
        Ok(())
    }

    fn add_pane(&mut self, kind: PaneKind, tool: Option<String>) {
        match self.panes.iter_mut().find(|p| p.kind == kind) {
            Some(pane) => match (&mut pane.tools, tool) {
                (Some(tools), Some(tool)) if !tools.contains(&tool) => tools.push(tool),
                (tools, None) => *tools = None,
                _ => {}
            },
            None => {
                self.panes.push(ToolsetPane { kind, tools: tool.map(|t| vec![t]) });
                self.panes.sort_by_key(|p| p.kind);
            }
        }
    }

    /// The panes, the shell pane first.
    pub fn panes(&self) -> &[ToolsetPane] {
        &self.panes
    }

    /// The pane of `kind`, if the toolset has one.
    pub fn pane(&self, kind: PaneKind) -> Option<&ToolsetPane> {
        self.panes.iter().find(|p| p.kind == kind)
    }

    /// The cards of every tool the toolset offers, pane by pane.
    pub fn cards<'c>(&self, catalog: &'c Catalog) -> Vec<&'c ToolCard> {
        self.panes.iter().flat_map(|pane| catalog.cards().iter().filter(move |card| pane.offers(card))).collect()
    }

    /// The toolset written back as a spec (`shell,browser,jq`).
    pub fn spec(&self) -> String {
        let mut items = Vec::new();
        for pane in &self.panes {
            match &pane.tools {
                None => items.push(pane.kind.name().to_owned()),
                Some(tools) => items.extend(tools.iter().cloned()),
            }
        }
        items.join(",")
    }
}

fn invalid(spec: &str, reason: String, catalog: &Catalog, profiles: &BTreeMap<String, Vec<String>>) -> Error {
    let mut names: Vec<&str> = PROFILES.iter().map(|(name, _, _)| *name).collect();
    names.extend(profiles.keys().map(String::as_str));
    let tools: Vec<&str> = catalog.cards().iter().map(|c| c.tool.as_str()).collect();
    Error::Invalid {
        what: "toolset",
        value: spec.to_owned(),
        reason: format!(
            "{reason}. Give profiles ({}), pane kinds ({}) or tools ({}), separated by commas",
            names.join(", "),
            PaneKind::ALL.map(PaneKind::name).join(", "),
            tools.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(spec: &str) -> Result<Toolset> {
        Toolset::parse(spec, &Catalog::built_in(), &BTreeMap::new())
    }

    #[test]
    fn profiles_grow_from_minimal_to_full() {
        assert_eq!(parse("minimal").unwrap().spec(), "shell");
        assert_eq!(parse("standard").unwrap().spec(), "shell,browser,data");
        assert_eq!(parse("full").unwrap().spec(), "shell,browser,data,docs");
        assert_eq!(parse(DEFAULT_PROFILE).unwrap(), Toolset::default());
    }

    #[test]
    fn kinds_and_tools_combine_and_the_shell_is_always_there() {
        assert_eq!(parse("data").unwrap().spec(), "shell,data");
        let set = parse("minimal+jq, lynx").unwrap();
        assert_eq!(set.spec(), "shell,lynx,jq");
        let catalog = Catalog::built_in();
        let tools: Vec<&str> = set.cards(&catalog).iter().map(|c| c.tool.as_str()).collect();
        assert!(tools.contains(&"jq") && tools.contains(&"lynx") && !tools.contains(&"mlr"), "{tools:?}");
        assert!(tools.contains(&"bash"), "the shell pane offers all its tools: {tools:?}");
        // A whole pane absorbs single tools of its kind, in either order.
        assert_eq!(parse("jq,data").unwrap().spec(), "shell,data");
        assert_eq!(parse("data,jq").unwrap().spec(), "shell,data");
    }

    #[test]
    fn unknown_names_list_what_exists() {
        let error = parse("standard,kitchen").unwrap_err().to_string();
        for expected in ["`kitchen`", "minimal, standard, full", "shell, browser, data, docs", "jq"] {
            assert!(error.contains(expected), "{error}");
        }
        assert!(parse(" , ").unwrap_err().to_string().contains("names nothing"));
    }

    #[test]
    fn the_users_profiles_are_profiles() {
        let profiles = BTreeMap::from([("research".to_owned(), vec!["browser".to_owned(), "pandoc".to_owned()])]);
        let set = Toolset::parse("research,jq", &Catalog::built_in(), &profiles).unwrap();
        assert_eq!(set.spec(), "shell,browser,jq,pandoc");
        let bad = BTreeMap::from([("mine".to_owned(), vec!["nope".to_owned()])]);
        let error = Toolset::parse("mine", &Catalog::built_in(), &bad).unwrap_err().to_string();
        assert!(error.contains("profile `mine` from the config file") && error.contains("mine"), "{error}");
    }
}
