//! What to capture from a pane.

/// Options for [`Pane::capture`](crate::Pane::capture): which lines, joined or not, with attributes or not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CaptureOptions {
    pub(crate) joined: bool,
    pub(crate) scrollback: usize,
    pub(crate) escapes: bool,
}

impl CaptureOptions {
    /// The visible screen, one line per row.
    pub fn visible() -> Self {
        CaptureOptions::default()
    }

    /// Join lines the terminal wrapped (`-J`), so a long output line comes back as one line.
    pub fn joined(mut self) -> Self {
        self.joined = true;
        self
    }

    /// Include up to `lines` lines of scrollback above the visible screen.
    pub fn scrollback(mut self, lines: usize) -> Self {
        self.scrollback = lines;
        self
    }

    /// Include SGR attributes (`-e`); parse them with [`Screen::from_ansi`](crate::Screen::from_ansi).
    pub fn with_escapes(mut self) -> Self {
        self.escapes = true;
        self
    }

    pub(crate) fn command(&self, pane: &str) -> tmux_control::Command {
        let mut command = tmux_control::Command::new("capture-pane").args(["-p", "-t", pane]);
        if self.joined {
            command = command.arg("-J");
        }
        if self.escapes {
            command = command.arg("-e");
        }
        if self.scrollback > 0 {
            command = command.args(["-S".to_owned(), format!("-{}", self.scrollback)]);
        }
        command
    }
}
