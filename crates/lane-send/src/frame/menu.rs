//! Reads the numbered choices of an approval dialog (Claude Code's permission prompt, Codex's command
//! approval, Gemini's tool confirmation), and the keys that pick each one.
//!
//! Pure, like the rest of [`crate::frame`]: a [`Screen`] goes in, a [`Menu`] comes out. Use it once
//! [`recognise`](crate::frame::recognise) has said [`Recognition::Dialog`](crate::frame::Recognition::Dialog).

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;
use tmux_habitat::{Color, Key, Screen};

/// How many rows at the bottom of the screen are searched (the same region as dialog recognition).
const MENU_ROWS: usize = 25;

/// `❯ 1. Yes`, `  2. No (esc)`, `│ ● 1. Allow once │` (borders are stripped first). On a narrow screen Claude
/// Code draws a long label without the space (`2.Yes, and always allow …`): a letter may follow the dot at once
/// (checked where it is used: the `regex` crate has no look-ahead).
static CHOICE: LazyLock<Regex> = LazyLock::new(|| {
    // A constant pattern: `patterns_compile` forces it, so a wrong one fails a test instead of switching menus off.
    #[allow(clippy::expect_used, reason = "a constant pattern, forced by a unit test")]
    Regex::new(r"^(?P<mark>[❯›>●▶➤→*]\s*)?(?P<number>\d{1,2})[.)](?P<space>\s*)(?P<label>\S.*?)\s*$")
        .expect("CHOICE compiles")
});
/// A key named at the end of a label: `(esc)`, `(y)`.
static HINT: LazyLock<Regex> = LazyLock::new(|| {
    #[allow(clippy::expect_used, reason = "a constant pattern, forced by a unit test")]
    Regex::new(r"\((?P<key>esc|[a-z])\)$").expect("HINT compiles")
});

/// One choice of a menu.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Choice {
    /// The number drawn before it (1-based).
    pub number: u32,
    /// Its text as drawn, without the number and the selection mark.
    pub label: String,
    /// A key named at the end of the label (`esc`, `y`), if any.
    pub hint: Option<String>,
}

/// The choices of a dialog on screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Menu {
    /// The question above the choices (`Do you want to proceed?`).
    pub prompt: String,
    /// The choices, top to bottom, numbered 1, 2, ….
    pub choices: Vec<Choice>,
    /// Index of the highlighted choice (the one Enter picks).
    pub selected: usize,
}

impl Menu {
    /// The keys that pick choice `index`: Escape for a choice labelled `(esc)`, else arrows from the
    /// highlighted choice and Enter, which every agent's menu understands. `None` for an index out of range.
    pub fn keys(&self, index: usize) -> Option<Vec<Key>> {
        let choice = self.choices.get(index)?;
        if choice.hint.as_deref() == Some("esc") {
            return Some(vec![Key::Escape]);
        }
        let (arrow, steps) =
            if index >= self.selected { (Key::Down, index - self.selected) } else { (Key::Up, self.selected - index) };
        let mut keys = vec![arrow; steps];
        keys.push(Key::Enter);
        Some(keys)
    }
}

/// The lowest run of consecutively numbered choices (1, 2, …, at least two) near the bottom of the screen,
/// with the question above it; `None` when there is none.
pub fn read_menu(screen: &Screen) -> Option<Menu> {
    let (choice_re, hint_re) = (&*CHOICE, &*HINT);
    let start = screen.height().saturating_sub(MENU_ROWS);
    let rows: Vec<String> = (start..screen.height()).map(|row| strip_border(&screen.row_text(row))).collect();
    let parsed: Vec<Option<(bool, u32, String)>> = rows
        .iter()
        .map(|row| {
            let caps = choice_re.captures(row)?;
            // Without the space, only a letter may follow (`2.Yes`): `1.5` is a number, not a choice.
            let tight = caps.name("space").is_none_or(|s| s.as_str().is_empty());
            if tight && !caps.name("label")?.as_str().starts_with(char::is_alphabetic) {
                return None;
            }
            let number = caps.name("number")?.as_str().parse().ok()?;
            Some((caps.name("mark").is_some(), number, caps.name("label")?.as_str().to_owned()))
        })
        .collect();
    // Walk up from the lowest choice while the numbers count down to 1. A label may wrap onto a row of its
    // own, and agents leave a blank row here and there; more than two rows without a choice end the menu.
    let last = parsed.iter().rposition(Option::is_some)?;
    let mut group: Vec<(usize, bool, u32, String)> = Vec::new();
    let mut gap = 0;
    for row in (0..=last).rev() {
        let Some((mark, number, label)) = &parsed[row] else {
            gap += 1;
            if gap > 2 {
                return None;
            }
            continue;
        };
        gap = 0;
        let expected = group.last().map_or(*number, |(_, _, below, _)| below.wrapping_sub(1));
        if *number != expected || *number == 0 {
            return None;
        }
        group.push((row, *mark, *number, label.clone()));
        if *number == 1 {
            break;
        }
    }
    if group.len() < 2 || group.last().is_some_and(|(_, _, number, _)| *number != 1) {
        return None;
    }
    group.reverse();
    // A label wrapped onto rows of its own (a narrow screen): those rows, up to the next choice, belong to it.
    for index in 0..group.len() {
        let end = group.get(index + 1).map_or(group[index].0 + 1, |next| next.0);
        let more: Vec<&str> =
            rows[group[index].0 + 1..end].iter().map(|r| r.trim()).filter(|r| !r.is_empty()).collect();
        if !more.is_empty() {
            group[index].3 = std::iter::once(group[index].3.as_str()).chain(more).collect::<Vec<_>>().join(" ");
        }
    }
    let top = group[0].0;
    let prompt = rows[..top].iter().rev().map(|r| r.trim()).find(|r| !r.is_empty()).unwrap_or_default().to_owned();
    // A mark (`❯ 2.`) says which is selected; without one a menu may highlight it (Grok: a background on the
    // selected option); else the first is.
    let highlighted: Vec<usize> =
        (0..group.len()).filter(|&index| highlighted(screen, start + group[index].0)).collect();
    let selected = group
        .iter()
        .position(|(_, mark, _, _)| *mark)
        .or(if highlighted.len() == 1 { highlighted.first().copied() } else { None })
        .unwrap_or(0);
    let choices = group
        .into_iter()
        .map(|(_, _, number, label)| {
            let hint = hint_re.captures(&label).and_then(|c| c.name("key")).map(|k| k.as_str().to_owned());
            Choice { number, label, hint }
        })
        .collect();
    Some(Menu { prompt, choices, selected })
}

/// Whether the number of the option on screen row `row` is drawn highlighted (reverse video or a background).
fn highlighted(screen: &Screen, row: usize) -> bool {
    let digit = screen.row(row).iter().find(|cell| cell.text.starts_with(|c: char| c.is_ascii_digit()));
    digit.is_some_and(|cell| cell.style.reverse || cell.style.bg != Color::Default)
}

/// A row without the box drawn around a dialog (`│ … │`) and without surrounding blanks.
fn strip_border(row: &str) -> String {
    let row = row.trim();
    let row = row.strip_prefix('│').unwrap_or(row);
    let row = row.strip_suffix('│').unwrap_or(row);
    row.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_compile() {
        LazyLock::force(&CHOICE);
        LazyLock::force(&HINT);
    }

    fn menu(text: &str) -> Option<Menu> {
        read_menu(&Screen::from_plain(text))
    }

    #[test]
    fn claudes_permission_prompt() {
        let menu = menu(include_str!("../../tests/frames/claude-permission-dialog.txt")).unwrap();
        assert_eq!(menu.prompt, "Do you want to proceed?");
        assert_eq!(menu.choices.len(), 3);
        assert_eq!(menu.choices[0].label, "Yes");
        assert_eq!(menu.selected, 0);
        assert_eq!(menu.choices[2].hint.as_deref(), Some("esc"));
        assert_eq!(menu.keys(0), Some(vec![Key::Enter]));
        assert_eq!(menu.keys(1), Some(vec![Key::Down, Key::Enter]));
        assert_eq!(menu.keys(2), Some(vec![Key::Escape]));
        assert_eq!(menu.keys(3), None);
    }

    #[test]
    fn codex_approval_with_key_hints_and_a_footer() {
        let menu = menu(include_str!("../../tests/frames/codex-approval-dialog.txt")).unwrap();
        assert_eq!(menu.prompt, "$ rm -rf build && npm run build");
        assert_eq!(menu.choices[0].hint.as_deref(), Some("y"));
        assert_eq!(menu.choices[1].hint.as_deref(), Some("p"));
        assert_eq!(menu.choices[2].label, "No, and tell Codex what to do differently (esc)");
    }

    #[test]
    fn geminis_boxed_confirmation_with_the_selection_further_down() {
        let menu = menu(concat!(
            "╭──────────────────────────────╮\n",
            "│ Allow execution of [rm]?     │\n",
            "│                              │\n",
            "│   1. Allow once              │\n",
            "│ ● 2. Allow for this session  │\n",
            "│   3. No, suggest changes (esc)│\n",
            "╰──────────────────────────────╯\n",
        ))
        .unwrap();
        assert_eq!(menu.prompt, "Allow execution of [rm]?");
        assert_eq!(menu.selected, 1);
        assert_eq!(menu.keys(0), Some(vec![Key::Up, Key::Enter]));
    }

    #[test]
    fn claudes_prompt_on_a_phones_width_with_a_wrapped_label() {
        // Real Claude Code 2.1.197 fitted to 44 columns: the long label loses its space and wraps.
        let menu = menu(concat!(
            " Bash command\n",
            "   touch lane-send-was-here\n",
            " Do you want to proceed?\n",
            " ❯ 1. Yes\n",
            "   2.Yes, and always allow access to work/\n",
            "      from this project\n",
            "   3. No\n",
            "\n",
            " Esc to cancel · Tab to amend · ctrl+e to\n",
            " explain\n",
        ))
        .unwrap();
        assert_eq!(menu.prompt, "Do you want to proceed?");
        let labels: Vec<&str> = menu.choices.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["Yes", "Yes, and always allow access to work/ from this project", "No"]);
        assert_eq!(menu.keys(2), Some(vec![Key::Down, Key::Down, Key::Enter]));
        assert_eq!(self::menu("Version:\n 1.5\n 2.7\n"), None, "a number with a decimal part is no choice");
    }

    #[test]
    fn a_numbered_list_that_does_not_start_at_one_or_skips_is_not_a_menu() {
        assert_eq!(menu("Steps:\n 2. build\n 3. test\n"), None);
        assert_eq!(menu("Steps:\n 1. build\n 3. test\n"), None);
        assert_eq!(menu("just one\n 1. thing\n"), None);
        assert_eq!(menu("$ ls\nfile\n"), None);
    }
}
