//! The one shell quoting of the workspace.

/// Quotes a word for a POSIX shell: single quotes around it, and each `'` inside as `'\''`. The result is
/// one word whatever the input holds (spaces, `$`, `;`, newlines).
///
/// ```
/// assert_eq!(tmux_habitat::shell_quote("it's $HOME"), r"'it'\''s $HOME'");
/// ```
pub fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// A word as a person would type it: as it is when it holds only characters no shell reads specially (letters,
/// digits, `-_./:=%@+,`), else [`shell_quote`]d.
///
/// ```
/// assert_eq!(tmux_habitat::shell_word("./report.py"), "./report.py");
/// assert_eq!(tmux_habitat::shell_word("my votes.txt"), "'my votes.txt'");
/// ```
pub fn shell_word(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=%@+,".contains(c)) {
        word.to_owned()
    } else {
        shell_quote(word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A real shell reads the quoted word back exactly.
        #[test]
        fn sh_reads_it_back(word in "[^\u{0}]{0,40}") {
            let out = std::process::Command::new("sh").arg("-c").arg(format!("printf %s {}", shell_quote(&word))).output().unwrap();
            prop_assert_eq!(String::from_utf8_lossy(&out.stdout), word);
        }

        /// A bare word or a quoted one, the shell reads it back exactly too.
        #[test]
        fn sh_reads_a_typed_word_back(word in "[^\u{0}]{0,20}|[a-z./-]{1,12}") {
            let out = std::process::Command::new("sh").arg("-c").arg(format!("printf %s {}", shell_word(&word))).output().unwrap();
            prop_assert_eq!(String::from_utf8_lossy(&out.stdout), word);
        }
    }
}
