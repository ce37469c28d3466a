//! Tool cards: a short reference per tool, as markdown files with a small header.
//!
//! ```text
//! ---
//! tool: jq                      the command, as found on PATH
//! pane: data                    the kind of pane it is offered in
//! summary: filter and reshape JSON
//! version: --version            arguments that make it print its version (optional)
//! ---
//! - `jq . f.json` pretty-prints; …
//! ```
//!
//! The body says the tool's few useful moves: flags, output forms, pitfalls, how to leave it. It goes into a
//! model's prompt only for the tools a subtask uses, so every line has to earn its tokens. The built-in cards
//! live in `crates/toolbox/cards/`; a user adds or replaces cards with files in `~/.config/clive/cards/`.

use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::kind::PaneKind;

mod built_in {
    include!(concat!(env!("OUT_DIR"), "/cards.rs"));
}

/// The most a card's body may hold, in bytes (about 200 tokens): a card is a reminder, not a manual.
pub const MAX_BODY_BYTES: usize = 900;

/// One tool's card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCard {
    /// The command, as `command -v` finds it.
    pub tool: String,
    /// The pane kind it is offered in.
    pub pane: PaneKind,
    /// One line saying what it is for (shown to planners and in `clive tools`).
    pub summary: String,
    /// Arguments that make it print its version; `None` when it has no such flag.
    pub version_args: Option<Vec<String>>,
    /// The reference text (markdown).
    pub body: String,
    /// Where the card came from: `built-in` or the file's path.
    pub source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    tool: String,
    pane: PaneKind,
    summary: String,
    #[serde(default)]
    version: Option<String>,
}

impl ToolCard {
    /// Reads a card from its text; `source` names it in errors.
    pub fn parse(source: &str, text: &str) -> Result<ToolCard> {
        let bad = |reason: String| Error::Card { file: source.to_owned(), reason };
        let rest = text
            .strip_prefix("---\n")
            .ok_or_else(|| bad("must start with a `---` line, then the header, then another `---` line".into()))?;
        let (header, body) =
            rest.split_once("\n---\n").ok_or_else(|| bad("the header has no closing `---` line".into()))?;
        let header: Header = serde_saphyr::from_str(header).map_err(|e| bad(format!("header: {e}")))?;
        let valid_name = |c: char| c.is_ascii_alphanumeric() || "._+-".contains(c);
        if header.tool.is_empty() || !header.tool.chars().all(valid_name) {
            return Err(bad(format!("`tool: {}` must be a command name (letters, digits, `._+-`)", header.tool)));
        }
        if header.summary.trim().is_empty() || header.summary.contains('\n') || header.summary.len() > 100 {
            return Err(bad("`summary` must be one line of at most 100 bytes".into()));
        }
        let body = body.trim().to_owned();
        if body.is_empty() {
            return Err(bad("the card has no body: say the tool's useful moves".into()));
        }
        if body.len() > MAX_BODY_BYTES {
            return Err(bad(format!("the body has {} bytes; keep it under {MAX_BODY_BYTES}", body.len())));
        }
        Ok(ToolCard {
            tool: header.tool,
            pane: header.pane,
            summary: header.summary.trim().to_owned(),
            version_args: header.version.map(|v| v.split_whitespace().map(str::to_owned).collect()),
            body,
            source: source.to_owned(),
        })
    }

    /// The card as a prompt carries it: a heading line, then the body.
    pub fn render(&self) -> String {
        format!("### {} ({} pane): {}\n{}\n", self.tool, self.pane, self.summary, self.body)
    }
}

/// Renders cards for a prompt, one after another.
pub fn render_cards<'a>(cards: impl IntoIterator<Item = &'a ToolCard>) -> String {
    cards.into_iter().map(ToolCard::render).collect::<Vec<_>>().join("\n")
}

/// Every card we know: the built-in ones, and the user's (which replace a built-in card of the same tool).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalog {
    cards: Vec<ToolCard>,
}

impl Catalog {
    /// The cards shipped with this crate.
    pub fn built_in() -> Catalog {
        let cards = built_in::BUILT_IN
            .iter()
            .filter_map(|(file, text)| match ToolCard::parse(&format!("built-in {file}"), text) {
                Ok(card) => Some(card),
                Err(e) => {
                    // Cannot happen in a tested build: a unit test reads every built-in card.
                    tracing::error!(%e, "built-in tool card skipped");
                    None
                }
            })
            .collect();
        Catalog { cards }
    }

    /// The built-in cards plus every `*.md` card in `dir` (a missing directory adds nothing). A user card
    /// replaces the built-in card of the same tool.
    pub fn with_user_cards(dir: &Path) -> Result<Catalog> {
        let mut catalog = Catalog::built_in();
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(catalog),
            Err(e) => return Err(Error::io(format!("reading {}", dir.display()), e)),
        };
        let mut paths: Vec<_> = entries
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        paths.sort();
        for path in paths {
            let text =
                std::fs::read_to_string(&path).map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
            catalog.add(ToolCard::parse(&path.display().to_string(), &text)?);
        }
        Ok(catalog)
    }

    /// Adds a card, replacing one for the same tool.
    pub fn add(&mut self, card: ToolCard) {
        match self.cards.iter_mut().find(|c| c.tool == card.tool) {
            Some(existing) => *existing = card,
            None => self.cards.push(card),
        }
    }

    /// Every card.
    pub fn cards(&self) -> &[ToolCard] {
        &self.cards
    }

    /// The card of `tool`.
    pub fn get(&self, tool: &str) -> Option<&ToolCard> {
        self.cards.iter().find(|c| c.tool == tool)
    }

    /// The cards of the tools offered in panes of `kind`, in catalog order.
    pub fn of_kind(&self, kind: PaneKind) -> impl Iterator<Item = &ToolCard> {
        self.cards.iter().filter(move |c| c.pane == kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_card_reads() {
        for (file, text) in built_in::BUILT_IN {
            let card = ToolCard::parse(file, text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(format!("{}.md", card.tool), *file, "a card's file is named after its tool");
        }
        let catalog = Catalog::built_in();
        assert_eq!(catalog.cards().len(), built_in::BUILT_IN.len());
        for kind in PaneKind::ALL {
            assert!(catalog.of_kind(kind).next().is_some(), "no tool for {kind} panes");
        }
    }

    #[test]
    fn each_card_renders_as_the_model_reads_it() {
        for card in Catalog::built_in().cards() {
            insta::assert_snapshot!(card.tool.clone(), card.render());
        }
    }

    #[test]
    fn bad_cards_say_what_is_wrong() {
        let cases = [
            ("tool: x\n", "must start with a `---` line"),
            ("---\ntool: x\npane: shell\nsummary: s\n", "no closing"),
            ("---\ntool: x\npane: kitchen\nsummary: s\n---\nbody\n", "header"),
            ("---\ntool: x y\npane: shell\nsummary: s\n---\nbody\n", "must be a command name"),
            ("---\ntool: x\npane: shell\nsummary: s\ncolour: red\n---\nbody\n", "colour"),
            ("---\ntool: x\npane: shell\nsummary: s\n---\n\n", "no body"),
        ];
        for (text, expected) in cases {
            let error = ToolCard::parse("x.md", text).unwrap_err().to_string();
            assert!(error.contains(expected) && error.contains("x.md"), "{text:?}: {error}");
        }
        let long = format!("---\ntool: x\npane: shell\nsummary: s\n---\n{}\n", "a".repeat(MAX_BODY_BYTES + 1));
        assert!(ToolCard::parse("x.md", &long).unwrap_err().to_string().contains("keep it under"));
    }

    #[test]
    fn user_cards_add_tools_and_replace_built_in_ones() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("jq.md"), "---\ntool: jq\npane: data\nsummary: mine\n---\n- my jq notes\n")
            .unwrap();
        std::fs::write(dir.path().join("xsv.md"), "---\ntool: xsv\npane: data\nsummary: CSV\n---\n- `xsv stats`\n")
            .unwrap();
        std::fs::write(dir.path().join("README.txt"), "not a card").unwrap();
        let catalog = Catalog::with_user_cards(dir.path()).unwrap();
        assert_eq!(catalog.get("jq").unwrap().summary, "mine");
        assert_eq!(catalog.get("xsv").unwrap().pane, PaneKind::Data);
        assert_eq!(catalog.cards().len(), Catalog::built_in().cards().len() + 1);
        assert_eq!(Catalog::with_user_cards(&dir.path().join("absent")).unwrap(), Catalog::built_in());
    }
}
