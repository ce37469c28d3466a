//! Constant regular expressions: one way to build them, so that a wrong pattern fails a test instead of silently
//! switching its check off (as `Regex::new(..).ok()` did).

use regex::Regex;

/// Builds a constant pattern. A typo in one is a bug, not an input error: each module that holds patterns has a
/// test that forces every one of them.
#[allow(clippy::expect_used)] // constant patterns only; their tests make a bad one fail at once, not in a run
pub(crate) fn constant(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a constant pattern compiles (see the module's patterns test)")
}
