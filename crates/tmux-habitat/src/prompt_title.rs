//! The default shell's prompt sign: at each prompt it sets the pane title to `hab-prompt-<count>-<status>`.

/// A prompt of the default shell, read from the pane title ([`crate::PaneInfo::title`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShellPrompt {
    /// How many prompts the shell has shown; a higher count than before a command means the shell is back.
    pub count: u64,
    /// The exit status of the last command line (130 after C-c).
    pub status: i32,
}

/// The prompt sign in a pane title, if the pane runs the default shell at (or past) a prompt. Panes running
/// another shell, or a program that set its own title, have none.
///
/// ```
/// use tmux_habitat::{ShellPrompt, shell_prompt};
/// assert_eq!(shell_prompt("hab-prompt-3-130"), Some(ShellPrompt { count: 3, status: 130 }));
/// assert_eq!(shell_prompt("vim"), None);
/// ```
pub fn shell_prompt(title: &str) -> Option<ShellPrompt> {
    let (count, status) = title.strip_prefix("hab-prompt-")?.split_once('-')?;
    Some(ShellPrompt { count: count.parse().ok()?, status: status.parse().ok()? })
}
