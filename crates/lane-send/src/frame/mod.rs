//! Recognises what an agent's pane shows: its input box (and what is in it), a dialog, a menu or panel of
//! its own, or something unknown — from a styled screen, without typing anything.
//!
//! Pure: a [`Screen`] goes in, a [`Recognition`] comes out. The knowledge of each agent lives in data tables
//! (`specs/*.yaml`, see [`spec`]); this module knows three box layouts (rules, border, block) and how to read
//! input rows without ghost text.
//!
//! The input box is recognised by its own structure: two full-width rules or a border around a row that
//! starts with the agent's prompt glyph, or, for a box drawn without glyphs, a prompt row proven by a known
//! footer beneath it or by the terminal cursor on it. What is below a box is not required to be known —
//! agents show transient notices and user-configured status lines there — but a dialog or one of the agent's
//! menus and panels (its [overlays](spec::Overlay)) refuses it. Each refusal names the row that decided it.
//!
//! ```
//! use lane_send::frame::{self, Recognition};
//! use lane_send::{Agent, Screen};
//!
//! let screen = Screen::from_plain(concat!(
//!     "────────────────────────────────────────\n",
//!     "❯\u{a0}\n",
//!     "────────────────────────────────────────\n",
//!     "                     ● high · /effort\n",
//! ));
//! let Recognition::Input(input) = frame::recognise(&screen)? else { panic!("a box") };
//! assert_eq!(input.agent, Agent::Claude);
//! assert!(input.is_empty());
//! assert_eq!(input.notices, ["● high · /effort"]);
//! # Ok::<(), lane_send::Error>(())
//! ```

mod dialog;
mod input;
mod layout;
mod menu;
mod saved;
pub mod spec;

use serde::Serialize;

use crate::Agent;
use crate::error::Error;
use layout::Candidate;
use spec::{AgentSpec, Place};
use tmux_habitat::Screen;

pub use dialog::Dialog;
pub use input::RowText;
pub use menu::{Choice, Menu, read_menu};
pub use saved::{FrameMeta, SavedFrame};

/// How far above the box to look for busy and queue markers and for overlays.
const ROWS_ABOVE: usize = 10;
/// How many rows at the bottom of the screen are searched for dialogs and overlays when no box is found.
const DIALOG_ROWS: usize = 25;
/// How many rows below a box are reported as notices.
const NOTICE_ROWS: usize = 4;

/// A recognised input box and what is in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputBox {
    /// Which agent drew it.
    pub agent: Agent,
    /// Which variant of that agent's frame (e.g. `claude-2`).
    pub variant: String,
    /// Version of the agent's table that matched.
    pub table_version: u32,
    /// First and last input row (0-based screen rows).
    pub rows: (usize, usize),
    /// Real input: prompt, ghost text and placeholders removed; rows joined with `\n`.
    pub text: String,
    /// Text that was dropped as ghost (dim or grey).
    pub ghost: String,
    /// The placeholder shown, when the box holds only a placeholder.
    pub placeholder: Option<String>,
    /// Collapsed paste tokens found in the real input.
    pub paste_tokens: Vec<String>,
    /// The agent shows a busy marker near the box.
    pub busy: bool,
    /// The agent shows its queue marker near the box.
    pub queue_marker: bool,
    /// The agent took Enter and holds the submit until it is ready (Codex: `Waiting for startup`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub submit_pending: bool,
    /// Rows just below the box that no table names: transient notices (`● high · /effort`, `paste again to
    /// expand`) and user-configured status lines. Accepted, and reported here.
    pub notices: Vec<String>,
    /// The terminal cursor `(row, column)`, when it is inside the box.
    pub cursor: Option<(usize, usize)>,
    /// The box is taller than the screen: its first rows (and the prompt) are above the top of the pane, so
    /// `text` holds only what is visible.
    pub clipped: bool,
}

impl InputBox {
    /// True when the box holds no real input (ghost text and placeholders do not count).
    pub fn is_empty(&self) -> bool {
        self.text.trim_matches(|c: char| c.is_whitespace()).is_empty()
    }

    /// How many screen rows the input spans.
    pub fn row_count(&self) -> usize {
        self.rows.1 + 1 - self.rows.0
    }
}

/// What the screen shows where an input box would be. Only [`Recognition::Input`] may be typed into.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Recognition {
    /// A known input box.
    Input(InputBox),
    /// A known box in a mode that must not be typed into (shell mode, memory mode …).
    Refused {
        /// Which agent.
        agent: Agent,
        /// Which variant.
        variant: String,
        /// Why typing is refused.
        reason: String,
    },
    /// One of the agent's own menus or panels is open over or beside the box (a slash-command menu, a help
    /// screen): keys would go to it.
    Overlay {
        /// Which agent.
        agent: Agent,
        /// What is open (`slash-command menu`, `help screen` …).
        name: String,
        /// The screen row that matched.
        row: usize,
        /// That row's text.
        line: String,
    },
    /// A dialog (permission prompt, trust prompt, picker) instead of the box: Enter would answer it.
    Dialog(Dialog),
    /// No known frame.
    Unknown {
        /// What was looked for and why nothing matched.
        reason: String,
    },
}

impl Recognition {
    /// The agent, when one was recognised.
    pub fn agent(&self) -> Option<Agent> {
        match self {
            Recognition::Input(input) => Some(input.agent),
            Recognition::Refused { agent, .. } | Recognition::Overlay { agent, .. } => Some(*agent),
            Recognition::Dialog(dialog) => dialog.agent,
            Recognition::Unknown { .. } => None,
        }
    }

    /// The kind of frame, as serialised: `input`, `refused`, `overlay`, `dialog` or `unknown`.
    pub fn kind(&self) -> &'static str {
        match self {
            Recognition::Input(_) => "input",
            Recognition::Refused { .. } => "refused",
            Recognition::Overlay { .. } => "overlay",
            Recognition::Dialog(_) => "dialog",
            Recognition::Unknown { .. } => "unknown",
        }
    }

    /// The input box, when one was recognised.
    pub fn input(&self) -> Option<&InputBox> {
        match self {
            Recognition::Input(input) => Some(input),
            _ => None,
        }
    }

    /// The dialog, when one is open.
    pub fn dialog(&self) -> Option<&Dialog> {
        match self {
            Recognition::Dialog(dialog) => Some(dialog),
            _ => None,
        }
    }

    /// A one-line description for logs and held reasons, naming the element that decided it.
    pub fn describe(&self) -> String {
        match self {
            Recognition::Input(input) => format!("{} box", input.variant),
            Recognition::Refused { reason, .. } => reason.clone(),
            Recognition::Overlay { agent, name, row, line } => {
                format!("{agent}'s {name} is open (row {row}: {:?})", line.trim())
            }
            Recognition::Dialog(dialog) => {
                format!("a dialog is open instead of the input box (row {}: {:?})", dialog.row, dialog.line.trim())
            }
            Recognition::Unknown { reason } => reason.clone(),
        }
    }
}

/// Recognises the frame on `screen` with the built-in tables.
pub fn recognise(screen: &Screen) -> Result<Recognition, Error> {
    Ok(recognise_with(screen, spec::builtin_specs()?))
}

/// Recognises the frame on `screen` with the given tables.
pub fn recognise_with(screen: &Screen, specs: &[AgentSpec]) -> Recognition {
    let rows: Vec<RowText> = (0..screen.height()).map(|row| RowText::new(screen.row(row))).collect();
    let (cursor_x, cursor_y) = screen.cursor();
    let cursor = (usize::from(cursor_y), usize::from(cursor_x));
    let mut matches: Vec<Candidate<'_>> = Vec::new();
    let mut rejections: Vec<String> = Vec::new();
    for spec in specs {
        for variant in &spec.variants {
            match layout::find(&rows, cursor, spec, variant) {
                Ok(Some(candidate)) => matches.push(candidate),
                Ok(None) => {}
                Err(why) => rejections.push(format!("{}: {why}", variant.name)),
            }
        }
    }
    // The live box is the lowest frame on screen; anything above it is history.
    let lowest = matches.iter().map(|candidate| candidate.bottom).max();
    let mut best: Vec<Candidate<'_>> = match lowest {
        Some(bottom) => matches.into_iter().filter(|candidate| candidate.bottom == bottom).collect(),
        None => Vec::new(),
    };
    // Two agents drawing the same structure (a rounded box with ` > `) are told apart by their footers.
    if best.iter().any(|candidate| candidate.footer_known) {
        best.retain(|candidate| candidate.footer_known);
    }
    let mut best = best.into_iter();
    let Some(chosen) = best.next() else {
        return no_box(&rows, screen, specs, &rejections);
    };
    if let Some(other) = best.find(|other| other.spec.agent != chosen.spec.agent) {
        return Recognition::Unknown {
            reason: format!(
                "ambiguous frame: both {} and {} match rows {}..{}",
                chosen.variant.name, other.variant.name, chosen.top, chosen.bottom
            ),
        };
    }
    let agent = chosen.spec.agent;
    if let Some(dialog) = dialog::find(&rows, screen, chosen.spec, chosen.top..rows.len()) {
        return Recognition::Dialog(dialog);
    }
    let above = chosen.top.saturating_sub(ROWS_ABOVE)..chosen.top;
    let below = chosen.bottom + 1..rows.len();
    if let Some(found) = overlay(&rows, chosen.spec, &above, &below) {
        return found;
    }
    if let Some(reason) = chosen.refusal.clone() {
        return Recognition::Refused { agent, variant: chosen.variant.name.clone(), reason };
    }
    Recognition::Input(layout::read_box(screen, &rows, cursor, &chosen))
}

/// The first of the agent's overlays whose pattern matches a row where it opens.
fn overlay(
    rows: &[RowText],
    spec: &AgentSpec,
    above: &std::ops::Range<usize>,
    below: &std::ops::Range<usize>,
) -> Option<Recognition> {
    for overlay in &spec.overlays {
        let places: [&std::ops::Range<usize>; 2] = match overlay.place {
            Place::Above => [above, &(0..0)],
            Place::Below => [below, &(0..0)],
            Place::Anywhere => [above, below],
        };
        for range in places {
            for row in range.clone() {
                if overlay.pattern.is_match(&rows[row].text) {
                    return Some(Recognition::Overlay {
                        agent: spec.agent,
                        name: overlay.name.clone(),
                        row,
                        line: rows[row].text.clone(),
                    });
                }
            }
        }
    }
    None
}

/// No box: a dialog or an agent's full-screen panel, else unknown with what each variant missed.
fn no_box(rows: &[RowText], screen: &Screen, specs: &[AgentSpec], rejections: &[String]) -> Recognition {
    let start = rows.len().saturating_sub(DIALOG_ROWS);
    let mut found: Option<(usize, Recognition)> = None;
    let mut tied = false;
    for spec in specs {
        let dialog = dialog::find(rows, screen, spec, start..rows.len()).map(|d| (d.row, Recognition::Dialog(d)));
        let overlay = spec.overlays.iter().filter(|overlay| overlay.place == Place::Anywhere).find_map(|overlay| {
            let row = (start..rows.len()).rev().find(|&row| overlay.pattern.is_match(&rows[row].text))?;
            let line = rows[row].text.clone();
            Some((row, Recognition::Overlay { agent: spec.agent, name: overlay.name.clone(), row, line }))
        });
        // The lowest match is what is open now; higher ones are history.
        for candidate in [dialog, overlay].into_iter().flatten() {
            match &found {
                Some((row, _)) if candidate.0 < *row => {}
                Some((row, earlier)) if candidate.0 == *row => tied |= earlier.agent() != candidate.1.agent(),
                _ => {
                    tied = false;
                    found = Some(candidate);
                }
            }
        }
    }
    match found {
        // Two agents word their dialogs alike (Qwen Code forked Gemini CLI): the dialog is certain, its
        // agent is not.
        Some((_, Recognition::Dialog(mut dialog))) if tied => {
            dialog.agent = None;
            return Recognition::Dialog(dialog);
        }
        Some((_, recognition)) if !tied => return recognition,
        _ => {}
    }
    let mut reason = "no known input frame on screen".to_string();
    if !rejections.is_empty() {
        reason.push_str(" (");
        reason.push_str(&rejections.join("; "));
        reason.push(')');
    }
    Recognition::Unknown { reason }
}
