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

use crate::config_line::{KeyLine, bare};
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

/// The value the goal says the key holds now, at the end of what is set: `the timeout from 30` (`… to 60`).
static FROM_OLD: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r#"(?i)^(?P<what>.+?)\s+from\s+['"`]?(?P<old>[\w./:@+-]*\w)['"`]?$"#));

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

/// A section named after the file, in brackets: `(the [server] section)`, `(in the [db] section)`.
static SECTION_NOTE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r"(?i)\s*\(\s*(?:in\s+)?(?:the\s+)?\[(?P<name>[\w.-]+)\]\s+section\s*\)")
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
    // "in config.ini (the [server] section)": the section named in brackets is one of the words placing the key.
    let noted = SECTION_NOTE.captures(after).and_then(|c| Some((c.get(0)?.range(), c.name("name")?.as_str())));
    let after = match &noted {
        Some((range, _)) => format!("{}{}", &after[..range.start], &after[range.end..]),
        None => after.to_owned(),
    };
    let after = after.as_str();
    let rest = format!("{} {}", &goal[..whole.start()], &goal[sentence_end..]);
    // "Raise the timeout from 30 to 60": the value it holds now is said too, and must be the line's.
    let (what, old) = match FROM_OLD.captures(&set["what"]) {
        Some(found) => (found.name("what")?.as_str(), found.name("old").map(|m| m.as_str())),
        None => (set.name("what")?.as_str(), None),
    };
    if !AFTER_VALUE.is_match(after) || MORE.is_match(&rest) || MORE.is_match(what) {
        return None;
    }
    let base = file.rsplit('/').next().unwrap_or(file);
    let words: Vec<String> = noted
        .clone()
        .map(|(_, name)| name)
        .into_iter()
        .chain(what.split_whitespace())
        .map(|w| w.trim_end_matches("'s").trim_end_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty() && !FILLER.contains(&w.as_str()) && *w != base.to_lowercase())
        .collect();
    let value = set["value"].to_owned();
    let path = crate::claims::resolve(file, cwd);
    let text = std::fs::read_to_string(path).ok()?;
    let yaml = file.ends_with(".yaml") || file.ends_with(".yml");
    let lines = key_lines(&text, yaml);
    // A section named in brackets that the file does not have: which line is meant is not for the shell to guess.
    if let Some((_, name)) = noted
        && !lines.iter().any(|l| l.path.iter().any(|p| plain(p) == plain(name)))
    {
        return None;
    }
    let chosen = choose(&lines, &words)?;
    let placed = &lines[chosen];
    // TOML needs quotes around a word; a bare value there is a number or a boolean, and a word is not guessed.
    if file.ends_with(".toml") && placed.line.quote().is_none() && !bare(&value) {
        return None;
    }
    if old.is_some_and(|old| crate::config_line::unquoted(placed.line.value()) != old) {
        return None;
    }
    let new = placed.line.with_value(&value);
    let mut out: Vec<&str> = text.split('\n').collect();
    if new == out[placed.at] {
        return None;
    }
    out[placed.at] = &new;
    let mut key = placed.path.clone();
    key.push(placed.line.key.to_owned());
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
fn choose(lines: &[Placed], words: &[String]) -> Option<usize> {
    let (last, before) = words.split_last()?;
    let mut phrases = vec![(last.clone(), before.to_vec())];
    if let Some((second, earlier)) = before.split_last() {
        phrases.push((format!("{second}{last}"), earlier.to_vec()));
    }
    let mut chosen = None;
    for (phrase, qualifiers) in phrases {
        let keyed: Vec<usize> = (0..lines.len()).filter(|&i| plain(lines[i].line.key) == plain(&phrase)).collect();
        if keyed.is_empty() {
            continue;
        }
        // The words before the key that name a section of the file place it; the others ("the web server's
        // port") say what it is for.
        let naming: Vec<&String> =
            qualifiers.iter().filter(|q| lines.iter().any(|l| l.path.iter().any(|p| plain(p) == plain(q)))).collect();
        let within: Vec<usize> = keyed
            .iter()
            .copied()
            .filter(|&i| naming.iter().all(|q| lines[i].path.iter().any(|p| plain(p) == plain(q))))
            .collect();
        let [one] = within.as_slice() else { return None };
        let one = *one;
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

/// A line of a config file that sets a key to a value, where it lies.
#[derive(Debug)]
struct Placed<'a> {
    /// Its index among the file's lines.
    at: usize,
    /// The sections (or, in YAML, the parent keys) it lies in.
    path: Vec<String>,
    line: KeyLine<'a>,
}

/// The lines of `text` that set a key, each with the sections it lies in: `[section]` headers (a TOML header's dotted
/// parts), or in YAML the keys above it by indentation.
fn key_lines(text: &str, yaml: bool) -> Vec<Placed<'_>> {
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
        let Some(found) = KeyLine::read(line) else { continue };
        let indent = found.indent();
        let key = found.key.to_owned();
        if yaml {
            parents.retain(|(depth, _)| *depth < indent);
            if found.value().is_empty() {
                parents.push((indent, key));
                continue;
            }
        } else if found.value().is_empty() {
            continue;
        }
        let path = if yaml { parents.iter().map(|(_, k)| k.clone()).collect() } else { section.clone() };
        out.push(Placed { at, path, line: found });
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
        // The value it holds now said too ("from 30"): it must be the line's.
        let raised =
            edit("In mill.ini, raise the cache ttl from 300 to 600. Don't change anything else.", "mill.ini", INI);
        assert!(raised.unwrap().text.contains("ttl = 600\n"));
        let yaml = "name: billing\nreplicas: 2\nenv:\n  RETRY_LIMIT: 2\n";
        let bumped = edit("Bump the number of replicas in deploy.yaml from 2 to 4.", "deploy.yaml", yaml).unwrap();
        assert_eq!(bumped.text, yaml.replace("replicas: 2", "replicas: 4"));
        assert_eq!(edit("In mill.ini, raise the cache ttl from 30 to 600.", "mill.ini", INI), None, "it holds 300");
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
    fn a_section_named_in_brackets_or_among_other_words_places_the_key() {
        let set = edit("Set the cache server's port to 6380 in mill.ini (the [cache] section).", "mill.ini", INI);
        assert_eq!(set.unwrap().text, INI.replace("port = 6379", "port = 6380"));
        let set = edit("Set the public web port to 9000 in mill.ini. Keep the rest.", "mill.ini", INI);
        assert_eq!(set.unwrap().text, INI.replace("port = 8080 ; public", "port = 9000 ; public"));
        // A section the file lacks places nothing, even where the key is on one line only.
        assert_eq!(edit("Set the port to 1 in mill.ini (the [queue] section).", "mill.ini", INI), None);
        assert_eq!(edit("Set the port to 1 in one.ini (the [queue] section).", "one.ini", "[web]\nport = 80\n"), None);
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
