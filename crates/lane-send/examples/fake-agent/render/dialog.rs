//! Permission dialogs that replace the input box (Enter would approve; lane-send must hold).

use crate::screen::{Line, Look, pad_to, repeat};

/// Claude Code's Bash permission prompt, drawn under a rule.
pub fn claude() -> Vec<Line> {
    [
        " Bash command",
        "",
        "   rm -rf build/ && npm run build",
        "   Remove the old build output and rebuild",
        "",
        " Do you want to proceed?",
        " ❯ 1. Yes",
        "   2. Yes, and don't ask again for rm commands in /home/me/src/demo",
        "   3. No, and tell Claude what to do differently (esc)",
    ]
    .into_iter()
    .map(Line::plain)
    .collect()
}

/// Codex's command approval; `›` marks the menu selection, not a composer.
pub fn codex() -> Vec<Line> {
    [
        "  Would you like to run the following command?",
        "",
        "  $ rm -rf build && npm run build",
        "",
        "› 1. Yes, proceed (y)",
        "  2. Yes, and don't ask again for commands that start with `rm -rf build` (p)",
        "  3. No, and tell Codex what to do differently (esc)",
        "",
        "  Press enter to confirm or esc to cancel",
    ]
    .into_iter()
    .map(Line::plain)
    .collect()
}

/// Gemini's tool confirmation box.
pub fn gemini(width: usize) -> Vec<Line> {
    let border = Look::fg(220);
    let inner = width - 2;
    let mut lines = vec![Line::styled(format!("╭{}╮", repeat('─', inner)), border)];
    for row in [
        " ?  Shell rm -rf build && npm run build",
        "",
        " Allow execution of [rm]?",
        "",
        " ● 1. Allow once",
        "   2. Allow for this session",
        "   3. No, suggest changes (esc)",
    ] {
        lines.push(Line::styled("│", border).push(pad_to(row, inner), Look::PLAIN).push("│", border));
    }
    lines.push(Line::styled(format!("╰{}╯", repeat('─', inner)), border));
    lines
}
