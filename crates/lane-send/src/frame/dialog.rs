//! Dialogs that replace an agent's box (permission prompts, trust prompts, pickers): the row that gave them
//! away, and their numbered choices with the keys that pick each one.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;
use tmux_habitat::{Color, Key, Screen};

use super::input::RowText;
use super::spec::AgentSpec;
use crate::Agent;

/// A dialog open in the pane. Enter (or any key) would answer it, so nothing is typed; a program that shows
/// it to a person (as buttons, say) sends a [`Choice`]'s keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dialog {
    /// The agent whose dialog text matched.
    pub agent: Option<Agent>,
    /// The screen row that matched the agent's dialog patterns.
    pub row: usize,
    /// That row's text.
    pub line: String,
    /// The numbered choices, in order (empty when the dialog shows none).
    pub choices: Vec<Choice>,
    /// The non-blank rows above that row, oldest first (trimmed; up to 30 screen rows): the question, what
    /// it is about, and the end of the transcript that led to it.
    pub above: Vec<String>,
}

/// One numbered choice of a dialog, e.g. `❯ 1. Yes` or `2. Yes, and don't ask again (p)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Choice {
    /// Its number as shown.
    pub number: u32,
    /// Its label, without the number, the selection marker and the shortcut hint.
    pub label: String,
    /// The dialog's selection is on it now (a marker such as `❯`, `›`, `●`, or a highlight; the first choice
    /// when nothing marks one).
    pub selected: bool,
    /// The shortcut the dialog names for it, as shown: `y`, `p`, `esc`.
    pub shortcut: Option<String>,
    /// The keys that pick it: arrows from the selected choice to this one, then Enter (tmux key names when
    /// serialised).
    #[serde(serialize_with = "key_names")]
    pub keys: Vec<Key>,
}

/// How many screen rows above a dialog's deciding row are kept in [`Dialog::above`].
const ABOVE_ROWS: usize = 30;

fn key_names<S: serde::Serializer>(keys: &[Key], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(keys.iter().map(Key::tmux_name))
}

fn option_pattern() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(r"^[\s│]*(?:(?P<marker>[❯›>●▶→])\s*)?(?P<number>\d{1,2})\.\s+(?P<label>.*?)\s*│?\s*$")
            .unwrap_or_else(|_| unreachable!("a constant pattern"))
    })
}

fn shortcut_pattern() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(r"\s*\((?P<key>[a-z]{1,3})\)$").unwrap_or_else(|_| unreachable!("a constant pattern"))
    })
}

/// The lowest row in `range` that matches one of `spec`'s dialog patterns, as a dialog with the choices
/// shown in the screen's lower part (`choice_rows` rows; a selected option can look like an input row, so
/// `range` may start below the first options).
pub(super) fn find(
    rows: &[RowText],
    screen: &Screen,
    spec: &AgentSpec,
    range: Range<usize>,
    choice_rows: usize,
) -> Option<Dialog> {
    let row = range.clone().rev().find(|&row| spec.dialogs.iter().any(|dialog| dialog.is_match(&rows[row].text)))?;
    let from = range.start.min(rows.len().saturating_sub(choice_rows));
    let above = rows[row.saturating_sub(ABOVE_ROWS)..row]
        .iter()
        .map(|line| line.text.trim().to_string())
        .filter(|line| !line.is_empty())
        .collect();
    Some(Dialog {
        agent: Some(spec.agent),
        row,
        line: rows[row].text.clone(),
        choices: choices(rows, screen, from..rows.len()),
        above,
    })
}

/// A numbered option row: number, label, shortcut, whether it is marked selected.
struct OptionRow {
    number: u32,
    label: String,
    shortcut: Option<String>,
    selected: bool,
}

fn option_row(row: &RowText, cells: &[tmux_habitat::Cell]) -> Option<OptionRow> {
    let found = option_pattern().captures(&row.text)?;
    let number: u32 = found["number"].parse().ok()?;
    let mut label = found["label"].to_string();
    let shortcut = shortcut_pattern().captures(&label).map(|hint| hint["key"].to_string());
    if let Some(hint) = shortcut_pattern().find(&label) {
        label.truncate(hint.start());
    }
    // Without a marker glyph, a dialog may highlight the selected option (reverse video or a background).
    let digit_col = row.cell_at_byte_in(0, found.name("number").map_or(0, |m| m.start()));
    let highlighted = cells.get(digit_col).is_some_and(|cell| cell.style.reverse || cell.style.bg != Color::Default);
    Some(OptionRow { number, label, shortcut, selected: found.name("marker").is_some() || highlighted })
}

/// The last run of options numbered 1, 2, 3 … in `range`.
fn choices(rows: &[RowText], screen: &Screen, range: Range<usize>) -> Vec<Choice> {
    let mut runs: Vec<Vec<OptionRow>> = Vec::new();
    for row in range {
        let Some(option) = option_row(&rows[row], screen.row(row)) else { continue };
        match runs.last_mut() {
            Some(run) if run.last().is_some_and(|last| last.number + 1 == option.number) => run.push(option),
            _ if option.number == 1 => runs.push(vec![option]),
            _ => {}
        }
    }
    let Some(run) = runs.pop() else { return Vec::new() };
    let selected = run.iter().position(|option| option.selected).unwrap_or(0);
    run.into_iter()
        .enumerate()
        .map(|(index, option)| {
            let arrow = if index >= selected { Key::Down } else { Key::Up };
            let mut keys = vec![arrow; index.abs_diff(selected)];
            keys.push(Key::Enter);
            Choice {
                number: option.number,
                label: option.label,
                selected: index == selected,
                shortcut: option.shortcut,
                keys,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<Choice> {
        let screen = Screen::from_plain(text);
        let rows: Vec<RowText> = (0..screen.height()).map(|row| RowText::new(screen.row(row))).collect();
        choices(&rows, &screen, 0..rows.len())
    }

    #[test]
    fn choices_carry_labels_shortcuts_and_keys_from_the_selection() {
        let choices = parse(concat!(
            "  Would you like to run the following command?\n",
            "  1. an old list item in history\n",
            "› 1. Yes, proceed (y)\n",
            "  2. Yes, and don't ask again for `touch x` (p)\n",
            "  3. No, and tell Codex what to do differently (esc)\n",
            "  Press enter to confirm or esc to cancel\n",
        ));
        let labels: Vec<&str> = choices.iter().map(|choice| choice.label.as_str()).collect();
        assert_eq!(
            labels,
            ["Yes, proceed", "Yes, and don't ask again for `touch x`", "No, and tell Codex what to do differently"]
        );
        assert_eq!(choices[2].shortcut.as_deref(), Some("esc"));
        assert!(choices[0].selected && !choices[1].selected);
        assert_eq!(choices[0].keys, [Key::Enter]);
        assert_eq!(choices[2].keys, [Key::Down, Key::Down, Key::Enter]);
    }

    #[test]
    fn a_marker_further_down_means_arrows_up() {
        let choices = parse(" 1. Yes\n 2. Always\n ❯ 3. No\n");
        assert!(choices[2].selected);
        assert_eq!(choices[0].keys, [Key::Up, Key::Up, Key::Enter]);
        assert_eq!(choices[0].shortcut, None);
    }

    #[test]
    fn boxed_options_lose_their_border() {
        let choices = parse("│ ● 1. Allow once      │\n│   2. Allow for this session │\n");
        assert_eq!(choices[1].label, "Allow for this session");
        assert!(choices[0].selected);
    }
}
