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

    pub(crate) fn args(&self, pane: &str) -> Vec<String> {
        let mut args = vec!["capture-pane".to_owned(), "-p".into(), "-t".into(), pane.to_owned()];
        if self.joined {
            args.push("-J".into());
        }
        if self.escapes {
            args.push("-e".into());
        }
        if self.scrollback > 0 {
            args.extend(["-S".into(), format!("-{}", self.scrollback)]);
        }
        args
    }
}
