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
    }
}
