//! Command-line switches of `fake-agent`.

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

use crate::agent::Config;
use crate::paste_token::CollapseRule;
use crate::style::{AgentStyle, BusyMode};

const AFTER_HELP: &str = "\
Keys:
  printable   insert (Tab inserts a tab, drawn as 4 spaces, logged as \\t)
  Enter       submit the box (an empty or blank box submits nothing)
  Ctrl-J, Alt-Enter, Shift-Enter
              insert a newline
  Backspace   delete the last character, or a whole [Pasted …] token
  Ctrl-U      delete back to the start of the current line
  Right       accept the --ghost suggestion into an empty box
  Up          pull queued messages back into an empty box
  Esc         end a busy period now (queued messages are submitted);
              in the dialog: deny and close it
  Ctrl-C      clear the box; on an empty box, exit
  Ctrl-D      exit when the box is empty
While --dialog is up, only Enter (approve) and Esc (deny) do anything; other keys and pastes
are dropped. Either answer closes the dialog and shows the input box.

Log: one JSON object per submitted message, appended to --log:
  {\"queued\":false,\"t_ms\":1764500000000,\"text\":\"exact text\"}
t_ms is wall-clock milliseconds since the Unix epoch. CR and CRLF inside a paste become LF.

Exit codes: 0 quit by Ctrl-C/Ctrl-D, 1 runtime error (log or ready file not writable,
terminal failure), 2 bad arguments.

Examples:
  fake-agent --style claude2 --log /tmp/fa/log --placeholder --ready-file /tmp/fa/ready
  fake-agent --style codex --log log.jsonl --busy-after-submit 2000 --busy-mode queue
  fake-agent --style gemini --log log.jsonl --paste-newline-window 40 --collapse-paste-over 500";

/// A fake agent TUI for lane-send tests: draws an agent's input box in a tmux pane and logs
/// every submitted message.
#[derive(Debug, Parser)]
#[command(name = "fake-agent", after_help = AFTER_HELP)]
pub struct Args {
    /// Which agent's screen to draw.
    #[arg(long, value_enum, default_value = "claude2")]
    pub style: AgentStyle,
    /// Append one JSON line per submitted message to this file.
    #[arg(long, value_name = "PATH")]
    pub log: PathBuf,
    /// Show the agent's dim placeholder in an empty box.
    #[arg(long)]
    pub placeholder: bool,
    /// Show this dim ghost suggestion in an empty box (Right arrow accepts it).
    #[arg(long, value_name = "TEXT")]
    pub ghost: Option<String>,
    /// Start with this text already typed in the box.
    #[arg(long, value_name = "TEXT")]
    pub draft: Option<String>,
    /// After each submission, stay busy for this many milliseconds.
    #[arg(long, value_name = "MS")]
    pub busy_after_submit: Option<u64>,
    /// What Enter does while busy.
    #[arg(long, value_enum, default_value = "queue")]
    pub busy_mode: BusyMode,
    /// The first Enter after start does nothing.
    #[arg(long)]
    pub swallow_first_enter: bool,
    /// The first Enter after start inserts a newline instead of submitting.
    #[arg(long)]
    pub first_enter_newline: bool,
    /// An Enter within this many milliseconds after a paste inserts a newline.
    #[arg(long, value_name = "MS")]
    pub paste_newline_window: Option<u64>,
    /// Pastes longer than N characters (or with many lines, per agent) show as a token.
    #[arg(long, value_name = "N")]
    pub collapse_paste_over: Option<usize>,
    /// Start with a permission dialog instead of the input box.
    #[arg(long)]
    pub dialog: bool,
    /// Create this file once the first frame is drawn (contents: the process id).
    #[arg(long, value_name = "PATH")]
    pub ready_file: Option<PathBuf>,
}

impl Args {
    /// The agent's behaviour switches.
    pub fn config(&self) -> Config {
        Config {
            placeholder: self.placeholder,
            ghost: self.ghost.clone(),
            busy_after_submit: self.busy_after_submit.map(Duration::from_millis),
            busy_mode: self.busy_mode,
            swallow_first_enter: self.swallow_first_enter,
            first_enter_newline: self.first_enter_newline,
            paste_newline_window: self.paste_newline_window.map(Duration::from_millis),
            collapse: self.collapse_paste_over.map(|over_chars| CollapseRule { over_chars }),
            dialog: self.dialog,
            ..Config::new(self.style)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Args::command().debug_assert();
    }

    #[test]
    fn parses_every_switch() {
        let args = Args::try_parse_from([
            "fake-agent",
            "--style",
            "grok",
            "--log",
            "/tmp/x",
            "--busy-after-submit",
            "250",
            "--busy-mode",
            "ignore",
            "--collapse-paste-over",
            "800",
            "--paste-newline-window",
            "40",
        ])
        .unwrap();
        let config = args.config();
        assert_eq!(config.style, AgentStyle::Grok);
        assert_eq!(config.busy_after_submit, Some(Duration::from_millis(250)));
        assert_eq!(config.busy_mode, BusyMode::Ignore);
        assert_eq!(config.collapse, Some(CollapseRule { over_chars: 800 }));
        assert!(Args::try_parse_from(["fake-agent"]).is_err(), "--log is required");
    }
}
