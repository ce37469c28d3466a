//! Recognising a program that waits for a person: a confirmation, a password, a pager, "press any key".

use std::sync::LazyLock;

use regex::Regex;

/// What kind of input the program waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InterventionKind {
    /// A yes/no question: `[y/N]`, `(yes/no)`, …
    Confirm,
    /// A password or passphrase prompt.
    Password,
    /// A pager: `--More--`, `(END)`, or less's lone `:`.
    Pager,
    /// "Press any key", "press Enter to continue".
    PressKey,
}

/// A detected wait for input, with the line that shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Intervention {
    /// What is asked for.
    pub kind: InterventionKind,
    /// The prompt line as shown.
    pub prompt: String,
}

static RULES: LazyLock<Vec<(InterventionKind, Regex)>> = LazyLock::new(|| {
    // Constant patterns: `rules_compile` forces them, so a wrong one fails a test instead of dropping its rule.
    #[allow(clippy::expect_used, reason = "constant patterns, forced by a unit test")]
    let rule = |kind, pattern: &str| (kind, Regex::new(pattern).expect("an intervention pattern compiles"));
    [
        rule(
            InterventionKind::Confirm,
            r"(?i)(\[y/n\]|\(y/n\)|\[yes/no\]|\(yes/no(/\[fingerprint\])?\)|\[y/n/q\])\s*[:?]?\s*$",
        ),
        rule(InterventionKind::Password, r"(?i)(password|passphrase|\bpin)( for [^:]*)?\s*:\s*$"),
        rule(InterventionKind::Pager, r"^(--More--.*|\(END\)|:)\s*$"),
        rule(InterventionKind::Pager, r"(?i)^\s*lines \d+-\d+(/\d+)?( \(END\))?\s*$"),
        rule(InterventionKind::PressKey, r"(?i)(press any key|press (enter|return) to continue|hit enter)"),
    ]
    .into_iter()
    .collect()
});

/// Judges the last non-blank line of `text` (output produced since the current command started): a prompt
/// that waits for input stands at the end of the output, with the cursor after it.
pub fn detect_intervention(text: &str) -> Option<Intervention> {
    let last = text.lines().rev().map(str::trim_end).find(|l| !l.trim().is_empty())?;
    RULES
        .iter()
        .find(|(_, re)| re.is_match(last))
        .map(|(kind, _)| Intervention { kind: *kind, prompt: last.to_owned() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_compile() {
        assert_eq!(LazyLock::force(&RULES).len(), 5);
    }

    #[test]
    fn table() {
        let cases: &[(&str, Option<InterventionKind>)] = &[
            ("Proceed? [y/N] ", Some(InterventionKind::Confirm)),
            ("Do you want to continue? [Y/n]", Some(InterventionKind::Confirm)),
            ("Are you sure you want to continue connecting (yes/no/[fingerprint])? ", Some(InterventionKind::Confirm)),
            ("[sudo] password for ana: ", Some(InterventionKind::Password)),
            ("Enter passphrase for key '/root/.ssh/id_ed25519': ", Some(InterventionKind::Password)),
            ("--More--(42%)", Some(InterventionKind::Pager)),
            ("(END)", Some(InterventionKind::Pager)),
            (":", Some(InterventionKind::Pager)),
            ("Press any key to continue...", Some(InterventionKind::PressKey)),
            ("Enter PIN: ", Some(InterventionKind::Password)),
            ("Spin:", None),
            ("all done", None),
            ("the [y/N] prompt was answered\ngot:y", None),
            ("password: hunter2 was rejected\n$ ", None),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(detect_intervention(text).map(|i| i.kind), *expected, "{text:?}");
        }
    }

    #[test]
    fn all_rules_compile() {
        assert_eq!(RULES.len(), 5);
    }
}
