//! The fix a program's error states itself: "output directory build/ does not exist", "tools/sign.sh is not
//! executable", "app.cfg not found; create it with the line: mode=fast", "unknown key 'colour' (did you mean
//! color?)". Such an error leaves nothing to judge: the fix-and-rerun loop makes it without a model call, for a model
//! whose own fix to such an error is often another (a small model answered a missing config file with `mkdir` of a
//! directory named like the file, and a missing key with a `sed` that matched no line, then gave the same reply
//! again).
//!
//! The fix is read from the last error line that states one, and comes back in the form a model's reply takes
//! (`mkdir -p DIR`, `chmod +x FILE`, `printf '%s\n' LINE > FILE`, `set FILE [SECTION] KEY VALUE`, `sed -i 'Ns/…/…/'
//! FILE`), so that it goes the way of every fix: refused where a reply would be, gated, staged, and listed among the
//! fixes made. Nothing is stated where the task has its say: a line setting a key the task names, a word the task
//! uses, a folder the program reads from (making it empty would only hide that the program reads the wrong one), the
//! program itself (but for its mode, where the task may change it). What is not stated is left to the model.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use tmux_habitat::shell_word;

use super::rerun::looks_like_file;

/// The most lines at the end of the output searched for a stated fix.
const TAIL_LINES: usize = 15;

/// The longest line an error may state for a file: one setting or one entry, not a document.
const LINE_CHARS: usize = 200;

/// A directory the error says is missing: `output directory 'dist' does not exist`, `dist/ does not exist`,
/// `no such folder: cache`.
static MISSING_DIRECTORY: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"(?ix)
        (?:\b(?:directory|folder|dir)\s+['"`]?(?P<a>[\w.][\w./-]*?)/?['"`]?\s+(?:does\s+not|doesn't|did\s+not)\s+exist)
        |(?:['"`]?(?P<b>[\w.][\w./-]*)/['"`]?\s+(?:does\s+not|doesn't)\s+exist)
        |(?:\b(?:no\s+such|missing)\s+(?:directory|folder)[:\s]+['"`]?(?P<c>[\w.][\w./-]*?)/?['"`]?(?:\s|$|[,;.)]))"#,
    )
});

/// A folder the program reads from: made empty, it would hide that the program is pointed at the wrong one.
static READ_FROM: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r"(?i)\b(?:source|input|from)\s+(?:directory|folder|dir)\b|\bread\s+from\b")
});

/// A file the error says cannot be run: `hooks/pre.sh is not executable`, `./tool: Permission denied`.
static NOT_EXECUTABLE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"(?ix)
        (?:['"`]?(?P<a>[\w.][\w./-]*)['"`]?:?\s+(?:is\s+not|isn't)\s+(?:an?\s+)?executable)
        |(?:(?P<b>[\w.][\w./-]*):\s+permission\s+denied)"#,
    )
});

/// A file the error says is missing, and that an empty one will do: `CHANGELOG.md is missing (an empty file is
/// fine)`, `notes.txt not found; it may be empty`.
static MISSING_EMPTY_OK: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"(?ix)['"`]?(?P<file>[\w.][\w./-]*?)['"`]?(?P<called>\s+file)?:?\s+(?:is\s+missing|does\s+not\s+exist|doesn't\s+exist|not\s+found|is\s+required)
        \s*[(;,:-]?\s*
        (?:an\s+empty\s+(?:one|file)?\s*(?:is\s+(?:fine|ok|okay|enough|allowed|acceptable)|will\s+do|works|suffices|counts)
           |(?:it\s+)?(?:may|can)\s+be\s+empty
           |(?:(?:add|create|make|write)\s+(?:one|it)\s*[(;,:-]?\s*)?(?P<any>any\s+(?:text|content|contents)\s+(?:will\s+do|is\s+fine|is\s+ok|works)))\b"#,
    )
});

/// A line the error says a file must hold: `(add the line: retries=3)`, `create it with the line: mode=fast`, `it
/// must contain: [general]`.
static STATED_LINE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?ix)
        (?:\b(?:add|append|insert|put)\s+(?:the\s+|a\s+|this\s+)?line
        |\b(?:create|make|write)\s+it\s+(?:holding|with|containing)\s+(?:the\s+|a\s+|this\s+)?(?:single\s+|one\s+)?line
        |\bmust\s+(?:hold|contain|have|read)(?:\s+the\s+line)?)
        \s*:\s*(?P<line>\S.*)$",
    )
});

/// `KEY=VALUE` or `KEY: VALUE`.
static KEY_VALUE: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"^(?P<key>[A-Za-z_][\w.-]*)\s*[=:]\s*(?P<value>\S.*)$"));

/// An INI section the error names: `[remote]`.
pub(crate) static SECTION: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"\[(?P<name>\w[\w .-]*)\]"));

/// A key the error says is missing, and the value it says to use: `has no 'timeout' setting (seconds; use 30)`.
static MISSING_KEY_USE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"(?ix)\b(?:has\s+no|is\s+missing(?:\s+the)?|missing(?:\s+the)?|lacks(?:\s+the)?)\s+(?:key\s+|setting\s+|option\s+)?['"`]?(?P<key>[A-Za-z_][\w.-]*)['"`]?
        (?:\s+(?:key|setting|option|entry|value))?\b[^'"`]*?\buse\s+['"`]?(?P<value>[\w./:@+-]+?)['"`]?\s*(?:[).;,]|$)"#,
    )
});

/// A word that calls what is missing a setting.
static SETTING_WORD: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)\b(?:key|setting|option|entry)\b"));

/// A number the error wants in digits: `must be a whole number, got 'three'`.
static WANTS_DIGITS: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\bmust\s+be\s+(?:an?\s+)?(?:whole\s+|positive\s+|non-negative\s+)?(?:number|integer|count)\b|\bin\s+digits\b",
    )
});

/// Numbers written as words, and their digits.
const NUMBER_WORDS: &[(&str, &str)] = &[
    ("zero", "0"),
    ("one", "1"),
    ("two", "2"),
    ("three", "3"),
    ("four", "4"),
    ("five", "5"),
    ("six", "6"),
    ("seven", "7"),
    ("eight", "8"),
    ("nine", "9"),
    ("ten", "10"),
    ("eleven", "11"),
    ("twelve", "12"),
    ("thirteen", "13"),
    ("fourteen", "14"),
    ("fifteen", "15"),
    ("sixteen", "16"),
    ("seventeen", "17"),
    ("eighteen", "18"),
    ("nineteen", "19"),
    ("twenty", "20"),
    ("thirty", "30"),
    ("forty", "40"),
    ("fifty", "50"),
    ("sixty", "60"),
    ("ninety", "90"),
    ("hundred", "100"),
];

/// The values an error allows: `must be staging or production`, `must be one of: a, b, c`, `expected 'x' or 'y'`,
/// `valid values are low, mid, high`.
static CHOICES: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"(?ix)(?:\b(?:(?:must|should|has\s+to|needs\s+to)\s+be|expected|(?:valid|allowed)\s+(?:values|choices|options)\s*(?:are|:))|\(\s*(?:use|choose|pick)\b|\(\s*one\s+of\s*:?)
        \s*(?:one\s+of\s*:?\s*)?(?:either\s+)?
        (?P<choices>['"`]?[\w.-]+['"`]?(?:\s*(?:,\s*(?:or\s+)?|\bor\b|/|\|)\s*['"`]?[\w.-]+['"`]?)+)"#,
    )
});

/// The key an error names before saying what it must be: `MODE in deploy.conf`, `'mode'`, `mode:`.
static KEY_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"(?:['"`](?P<a>[A-Za-z_][\w.-]*)['"`]|\b(?P<b>[A-Za-z_][\w.-]*)\s+(?:in|of|from)\s+['"`]?[\w./-]+\.\w+['"`]?|\b(?P<c>[A-Za-z_][\w.-]*)\s*:?)\s*$"#,
    )
});

/// A key the error says is missing: `[output] has no 'format' setting`, `is missing the key retries`.
static MISSING_KEY: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"(?i)\b(?:has\s+no|is\s+missing(?:\s+the)?|lacks(?:\s+the)?)\s+(?:(?:key|setting|option)\s+['"`]?(?P<a>[A-Za-z_][\w.-]*)|['"`](?P<b>[A-Za-z_][\w.-]*)['"`]|(?P<c>[A-Za-z_][\w.-]*)\s+(?:key|setting|option|entry)\b)"#,
    )
});

/// The key `error` says a file lacks (`has no 'target'`, `is missing setting port`), if it says so.
pub(crate) fn missing_key(error: &str) -> Option<&str> {
    let found = MISSING_KEY.captures(error)?;
    ["a", "b", "c"].iter().find_map(|g| found.name(g)).map(|m| m.as_str())
}

/// A key named with the value it has, in a file: `mode 'fastest' in config/build.ini`.
static KEY_VALUE_IN: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"\b(?P<key>[A-Za-z_][\w.-]*)\s+['"`][^'"`]*['"`]\s+(?:in|of|from)\s+['"`]?[\w./-]+\.\w+['"`]?"#,
    )
});

/// A key shown with the value it has: `TARGET='stagng'`, `mode="fast"`.
static KEY_SET: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r#"\b(?P<key>[A-Za-z_][\w.-]*)=['"]?[^\s'"]*['"]?"#));

/// A correction the error offers: `did you mean 'csv'?`.
static DID_YOU_MEAN: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r#"(?i)\bdid\s+you\s+mean\s+['"`]?(?P<right>\w(?:[\w.-]*\w)?)['"`]?\s*\??"#)
});

/// A word the error quotes: the wrong one a correction replaces.
static QUOTED_WORD: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r#"['"`](?P<word>\w(?:[\w.-]*\w)?)['"`]"#));

/// The line of a file the error names: `line 3`.
static LINE_NUMBER: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"(?i)\bline\s+(?P<n>\d{1,6})\b"));

/// A file's name in an error: a name and an extension, or a path.
static FILE_NAME: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"[\w.][\w./-]*"));

/// Where a stated fix is read and made: the task, the program's file and the working directory.
pub(crate) struct Scene<'a> {
    /// The task's words.
    pub(crate) task: &'a str,
    /// The program's file, as its command line names it (`./deploy.sh`, `tool.py`).
    pub(crate) program: &'a str,
    /// The working directory.
    pub(crate) cwd: &'a Path,
}

/// The fix `output`'s last error line that states one asks for, as a reply would give it; `None` where no line
/// states one, or the one stated is the task's to decide (see the module's documentation).
pub(crate) fn stated_fix(output: &str, scene: &Scene<'_>) -> Option<String> {
    let lines: Vec<&str> = output.lines().collect();
    let start = lines.len().saturating_sub(TAIL_LINES);
    lines[start..].iter().rev().find_map(|line| {
        directory(line, scene)
            .or_else(|| copied_into_place(line, scene))
            .or_else(|| empty_file(line, scene))
            .or_else(|| executable(line, scene))
            .or_else(|| stated_line(line, scene))
            .or_else(|| stated_value(line, scene))
            .or_else(|| correction(line, scene))
            .or_else(|| in_digits(line, scene))
            .or_else(|| as_percentage(line, scene))
            .or_else(|| value_from_task(line, scene))
            .or_else(|| chosen_value(line, scene))
    })
}

/// The one of the values the line allows for a key (`MODE in deploy.conf must be staging or production (it is
/// 'prod')`) that the task names, set in the file the line names, which sets the key already: the task has had its
/// say. Nothing where the task names none of the values, or more than one.
fn chosen_value(line: &str, scene: &Scene<'_>) -> Option<String> {
    let found = CHOICES.captures(line)?;
    let before = line[..found.get(0)?.start()].trim_end();
    // A key the line shows set to the value it rejects (`TARGET='stagng' in deploy.conf is not valid (use staging or
    // production)`), else the key right before what it must be.
    // Or a key the line says is missing (`[output] has no 'format' setting (one of: csv, json)`): then added.
    let missing = missing_key(before);
    let key = missing
        .or_else(|| KEY_SET.captures_iter(before).last().and_then(|c| c.name("key")).map(|m| m.as_str()))
        .or_else(|| KEY_VALUE_IN.captures_iter(before).last().and_then(|c| c.name("key")).map(|m| m.as_str()))
        .or_else(|| {
            KEY_BEFORE.captures(before).and_then(|c| ["a", "b", "c"].iter().find_map(|g| c.name(g))).map(|m| m.as_str())
        })?;
    let choices: Vec<&str> = found["choices"]
        .split(|c: char| !(c.is_alphanumeric() || "_.-".contains(c)))
        .filter(|w| !w.is_empty() && *w != "or")
        .collect();
    let named: Vec<&&str> = choices.iter().filter(|choice| mentions(scene.task, choice)).collect();
    let [value] = named.as_slice() else { return None };
    let file = named_file(before, scene).or_else(|| named_file(line, scene))?;
    let text = std::fs::read_to_string(scene.cwd.join(&file)).ok()?;
    let sets = Regex::new(&format!(r"(?m)^[ \t]*{}[ \t]*[=:][ \t]*(?P<value>.*?)[ \t]*$", regex::escape(key))).ok()?;
    let current: Vec<&str> = sets.captures_iter(&text).filter_map(|c| c.name("value")).map(|v| v.as_str()).collect();
    let is_value = |v: &str| v.trim_matches(['\'', '"']) == **value;
    if (current.is_empty() && missing.is_none()) || current.iter().any(|v| is_value(v)) {
        return None;
    }
    Some(format!("set {file} {}{key} {value}", section_of(before, &text)))
}

/// `mkdir -p DIR` for a directory the line says is missing, one the program does not read from.
fn directory(line: &str, scene: &Scene<'_>) -> Option<String> {
    let found = MISSING_DIRECTORY.captures(line)?;
    if READ_FROM.is_match(line) {
        return None;
    }
    let path = ["a", "b", "c"].iter().find_map(|g| found.name(g))?.as_str().trim_end_matches('/');
    let relative = inside(path)?;
    (!scene.cwd.join(relative).exists()).then(|| format!("mkdir -p {relative}"))
}

/// A copy of the one file of its name found elsewhere here, for a file the line says is missing (`input file
/// data/contacts.csv not found` where only `contacts.csv` is found): its folder made first where it is missing. The
/// file found stays where it is. Not where several files of the name are found (which one is the task's to say),
/// nor for the program.
fn copied_into_place(line: &str, scene: &Scene<'_>) -> Option<String> {
    if let Some(copy) = example_copied(line, scene) {
        return Some(copy);
    }
    let (missing, places) = crate::runners::looked::missing_found(line, scene.cwd)?;
    let [place] = places.as_slice() else { return None };
    if same_file(&missing, scene.program) || same_file(place, scene.program) {
        return None;
    }
    let copy = format!("cp -- {} {}", shell_word(place), shell_word(&missing));
    match Path::new(&missing).parent().filter(|p| !p.as_os_str().is_empty() && !scene.cwd.join(p).is_dir()) {
        Some(folder) => Some(format!("mkdir -p {} && {copy}", shell_word(&folder.to_string_lossy()))),
        None => Some(copy),
    }
}

/// A copy of the example the line points to for a missing file (`deploy.conf not found (see deploy.conf.example for
/// the format)`): an existing file the line names whose name is the missing one's with a suffix that marks an
/// example (`.example`, `.sample`, `.dist`, `.template`, `.default`). The values it holds may still be wrong; the
/// program says so next.
fn example_copied(line: &str, scene: &Scene<'_>) -> Option<String> {
    if !MISSING_FILE.is_match(line) {
        return None;
    }
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || "()'\"`,;".contains(c))
        .map(|w| w.trim_end_matches(['.', ':']))
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().find_map(|example| {
        let base = EXAMPLE_SUFFIXES.iter().find_map(|suffix| example.strip_suffix(suffix))?;
        let (missing, example) = (inside(base)?, inside(example)?);
        let there = |p: &str| scene.cwd.join(p).exists();
        (words.contains(&base)
            && !there(missing)
            && scene.cwd.join(example).is_file()
            && !same_file(missing, scene.program))
        .then(|| format!("cp -- {} {}", shell_word(example), shell_word(missing)))
    })
}

/// The endings of an example of a file: `app.conf.example`.
const EXAMPLE_SUFFIXES: &[&str] = &[".example", ".sample", ".dist", ".template", ".default", ".tmpl"];

/// A line that says a file is missing.
static MISSING_FILE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:not\s+found|no\s+such\s+file|does\s+not\s+exist|doesn't\s+exist|missing|cannot\s+(?:open|find))\b",
    )
});

/// `touch FILE` for a file here that the line says is missing and may be empty (not the program).
fn empty_file(line: &str, scene: &Scene<'_>) -> Option<String> {
    let found = MISSING_EMPTY_OK.captures(line)?;
    let path = found.name("file")?.as_str();
    // A name without an extension is a file's where the line calls it one and it is in capitals (`LICENSE file is
    // missing`); "the file is missing" names none.
    let called = found.name("called").is_some()
        && path.len() > 1
        && path.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    let relative = inside(path).filter(|p| (looks_like_file(p) || called) && !same_file(p, scene.program))?;
    let path = scene.cwd.join(relative);
    // Its folder is there: a file in a folder that is missing is another error's to say.
    let folder_there = path.parent().is_some_and(Path::is_dir);
    if path.exists() || !folder_there {
        return None;
    }
    // "Any text will do": some text, not none (its own name, a line that says what it is).
    Some(match found.name("any") {
        Some(_) => format!("printf '%s\\n' {} > {}", shell_word(relative), shell_word(relative)),
        None => format!("touch {}", shell_word(relative)),
    })
}

/// `chmod +x FILE` for a file here that the line says cannot be run and has no execute bit (not the program: the
/// task may forbid touching it, and the model can say so).
fn executable(line: &str, scene: &Scene<'_>) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let found = NOT_EXECUTABLE.captures(line)?;
    let path = ["a", "b"].iter().find_map(|g| found.name(g))?.as_str();
    let relative = inside(path)?;
    // The program itself only where the task may change it ("fix ./pack.sh so it runs", "fix what it complains
    // about"): its mode is then part of the fix; not where the task keeps it as it is ("don't change pack.sh").
    if same_file(relative, scene.program)
        && !crate::GoalSpec::parse(scene.task).changes.iter().any(|changed| same_file(changed, scene.program))
    {
        return None;
    }
    let meta = std::fs::metadata(scene.cwd.join(relative)).ok()?;
    (meta.is_file() && meta.permissions().mode() & 0o100 == 0).then(|| format!("chmod +x {relative}"))
}

/// The line the error says a file must hold, written to it: the file made holding it where it is missing, the key
/// set where the line sets one (`set FILE [SECTION] KEY VALUE`: in its section, in the file's style), else the line
/// added. Not where the task names the key: its value is then the task's.
fn stated_line(line: &str, scene: &Scene<'_>) -> Option<String> {
    let found = STATED_LINE.captures(line)?;
    let before = &line[..found.get(0)?.start()];
    let stated = clean_line(found.name("line")?.as_str())?;
    let file = named_file(before, scene)?;
    let setting = KEY_VALUE.captures(&stated);
    if let Some(setting) = &setting
        && mentions(scene.task, &setting["key"])
    {
        return None;
    }
    let quoted = shell_word(&stated);
    let text = match std::fs::read_to_string(scene.cwd.join(&file)) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Some(format!("printf '%s\\n' {quoted} > {file}"));
        }
        Err(_) => return None,
    };
    if text.lines().any(|l| l.trim() == stated) {
        return None;
    }
    match setting {
        Some(setting) => {
            let section = section_of(before, &text);
            Some(format!("set {file} {section}{} {}", &setting["key"], shell_word(&setting["value"])))
        }
        None => Some(format!("printf '%s\\n' {quoted} >> {file}")),
    }
}

/// The value the line says to use for a key it says is missing, set in the file it names (in the section it names,
/// where the file has it). Not where the task names the key.
fn stated_value(line: &str, scene: &Scene<'_>) -> Option<String> {
    let found = MISSING_KEY_USE.captures(line)?;
    let (key, value) = (&found["key"], &found["value"]);
    // A setting, quoted or called one: not "has no permission; use sudo".
    let said = &found[0];
    let setting =
        ['\'', '"', '`'].iter().any(|q| said.contains(&format!("{q}{key}{q}"))) || SETTING_WORD.is_match(said);
    if !setting || mentions(scene.task, key) {
        return None;
    }
    let before = &line[..found.get(0)?.start()];
    let file = named_file(before, scene)?;
    let text = std::fs::read_to_string(scene.cwd.join(&file)).ok()?;
    Some(format!("set {file} {}{key} {}", section_of(before, &text), shell_word(value)))
}

/// The section `error` names (`[remote] `), where `text` has it; else nothing.
fn section_of(error: &str, text: &str) -> String {
    SECTION
        .captures(error)
        .map(|s| format!("[{}] ", &s["name"]))
        .filter(|s| text.lines().any(|l| l.trim() == s.trim()))
        .unwrap_or_default()
}

/// The correction the line offers for the word it quotes (`unknown key 'colour' (did you mean color?)`), made on the
/// line of the file that holds that word: the one the error numbers, else the only one. Not where the task uses the
/// word.
fn correction(line: &str, scene: &Scene<'_>) -> Option<String> {
    let found = DID_YOU_MEAN.captures(line)?;
    let before = &line[..found.get(0)?.start()];
    let right = &found["right"];
    let wrong = QUOTED_WORD.captures_iter(before).last()?["word"].to_owned();
    if wrong == right || mentions(scene.task, &wrong) {
        return None;
    }
    replacement(before, &wrong, right, scene)
}

/// The digits for a number the line quotes in words where it wants a number (`retries must be a whole number, got
/// 'three'`), on the line of the file that holds the word. Not where the task uses the word.
fn in_digits(line: &str, scene: &Scene<'_>) -> Option<String> {
    WANTS_DIGITS.find(line)?;
    let (wrong, digits) = QUOTED_WORD.captures_iter(line).find_map(|c| {
        let quoted = c.get(1)?.as_str();
        NUMBER_WORDS.iter().find(|(w, _)| quoted.eq_ignore_ascii_case(w)).map(|(_, d)| (quoted.to_owned(), *d))
    })?;
    if mentions(scene.task, &wrong) {
        return None;
    }
    replacement(line, &wrong, digits, scene)
}

/// A fraction where the line wants a percentage (`threshold=0.85 is out of range: it is a percentage from 1 to
/// 100`): the key set to the same share in percent (85), in the file the line names, which sets it to that fraction.
/// Not where the task gives the fraction itself.
fn as_percentage(line: &str, scene: &Scene<'_>) -> Option<String> {
    if !PERCENT.is_match(line) {
        return None;
    }
    let found = FRACTION_SET.captures(line)?;
    let (key, fraction) = (&found["key"], &found["value"]);
    let share: f64 = fraction.parse().ok()?;
    if !(share > 0.0 && share < 1.0) || scene.task.contains(fraction) {
        return None;
    }
    let file = named_file(line, scene)?;
    let text = std::fs::read_to_string(scene.cwd.join(&file)).ok()?;
    let sets = format!(r#"(?m)^\s*{}\s*[=:]\s*['"]?{}['"]?\s*$"#, regex::escape(key), regex::escape(fraction));
    let sets = Regex::new(&sets).ok()?;
    if !sets.is_match(&text) {
        return None;
    }
    // Four decimals at most: 0.125 is 12.5, 0.85 is 85.
    let percent = format!("{:.4}", share * 100.0);
    let percent = percent.trim_end_matches('0').trim_end_matches('.');
    Some(format!("set {file} {}{key} {percent}", section_of(line, &text)))
}

/// The value the task gives, in words, for a key the line says is not set (`REPORT_TITLE is not set in
/// pipeline.conf`, the task: "if it wants a report title, use Weekly Sales"): the key's words, in order, then `use`,
/// `should be`, `set to` or `=` and the value, to the end of its clause (or an `and`/`then`). Set in the file the
/// line names, which has the key unset, or lacks it where the key is a config key's name.
fn value_from_task(line: &str, scene: &Scene<'_>) -> Option<String> {
    let found = NOT_SET.captures(line)?;
    let key = &found["key"];
    let words: Vec<String> =
        key.split(['_', '-', '.']).filter(|w| !w.is_empty()).map(|w| regex::escape(&w.to_lowercase())).collect();
    if words.is_empty() {
        return None;
    }
    let said = format!(
        r#"(?i)\b{}\b[^.;:!?]{{0,40}}?\b(?:use|should\s+be|must\s+be|=|set\s+(?:it\s+)?to)\s+['"`]?(?P<value>[^'"`.;,!?\n]{{1,60}}?)['"`]?\s*(?:[.;,!?\n]|\s+(?:and|then|but|or|so)\b|$)"#,
        words.join(r"[\s_-]+")
    );
    let value = Regex::new(&said).ok()?.captures(scene.task)?.name("value")?.as_str().trim().to_owned();
    // "If the cover text is empty, use …" and the like: no value.
    let first = value.split_whitespace().next().unwrap_or_default().to_ascii_lowercase();
    if ["empty", "missing", "unset", "optional", "not", "blank", "none", "nothing", "it"].contains(&first.as_str()) {
        return None;
    }
    let file = named_file(line, scene)?;
    let text = std::fs::read_to_string(scene.cwd.join(&file)).ok()?;
    let sets = Regex::new(&format!(
        r"(?m)^[ \t]*(?:export[ \t]+)?{}[ \t]*[=:][ \t]*(?P<value>.*?)[ \t]*$",
        regex::escape(key)
    ))
    .ok()?;
    // Set empty in the file, or absent with a config key's name (`REPORT_TITLE`, `cover_text`), not a word's.
    let unset = match sets.captures(&text) {
        Some(set) => set["value"].trim_matches(['\'', '"']).is_empty(),
        None => key.contains('_') || !key.chars().any(|c| c.is_ascii_lowercase()),
    };
    unset.then(|| format!("set {file} {}{key} {value}", section_of(line, &text)))
}

/// A key a line says has no value: `REPORT_TITLE is not set`, `'owner' is empty`, `has no value for region`.
static NOT_SET: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"(?i)(?:^|[\s'"`:(\[])(?P<key>[A-Za-z_][\w-]*)['"`]?\s+(?:is\s+not\s+set|is\s+unset|is\s+empty|has\s+no\s+value|is\s+blank)\b"#,
    )
});

/// A line that speaks of a percentage.
static PERCENT: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"(?i)\bper\s?cent(?:age)?\b|%"));

/// A key shown set to a fraction: `threshold=0.85`, `ratio: .5`, `'cut' = 0.2`.
static FRACTION_SET: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r#"\b(?P<key>[A-Za-z_][\w.-]*)['"`]?\s*[=:]\s*['"`]?(?P<value>0?\.\d+)\b"#)
});

/// `wrong` replaced by `right` in the file `error` names, on the line that holds it: the line the error numbers,
/// else the only one.
fn replacement(error: &str, wrong: &str, right: &str, scene: &Scene<'_>) -> Option<String> {
    let file = named_file(error, scene)?;
    let text = std::fs::read_to_string(scene.cwd.join(&file)).ok()?;
    let word = Regex::new(&format!(r"\b{}\b", regex::escape(wrong))).ok()?;
    let holding: Vec<usize> = text.lines().enumerate().filter(|(_, l)| word.is_match(l)).map(|(n, _)| n + 1).collect();
    let numbered = LINE_NUMBER.captures(error).and_then(|c| c["n"].parse::<usize>().ok());
    let at = match (numbered, holding.as_slice()) {
        (Some(n), _) if holding.contains(&n) => n,
        (_, [only]) => *only,
        _ => return None,
    };
    // Both words are word characters, dots and dashes: a dot is the only one a pattern reads otherwise.
    Some(format!("sed -i '{at}s/\\b{}\\b/{right}/' {file}", wrong.replace('.', "\\.")))
}

/// The first file `text` names that is not the program: a name with an extension, or a path, inside the working
/// directory.
fn named_file(text: &str, scene: &Scene<'_>) -> Option<String> {
    FILE_NAME
        .find_iter(text)
        .map(|m| m.as_str().trim_end_matches(['.', ':', ',']))
        .filter(|w| looks_like_file(w))
        .filter_map(inside)
        .find(|w| !same_file(w, scene.program))
        .map(str::to_owned)
}

/// `path` relative to the working directory (`./` dropped), where it stays inside it.
fn inside(path: &str) -> Option<&str> {
    let relative = path.trim_start_matches("./");
    let fits = !relative.is_empty() && !relative.starts_with('/') && !relative.split('/').any(|p| p == "..");
    fits.then_some(relative)
}

/// Whether two names are the same file of the working directory (`./run.sh` and `run.sh`).
fn same_file(a: &str, b: &str) -> bool {
    a.trim_start_matches("./") == b.trim_start_matches("./")
}

/// Whether `task` uses `word` as a word of its own, in any case.
pub(crate) fn mentions(task: &str, word: &str) -> bool {
    Regex::new(&format!(r"(?i)\b{}\b", regex::escape(word))).is_ok_and(|re| re.is_match(task))
}

/// The line an error states, without the quotes around it and the punctuation of the sentence it ends; `None` for an
/// empty or overlong one.
fn clean_line(text: &str) -> Option<String> {
    let mut line = text.trim();
    // `(add the line: retries=3)`: the bracket closes the error's aside, not the line.
    while line.ends_with(')') && line.matches('(').count() < line.matches(')').count() {
        line = line[..line.len() - 1].trim_end();
    }
    line = line.trim_end_matches(['.', ';', ',']);
    for quote in ['\'', '"', '`'] {
        if line.len() >= 2 && line.starts_with(quote) && line.ends_with(quote) {
            line = &line[1..line.len() - 1];
        }
    }
    let line = line.trim();
    (!line.is_empty() && line.chars().count() <= LINE_CHARS).then(|| line.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A working directory holding `files` (name, text), with `executable` ones made executable.
    fn scene_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn fix(output: &str, task: &str, dir: &Path) -> Option<String> {
        stated_fix(output, &Scene { task, program: "./job.sh", cwd: dir })
    }

    const TASK: &str = "Run ./job.sh and fix what it complains about until it succeeds.";

    #[test]
    fn a_missing_directory_is_made_unless_the_program_reads_from_it() {
        let dir = scene_dir(&[]);
        let p = dir.path();
        assert_eq!(fix("job: output directory 'out' does not exist", TASK, p).as_deref(), Some("mkdir -p out"));
        assert_eq!(fix("job: spool/ does not exist - create it", TASK, p).as_deref(), Some("mkdir -p spool"));
        assert_eq!(fix("Error: no such folder: cache/tmp", TASK, p).as_deref(), Some("mkdir -p cache/tmp"));
        assert_eq!(fix("job: the source folder 'photos' does not exist", TASK, p), None);
        assert_eq!(fix("job: directory '../up' does not exist", TASK, p), None);
        std::fs::create_dir(p.join("out")).unwrap();
        assert_eq!(fix("job: output directory 'out' does not exist", TASK, p), None, "it is there");
    }

    #[test]
    fn a_missing_file_found_once_elsewhere_is_copied_into_place() {
        let dir = scene_dir(&[("contacts.csv", "name,phone\n"), ("old/notes.txt", "a\n"), ("x/notes.txt", "b\n")]);
        let p = dir.path();
        assert_eq!(
            fix("job: input file data/contacts.csv not found", TASK, p).as_deref(),
            Some("mkdir -p data && cp -- contacts.csv data/contacts.csv")
        );
        std::fs::create_dir(p.join("data")).unwrap();
        assert_eq!(
            fix("cannot open data/contacts.csv: No such file or directory", TASK, p).as_deref(),
            Some("cp -- contacts.csv data/contacts.csv")
        );
        assert_eq!(fix("job: notes/notes.txt is missing", TASK, p), None, "two files of that name: which one?");
        std::fs::write(p.join("mail.conf.example"), "HOST=example.org\n").unwrap();
        assert_eq!(
            fix("job: error: mail.conf not found (see mail.conf.example for the format)", TASK, p).as_deref(),
            Some("cp -- mail.conf.example mail.conf")
        );
        assert_eq!(fix("job: mail.conf.example is read-only", TASK, p), None, "nothing missing");
        assert_eq!(fix("job: input file data/prices.csv not found", TASK, p), None, "none found");
    }

    #[test]
    fn a_missing_file_that_may_be_empty_is_made_empty() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("run.sh"), "").unwrap();
        let scene = Scene { task: "Run ./run.sh until it works.", program: "./run.sh", cwd: dir.path() };
        let fix = |line: &str| stated_fix(line, &scene);
        assert_eq!(
            fix("run: error: CHANGES.md is missing (an empty file is fine)").as_deref(),
            Some("touch CHANGES.md")
        );
        assert_eq!(fix("'seen.lst' not found; it may be empty").as_deref(), Some("touch seen.lst"));
        assert_eq!(fix("error: run.sh is missing (an empty one will do)"), None, "the program");
        assert_eq!(fix("error: CHANGES.md is missing"), None, "nothing says empty will do");
        assert_eq!(fix("deploy: CHANGES.md is required; the NOTES field can be empty"), None, "another thing may");
        assert_eq!(fix("error: out/CHANGES.md is missing (an empty file is fine)"), None, "its folder is missing");
        // A name without an extension the line calls a file; some text where any will do.
        assert_eq!(
            fix("pack: error: NOTICE file is missing; add one (any text will do)").as_deref(),
            Some("printf '%s\\n' NOTICE > NOTICE")
        );
        assert_eq!(fix("pack: error: NOTICE is missing; any text will do"), None, "not called a file, no extension");
        assert_eq!(fix("pack: error: NOTICE file is missing"), None, "nothing says what it may hold");
        assert_eq!(fix("pack: error: the file is missing; any text will do"), None, "no name");
        assert_eq!(fix("pack: config file is missing (an empty one is fine)"), None, "a word, not a name");
        std::fs::write(dir.path().join("CHANGES.md"), "").unwrap();
        assert_eq!(fix("run: error: CHANGES.md is missing (an empty file is fine)"), None, "it is there");
    }

    #[test]
    fn a_file_that_cannot_run_is_made_executable_the_program_where_the_task_fixes_it() {
        let dir = scene_dir(&[("hooks/pre.sh", "echo hi\n"), ("job.sh", "exit 1\n")]);
        let p = dir.path();
        assert_eq!(fix("job: hooks/pre.sh is not executable", TASK, p).as_deref(), Some("chmod +x hooks/pre.sh"));
        assert_eq!(fix("bash: ./hooks/pre.sh: Permission denied", TASK, p).as_deref(), Some("chmod +x hooks/pre.sh"));
        // The program, where the task asks for what it complains about to be fixed, or for it to be fixed; not
        // where the task keeps it as it is.
        assert_eq!(fix("bash: ./job.sh: Permission denied", TASK, p).as_deref(), Some("chmod +x job.sh"));
        let fix_it = "./job.sh doesn't work. Fix it so that running ./job.sh works, and run it.";
        assert_eq!(fix("bash: ./job.sh: Permission denied", fix_it, p).as_deref(), Some("chmod +x job.sh"));
        let keep = "Run ./job.sh and fix what it complains about until it succeeds. Don't change job.sh.";
        assert_eq!(fix("bash: ./job.sh: Permission denied", keep, p), None);
        assert_eq!(fix("job: hooks/missing.sh is not executable", TASK, p), None);
    }

    #[test]
    fn a_stated_line_makes_the_file_sets_the_key_or_is_added() {
        let dir = scene_dir(&[("app.cfg", "name=web\n"), ("site.ini", "[main]\nport = 80\n\n[cache]\nsize = 2\n")]);
        let p = dir.path();
        assert_eq!(
            fix("job: limits.conf not found; create it with the line: max=4", TASK, p).as_deref(),
            Some("printf '%s\\n' max=4 > limits.conf")
        );
        assert_eq!(
            fix("job: app.cfg has no 'mode' key (add the line: mode=fast)", TASK, p).as_deref(),
            Some("set app.cfg mode fast")
        );
        assert_eq!(
            fix("job: site.ini [cache] has no ttl; it must have: ttl = 60.", TASK, p).as_deref(),
            Some("set site.ini [cache] ttl 60")
        );
        assert_eq!(
            fix("job: app.cfg must contain the line: include defaults", TASK, p).as_deref(),
            Some("printf '%s\\n' 'include defaults' >> app.cfg")
        );
        assert_eq!(fix("job: app.cfg has no name (add the line: name=web)", TASK, p), None, "it is there");
        let task = "Run ./job.sh with mode=slow; fix what it complains about until it succeeds.";
        assert_eq!(fix("job: app.cfg has no 'mode' key (add the line: mode=fast)", task, p), None, "the task's");
    }

    #[test]
    fn an_offered_correction_replaces_the_quoted_word_on_its_line() {
        let dir = scene_dir(&[("job.conf", "# job\nSOURCE=logs\nretain=14\n"), ("fmt.ini", "[x]\nformat = cvs\n")]);
        let p = dir.path();
        assert_eq!(
            fix("job: job.conf line 3: unknown key 'retain' - did you mean RETAIN?", TASK, p).as_deref(),
            Some("sed -i '3s/\\bretain\\b/RETAIN/' job.conf")
        );
        assert_eq!(
            fix("job: fmt.ini format must be 'csv' or 'tsv', got 'cvs' (did you mean 'csv'?)", TASK, p).as_deref(),
            Some("sed -i '2s/\\bcvs\\b/csv/' fmt.ini")
        );
        let task = "Run ./job.sh, keeping the cvs format, and fix what it complains about until it succeeds.";
        assert_eq!(fix("job: fmt.ini got 'cvs' (did you mean 'csv'?)", task, p), None, "the task uses the word");
    }

    #[test]
    fn a_value_the_error_says_to_use_is_set_and_a_number_in_words_is_written_in_digits() {
        let dir = scene_dir(&[("pump.ini", "[pump]\nname = north\nspeed = five\n\n[valve]\nspeed = 2\n")]);
        let p = dir.path();
        assert_eq!(
            fix("pump: pump.ini: [pump] has no 'interval' setting (minutes; use 15)", TASK, p).as_deref(),
            Some("set pump.ini [pump] interval 15")
        );
        assert_eq!(
            fix("pump: pump.ini is missing key mode; use eco.", TASK, p).as_deref(),
            Some("set pump.ini mode eco")
        );
        let task = "Run ./job.sh with a 10 minute interval and fix what it complains about until it succeeds.";
        assert_eq!(fix("pump: pump.ini: [pump] has no 'interval' setting (use 15)", task, p), None, "the task's");
        assert_eq!(
            fix("pump: pump.ini: [pump] speed must be a whole number, got 'five'", TASK, p).as_deref(),
            Some("sed -i '3s/\\bfive\\b/5/' pump.ini")
        );
        assert_eq!(fix("pump: pump.ini: speed must be a whole number, got 'fast'", TASK, p), None);
        assert_eq!(fix("pump: pump.ini has no permission to run; use sudo", TASK, p), None, "no setting");
    }

    #[test]
    fn the_allowed_value_the_task_names_is_set() {
        let dir =
            scene_dir(&[("ship.conf", "# shipping\nCARRIER=post\nSPEED=slow\n"), ("app.ini", "[log]\nlevel = loud\n")]);
        let p = dir.path();
        let task = "Run ./job.sh. Parcels should go by courier. Fix what it complains about until it succeeds.";
        assert_eq!(
            fix("job: CARRIER in ship.conf must be courier or freight (it is 'post')", task, p).as_deref(),
            Some("set ship.conf CARRIER courier")
        );
        assert_eq!(
            fix("job: ship.conf: 'CARRIER' must be one of: courier, freight, pickup", task, p).as_deref(),
            Some("set ship.conf CARRIER courier")
        );
        let quiet = "Run ./job.sh with quiet logging, and fix whatever it reports until it works.";
        assert_eq!(
            fix("app: app.ini [log] level: expected 'quiet' or 'verbose', got 'loud'", quiet, p).as_deref(),
            Some("set app.ini [log] level quiet")
        );
        assert_eq!(
            fix("job: error: CARRIER='post' in ship.conf is not valid (use courier or freight)", task, p).as_deref(),
            Some("set ship.conf CARRIER courier"),
            "the key shown with the value it rejects"
        );
        assert_eq!(
            fix("job: error: CARRIER 'post' in ship.conf is not valid (use 'courier' or 'freight')", task, p)
                .as_deref(),
            Some("set ship.conf CARRIER courier"),
            "the key named with the value it rejects"
        );
        // The task names none of the values, or more than one: the model's to choose.
        assert_eq!(fix("job: CARRIER in ship.conf must be courier or freight (it is 'post')", TASK, p), None);
        let both = "Run ./job.sh; courier is dearer than freight. Fix what it complains about.";
        assert_eq!(fix("job: CARRIER in ship.conf must be courier or freight", both, p), None);
        // A key the line says is missing, with the values it allows: added, in the section the line names.
        let json = "Send the parcel list as JSON with ./job.sh; fix what stops it.";
        assert_eq!(
            fix("job: app.ini: [log] has no 'format' setting (one of: text, json)", json, p).as_deref(),
            Some("set app.ini [log] format json")
        );
        assert_eq!(fix("job: CARRIER is missing from ship.conf (must be courier or freight)", task, p), None);
        // A key the file does not set (and the line does not say is missing), or set to the value already.
        assert_eq!(fix("job: MODE in ship.conf must be courier or freight", task, p), None);
        let post = "Run ./job.sh; parcels go by post. Fix what it complains about until it succeeds.";
        assert_eq!(fix("job: CARRIER in ship.conf must be post or freight", post, p), None, "it is post already");
    }

    #[test]
    fn a_fraction_where_a_percentage_is_wanted_is_set_in_percent() {
        let dir = scene_dir(&[("pump.conf", "# pump\nlimit = 0.85\nflow: .125\n")]);
        let p = dir.path();
        let task = "Run ./pump.sh and fix what it complains about until it runs.";
        assert_eq!(
            fix("pump.conf: limit=0.85 is out of range: it is a percentage from 1 to 100", task, p).as_deref(),
            Some("set pump.conf limit 85")
        );
        assert_eq!(
            fix("pump: flow: .125 in pump.conf must be given in % (0-100)", task, p).as_deref(),
            Some("set pump.conf flow 12.5")
        );
        assert_eq!(fix("pump.conf: limit=0.85 is out of range (1 to 100)", task, p), None, "no percentage said");
        let given = "Run ./pump.sh with the limit at 0.85 and fix what it complains about.";
        assert_eq!(fix("pump.conf: limit=0.85 is out of range: it is a percentage", given, p), None, "the task's");
        assert_eq!(fix("pump.conf: limit=0.5 is out of range: it is a percentage", task, p), None, "not the file's");
    }

    #[test]
    fn a_value_the_task_gives_for_a_key_not_set_is_set() {
        let dir = scene_dir(&[("press.conf", "INK=black\nCOVER_TEXT=\nPAGES=4\n")]);
        let p = dir.path();
        let task = "Get ./print.sh to finish. If it asks for cover text, use Spring Catalogue. Don't edit print.sh.";
        assert_eq!(
            fix("print: COVER_TEXT is not set in press.conf", task, p).as_deref(),
            Some("set press.conf COVER_TEXT Spring Catalogue")
        );
        let quoted = "Run ./print.sh; the cover text should be \"Autumn\", and fix what it complains about.";
        assert_eq!(
            fix("print: press.conf: 'COVER_TEXT' is empty", quoted, p).as_deref(),
            Some("set press.conf COVER_TEXT Autumn")
        );
        assert_eq!(fix("print: COVER_TEXT is not set in press.conf", TASK, p), None, "the task gives none");
        let then = "Run ./print.sh. For the cover text use Summer Sale and then fix what it complains about.";
        assert_eq!(
            fix("print: COVER_TEXT is not set in press.conf", then, p).as_deref(),
            Some("set press.conf COVER_TEXT Summer Sale")
        );
        let empty = "Run ./print.sh. If the cover text is empty, use Spring Catalogue.";
        assert_eq!(
            fix("print: COVER_TEXT is not set in press.conf", empty, p).as_deref(),
            Some("set press.conf COVER_TEXT Spring Catalogue"),
            "`is empty` is no value"
        );
        let read = "Run ./print.sh; the input CSV should be sales.csv.";
        assert_eq!(fix("print: input.csv is empty", read, p), None, "a file's name, not a key");
        assert_eq!(fix("print: PAGES is not set in press.conf", "Use 8 pages; run ./print.sh.", p), None, "set");
    }

    #[test]
    fn the_last_error_that_states_a_fix_is_the_one_read() {
        let dir = scene_dir(&[]);
        let output = "job: starting\njob: cache/ does not exist\njob: output directory 'out' does not exist\n";
        assert_eq!(fix(output, TASK, dir.path()).as_deref(), Some("mkdir -p out"));
        assert_eq!(fix("job: something went wrong\n", TASK, dir.path()), None);
    }
}
