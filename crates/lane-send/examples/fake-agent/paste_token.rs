//! When a bracketed paste collapses into a token, and what the token says, per agent.

use crate::style::AgentStyle;

/// Collapses pastes over `over_chars` characters (or with many lines) into a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CollapseRule {
    pub over_chars: usize,
}

impl CollapseRule {
    /// Whether a paste collapses. The line thresholds are each agent's own: Claude collapses
    /// above 3 newlines, Gemini above 5 lines, Grok from 2 lines; Codex only counts characters.
    pub fn collapses(&self, style: AgentStyle, text: &str) -> bool {
        let chars = text.chars().count();
        let newlines = text.matches('\n').count();
        chars > self.over_chars
            || match style {
                AgentStyle::Claude2 | AgentStyle::Claude1 => newlines > 3,
                AgentStyle::Gemini => newlines + 1 > 5,
                AgentStyle::Grok => newlines + 1 >= 2,
                AgentStyle::Codex => false,
            }
    }
}

/// The token shown in the box for the `ordinal`-th collapsed paste (1-based).
/// `same_label_before` counts earlier collapsed pastes whose token (without suffix) was
/// identical; Codex and Gemini tell those apart with ` #2`, ` #3`.
pub fn token(style: AgentStyle, text: &str, ordinal: usize, same_label_before: usize) -> String {
    let chars = text.chars().count();
    let newlines = text.matches('\n').count();
    let lines = newlines + 1;
    let dup = |label: String| {
        if same_label_before == 0 { label } else { format!("{label} #{}", same_label_before + 1) }
    };
    match style {
        AgentStyle::Claude2 | AgentStyle::Claude1 => {
            if newlines == 0 {
                format!("[Pasted text #{ordinal}]")
            } else {
                format!("[Pasted text #{ordinal} +{newlines} lines]")
            }
        }
        AgentStyle::Codex => dup(format!("[Pasted Content {chars} chars]")),
        AgentStyle::Gemini => {
            if lines > 5 {
                dup(format!("[Pasted Text: {lines} lines]"))
            } else {
                dup(format!("[Pasted Text: {chars} chars]"))
            }
        }
        AgentStyle::Grok => format!("[Pasted #{ordinal} {lines}+ lines]"),
    }
}

/// The label part of a token, used to count duplicates for Codex and Gemini.
pub fn label(style: AgentStyle, text: &str) -> String {
    token(style, text, 0, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}")).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn claude_counts_newlines() {
        assert_eq!(token(AgentStyle::Claude2, &lines(13), 1, 0), "[Pasted text #1 +12 lines]");
        assert_eq!(token(AgentStyle::Claude2, &"x".repeat(2000), 2, 0), "[Pasted text #2]");
    }

    #[test]
    fn other_agents_use_their_own_formats() {
        assert_eq!(token(AgentStyle::Codex, &"x".repeat(1482), 1, 0), "[Pasted Content 1482 chars]");
        assert_eq!(token(AgentStyle::Codex, &"x".repeat(1482), 2, 1), "[Pasted Content 1482 chars] #2");
        assert_eq!(token(AgentStyle::Gemini, &lines(13), 1, 0), "[Pasted Text: 13 lines]");
        assert_eq!(token(AgentStyle::Gemini, &"y".repeat(600), 1, 0), "[Pasted Text: 600 chars]");
        assert_eq!(token(AgentStyle::Grok, &lines(13), 1, 0), "[Pasted #1 13+ lines]");
    }

    #[test]
    fn thresholds_follow_each_agent() {
        let rule = CollapseRule { over_chars: 100 };
        assert!(!rule.collapses(AgentStyle::Claude2, &lines(4)));
        assert!(rule.collapses(AgentStyle::Claude2, &lines(5)));
        assert!(!rule.collapses(AgentStyle::Codex, &lines(8)));
        assert!(rule.collapses(AgentStyle::Codex, &"z".repeat(101)));
        assert!(!rule.collapses(AgentStyle::Gemini, &lines(5)));
        assert!(rule.collapses(AgentStyle::Gemini, &lines(6)));
        assert!(rule.collapses(AgentStyle::Grok, &lines(2)));
        assert!(!rule.collapses(AgentStyle::Grok, "one line"));
    }
}
