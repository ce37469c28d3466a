//! A TOML line a parser rejects, corrected where only one correction keeps its value: a bare word quoted
//! (`level = info` → `level = "info"`), the missing commas put between an array's items (`["a" "b"]` → `["a",
//! "b"]`).
//!
//! Shown `log_level = info` under "Expected newline or end of document after a statement (at line 3, column 16)",
//! Qwen2.5-Coder 1.5B gave the line back unchanged, then emptied the line above it. A word is quoted only where it
//! reads as no other kind of value: not one a reader may take for a boolean or a null (`False`, `yes`, `none`), nor
//! one that starts like a number (`08080`, `30s`, `.5`), which a string would change the meaning of. Commas go only
//! between items, never inside a quoted item. A correction is offered only when the line alone does not parse as
//! TOML and the corrected line does; the caller checks it with the lines above it ([`super::line_fix`]).

use std::sync::LazyLock;

use regex::Regex;

/// A key and its `=`, then a value that starts like no TOML value (no quote, bracket or brace, no digit, sign or
/// dot), and a comment after a blank (a `#` inside the value is the value's).
static BARE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"^(?P<key>\s*(?:[A-Za-z0-9_-]+|"[^"\n]*")(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"\n]*"))*\s*=\s*)(?P<value>[^"'\[{\s#0-9+.-].*?)(?P<tail>(?:\s+#.*)?\s*)$"#,
    )
});

/// Words a reader may take for a boolean or a null: quoted, they would be text that reads as true.
static NOT_TEXT: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)^(?:true|false|yes|no|on|off|y|n|none|null|nil|nan|inf)$"));

/// A quoted string in a TOML line.
static QUOTED: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r#""(?:[^"\\\n]|\\.)*"|'[^'\n]*'"#));

/// Two array items with only blanks between them: a string, a number or a boolean, then the start of another item.
static ADJACENT: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"(?P<a>"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[+-]?\d[\w.+:-]*|\btrue\b|\bfalse\b|\]|\})[ \t]+(?P<b>["'\[{]|[+-]?\d|\btrue\b|\bfalse\b)"#,
    )
});

/// Whether `line` parses as TOML by itself.
fn parses(line: &str) -> bool {
    line.parse::<toml::Table>().is_ok()
}

/// The corrected `line`, when it does not parse and one of the corrections makes it parse.
pub(crate) fn corrected(line: &str) -> Option<String> {
    if parses(line) {
        return None;
    }
    let quoted = BARE.captures(line).filter(|found| !NOT_TEXT.is_match(found["value"].trim())).map(|found| {
        let word = found["value"].replace('\\', "\\\\").replace('"', "\\\"");
        format!("{}\"{word}\"{}", &found["key"], &found["tail"])
    });
    let commas = |line: &str| {
        let mut text = line.to_owned();
        // Each pass puts a comma after every other item at most (a match takes the next item's first character).
        loop {
            let next = ADJACENT.replace_all(&text, "$a, $b").into_owned();
            if next == text {
                // A comma put inside a quoted item (`["1920 1080" "1280 720"]`) would change it: the quoted items
                // must be the same before and after.
                let items = |t: &str| QUOTED.find_iter(t).map(|m| m.as_str().to_owned()).collect::<Vec<_>>();
                return (text != line && items(&text) == items(line)).then_some(text);
            }
            text = next;
        }
    };
    [quoted.clone(), commas(line), quoted.as_deref().and_then(commas)].into_iter().flatten().find(|new| parses(new))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_word_is_quoted() {
        assert_eq!(corrected("mode = fast").as_deref(), Some("mode = \"fast\""));
        assert_eq!(
            corrected("greeting = Good morning  # shown first").as_deref(),
            Some("greeting = \"Good morning\"  # shown first")
        );
        assert_eq!(corrected("kiln.heat = very hot").as_deref(), Some("kiln.heat = \"very hot\""));
        assert_eq!(corrected(r#"path = C:\kiln "new""#).as_deref(), Some(r#"path = "C:\\kiln \"new\"""#));
    }

    #[test]
    fn array_items_get_their_commas() {
        assert_eq!(
            corrected(r#"hosts = ["a.example" "b.example"]"#).as_deref(),
            Some(r#"hosts = ["a.example", "b.example"]"#)
        );
        assert_eq!(corrected(r#"hosts = ["a" "b" 'c']"#).as_deref(), Some(r#"hosts = ["a", "b", 'c']"#));
        assert_eq!(corrected("ports = [80 443 8080]").as_deref(), Some("ports = [80, 443, 8080]"));
        assert_eq!(corrected("grid = [[1, 2] [3, 4]]").as_deref(), Some("grid = [[1, 2], [3, 4]]"));
    }

    #[test]
    fn a_word_that_may_mean_something_else_or_a_comma_inside_an_item_is_left() {
        for line in ["debug = False", "verbose = yes", "cache = None", "port = 08080", "timeout = 30s", "ratio = .5"] {
            assert_eq!(corrected(line), None, "{line}");
        }
        assert_eq!(corrected("size = 1,024"), None);
        assert_eq!(corrected(r#"sizes = ["1920 1080" "1280 720"]"#), None, "a comma inside an item");
        assert_eq!(corrected("url = http://h/#top").as_deref(), Some("url = \"http://h/#top\""), "a `#` of the value");
    }

    #[test]
    fn a_line_that_parses_or_cannot_be_made_to_is_left() {
        for line in ["mode = \"fast\"", "port = 8088", "on = true", "[server]", "# a comment", "", "ratio = 0.5"] {
            assert_eq!(corrected(line), None, "{line}");
        }
        for line in ["mode = \"fast", "= 3", "hosts = [\"a\",", "text = \"\"\"", "key = [1, 2"] {
            assert_eq!(corrected(line), None, "{line}");
        }
    }
}
