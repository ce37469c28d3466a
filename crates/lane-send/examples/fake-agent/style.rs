//! Which agent the fake imitates, and what Enter does while it is busy.

use clap::ValueEnum;

/// The agent TUI whose screen the fake draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AgentStyle {
    /// Claude Code 2.x: `─` rules above and below a `❯`+NBSP row.
    Claude2,
    /// Claude Code 1.0.x: dim rounded box `╭─╮ │ > … │ ╰─╯`.
    Claude1,
    /// Codex CLI: tinted composer block with a bold `›` row and footer rows, no box glyphs.
    Codex,
    /// Gemini CLI (2025 layout): rounded box `│ > … │` and a cwd/sandbox/model footer.
    Gemini,
    /// Grok CLI (Ink era): rounded box in a 2-column margin with a cyan `❯`.
    Grok,
}

/// What Enter does while the fake agent is busy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum BusyMode {
    /// The box's text is queued (shown above the box) and submitted when busy ends.
    #[default]
    Queue,
    /// Enter does nothing; the text stays in the box.
    Ignore,
}
