//! A command's reply, as the driver hands it out.

use crate::Error;
use crate::parser::Block;

/// A command's reply block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The command line that was sent.
    pub command: String,
    /// `true` for `%end`, `false` for `%error`.
    pub ok: bool,
    /// The output lines, raw bytes without `\n`.
    pub lines: Vec<Vec<u8>>,
    /// tmux's command number (server-wide; informational only).
    pub number: u64,
}

impl Reply {
    /// The output as text (lossy UTF-8), lines joined with `\n`.
    pub fn text(&self) -> String {
        let joined = self.lines.join(&b'\n');
        String::from_utf8_lossy(&joined).into_owned()
    }

    /// `Ok(self)` for `%end`, [`Error::CommandFailed`] for `%error`.
    pub fn into_result(self) -> Result<Self, Error> {
        if self.ok { Ok(self) } else { Err(Error::CommandFailed { message: self.text(), command: self.command }) }
    }

    pub(crate) fn from_block(command: String, block: Block) -> Self {
        Self { command, ok: block.ok, lines: block.lines, number: block.guard.number }
    }
}
