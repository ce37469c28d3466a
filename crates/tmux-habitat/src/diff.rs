//! A compact line diff of two screen captures.

use std::fmt;

/// One change: at `old_start` in the old screen, `removed` lines were replaced by `added`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// Index in the old screen where the change begins.
    pub old_start: usize,
    /// Index in the new screen where the change begins.
    pub new_start: usize,
    /// Lines of the old screen that went away.
    pub removed: Vec<String>,
    /// Lines of the new screen that came in.
    pub added: Vec<String>,
    /// Unchanged lines just before the change, for a reader.
    pub context_before: Vec<String>,
}

/// The difference between two captures, as hunks. Apply it to the old screen to get the new one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScreenDiff {
    /// Changes, in order.
    pub hunks: Vec<Hunk>,
}

impl ScreenDiff {
    /// Compares two screens line by line (longest common subsequence; screens are small).
    pub fn between(old: &str, new: &str) -> ScreenDiff {
        ScreenDiff::between_with_context(old, new, 2)
    }

    /// Like [`ScreenDiff::between`] with `context` unchanged lines before each hunk.
    pub fn between_with_context(old: &str, new: &str, context: usize) -> ScreenDiff {
        let a: Vec<&str> = split_lines(old);
        let b: Vec<&str> = split_lines(new);
        let (n, m) = (a.len(), b.len());
        // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
        let mut lcs = vec![vec![0u32; m + 1]; n + 1];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
            }
        }
        let mut hunks = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            if i < n && j < m && a[i] == b[j] {
                i += 1;
                j += 1;
                continue;
            }
            let (old_start, new_start) = (i, j);
            let mut removed = Vec::new();
            let mut added = Vec::new();
            while (i < n || j < m) && !(i < n && j < m && a[i] == b[j]) {
                if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
                    added.push(b[j].to_owned());
                    j += 1;
                } else {
                    removed.push(a[i].to_owned());
                    i += 1;
                }
            }
            let context_before =
                a[old_start.saturating_sub(context)..old_start].iter().map(|s| (*s).to_owned()).collect();
            hunks.push(Hunk { old_start, new_start, removed, added, context_before });
        }
        ScreenDiff { hunks }
    }

    /// Whether the screens were equal.
    pub fn is_empty(&self) -> bool {
        self.hunks.is_empty()
    }

    /// Rebuilds the new screen from the old one.
    pub fn apply(&self, old: &str) -> String {
        let a = split_lines(old);
        let mut out: Vec<&str> = Vec::new();
        let mut i = 0;
        for hunk in &self.hunks {
            out.extend(&a[i..hunk.old_start]);
            out.extend(hunk.added.iter().map(String::as_str));
            i = hunk.old_start + hunk.removed.len();
        }
        out.extend(&a[i.min(a.len())..]);
        out.join("\n")
    }

    /// Only the lines that appeared, in order: what a reader of new output wants.
    pub fn added_lines(&self) -> impl Iterator<Item = &str> {
        self.hunks.iter().flat_map(|h| h.added.iter().map(String::as_str))
    }
}

fn split_lines(text: &str) -> Vec<&str> {
    if text.is_empty() { Vec::new() } else { text.split('\n').collect() }
}

impl fmt::Display for ScreenDiff {
    /// Unified-diff-like text: `@@ line N`, context with two spaces, `-` removed, `+` added.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for hunk in &self.hunks {
            writeln!(f, "@@ line {}", hunk.old_start + 1)?;
            for line in &hunk.context_before {
                writeln!(f, "  {line}")?;
            }
            for line in &hunk.removed {
                writeln!(f, "- {line}")?;
            }
            for line in &hunk.added {
                writeln!(f, "+ {line}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn shows_a_new_line_with_context() {
        let diff = ScreenDiff::between("$ ls\na\nb\n$", "$ ls\na\nb\n$ echo hi\nhi\n$");
        assert_eq!(diff.added_lines().collect::<Vec<_>>(), vec!["$ echo hi", "hi"]);
        assert_eq!(diff.to_string(), "@@ line 4\n  a\n  b\n+ $ echo hi\n+ hi\n");
    }

    proptest! {
        #[test]
        fn applying_the_diff_to_the_old_screen_gives_the_new_one(
            old in proptest::collection::vec("[abc ]{0,3}", 0..30),
            new in proptest::collection::vec("[abc ]{0,3}", 0..30),
        ) {
            let (old, new) = (old.join("\n"), new.join("\n"));
            let diff = ScreenDiff::between(&old, &new);
            prop_assert_eq!(diff.apply(&old), new.as_str());
            prop_assert_eq!(diff.is_empty(), split_lines(&old) == split_lines(&new));
        }
    }
}
