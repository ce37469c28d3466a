//! Dialogs that replace an agent's box (permission prompts, trust prompts, pickers): the row that gave them
//! away, the rows above it, and their numbered choices ([`Menu`]).

use std::ops::Range;

use serde::Serialize;
use tmux_habitat::Screen;

use super::input::RowText;
use super::menu::{Menu, read_menu};
use super::spec::AgentSpec;
use crate::Agent;

/// How many screen rows above a dialog's deciding row are kept in [`Dialog::above`].
const ABOVE_ROWS: usize = 30;

/// A dialog open in the pane. Enter (or any key) would answer it, so nothing is typed; a program that shows
/// it to a person (as buttons, say) sends the keys of one of its [`Menu`]'s choices: [`Menu::keys`], or
/// [`choose`](crate::choose), which presses them one at a time and checks the selection after each.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dialog {
    /// The agent whose dialog text matched; `None` when two agents word it alike.
    pub agent: Option<Agent>,
    /// The screen row that matched the agent's dialog patterns.
    pub row: usize,
    /// That row's text.
    pub line: String,
    /// Its numbered choices, when it shows a numbered menu.
    pub menu: Option<Menu>,
    /// The non-blank rows above that row, oldest first (trimmed; up to 30 screen rows): the question, what
    /// it is about, and the end of the transcript that led to it.
    pub above: Vec<String>,
}

/// The lowest row in `range` that matches one of `spec`'s dialog patterns, as a dialog with the menu shown
/// in the screen's lower part.
pub(super) fn find(rows: &[RowText], screen: &Screen, spec: &AgentSpec, range: Range<usize>) -> Option<Dialog> {
    let row = range.rev().find(|&row| spec.dialogs.iter().any(|dialog| dialog.is_match(&rows[row].text)))?;
    let above = rows[row.saturating_sub(ABOVE_ROWS)..row]
        .iter()
        .map(|line| line.text.trim().to_string())
        .filter(|line| !line.is_empty())
        .collect();
    Some(Dialog { agent: Some(spec.agent), row, line: rows[row].text.clone(), menu: read_menu(screen), above })
}
