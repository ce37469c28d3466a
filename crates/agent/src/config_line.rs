//! One line of a config file that sets a key (`key = value`, `key=value`, `key: value`, `export KEY="value"`, with
//! a comment after it or not), cut into its parts: the one reader of such lines for the shell's edits (a `set` fix
//! reply, a goal that sets one key), so that both keep a line's indentation, separator, quotes and comment alike.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

/// Indentation and `export `, the key, the separator, the value (quoted, or bare words), and what follows it: a
/// comment after whitespace (`# …`, `; …`), or trailing whitespace. A `#` inside a bare value (`a#b`, a URL's
/// fragment, `#ff0000`) is part of it; `# ` after the separator is a comment (`barn:  # the barn`: no value).
static KEY_LINE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"^(?P<prefix>\s*(?:export\s+)?)(?P<key>[A-Za-z_][\w.-]*)(?P<sep>\s*[=:][ \t]*)(?P<value>"[^"]*"|'[^']*'|(?:(?:[^\s"'#;]|[#;]\S)\S*?(?:[ \t]+[^\s#;]\S*?)*?)?)(?P<rest>(?:[ \t]+[#;].*)?\s*)$"#,
    )
});

/// A line that sets a key, in its parts.
#[derive(Debug, Clone)]
pub(crate) struct KeyLine<'a> {
    line: &'a str,
    /// What comes before the key: indentation, and `export ` where the line has it.
    pub(crate) prefix: &'a str,
    /// The key, as the file spells it.
    pub(crate) key: &'a str,
    /// From the key's end to the value's start (` = `, `=`, `: `).
    pub(crate) separator: &'a str,
    /// Where the value (with its quotes) lies in the line.
    value: Range<usize>,
}

impl<'a> KeyLine<'a> {
    /// The line's parts; `None` for a comment, a section header, a blank line or anything else that sets no key.
    pub(crate) fn read(line: &'a str) -> Option<Self> {
        let found = KEY_LINE.captures(line)?;
        let (prefix, key, separator) = (found.name("prefix")?, found.name("key")?, found.name("sep")?);
        Some(Self {
            line,
            prefix: prefix.as_str(),
            key: key.as_str(),
            separator: separator.as_str(),
            value: found.name("value")?.range(),
        })
    }

    /// The value as written, quotes and all (empty for `key:` alone, a YAML parent).
    pub(crate) fn value(&self) -> &'a str {
        &self.line[self.value.clone()]
    }

    /// The key's indentation, in characters.
    pub(crate) fn indent(&self) -> usize {
        self.prefix.len() - self.prefix.trim_start().len()
    }

    /// The quote around the value, where it has one.
    pub(crate) fn quote(&self) -> Option<char> {
        let value = self.value();
        value.chars().next().filter(|q| matches!(q, '"' | '\'') && value.len() > 1 && value.ends_with(*q))
    }

    /// The line with `value` in place of its own, quoted as its own is; its indentation, separator and comment
    /// kept.
    pub(crate) fn with_value(&self, value: &str) -> String {
        format!("{}{}", self.without_comment(value), &self.line[self.value.end..])
    }

    /// The line with `value` in place of its own and nothing after it: a program whose parser reads an inline
    /// comment as part of the value (Python's `configparser` by default) complains of the comment too.
    pub(crate) fn without_comment(&self, value: &str) -> String {
        let value = match self.quote() {
            Some(q) => format!("{q}{}{q}", unquoted(value)),
            None => value.to_owned(),
        };
        format!("{}{value}", &self.line[..self.value.start])
    }
}

/// A value a config file writes without quotes: a number or a boolean.
pub(crate) fn bare(value: &str) -> bool {
    value.parse::<f64>().is_ok() || matches!(value, "true" | "false")
}

/// `value` without the one pair of quotes around it.
pub(crate) fn unquoted(value: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            return inner;
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parts(line: &str) -> Option<(&str, &str, &str, &str)> {
        KeyLine::read(line).map(|k| (k.prefix, k.key, k.separator, k.value()))
    }

    #[test]
    fn lines_are_cut_into_their_parts() {
        assert_eq!(parts("port = 8080"), Some(("", "port", " = ", "8080")));
        assert_eq!(parts("  width: 2   # metres"), Some(("  ", "width", ": ", "2")));
        assert_eq!(parts("export MODE=\"draft mode\""), Some(("export ", "MODE", "=", "\"draft mode\"")));
        assert_eq!(parts("greeting = hello there ; said twice"), Some(("", "greeting", " = ", "hello there")));
        assert_eq!(parts("url = http://x/#top"), Some(("", "url", " = ", "http://x/#top")));
        assert_eq!(parts("barn:"), Some(("", "barn", ":", "")));
        assert_eq!(parts("barn:   # the barn"), Some(("", "barn", ":  ", "")));
        assert_eq!(parts("color = #ff0000 ; red"), Some(("", "color", " = ", "#ff0000")));
        assert_eq!(parts("key =\r"), Some(("", "key", " =", "")));
        for none in ["# port = 1", "; port = 1", "[web]", "", "   ", "- item: 1", "just words"] {
            assert_eq!(parts(none), None, "{none:?}");
        }
    }

    #[test]
    fn a_new_value_keeps_the_line_around_it() {
        let line = |l: &str, v: &str| KeyLine::read(l).expect("a key line").with_value(v);
        assert_eq!(line("port = 8080 ; public", "9090"), "port = 9090 ; public");
        assert_eq!(line("export MODE='draft'", "final"), "export MODE='final'");
        assert_eq!(line("MODE=\"draft\"", "\"final\""), "MODE=\"final\"");
        assert_eq!(line("    ttl: 300", "600"), "    ttl: 600");
        assert_eq!(KeyLine::read("    ttl: 300").map(|k| k.indent()), Some(4));
    }

    proptest! {
        #[test]
        fn a_value_set_is_the_value_read_back(
            indent in "[ ]{0,4}",
            key in "[a-z_][a-z0-9_.]{0,8}",
            sep in "( = |=|: )",
            old in "[a-z0-9]{1,6}",
            new in "[a-z0-9]{1,6}",
            comment in "( # [a-z ]{0,8}| ; [a-z]{0,5}|)",
        ) {
            let line = format!("{indent}{key}{sep}{old}{comment}");
            let read = KeyLine::read(&line).expect("a key line");
            prop_assert_eq!(read.key, key.as_str());
            prop_assert_eq!(read.value(), old.as_str());
            let changed = read.with_value(&new);
            prop_assert_eq!(&changed, &format!("{indent}{key}{sep}{new}{comment}"));
            prop_assert_eq!(KeyLine::read(&changed).map(|k| k.value()), Some(new.as_str()));
        }
    }
}
