//! Proven delivery of a message into another agent's TUI input box through tmux.
//!
//! Agents from different vendors (Claude Code, Codex, Gemini CLI, Grok CLI, Qwen Code) run side by
//! side, each in its own tmux session — a *lane*. lane-send types a signed message into a lane's
//! input box and proves it arrived: it recognises the frame around the box, refuses dialogs, the
//! agent's menus and unknown screens, keeps a human's draft, pastes exactly once, presses Enter
//! separately, and reports `delivered` only after it saw the box empty (or the agent's queue
//! marker). Otherwise the outcome is `held` with the stage it reached — nothing pasted, pasted, or
//! Enter pressed — and no message is left in a box: lane-send takes its own text back out and says
//! whether the box was restored.
//!
//! The pieces are pure where they can be: [`frame::recognise`] reads a [`Screen`] (tmux-habitat's, the
//! workspace's one screen model) and names the agent and the kind of frame (input box, dialog with its
//! choices, menu, unknown); [`delivery::Delivery`] is the sans-IO state machine; [`deliver`] drives both
//! over tmux. [`choose`] picks a dialog's choice, [`capture_lane`] saves a screen as a fixture.
//!
//! ```
//! use lane_send::{frame, Screen};
//!
//! let screen = Screen::from_plain(concat!(
//!     "──────────────────────────────\n",
//!     "❯\u{a0}\n",
//!     "──────────────────────────────\n",
//!     "  ? for shortcuts\n",
//! ));
//! let recognition = frame::recognise(&screen).unwrap();
//! let input = recognition.input().unwrap();
//! assert_eq!(input.agent, lane_send::Agent::Claude);
//! assert!(input.is_empty());
//! ```

#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "coordination")]
pub mod commands;
mod date;
mod deliver;
pub mod delivery;
mod error;
pub mod frame;
mod journal;
pub mod lock;
#[cfg(feature = "coordination")]
pub mod mailbox;
mod message;
#[cfg(feature = "coordination")]
pub mod notes;
mod outcome;
mod paths;
#[cfg(feature = "coordination")]
pub mod registry;

pub use deliver::{
    DEFAULT_TIMEOUT, DeliverOptions, capture_lane, choose, deliver, inspect_lane, live_lanes, press_keys,
};
pub use error::{Error, FrameSpecProblem};
pub use message::SignedMessage;
pub use outcome::{Details, Ending, Outcome, Stage, Verdict};
pub use paths::Dirs;
pub use tmux_habitat::Screen;

use serde::{Deserialize, Serialize};

/// The agents whose input frames lane-send knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    /// Anthropic Claude Code.
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// Google Gemini CLI.
    Gemini,
    /// Grok CLI.
    Grok,
    /// Qwen Code.
    Qwen,
}

impl Agent {
    /// The lowercase name used in output and tables.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Grok => "grok",
            Agent::Qwen => "qwen",
        }
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
