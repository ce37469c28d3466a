//! A goal that sets one key of a config file and asks nothing else ("In mill.ini, change the cache's ttl to 600",
//! "Set max_guests to 40 in lobby.conf", "In .env, switch RENDER_MODE to final"): the file, the key's line and the
//! new value are read here, and the shell makes the edit, the first attempt without a model call.
//!
//! Asked for such an edit, small models rewrote the file (a comment lost, a quote style changed) or changed the key in
//! every section that has it (both `port` lines of an INI file whose task named one section). Nothing here is a
//! guess: the goal names one file, one key the file sets, and a value; words before the key that name sections
//! (`the database port`, `the cache's ttl`, `the primary replica's port` in YAML) pick the one line among several. A
//! goal that says anything more (a condition, a second step, a unit after the value, a question) is left to the
//! model, and so is a key that cannot be placed on exactly one line. Only the value is replaced: the line's
//! indentation, separator, quotes and comment stay.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::goal_spec::GoalSpec;

/// The edit a goal asks for: the file and its new text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GoalEdit {
    /// The file, as the goal names it.
    pub(crate) file: String,
    /// The file's text with the one value changed.
    pub(crate) text: String,
    /// The key, as the file spells it, with the sections it lies in (`database.replica.port`).
    pub(crate) key: String,
    /// The new value.
    pub(crate) value: String,
}

/// `set/change/update/switch/bump … to VALUE`: what is set, and the value.
static SET_TO: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"(?i)\b(?:set|change|update|switch|bump|raise|lower|increase|decrease|make)\s+(?P<what>[\w.' -]{1,80}?)\s+to\s+['"`]?(?P<value>[\w./:@+-]*\w)['"`]?(?P<end>[.,;!]?(?:\s|$))"#,
    )
});

/// Where a sentence ends (not the dot of a file's name).
static SENTENCE_END: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"[.;!?](?:\s|$)|\n"));

/// Words that make a goal more than one edit: a condition, another step, something asked.
static MORE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:if|unless|only|except|when|whether|then|also|too|instead|and\s+(?:set|change|update|add|remove|delete|rename|tell|print|show|report)|tell\s+me|how\s+many|what|which)\b|\?",
    )
});

/// What may follow the value in its sentence: where (`in app.ini`), and a word of leaving the rest alone.
static AFTER_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)^\s*(?:(?:in|inside|within)\s+(?:the\s+)?(?:file\s+)?\S+?)?\s*(?:,?\s*(?:and\s+)?(?:leave|leaving|keep|keeping|don'?t|do\s+not|without)\b.*)?$",
    )
});

/// A line that sets a key: indentation, `export `, the key, the separator, the value and what follows it (a comment).
static KEY_LINE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"^(?P<indent>\s*)(?P<export>export\s+)?(?P<key>[A-Za-z_][\w.-]*)(?P<sep>\s*[=:][ \t]*)(?P<value>"[^"]*"|'[^']*'|[^\s#;"']*(?:[ \t]+[^\s#;]+)*?)(?P<rest>\s*(?:[#;].*)?)$"#,
    )
});

/// Words of the goal's phrase that name no key and no section.
const FILLER: &[&str] = &["the", "a", "an", "setting", "value", "option", "key", "entry", "of", "for", "in", "file"];

/// The edit `goal` asks for, when it asks to set one key of one config file here and nothing else; `None` otherwise.
pub(crate) fn goal_edit(goal: &str, spec: &GoalSpec, cwd: &Path) -> Option<GoalEdit> {
    let [file] = spec.changes.as_slice() else { return None };
    if !spec.writes.is_empty() || !is_config(file) {
        return None;
    }
    let mut found = SET_TO.captures_iter(goal);
    let set = found.next()?;
    if found.next().is_some() {
        return None;
    }
    // The rest of the goal, with the edit itself taken out, says nothing more.
    let (whole, value_end) = (set.get(0)?, set.name("end")?.start());
    let sentence_end = SENTENCE_END.find(&goal[value_end..]).map_or(goal.len(), |end| value_end + end.start());
    let after = goal[value_end..sentence_end].trim_start_matches([',', ' ']);
    let rest = format!("{} {}", &goal[..whole.start()], &goal[sentence_end..]);
    if !AFTER_VALUE.is_match(after) || MORE.is_match(&rest) || MORE.is_match(&set["what"]) {
        return None;
    }
    let base = file.rsplit('/').next().unwrap_or(file);
    let words: Vec<String> = set["what"]
        .split_whitespace()
        .map(|w| w.trim_end_matches("'s").trim_end_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty() && !FILLER.contains(&w.as_str()) && *w != base.to_lowercase())
        .collect();
    let value = set["value"].to_owned();
    let path = crate::claims::resolve(file, cwd);
    let text = std::fs::read_to_string(path).ok()?;
    let yaml = file.ends_with(".yaml") || file.ends_with(".yml");
    let lines = key_lines(&text, yaml);
    let chosen = choose(&lines, &words)?;
    let line = &lines[chosen];
    let new = line.with_value(&value, file.ends_with(".toml"))?;
    if new == line.text {
        return None;
    }
    let mut out: Vec<&str> = text.split('\n').collect();
    out[line.at] = &new;
    let mut key = line.path.clone();
    key.push(line.key.clone());
    Some(GoalEdit { file: file.clone(), text: out.join("\n"), key: key.join("."), value })
}

/// Whether `file` is a config file whose keys this reads: INI-like, TOML, `.env`, properties, YAML.
fn is_config(file: &str) -> bool {
    let base = file.rsplit('/').next().unwrap_or(file);
    base == ".env"
        || base.ends_with(".env")
        || ["ini", "conf", "cfg", "cnf", "toml", "properties", "yaml", "yml"]
            .iter()
            .any(|ext| base.rsplit_once('.').is_some_and(|(stem, e)| !stem.is_empty() && e == *ext))
}

/// The one line `words` name: the last word (or the last two, joined) is the key, as the file spells it in any case
/// and with `_`/`-` or nothing between words; the words before it name sections the line lies in. Where they name
/// none of the file's sections, the key alone must be on one line.
fn choose(lines: &[KeyLine], words: &[String]) -> Option<usize> {
    let (last, before) = words.split_last()?;
    let mut phrases = vec![(last.clone(), before.to_vec())];
    if let Some((second, earlier)) = before.split_last() {
        phrases.push((format!("{second}{last}"), earlier.to_vec()));
    }
    let mut chosen = None;
    for (phrase, qualifiers) in phrases {
        let keyed: Vec<usize> = (0..lines.len()).filter(|&i| plain(&lines[i].key) == plain(&phrase)).collect();
        if keyed.is_empty() {
            continue;
        }
        let within: Vec<usize> = keyed
            .iter()
            .copied()
            .filter(|&i| qualifiers.iter().all(|q| lines[i].path.iter().any(|p| plain(p) == plain(q))))
            .collect();
        let names_a_section =
            qualifiers.iter().any(|q| lines.iter().any(|l| l.path.iter().any(|p| plain(p) == plain(q))));
        let one = match (within.as_slice(), keyed.as_slice()) {
            ([only], _) => *only,
            ([], [only]) if !names_a_section => *only,
            _ => return None,
        };
        if chosen.replace(one).is_some_and(|earlier| earlier != one) {
            return None;
        }
    }
    chosen
}

/// A name compared loosely: lower case, without `_`, `-`, `.` and spaces.
fn plain(name: &str) -> String {
    name.chars().filter(|c| !"_-. ".contains(*c)).flat_map(char::to_lowercase).collect()
}

/// One line of a config file that sets a key to a value.
#[derive(Debug)]
struct KeyLine {
    /// Its index among the file's lines.
    at: usize,
    /// The line as it is.
    text: String,
    /// The sections (or, in YAML, the parent keys) it lies in.
    path: Vec<String>,
    key: String,
    /// Where the value starts and ends in the line.
    value: std::ops::Range<usize>,
}

impl KeyLine {
    /// The line with `value` in place of its own, quoted as its own is; `None` where TOML would need quotes the line
    /// does not have.
    fn with_value(&self, value: &str, toml: bool) -> Option<String> {
        let old = &self.text[self.value.clone()];
        let quote = old.chars().next().filter(|q| matches!(q, '"' | '\'') && old.len() > 1 && old.ends_with(*q));
        let bare = value.parse::<f64>().is_ok() || matches!(value, "true" | "false");
        let new = match quote {
            Some(q) => format!("{q}{value}{q}"),
            None if toml && !bare => return None,
            None => value.to_owned(),
        };
        Some(format!("{}{new}{}", &self.text[..self.value.start], &self.text[self.value.end..]))
    }
}

/// The lines of `text` that set a key, each with the sections it lies in: `[section]` headers (a TOML header's dotted
/// parts), or in YAML the keys above it by indentation.
fn key_lines(text: &str, yaml: bool) -> Vec<KeyLine> {
    let mut out = Vec::new();
    let mut section: Vec<String> = Vec::new();
    // YAML: the parent keys above, with their indentation.
    let mut parents: Vec<(usize, String)> = Vec::new();
    for (at, line) in text.split('\n').enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with(['#', ';']) {
            continue;
        }
        if !yaml && let Some(name) = trimmed.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            section = name.split('.').map(|part| part.trim().to_owned()).collect();
            continue;
        }
        let Some(found) = KEY_LINE.captures(line) else { continue };
        let indent = found["indent"].len();
        let key = found["key"].to_owned();
        let Some(value) = found.name("value") else { continue };
        if yaml {
            parents.retain(|(depth, _)| *depth < indent);
            if value.as_str().is_empty() {
                parents.push((indent, key));
                continue;
            }
        } else if value.as_str().is_empty() {
            continue;
        }
        let path = if yaml { parents.iter().map(|(_, k)| k.clone()).collect() } else { section.clone() };
        out.push(KeyLine { at, text: line.to_owned(), path, key, value: value.range() });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(goal: &str, file: &str, text: &str) -> Option<GoalEdit> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(file), text).unwrap();
        goal_edit(goal, &GoalSpec::parse(goal), dir.path())
    }

    const INI: &str =
        "; mill settings\n[web]\nport = 8080 ; public\nhost = 0.0.0.0\n\n[cache]\nport = 6379\nttl = 300\n";

    #[test]
    fn the_key_the_goal_names_is_set_on_its_one_line_and_nothing_else_changes() {
        let set = edit("In mill.ini, change the cache port to 6380. Leave everything else as it is.", "mill.ini", INI);
        let set = set.expect("an edit");
        assert_eq!(set.text, INI.replace("port = 6379", "port = 6380"));
        assert_eq!((set.key.as_str(), set.value.as_str()), ("cache.port", "6380"));
        // The comment after a value stays.
        let web = edit("Set the web port to 9090 in mill.ini", "mill.ini", INI).unwrap();
        assert_eq!(web.text, INI.replace("port = 8080 ; public", "port = 9090 ; public"));
        let ttl = edit("In mill.ini, bump the cache's TTL to 600 and leave the rest alone.", "mill.ini", INI).unwrap();
        assert!(ttl.text.contains("ttl = 600\n"), "{}", ttl.text);
        // A flat file, a quoted value, `export`.
        let env = "# shell\nexport RENDER_MODE=\"draft\"\nWORKERS=2\n";
        let set = edit("In .env, switch RENDER_MODE to final; keep the other lines.", ".env", env).unwrap();
        assert_eq!(set.text, env.replace("\"draft\"", "\"final\""));
        let conf = "max_guests=16\nmotd=hello\n";
        let set = edit("Set max_guests to 40 in lobby.conf.", "lobby.conf", conf).unwrap();
        assert_eq!(set.text, "max_guests=40\nmotd=hello\n");
        // Two words of the goal may be one key.
        let set = edit("In pump.cfg set the flow rate to 12", "pump.cfg", "flow_rate: 9\nname: north\n").unwrap();
        assert_eq!(set.text, "flow_rate: 12\nname: north\n");
    }

    #[test]
    fn yaml_keys_are_placed_by_the_keys_above_them() {
        let yaml = "# farm\nbarn:\n  door:\n    width: 3\n  gate:\n    width: 2   # metres\nshed:\n  width: 1\n";
        let set = edit("In farm.yaml, set the barn gate's width to 4 and keep everything else.", "farm.yaml", yaml);
        assert_eq!(set.unwrap().text, yaml.replace("width: 2   # metres", "width: 4   # metres"));
        let set = edit("In farm.yaml, set the shed width to 5.", "farm.yaml", yaml).unwrap();
        assert_eq!(set.text, yaml.replace("  width: 1", "  width: 5"));
        assert_eq!(edit("In farm.yaml, set the barn width to 4.", "farm.yaml", yaml), None, "door or gate");
    }

    #[test]
    fn anything_more_or_unclear_is_left_to_the_model() {
        for goal in [
            "In mill.ini, change the port to 6380.",
            "In mill.ini, change the cache port to 6380 if it is still 6379.",
            "In mill.ini, change the cache port to 6380, then tell me the web port.",
            "In mill.ini, set the cache ttl to 600 seconds.",
            "In mill.ini, change the cache port to 6380 and set the ttl to 60.",
            "In mill.ini, change the queue port to 6380.",
            "In mill.ini, change the cache colour to blue.",
            "Copy mill.ini to mill.bak and set the cache port to 6380 in mill.ini.",
            "What would happen if I set the cache port to 6380 in mill.ini?",
        ] {
            assert_eq!(edit(goal, "mill.ini", INI), None, "{goal}");
        }
        // The value there already: nothing to do here. A word for a TOML value that is bare: not guessed.
        assert_eq!(edit("In mill.ini, set the cache ttl to 300.", "mill.ini", INI), None);
        assert_eq!(edit("In band.toml, set size to large.", "band.toml", "size = 3\n"), None);
        assert_eq!(edit("In band.toml, set size to 4.", "band.toml", "size = 3\n").unwrap().text, "size = 4\n");
        // Not a config file.
        assert_eq!(edit("In notes.txt, change the first word to Hello.", "notes.txt", "Hi there\n"), None);
    }
}
