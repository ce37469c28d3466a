//! The built-in runner for `direct` subtasks: types the command into a tmux pane.

/// Runs `direct` subtasks in tmux panes through tmux-habitat (work in progress).
#[derive(Debug)]
pub struct ShellRunner {}
