//! Named keys, as tmux's `send-keys` spells them.

use std::fmt;

/// A key that is not literal text. [`Key::tmux_name`] gives the name `send-keys` understands.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Key {
    /// Return.
    Enter,
    /// Escape.
    Escape,
    /// Tab.
    Tab,
    /// Shift-Tab.
    BackTab,
    /// Backspace.
    Backspace,
    /// Delete (forward).
    Delete,
    /// Insert.
    Insert,
    /// Home.
    Home,
    /// End.
    End,
    /// Page up.
    PageUp,
    /// Page down.
    PageDown,
    /// Arrow up.
    Up,
    /// Arrow down.
    Down,
    /// Arrow left.
    Left,
    /// Arrow right.
    Right,
    /// Space bar.
    Space,
    /// A function key F1–F12.
    F(u8),
    /// Control plus a letter or symbol, e.g. `Ctrl('c')`.
    Ctrl(char),
    /// Meta (Alt) plus a key, e.g. `Alt('b')`.
    Alt(char),
}

impl Key {
    /// `Ctrl-C`, the interrupt.
    pub const CTRL_C: Key = Key::Ctrl('c');
    /// `Ctrl-D`, end of input.
    pub const CTRL_D: Key = Key::Ctrl('d');
    /// `Ctrl-U`, kill to the start of the line.
    pub const CTRL_U: Key = Key::Ctrl('u');

    /// The key's name for `tmux send-keys`.
    pub fn tmux_name(&self) -> String {
        match self {
            Key::Enter => "Enter".into(),
            Key::Escape => "Escape".into(),
            Key::Tab => "Tab".into(),
            Key::BackTab => "BTab".into(),
            Key::Backspace => "BSpace".into(),
            Key::Delete => "DC".into(),
            Key::Insert => "IC".into(),
            Key::Home => "Home".into(),
            Key::End => "End".into(),
            Key::PageUp => "PPage".into(),
            Key::PageDown => "NPage".into(),
            Key::Up => "Up".into(),
            Key::Down => "Down".into(),
            Key::Left => "Left".into(),
            Key::Right => "Right".into(),
            Key::Space => "Space".into(),
            Key::F(n) => format!("F{n}"),
            Key::Ctrl(c) => format!("C-{}", c.to_ascii_lowercase()),
            Key::Alt(c) => format!("M-{c}"),
        }
    }

    /// Parses a tmux key name (`Enter`, `C-c`, `F5`, `M-x`, …) as a person would write it.
    pub fn parse(name: &str) -> Option<Key> {
        let key = match name {
            "Enter" | "Return" => Key::Enter,
            "Escape" | "Esc" => Key::Escape,
            "Tab" => Key::Tab,
            "BTab" => Key::BackTab,
            "BSpace" | "Backspace" => Key::Backspace,
            "DC" | "Delete" => Key::Delete,
            "IC" | "Insert" => Key::Insert,
            "Home" => Key::Home,
            "End" => Key::End,
            "PPage" | "PageUp" => Key::PageUp,
            "NPage" | "PageDown" => Key::PageDown,
            "Up" => Key::Up,
            "Down" => Key::Down,
            "Left" => Key::Left,
            "Right" => Key::Right,
            "Space" => Key::Space,
            _ => {
                if let Some(n) = name.strip_prefix('F').and_then(|n| n.parse::<u8>().ok()) {
                    return (1..=12).contains(&n).then_some(Key::F(n));
                }
                let mut chars = name.chars();
                return match (chars.next(), chars.next(), chars.next(), chars.next()) {
                    (Some('C'), Some('-'), Some(c), None) => Some(Key::Ctrl(c)),
                    (Some('M'), Some('-'), Some(c), None) => Some(Key::Alt(c)),
                    _ => None,
                };
            }
        };
        Some(key)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.tmux_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for key in [Key::Enter, Key::Escape, Key::CTRL_C, Key::F(12), Key::Alt('x'), Key::Backspace, Key::PageUp] {
            assert_eq!(Key::parse(&key.tmux_name()), Some(key.clone()), "{key:?}");
        }
        assert_eq!(Key::parse("F13"), None);
        assert_eq!(Key::parse("nonsense"), None);
    }
}
