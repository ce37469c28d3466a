//! A toolset checked against this machine: what is offered to planners and which cards go into prompts.

use serde::Serialize;

use crate::availability::{Availability, ProbeOptions, ToolStatus};
use crate::card::{Catalog, ToolCard, render_cards};
use crate::kind::PaneKind;
use crate::toolset::Toolset;

/// A toolset, its cards and what this machine has of it.
#[derive(Debug, Clone)]
pub struct Toolbox {
    catalog: Catalog,
    toolset: Toolset,
    availability: Availability,
}

/// A pane as offered to a router or planner: only tools that are installed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OfferedPane {
    /// The pane's name (its kind's name).
    pub name: String,
    /// Its kind.
    pub kind: PaneKind,
    /// The installed tools it offers, with what each is for.
    pub tools: Vec<OfferedTool>,
}

/// A tool as offered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OfferedTool {
    /// The command.
    pub tool: String,
    /// What it is for.
    pub summary: String,
}

/// What `clive tools --json` prints about the tools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolsReport {
    /// The toolset as a spec (`shell,browser,data`).
    pub toolset: String,
    /// Every pane kind: whether the toolset has it, whether it is offered, and every tool of the kind.
    pub panes: Vec<PaneReport>,
}

/// One pane kind in a [`ToolsReport`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PaneReport {
    /// The pane (kind) name.
    pub name: String,
    /// Whether the toolset includes it.
    pub selected: bool,
    /// Whether it is offered (selected, and at least one of its tools is installed).
    pub offered: bool,
    /// Its tools.
    pub tools: Vec<ToolReport>,
}

/// One tool in a [`ToolsReport`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolReport {
    /// Its status here (path, version).
    #[serde(flatten)]
    pub status: ToolStatus,
    /// Whether it is installed.
    pub available: bool,
    /// Whether it is offered to the model.
    pub offered: bool,
}

impl Toolbox {
    /// Probes every tool of `catalog` (so `clive tools` can list what is missing too) for `toolset`.
    pub async fn probe(catalog: Catalog, toolset: Toolset, options: &ProbeOptions) -> Toolbox {
        let availability = Availability::probe(catalog.cards(), options).await;
        Toolbox { catalog, toolset, availability }
    }

    /// A toolbox from parts already known.
    pub fn from_parts(catalog: Catalog, toolset: Toolset, availability: Availability) -> Toolbox {
        Toolbox { catalog, toolset, availability }
    }

    /// The toolset.
    pub fn toolset(&self) -> &Toolset {
        &self.toolset
    }

    /// The cards.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// What was found.
    pub fn availability(&self) -> &Availability {
        &self.availability
    }

    fn offered_cards(&self, kind: PaneKind) -> Vec<&ToolCard> {
        let Some(pane) = self.toolset.pane(kind) else { return Vec::new() };
        self.catalog.of_kind(kind).filter(|c| pane.offers(c) && self.availability.is_available(&c.tool)).collect()
    }

    /// The panes and tools a router or planner may use: a missing tool is never offered, and a pane with no
    /// installed tool is left out (the shell pane always stays: it has the shell).
    pub fn offered(&self) -> Vec<OfferedPane> {
        self.toolset
            .panes()
            .iter()
            .filter_map(|pane| {
                let tools: Vec<OfferedTool> = self
                    .offered_cards(pane.kind)
                    .into_iter()
                    .map(|c| OfferedTool { tool: c.tool.clone(), summary: c.summary.clone() })
                    .collect();
                (pane.kind == PaneKind::Shell || !tools.is_empty()).then(|| OfferedPane {
                    name: pane.kind.name().to_owned(),
                    kind: pane.kind,
                    tools,
                })
            })
            .collect()
    }

    /// [`Toolbox::offered`] as a few lines for a prompt: one pane per line with its tools.
    pub fn offered_text(&self) -> String {
        let mut text = String::new();
        for pane in self.offered() {
            let tools: Vec<String> = pane.tools.iter().map(|t| format!("{} ({})", t.tool, t.summary)).collect();
            let tools = if tools.is_empty() { "the usual shell commands".to_owned() } else { tools.join("; ") };
            text.push_str(&format!("- {}: {tools}\n", pane.name));
        }
        text
    }

    /// The tool notes for a plan's pane (its kind from its name, see [`PaneKind::of_pane_name`]): the cards
    /// of the installed tools the toolset offers there. Empty when the toolset has no such pane.
    pub fn notes_for_pane(&self, pane_name: &str) -> String {
        render_cards(self.offered_cards(PaneKind::of_pane_name(pane_name)))
    }

    /// The cards of the named tools that are offered (a subtask's `tools`); others are left out.
    pub fn notes_for_tools(&self, tools: &[&str]) -> String {
        let offered: Vec<&ToolCard> = PaneKind::ALL.into_iter().flat_map(|kind| self.offered_cards(kind)).collect();
        render_cards(offered.into_iter().filter(|c| tools.contains(&c.tool.as_str())))
    }

    /// Everything about every pane kind and tool, for `clive tools`.
    pub fn report(&self) -> ToolsReport {
        let panes = PaneKind::ALL
            .into_iter()
            .map(|kind| {
                let selected = self.toolset.pane(kind);
                let offered = self.offered_cards(kind);
                let tools = self
                    .catalog
                    .of_kind(kind)
                    .filter_map(|card| self.availability.get(&card.tool))
                    .map(|status| ToolReport {
                        available: status.available(),
                        offered: offered.iter().any(|c| c.tool == status.tool),
                        status: status.clone(),
                    })
                    .collect();
                PaneReport {
                    name: kind.name().to_owned(),
                    selected: selected.is_some(),
                    offered: selected.is_some() && (kind == PaneKind::Shell || !offered.is_empty()),
                    tools,
                }
            })
            .collect();
        ToolsReport { toolset: self.toolset.spec(), panes }
    }
}

impl ToolsReport {
    /// The report as a table for people: a paragraph per pane kind, `+` before each tool offered.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for pane in &self.panes {
            let state = match (pane.selected, pane.offered) {
                (true, true) => "offered",
                (true, false) => "selected, but none of its tools is installed",
                (false, _) => "not in the toolset",
            };
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!("{} pane ({state})\n", pane.name));
            for tool in &pane.tools {
                let place = match (&tool.status.path, &tool.status.version) {
                    (Some(path), Some(version)) => format!("{version:<12} {}", path.display()),
                    (Some(path), None) => format!("{:<12} {}", "?", path.display()),
                    (None, _) => "missing".to_owned(),
                };
                let mark = if tool.offered { "+" } else { " " };
                out.push_str(&format!("  {mark} {:<10} {place}\n", tool.status.tool));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    /// A toolbox where every tool but the named ones is installed at /bin/<tool>, version 1.0.
    fn toolbox(spec: &str, missing: &[&str]) -> Toolbox {
        let catalog = Catalog::built_in();
        let toolset = Toolset::parse(spec, &catalog, &BTreeMap::new()).unwrap();
        let statuses = catalog
            .cards()
            .iter()
            .map(|c| ToolStatus {
                tool: c.tool.clone(),
                pane: c.pane,
                summary: c.summary.clone(),
                path: (!missing.contains(&c.tool.as_str())).then(|| PathBuf::from(format!("/bin/{}", c.tool))),
                version: (!missing.contains(&c.tool.as_str())).then(|| "1.0".to_owned()),
            })
            .collect();
        Toolbox::from_parts(catalog, toolset, Availability::from_statuses(statuses))
    }

    #[test]
    fn a_missing_tool_is_never_offered() {
        let full = toolbox("standard", &[]);
        assert!(full.offered().iter().any(|p| p.tools.iter().any(|t| t.tool == "jq")));
        let without = toolbox("standard", &["jq"]);
        assert!(!without.offered().iter().any(|p| p.tools.iter().any(|t| t.tool == "jq")));
        assert!(!without.notes_for_pane("data").contains("### jq"));
        assert!(!without.notes_for_tools(&["jq", "mlr"]).contains("### jq"));
        assert!(without.notes_for_tools(&["jq", "mlr"]).contains("### mlr"));
    }

    #[test]
    fn a_pane_without_any_installed_tool_is_not_offered() {
        let none = toolbox("standard", &["lynx", "w3m", "curl"]);
        let names: Vec<String> = none.offered().into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["shell", "data"]);
        let report = none.report();
        let browser = report.panes.iter().find(|p| p.name == "browser").unwrap();
        assert!(browser.selected && !browser.offered);
    }

    #[test]
    fn what_planners_and_people_see() {
        let toolbox = toolbox("standard,pandoc", &["mlr", "w3m"]);
        insta::assert_snapshot!("offered_text", toolbox.offered_text());
        insta::assert_snapshot!("report_table", toolbox.report().render());
        insta::assert_json_snapshot!("report_json", toolbox.report());
    }

    #[test]
    fn pane_notes_follow_the_plan_pane_name() {
        let toolbox = toolbox("full", &[]);
        let notes = toolbox.notes_for_pane("browser-2");
        assert!(notes.contains("### lynx (browser pane)") && notes.contains("### curl"), "{notes}");
        assert!(!notes.contains("### jq"));
        insta::assert_snapshot!("notes_for_data_pane", toolbox.notes_for_pane("data"));
        assert_eq!(crate::toolset::Toolset::default().panes().len(), 1);
    }
}
