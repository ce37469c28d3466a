//! What a goal says about files: which it only reads, which it asks to be made, which it asks to be changed.
//!
//! One parser, used everywhere a runner or the shell decides about a file: the result check (what must have been
//! written), the shell's repairs (where a printed result may go), and the staged change set (what may be applied to
//! the user's directory). A file the goal only reads is never changed, whatever a script did or a repair proposes:
//! `clive "Compare a.txt to b.txt"` once wrote the diff *into b.txt*, because "to b.txt" was read as a destination.
//!
//! The rules are about English, not about any task: a path after "to"/"into" is a destination only when the verb
//! that governs it makes or moves something (write, save, copy, convert, append …); after a verb of comparison
//! (compare, match, differ, the same as) it is read. Verbs that change a file in place (fix, edit, append to, add a
//! line to, replace … in, sort … in place, delete) name files to change. Everything else a goal names is read.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

/// What a goal asks for, about the files it names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoalSpec {
    /// Files and directories the goal asks to be made (or replaced as a whole): `write … to X`, `copy A to X`,
    /// `turn A into X`, `a file named X`.
    pub writes: Vec<String>,
    /// Files the goal asks to be changed in place, moved or deleted: `fix X`, `append … to X`, `add a line to X`,
    /// `replace … in X`, `rename X to …`, `delete X`.
    pub changes: Vec<String>,
    /// Files the goal names and only reads: they are never changed.
    pub reads: Vec<String>,
    /// Destinations found only by a guess (a path after "to" with no verb that writes, or ending the sentence after
    /// "in"): written when they do not exist yet; an existing one is kept, since the goal never clearly asks to
    /// overwrite it.
    pub guessed: Vec<String>,
    /// Whether the goal asks for anything on disk to change at all: a verb that makes, changes, moves or deletes,
    /// or one that runs a program (which may write what it likes). A goal that does not (a question, a
    /// comparison, "show", "count … and print") changes nothing: whatever its script leaves behind is discarded.
    pub mutates: bool,
}

/// The verbs (and verb phrases) that govern a path after "to"/"into" and say how it is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Governor {
    /// Makes the path: write, save, copy, convert, export …
    Write,
    /// Changes the path in place: append, add, prepend, insert.
    Change,
    /// Moves its object to the path: rename, move (the object is changed, the path written).
    Move,
    /// Compares with the path: compare, match, differ, the same as, identical to.
    Compare,
}

/// Words and phrases that govern a following "to"/"into", with what they make of its path.
static GOVERNORS: LazyLock<Vec<(Regex, Governor)>> = LazyLock::new(|| {
    let table: &[(&str, Governor)] = &[
        (
            r"(?i)\b(?:write|writes|writing|wrote|save|saves|saved|store|stored|output|outputs|export|exports|put|puts|dump|redirect|copy|copies|copied|duplicate|convert|converts|converted|turn|turns|transform|translate|render|extract|extracts|split|merge|combine|concatenate|join|download|fetch|generate|produce|create|make|compress|archive|zip|pipe|send|record|list|sort|summari[sz]e|count|collect|gather|report|restore|recover|retrieve)\b",
            Governor::Write,
        ),
        (r"(?i)\b(?:append|appends|appended|add|adds|added|prepend|insert|inserts)\b", Governor::Change),
        (r"(?i)\b(?:rename|renames|renamed|move|moves|moved|mv)\b", Governor::Move),
        (
            r"(?i)\b(?:compare|compares|compared|comparing|diff|differ|differs|differing|match|matches|matching|(?:the\s+)?same\s+as|identical|equal|equals|equivalent|versus|vs|against|relative|according|due|next|similar|close|prior|belongs|points|refers|corresponds?)\b",
            Governor::Compare,
        ),
    ];
    table.iter().map(|(pattern, governor)| (compile(pattern), *governor)).collect()
});

/// A path after "to"/"into": `to lines.txt`, `into a new file named out.csv`, `into a new directory old/`, `to the file
/// reports/x.txt`, `into a signed bundle called site.zip` (any kind of thing, named).
static TO_PATH: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:to|into)\s+(?:the\s+(?:end\s+of\s+(?:the\s+file\s+)?)?(?:file\s+|directory\s+|folder\s+)?|an?\s+(?:new\s+)?(?:file|(?:sub-?)?directory|(?:sub-?)?folder)\s+(?:(?:named|called)\s+)?|an?\s+(?:[\w-]+\s+){1,3}?(?:named|called)\s+)?[`'\x22]?([\w.+~/-]+)",
    )
});

/// Where a result is kept by name: `save it as report.json`, `store the output as out/list.txt`, `write them
/// out as all.csv`. The name must look like a path (`save it as JSON` names no file).
static SAVE_AS: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:save|saves|saved|saving|store|stores|stored|write|writes|export|exports)\s+(?:it|them|this|that|everything|the\s+(?:result|results|output|answer|list|report|file|config|configuration|data|summary))?\s*(?:out\s+)?as\s+[`'\x22]?([\w.+~-]+(?:/[\w.+~-]+)*\.[A-Za-z][A-Za-z0-9]{0,7}|[\w.+~-]+/)[`'\x22]?",
    )
});

/// A file made by name as the object of a verb that makes: `Write unique.csv with …`, `create a new file
/// notes.md listing …`. Not `write notes.txt's first line …` (a possessive names a source), not a name followed by
/// "to"/"into" (`write notes.txt to backup/` copies it; [`GoalSpec::read_sentence`]), and not "produce" or
/// "generate", which a program the goal runs often does (`make it run and produce alerts.txt`).
static MAKES_FILE: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:write|writes|create|creates|make\s+(?:a\s+|an\s+)?(?:new\s+)?file)\s+(?:(?:a|an|the)\s+)?(?:new\s+)?(?:(?:file|csv|tsv|json|text\s+file)\s+)?[`'\x22]?([\w.+~-]+(?:/[\w.+~-]+)*\.[A-Za-z][A-Za-z0-9]{0,7})[`'\x22]?(?:\s|$|[,.;:!?)])",
    )
});

/// A file made from another by name, with "make" or "build": `Make active.csv from users.json`, `build index.md out
/// of notes/` ("make" alone governs too much to take a file after it otherwise: `make run.sh executable`).
static MAKES_FROM: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:make|makes|build|builds)\s+(?:(?:a|an|the)\s+)?(?:new\s+)?[`'\x22]?([\w.+~-]+(?:/[\w.+~-]+)*\.[A-Za-z][A-Za-z0-9]{0,7})[`'\x22]?\s+(?:from|out\s+of)\b",
    )
});

/// A file or directory to make by name: `a file named x`, `a directory called build`.
static NAMED: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)\b(?:file|directory|folder|dir)\s+(?:named|called)\s+[`'\x22]?([\w.+~/-]+)"));

/// A file the goal ends a sentence with after "in" (`…, one per line, in found.txt.`, `save it in out.md.`): where
/// the result goes. "in" before the end names an input (`the lines in a.md to n.txt`), so only the end counts.
static FINAL_IN: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"(?i)\bin\s+[`'\x22]?([\w.+~/-]+\.[A-Za-z][A-Za-z0-9]{0,7})[`'\x22]?\s*(?:[.!]\s|[.!]?$)")
});

/// A file after "in" and before a comma, in the middle of a sentence: `… under src/ in empty.txt, one per line`.
static MID_IN: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)\bin\s+[`'\x22]?([\w.+~/-]+\.[A-Za-z][A-Za-z0-9]{0,7})[`'\x22]?\s*,\s"));

/// Verbs that put a result somewhere, as opposed to reading something in a file (`count the lines in a.txt, …`).
static LISTS: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)\b(?:list|put|save|write|store|record|collect|gather|dump|output|keep)\b"));

/// Verbs that change the file they govern in place (or remove it): `fix run.sh`, `edit the config app.ini`,
/// `replace foo with bar in x.txt`, `delete old.log`, `sort names.txt in place`.
static CHANGE_VERB: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:fix|fixes|repair|correct|patch|debug|edit|update|modify|change|replace|substitute|remove|delete|erase|truncate|empty|clear|rewrite|reformat|format|indent|uncomment|comment\s+out|deduplicate|dedupe|chmod|rename|move|mv|rm|strip|trim|set|switch|toggle|flip|enable|disable|bump|increase|decrease|raise|reduce|increment|decrement|double|halve|uncomment|sort\s+\S+\s+in\s+place)\b",
    )
});

/// Verbs that make a goal change something on disk (any of the above, or running a program).
static MUTATING: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:write|writes|save|store|output\s+to|export|put|dump|redirect|copy|duplicate|convert|turn|transform|extract\s+\S+\s+(?:to|into)|split|merge|combine|concatenate|download|fetch|generate|produce|create|make|mkdir|touch|compress|decompress|archive|zip|unzip|untar|tar|unpack|unarchive|uncompress|gunzip|install|build|compile|run|execute|start|append|add|prepend|insert|rename|move|fix|repair|correct|patch|edit|update|modify|change|replace|substitute|remove|delete|erase|truncate|empty|clear|rewrite|reformat|format|chmod|chown|set|switch|toggle|flip|enable|disable|bump|increase|decrease|raise|reduce|increment|decrement|sort\s+\S+\s+in\s+place|in\s+place|record|log\s+to)\b",
    )
});

/// A program the goal names to be run with a verb other than "run": `use ./enrol.sh to add …`, `using tidy.py, …`,
/// `invoke bin/sync`, `use the ./till menu to …`. The path must look like a program (`./x`, or a script's extension, [`is_program`]).
static USES_PROGRAM: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:use|uses|using|invoke|invokes|invoking|launch|launches|launching)\s+(?:the\s+)?(?:(?:script|program|tool|command)\s+)?[`'\x22]?([\w.+~/-]+)",
    )
});

/// A program the goal does something *with*: `open a ticket for her with ./new_ticket.sh`, `log it via ./log`.
/// Only an explicit `./` path, and one that looks like a program (its extension, or none): "with b.py" may be a
/// file to compare with, "with ./expected.txt" is one.
static WITH_PROGRAM: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"(?i)\b(?:with|via)\s+(?:the\s+)?(?:(?:script|program|tool|command)\s+)?[`'\x22]?(\./[\w.+~-][\w.+~/-]*)")
});

/// Whether `goal` runs a program it names with [`USES_PROGRAM`]'s verbs, or does something [`WITH_PROGRAM`].
fn uses_a_program(goal: &str) -> bool {
    let with_program = WITH_PROGRAM.captures_iter(goal).map(captured_path).any(|path| {
        let name = path.rsplit('/').next().unwrap_or(path);
        (is_program(name) || !name.contains('.')) && !path.ends_with('/')
    });
    with_program
        || USES_PROGRAM.captures_iter(goal).any(|capture| {
            // "use the ./till menu" runs a program; "using the report.py docstring" reads one.
            let bare_the = BARE_THE.is_match(capture.get(0).map_or("", |m| m.as_str()));
            let path = captured_path(capture);
            let explicit = path.starts_with("./") && path.len() > 2;
            explicit || (is_program(path) && !bare_the)
        })
}

/// A [`USES_PROGRAM`] match with "the" and no noun before the path: `use the ./till menu`.
static BARE_THE: LazyLock<Regex> = LazyLock::new(|| compile(r"(?i)^\S+\s+the\s+[`'\x22]?[\w.+~/-]+$"));

/// The path a pattern's first group caught, without the punctuation that ends a sentence or a clause.
fn captured_path(capture: regex::Captures<'_>) -> &str {
    capture.get(1).map_or("", |m| m.as_str()).trim_end_matches(['.', ',', ':', ';'])
}

/// A goal to fix a program ("Fix the bug", "fix the script", "repair it", "can you get it working?").
static FIXING: LazyLock<Regex> =
    LazyLock::new(|| compile(&format!(r"(?i)\b(?:fix|fixes|repair|debug|correct|patch)\b|{GET_IT_WORKING}")));

/// A request (imperative: at a clause's start, or after "then", "and", "please") to transform a file, with "it" or
/// "the file" as its object: `Convert it`, `…, then re-encode it`. Not `sort it` or `count them` (a result is often
/// printed), not "don't change it", "you never need to update it", nor a fix (see [`FIX_REQUEST`]).
static CHANGES_IT: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)(?:^\s*|[,:;]\s*|\b(?:then|and|please|also)\s+)(?:convert|re-?encode|re-?format|reformat|rewrite|strip|trim|normali[sz]e|saniti[sz]e|standardi[sz]e|dedupe|de-?duplicate|clean\s+up|tidy\s+up|edit|modify|update|change|amend|adjust)\s+(?:it|the\s+file|this\s+file|that\s+file)\b",
    )
});

/// A verb that shows or tells a result: a sentence with one is about what is shown, not a file changed.
static SHOWS: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"(?i)\b(?:print|prints|show|display|tell|count|list|report|say|output|echo|give\s+me|how\s+many)\b")
});

/// A file copied or moved over another, which is then changed: `copy new.conf over app.conf`, `move the draft on top
/// of final.txt`.
static COPY_OVER: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:copy|copies|cp|move|moves|mv)\s+(?:the\s+(?:file\s+)?)?[`'\x22]?[\w.+~/-]+[`'\x22]?\s+(?:over|on\s+top\s+of)\s+(?:the\s+(?:old\s+|existing\s+|current\s+)?(?:file\s+|one\s+)?)?[`'\x22]?([\w.+~/-]+)",
    )
});

/// A request to fix something, as a verb of its own (`Fix it so that it parses`, `…, then repair the file`), not
/// the adjective (`check that the totals are correct`).
static FIX_REQUEST: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"(?i)(?:^\s*|[,:]\s*|\b(?:then|and|please|to|must|should)\s+)(?:fix|repair|correct|patch|debug)\b")
});

/// A fix asked for by what it should come to, as a request (`Can you get it working?`, `please make it work`, `…
/// fails. Make it run`, `get ./plot.py running`: a name is masked to `_`), not
/// a statement (`my colleague will get it working`, `we could never get it working`).
const GET_IT_WORKING: &str = r"(?:^\s*|[,:.;!]\s*|\b(?:then|and|please|to|you|me|us|help|let['’]?s)\s+)(?:get\s+(?:it|them|this|that|_+)\s+(?:working|running|to\s+(?:work|run))|make\s+(?:it|them|this|that|_+)\s+(?:work|run))\b";

/// A path shown as an illustration of what the goal does (`so notes/a.txt ends up as archive/a.txt`, `e.g.
/// img/1.png becomes png/1.png`, `x.log -> old/x.log`), and where it ends up.
static ILLUSTRATION: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:so(?:\s+that)?|e\.g\.,?|eg|for\s+(?:example|instance),?|say,?|like|i\.e\.,?)\s+(?:the\s+file\s+)?[`'\x22]?([\w.+~-][\w.+~/-]*)[`'\x22]?\s+(?:(?:would|should|will|must)\s+)?(?:ends?\s+up(?:\s+(?:as|in|at))?|becomes?|turns?\s+into|gets?\s+(?:moved|renamed)\s+(?:to|into|as)|is\s+(?:moved|renamed)\s+(?:to|into|as)|->|=>|\x{2192})\s*[`'\x22]?([\w.+~-][\w.+~/-]*)",
    )
});

/// A goal that moves or renames files (what an illustration of where one ends up is about); not copy, convert or
/// back up, which leave the file where it is.
static MOVES: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:move|moves|moved|moving|mv|rename|renames|renamed|renaming|reorgani[sz]e|file\s+(?:each|every|the|them|all))\b",
    )
});

/// The paths [`ILLUSTRATION`] finds in a goal that moves files ([`MOVES`]): both sides of each, when both look
/// like paths.
fn illustrated_paths(goal: &str) -> Vec<String> {
    let mut shown = Vec::new();
    if !MOVES.is_match(&mask_files(goal)) {
        return shown;
    }
    for capture in ILLUSTRATION.captures_iter(goal) {
        let (Some(from), Some(to)) = (capture.get(1), capture.get(2)) else { continue };
        let from = from.as_str().trim_end_matches(['.', ',', ':', ';']);
        let to = to.as_str().trim_end_matches(['.', ',', ':', ';']);
        if looks_like_path(from) && looks_like_path(to) {
            shown.push(from.to_owned());
            shown.push(to.to_owned());
        }
    }
    shown
}

/// Where the goal places a fault: `the problem is in x.conf`, `the bug must be in lib/util.sh`, `the typo is
/// somewhere in notes.yaml`.
static FAULT_IN: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:problem|bug|error|mistake|issue|typo|fault|culprit|breakage)\s+(?:is|lies|must\s+be|should\s+be|seems\s+to\s+be|has\s+to\s+be|'s)\s+(?:somewhere\s+)?(?:in|inside)\s+(?:the\s+file\s+)?[`'\x22]?([\w.+~/-]+)",
    )
});

/// A file the goal calls faulty: `only lamp.cfg is wrong`, `router.ini is the broken one`, `the culprit is x.yaml`,
/// `deploy.toml has a typo`. Not "… is not wrong" (the negation stands between) nor "… is correct".
static FAULTY_FILE: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)(?:[`'\x22]?([\w.+~/-]+\.[A-Za-z]\w*)[`'\x22]?\s+(?:is|are|was|seems|seems\s+to\s+be|looks|must\s+be)\s+(?:the\s+(?:one|file)\s+(?:that(?:'s|\s+is)\s+)?)?(?:wrong|faulty|broken|buggy|incorrect|misconfigured|corrupt(?:ed)?|at\s+fault|to\s+blame|the\s+(?:problem|culprit|broken\s+one|faulty\s+one|wrong\s+one|one\s+at\s+fault))\b|[`'\x22]?([\w.+~/-]+\.[A-Za-z]\w*)[`'\x22]?\s+(?:has|contains)\s+(?:the|a|an|some)\s+(?:bug|typo|mistake|error|fault)s?\b|\b(?:culprit|faulty\s+file|broken\s+file|wrong\s+file)\s+is\s+[`'\x22]?([\w.+~/-]+\.[A-Za-z]\w*))",
    )
});

/// A request to fix the file of a kind: `fix the config file`, `repair the YAML`, `correct the settings file`, `sort
/// out the config`.
static FIX_THE_KIND: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:fix|repair|correct|patch|amend|sort\s+out|straighten\s+out)\s+(?:the|this|that|my|our|its|their)\s+(config(?:uration)?|settings|conf|ini|ya?ml|toml|json|csv|tsv|xml)(?:\s+files?\b|\s*(?:[.,;:!?()]|$)|\s+(?:so|and|then|until|because|please|first|instead|itself)\b)",
    )
});

/// A word that denies what follows it in its clause.
static NEGATION: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"(?i)\b(?:not|never|without|no|don't|dont|do\s+not|doesn't|won't|shouldn't|mustn't)\b|n't\b")
});

/// The extensions of the files a kind of file (as [`FIX_THE_KIND`] names it) may have.
fn kind_extensions(kind: &str) -> &'static [&'static str] {
    match kind {
        "ini" => &["ini"],
        "yaml" | "yml" => &["yaml", "yml"],
        "toml" => &["toml"],
        "json" => &["json"],
        "csv" => &["csv"],
        "tsv" => &["tsv"],
        "xml" => &["xml"],
        _ => &["conf", "cfg", "ini", "yaml", "yml", "toml", "env", "properties", "config", "cnf", "rc"],
    }
}

/// Data formats a configuration may be kept in, when its name says it is one ([`CONFIG_NAME`]).
const DATA_FORMATS: &[&str] = &["json", "xml", "yaml", "yml", "toml"];

/// A sentence saying the user changed a file by hand: "I tweaked lamp.xml", "since I edited x.json".
static EDITED: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)\b(?:edited|tweaked|changed|touched|modified|updated|messed\s+with|hand-edited)\b"));

/// A file name that says it holds a result or a record, not settings: `errors.json`, `status.xml`, `out.json`.
static RESULT_NAME: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)(?:^|[/._-])(?:errors?|logs?|out|output|results?|reports?|status|summary|stats|expected|golden|baseline|snapshots?|schema|fixtures?|samples?|answers?|reference)(?:[._-]|$)",
    )
});

/// A file name that says it holds a configuration: `kiln-settings.json`, `config.json`, `app.prefs.xml`.
static CONFIG_NAME: LazyLock<Regex> = LazyLock::new(|| {
    compile(r"(?i)(?:^|[/._-])(?:conf|config|configuration|settings|setup|options|prefs|preferences)(?:[._-]|$)")
});

/// Unpacking an archive, which makes the files it holds: `extract site.tar.gz`, `unpack the archive`, `unzip x.zip`,
/// `restore the notes from notes.tgz into old/`.
/// "Extract" alone makes nothing (`extract the emails and count them`); of an archive it does.
static UNPACKS: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:extract|extracts|unpack|unpacks|unarchive|expand|decompress|uncompress|inflate|restore|restores|recover|recovers|retrieve|retrieves)\b(?:[^.?!;\n]|\.\S){0,80}?(?:\.(?:tar|tgz|tbz2?|txz|zip|gz|bz2|xz|zst|7z|rar|jar)\b|\b(?:archives?|tarballs?|zip)\b)",
    )
});

/// A sentence that opens with the file it changes: `In theme.json, set …`, `in tox.cfg replace …`.
static IN_FILE_THEN_CHANGE: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^\s*in\s+[`'\x22]?([\w.+~/-]+?)[`'\x22]?\s*,?\s+(?:please\s+)?(?:set|replace|change|update|edit|fix|remove|delete|add|append|insert|rename|comment|uncomment|increase|decrease|raise|lower|reduce|double|halve|bump|enable|disable|turn|swap|switch|toggle|flip|sort|correct)\b",
    )
});

/// The extension of `name`, lower-cased (empty without one).
pub(crate) fn extension(name: &str) -> String {
    name.rsplit_once('.').map_or("", |(_, e)| e).to_lowercase()
}

/// Whether `name` is a program by its extension (a goal to fix one changes it).
pub(crate) fn is_program(name: &str) -> bool {
    let extension = name.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(
        extension,
        "sh" | "bash" | "py" | "pl" | "rb" | "js" | "ts" | "awk" | "sed" | "php" | "lua" | "go" | "rs" | "c" | "java"
    )
}

/// "in place" after a file's name, in the same clause: right after it or a few words on (`sort the lines of
/// names.txt by length, in place`).
static IN_PLACE: LazyLock<Regex> = LazyLock::new(|| compile(r"(?i)^[^.;!?:]{0,60}?\bin[\s-]+place\b"));

/// A sentence boundary: a goal's rules apply within one sentence.
static SENTENCE: LazyLock<Regex> = LazyLock::new(|| compile(r"[.!?;](?:\s|$)|\n"));

use crate::patterns::constant as compile;

impl GoalSpec {
    /// Reads `goal`.
    pub fn parse(goal: &str) -> GoalSpec {
        // Verbs are looked for where no file is named: `mv.txt` holds no `mv`, `fix.log` no `fix`.
        let masked = mask_files(goal);
        let mut spec = GoalSpec {
            mutates: used_as_verb(&MUTATING, &masked) || UNPACKS.is_match(goal) || uses_a_program(goal),
            ..GoalSpec::default()
        };
        let sentences = sentences(goal);
        for &(start, end) in &sentences {
            spec.read_sentence(&goal[start..end], &masked[start..end]);
        }
        // A file the goal says not to change ("without editing sync.py", "not the script itself") is no guessed
        // destination, nor what "fix it" or a goal to fix is taken to change: only what the goal itself asks to
        // change overrides it.
        let protected = crate::goal_protect::protected_files(goal, &all_named_files(goal), is_program);
        spec.fix_what_an_earlier_sentence_names(goal, &masked, &sentences, &protected);
        spec.fix_the_file_of_a_kind(goal, &masked, &protected);
        spec.fix_where_the_fault_is(goal, &masked, &protected);
        spec.change_what_is_copied_over(goal, &protected);
        spec.guessed.retain(|f| !protected.iter().any(|p| same_file(p, f)));
        // "Fix gen.py so it builds report.html from notes.md. Don't edit notes.md.": a file the goal says not to
        // change is not one a nearby verb changes (`protected_files` leaves out those the goal asks to change).
        spec.changes.retain(|f| !protected.iter().any(|p| same_file(p, f)));
        // "tally.py crashes. Fix the bug": a program the goal is to fix is changed, wherever it is named.
        if FIXING.is_match(&masked) {
            for file in all_named_files(goal).into_iter().filter(|f| is_program(f)) {
                let said_not_to = protected.iter().any(|p| same_file(p, &file));
                if said_not_to && !spec.changes.iter().any(|c| same_file(c, &file)) {
                    continue;
                }
                if !spec.writes.contains(&file) {
                    push(&mut spec.changes, &file);
                    spec.guessed.retain(|f| f != &file);
                }
            }
        }
        // "…, so a/x.jpg ends up as b/x.jpg": a path shown to illustrate what the goal does to many is no input the
        // goal only reads (the move it illustrates takes it away).
        let illustrations = illustrated_paths(goal);
        for file in all_named_files(goal) {
            if !spec.writes.contains(&file)
                && !spec.changes.contains(&file)
                && !spec.guessed.contains(&file)
                && !illustrations.iter().any(|shown| same_file(shown, &file))
            {
                push(&mut spec.reads, &file);
            }
        }
        // A goal that names what to make or change changes something, whatever its verb ("list …, in found.txt").
        spec.mutates |= !spec.writes.is_empty() || !spec.changes.is_empty() || !spec.guessed.is_empty();
        spec
    }

    /// The files and directories the goal asks to be made or changed, in the order it names them (guesses last).
    pub fn destinations(&self) -> Vec<String> {
        let mut all: Vec<String> = Vec::new();
        for file in self.writes.iter().chain(&self.changes).chain(&self.guessed) {
            push(&mut all, file);
        }
        all
    }

    /// The destinations that must be written for the goal to be reached: what it asks to be made, and the guessed
    /// ones that do not exist in `cwd` yet (an existing one is not overwritten on a guess).
    pub fn required_writes(&self, cwd: &Path) -> Vec<String> {
        let mut all: Vec<String> = self.writes.clone();
        for file in &self.guessed {
            if !crate::claims::resolve(file, cwd).exists() {
                push(&mut all, file);
            }
        }
        all
    }

    /// Whether the goal lets `file` (as named, or a path relative to the working directory) change when it existed
    /// before: it is one the goal asks to be written or changed, or the goal changes things and never names it as
    /// an input. A guessed destination that existed is kept.
    pub fn may_change_existing(&self, file: &str) -> bool {
        let same = |named: &String| same_file(named, file);
        if self.writes.iter().any(same) || self.changes.iter().any(same) {
            return true;
        }
        if self.reads.iter().any(same) || self.guessed.iter().any(same) {
            return false;
        }
        self.mutates
    }

    /// A file that exists in `cwd` and that `goal` (the text this spec was parsed from) may mean to overwrite without
    /// saying so: a path after a verbless "to" (`the ERROR lines of app.log to errors.txt`). Guessed destinations
    /// are never overwritten on a guess, so such a goal would end with the file kept and the result elsewhere:
    /// better asked than guessed. `None` when every such file is new, or the goal says what to do with it.
    pub fn unclear_overwrite(&self, goal: &str, cwd: &Path) -> Option<String> {
        let after_to: Vec<String> = TO_PATH
            .captures_iter(goal)
            .filter_map(|capture| Some(capture.get(1)?.as_str().trim_end_matches(['.', ',', ':', ';']).to_owned()))
            .collect();
        self.guessed.iter().find(|file| after_to.contains(file) && crate::claims::resolve(file, cwd).is_file()).cloned()
    }

    /// Whether a file the goal asks to be changed in place exists in `cwd` (so the change is an edit, not a new
    /// file).
    pub fn changes_an_existing_file(&self, cwd: &Path) -> bool {
        self.changes.iter().any(|file| crate::claims::resolve(file, cwd).is_file())
    }

    /// Whether `file` is one the goal only reads.
    pub fn only_reads(&self, file: &str) -> bool {
        self.reads.iter().any(|named| same_file(named, file))
            && !self.writes.iter().chain(&self.changes).any(|named| same_file(named, file))
    }

    /// "notes.yaml no longer parses. Fix it so that it does.": a request to fix whose sentence names no file is
    /// about the files the nearest earlier sentence names (those it does not ask to be written). Without this the
    /// file was one the goal only reads, and a right fix of it was refused. So is a change verb whose object is
    /// "it" ("The roster came from the old export. Convert it to UTF-8 and strip the blank lines.").
    fn fix_what_an_earlier_sentence_names(
        &mut self,
        goal: &str,
        masked: &str,
        sentences: &[(usize, usize)],
        protected: &[String],
    ) {
        for (index, &(start, end)) in sentences.iter().enumerate() {
            let names_its_own = all_named_files(&goal[start..end])
                .iter()
                .any(|f| !self.writes.iter().chain(&self.guessed).any(|w| same_file(w, f)));
            // "Convert it into notes.html" writes elsewhere: its source stays read; so does a sentence that asks
            // something or has a result shown ("Trim it to the last 100 lines and show me").
            let sentence = &masked[start..end];
            let transforms = CHANGES_IT.is_match(sentence)
                && all_named_files(&goal[start..end]).is_empty()
                && !sentence.trim_end().ends_with('?')
                && !SHOWS.is_match(sentence);
            let asks = FIX_REQUEST.is_match(sentence) || transforms;
            if !asks || names_its_own {
                continue;
            }
            let earlier = sentences[..index]
                .iter()
                .rev()
                .map(|&(from, to)| all_named_files(&goal[from..to]))
                .find(|files| !files.is_empty())
                .unwrap_or_default();
            for file in earlier.into_iter().filter(|f| !protected.iter().any(|p| same_file(p, f))) {
                if !self.writes.iter().any(|f| same_file(f, &file)) {
                    push(&mut self.changes, &file);
                    self.guessed.retain(|f| !same_file(f, &file));
                }
            }
        }
    }

    /// "sync.sh rejects mirror.cfg. Fix the config file (not the script)": a request to fix *the file of a kind*
    /// (the config, the CSV, the YAML file) is about the one file of that kind the goal names. With two of that
    /// kind it says nothing: which one is not for a guess.
    fn fix_the_file_of_a_kind(&mut self, goal: &str, masked: &str, protected: &[String]) {
        let named = all_named_files(goal);
        for capture in FIX_THE_KIND.captures_iter(masked) {
            let (Some(whole), Some(kind)) = (capture.get(0), capture.get(1)) else { continue };
            // "Do not edit or fix the config file": a request its clause denies is none.
            let clause_start = masked[..whole.start()].rfind(['.', ',', ';', ':', '!', '?']).map_or(0, |at| at + 1);
            if NEGATION.is_match(&masked[clause_start..whole.start()]) {
                continue;
            }
            let kind = kind.as_str().to_lowercase();
            // "Sort out the CSV" may be a sort; only a configuration is sorted out by fixing it.
            let verb = whole.as_str().to_lowercase();
            let informal = verb.starts_with("sort") || verb.starts_with("straighten");
            if informal && matches!(kind.as_str(), "csv" | "tsv") {
                continue;
            }
            let extensions = kind_extensions(&kind);
            let mut of_kind: Vec<&String> =
                named.iter().filter(|file| extensions.contains(&extension(file).as_str())).collect();
            // "Fix the config" about kiln-settings.json: a configuration kept in a data format is named as one.
            let config = matches!(kind.as_str(), "config" | "configuration" | "settings" | "conf");
            let settings_data =
                |file: &&String| DATA_FORMATS.contains(&extension(file).as_str()) && !RESULT_NAME.is_match(file);
            if of_kind.is_empty() && config {
                of_kind = named.iter().filter(settings_data).filter(|file| CONFIG_NAME.is_match(file)).collect();
            }
            // "I tweaked lamp.xml by hand and now glow.sh crashes. Fix the config": the one data file an earlier
            // sentence says the user edited, unless its name says it holds a result or a reference (errors.json,
            // expected.json).
            if of_kind.is_empty() && config {
                let sentence_start = masked[..whole.start()].rfind(['.', '!', '?', ';']).unwrap_or(0);
                let edited: Vec<&str> = sentences(&goal[..sentence_start])
                    .into_iter()
                    .map(|(from, to)| &goal[from..to])
                    .filter(|sentence| EDITED.is_match(sentence))
                    .collect();
                of_kind = named
                    .iter()
                    .filter(settings_data)
                    .filter(|file| edited.iter().any(|sentence| find_word(sentence, file).is_some()))
                    .collect();
            }
            if let [file] = of_kind.as_slice() {
                self.change_unless_protected(file, protected);
            }
        }
    }

    /// Makes `file` one to change, unless the goal says not to change it or asks for it to be made.
    fn change_unless_protected(&mut self, file: &str, protected: &[String]) {
        if !protected.iter().any(|p| same_file(p, file)) && !self.writes.iter().any(|w| same_file(w, file)) {
            push(&mut self.changes, file);
            self.guessed.retain(|g| !same_file(g, file));
        }
    }

    /// "The problem is in deploy.toml, fix it": in a goal that asks for a fix and names nothing else to change,
    /// the file it places the fault in is the one. A log is where an error shows, not where it is fixed ("the
    /// error is in app.log; fix parse.py").
    fn fix_where_the_fault_is(&mut self, goal: &str, masked: &str, protected: &[String]) {
        if (!FIX_REQUEST.is_match(masked) && !FIXING.is_match(masked)) || !self.changes.is_empty() {
            return;
        }
        let placed = FAULT_IN.captures_iter(goal).filter_map(|capture| capture.get(1));
        let called_faulty = FAULTY_FILE.captures_iter(goal).filter_map(|capture| {
            let whole = capture.get(0)?;
            let before = &goal[..whole.start()];
            let clause = &before[crate::goal_protect::clause_start(before)..];
            // "it is not that x.conf is wrong": a denied fault places nothing.
            (!NEGATION.is_match(clause)).then(|| capture.get(1).or(capture.get(2)).or(capture.get(3))).flatten()
        });
        for file in placed.chain(called_faulty) {
            let file = file.as_str().trim_end_matches(['.', ',', ':', ';']);
            if looks_like_path(file) && !matches!(extension(file).as_str(), "log" | "out" | "err") {
                self.change_unless_protected(file, protected);
            }
        }
    }

    /// "Copy staging.conf over live.conf": the file copied over is changed, unless the clause denies it ("do not copy
    /// …") or the sentence asks it ("Should I copy … over …?").
    fn change_what_is_copied_over(&mut self, goal: &str, protected: &[String]) {
        for capture in COPY_OVER.captures_iter(goal) {
            let (Some(whole), Some(file)) = (capture.get(0), capture.get(1)) else { continue };
            let clause_start = goal[..whole.start()].rfind(['.', ',', ';', ':', '!', '?']).map_or(0, |at| at + 1);
            let sentence_end = goal[whole.end()..].find(['.', '!', '?', ';']).map_or(goal.len(), |at| whole.end() + at);
            if NEGATION.is_match(&goal[clause_start..whole.start()]) || goal[sentence_end..].starts_with('?') {
                continue;
            }
            let file = file.as_str().trim_end_matches(['.', ',', ':', ';']);
            if looks_like_path(file) {
                self.change_unless_protected(file, protected);
            }
        }
    }

    /// Reads one sentence; `masked` is the same text with its file names blanked out (same offsets).
    fn read_sentence(&mut self, sentence: &str, masked: &str) {
        // Paths after "to"/"into", each with the verb that governs it.
        let mut segment_start = 0;
        // Where the first path this sentence writes is named: a file named before it is the input of what is
        // written there (`remove the duplicates from a.txt and write the rest to b.txt` changes no a.txt).
        let mut first_write: Option<usize> = None;
        for capture in TO_PATH.captures_iter(sentence) {
            let (Some(whole), Some(word)) = (capture.get(0), capture.get(1)) else { continue };
            let word = word.as_str().trim_end_matches(['.', ',', ':', ';']);
            let lower = whole.as_str().to_ascii_lowercase();
            // "a file named notes" names a file; "a user named alice" names one only if it looks like a path.
            let of_a_file = ["file", "directory", "folder"].iter().any(|kind| lower.contains(kind));
            let named = (lower.contains("named") || lower.contains("called")) && (of_a_file || looks_like_path(word));
            let before = &sentence[segment_start..whole.start()];
            let masked_before = &masked[segment_start..whole.start()];
            segment_start = whole.end();
            if word.is_empty() || word.contains("://") || !(named || looks_like_path(word)) || placeholder(word) {
                continue;
            }
            let governor = nearest_governor(masked_before).or_else(|| unclaimed_governor(&masked[..whole.start()]));
            if matches!(governor, Some(Governor::Write) | None) {
                first_write.get_or_insert(whole.start());
            }
            match governor {
                Some(Governor::Write) => push(&mut self.writes, word),
                Some(Governor::Change) => push(&mut self.changes, word),
                Some(Governor::Move) => {
                    push(&mut self.writes, word);
                    // What is moved is changed (it goes away): the named file just before "to".
                    if let Some(source) = all_named_files(before).last() {
                        push(&mut self.changes, source);
                    }
                }
                Some(Governor::Compare) => {}
                None if named => push(&mut self.writes, word),
                None => push(&mut self.guessed, word),
            }
        }
        for capture in NAMED.captures_iter(sentence).chain(SAVE_AS.captures_iter(sentence)) {
            if let Some(word) = capture.get(1) {
                let word = word.as_str().trim_end_matches(['.', ',', ':', ';']);
                // `write them as e.g. 2024-01-05`: an abbreviation is no name.
                let stem = word.rsplit_once('.').map_or(word, |(stem, _)| stem);
                let abbreviation = !word.ends_with('/') && stem.trim_start_matches("./").chars().count() < 2;
                if !word.is_empty() && !abbreviation && !placeholder(word) && !self.changes.iter().any(|f| f == word) {
                    push(&mut self.writes, word);
                }
            }
        }
        for capture in MAKES_FILE.captures_iter(sentence).chain(MAKES_FROM.captures_iter(sentence)) {
            let (Some(whole), Some(word)) = (capture.get(0), capture.get(1)) else { continue };
            let before = &sentence[crate::goal_protect::clause_start(&sentence[..whole.start()])..whole.start()];
            let after = sentence[whole.end()..].trim_start();
            let copied = after.starts_with("to ") || after.starts_with("into ");
            let word = word.as_str();
            if !copied && !NEGATION.is_match(before) && !placeholder(word) && !self.changes.iter().any(|f| f == word) {
                push(&mut self.writes, word);
                self.guessed.retain(|f| f != word);
            }
        }
        if let Some(capture) = FINAL_IN.captures(sentence)
            && let (Some(whole), Some(word)) = (capture.get(0), capture.get(1))
        {
            let before = &masked[..whole.start()];
            let word = word.as_str();
            let reading = nearest_governor(before) == Some(Governor::Compare) || changed_in(before);
            if !reading && !placeholder(word) && !self.writes.iter().chain(&self.changes).any(|f| f == word) {
                push(&mut self.guessed, word);
            }
        }
        // "List the empty files under src/ in empty.txt, one per line": a file after "in" and before a comma, in a
        // sentence that makes something and names no other place for it, is where the result goes (on a guess:
        // an existing file stays as it is, and is not required).
        if first_write.is_none()
            && let Some(capture) = MID_IN.captures(sentence)
            && let (Some(whole), Some(word)) = (capture.get(0), capture.get(1))
        {
            let before = &masked[..whole.start()];
            let word = word.as_str();
            let makes =
                nearest_governor(before) == Some(Governor::Write) && LISTS.is_match(before) && !changed_in(before);
            if makes
                && !placeholder(word)
                && !self.writes.iter().chain(&self.changes).chain(&self.guessed).any(|f| same_file(f, word))
            {
                push(&mut self.guessed, word);
            }
        }
        // "In theme.json, set the font to serif": the file the sentence opens with is what it changes.
        if let Some(capture) = IN_FILE_THEN_CHANGE.captures(sentence)
            && let Some(file) = capture.get(1)
            && looks_like_path(file.as_str())
        {
            push(&mut self.changes, file.as_str());
            self.guessed.retain(|f| f != file.as_str());
        }
        // Files changed in place: a change verb shortly before the file's name.
        let files = all_named_files(sentence);
        for file in &files {
            let file = file.clone();
            let Some(at) = find_word(sentence, &file) else { continue };
            // `sort names.txt in place`, `edit x.conf in place`: changed, whatever else the sentence writes (the
            // nearest file named before "in place": no other between).
            let end = at + file.len();
            let in_place = IN_PLACE.find(&masked[end..]).is_some_and(|m| {
                let between = sentence.get(end..end + m.end()).unwrap_or_default();
                !files.iter().any(|f| find_word(between, f).is_some())
            });
            if in_place {
                push(&mut self.changes, &file);
                self.guessed.retain(|f| f != &file);
                continue;
            }
            if self.writes.contains(&file) || first_write.is_some_and(|write| at < write) {
                continue;
            }
            if asks_to_change(change_window(masked, at, is_program(&file)))
                || writes_in_its_clause(masked, at)
                || changed_in(&masked[..at]) && ends_with_in(&masked[..at])
            {
                push(&mut self.changes, &file);
                self.guessed.retain(|f| f != &file);
            }
        }
    }
}

/// Whether `before` (the text ahead of "in X") asks for a change in X: `replace foo with bar in`, `fix the typo in`.
fn changed_in(before: &str) -> bool {
    let window = after_a_later_verb(window_before(before, before.len(), 8));
    used_as_verb(&CHANGE_VERB, window) && ends_with_in(before)
}

/// `window` from its last `and`/`then` and a verb that only reads or reports, if any: "fix it and print the
/// totals of" speaks of printing.
fn after_a_later_verb(window: &str) -> &str {
    AND_THEN_A_VERB.find_iter(window).last().map_or(window, |later| &window[later.start()..])
}

/// Words before a verb of `CHANGE_VERB` or `MUTATING` that make it a noun or an adjective: `every empty file`,
/// `the set of`, `a clear list`, `its format`, `non-empty`.
static NOT_A_VERB_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)(?:\b(?:the|a|an|every|each|all|any|no|some|its|their|his|her|my|your|our|these|those|this|of|non)\s+|-)$",
    )
});

/// Nouns after `empty` that make it an adjective even with no article before it (`list empty files`).
static EMPTY_NOUN: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)^\s+(?:files?|lines?|folders?|directories|directory|dirs?|rows?|fields?|values?|entries|entry|cells?|strings?|ones?)\b",
    )
});

/// Whether `verbs` matches `text` as a verb: not after an article, a quantifier or a possessive (`every empty file`,
/// `the set of`), and `empty` not before a noun (`list empty files`).
fn used_as_verb(verbs: &Regex, text: &str) -> bool {
    verb_uses(verbs, text).next().is_some()
}

/// The matches of `verbs` in `text` that are verbs ([`used_as_verb`]), in order.
fn verb_uses<'t>(verbs: &'t Regex, text: &'t str) -> impl Iterator<Item = regex::Match<'t>> {
    verbs.find_iter(text).filter(|found| {
        let adjective = found.as_str().eq_ignore_ascii_case("empty") && EMPTY_NOUN.is_match(&text[found.end()..]);
        !adjective && !NOT_A_VERB_AFTER.is_match(&text[..found.start()])
    })
}

/// Whether the words before a file's name (`window`, [`change_window`]) ask for it to change: the last change verb
/// in them, unless it is denied (`do not fix the config app.conf, fix run.sh` asks for no change of app.conf).
fn asks_to_change(window: &str) -> bool {
    verb_uses(&CHANGE_VERB, window).last().is_some_and(|verb| !DENIED.is_match(&window[..verb.start()]))
}

/// A denial just before a verb: `do not fix`, `never edit`, `don't really change` (not `don't just delete it,
/// repair it`, which asks for more than the verb).
static DENIED: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)(?:\b(?:not|never|don't|dont|doesn't|won't|shouldn't|mustn't)|n't)\s+(?:(?:ever|really|actually|even)\s+)?$",
    )
});

/// The words before the file named at byte `at` of `masked` that may govern it: the six before it, from the clause
/// it is in. `Fix the script so it reads prices.json`: the clause after `so` reads prices.json, the fix is the
/// script's. A file right after the conjunction is the clause's subject (`fix the indentation so notes.yaml
/// parses`), still the fix's.
///
/// A program right after the conjunction is run, not repaired (`fix routes.json so ./ship.sh runs`): whether it may
/// change is for the goal's fix of programs to say (which heeds "don't edit ship.sh").
fn change_window(masked: &str, at: usize, program: bool) -> &str {
    // "Fix it and print the totals of sales.csv": the file is the later verb's.
    let window = after_a_later_verb(window_before(masked, at, 6));
    match SUBORDINATE.find_iter(window).last() {
        Some(conjunction) if program || !ARTICLE_ONLY.is_match(&window[conjunction.end()..]) => {
            &window[conjunction.end()..]
        }
        _ => window,
    }
}

/// Whether the clause a fix's conjunction opens before the file at byte `at` says the fixed program writes it:
/// `Fix the script so it writes totals.csv`, `… because it truncates out.txt`: a rerun of the fix rewrites it.
fn writes_in_its_clause(masked: &str, at: usize) -> bool {
    let window = window_before(masked, at, 6);
    SUBORDINATE.find_iter(window).last().is_some_and(|conjunction| {
        let clause = &window[conjunction.end()..];
        // Its direct object only: `so it updates totals.csv using prices.csv` writes no prices.csv.
        FIXING.is_match(&masked[..at])
            && WRITES.find_iter(clause).last().is_some_and(|verb| DIRECT_OBJECT.is_match(&clause[verb.end()..]))
    })
}

/// What may stand between a verb and its object's name: an article, `new`, `file`.
static DIRECT_OBJECT: LazyLock<Regex> = LazyLock::new(|| compile(r"(?i)^\s*(?:(?:the|a|an|its|their|new|file)\s+)*$"));

/// A verb saying a program writes a file.
static WRITES: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:writes?|rewrites?|builds?|rebuilds?|generates?|regenerates?|creates?|makes?|produces?|outputs?|updates?|fills?|saves?|truncates?|overwrites?|appends?|exports?)\b",
    )
});

/// `and`/`then` and a verb that only reads or reports: a clause of its own for what follows.
static AND_THEN_A_VERB: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\b(?:and|then)\s+(?:print|show|tell|count|list|report|display|output|sum|total|find|compute|calculate|check|read|use|run|compare|write|save|copy|send|grep|search|look)\b",
    )
});

/// A word that opens a clause of its own: `so (that)`, `because`, `until`, `when`, `which`, ….
static SUBORDINATE: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?i)\b(?:so(?:\s+that)?|because|since|until|unless|when|whenever|while|which|where)\b"));

/// Nothing but an article or `that` (or nothing at all).
static ARTICLE_ONLY: LazyLock<Regex> = LazyLock::new(|| compile(r"(?i)^\s*(?:(?:that|the|a|an|its)\s+)?$"));

fn ends_with_in(before: &str) -> bool {
    let trimmed = before.trim_end().to_ascii_lowercase();
    trimmed.ends_with(" in") || trimmed.ends_with(" of") || trimmed.ends_with(" from") || trimmed == "in"
}

/// The last `words` words of `text` before byte `at`.
fn window_before(text: &str, at: usize, words: usize) -> &str {
    let head = &text[..at];
    let mut count = 0;
    for (index, c) in head.char_indices().rev() {
        if c.is_whitespace() {
            count += 1;
            if count > words {
                return &head[index..];
            }
        }
    }
    head
}

/// The governor nearest the end of `text`.
fn nearest_governor(text: &str) -> Option<Governor> {
    last_governor(text, false)
}

/// The governor nearest the end of `text` that governs no "to"/"into" of its own: in `write its path, relative to
/// the top, to x.txt`, `relative` governs `to the top`, and `write` governs `to x.txt`.
fn unclaimed_governor(text: &str) -> Option<Governor> {
    last_governor(text, true)
}

/// The governor nearest the end of `text`; `unclaimed`: only one that has no "to"/"into" right after it.
fn last_governor(text: &str, unclaimed: bool) -> Option<Governor> {
    GOVERNORS
        .iter()
        .filter_map(|(re, governor)| {
            re.find_iter(text)
                .filter(|m| !(unclaimed && TO_NEXT.is_match(&text[m.end()..])))
                .last()
                .map(|m| (m.start(), *governor))
        })
        .max_by_key(|(at, _)| *at)
        .map(|(_, governor)| governor)
}

/// "to"/"into" right after a word (`relative to`, `next to`).
static TO_NEXT: LazyLock<Regex> = LazyLock::new(|| compile(r"(?i)^\s+(?:to|into)\b"));

/// The byte ranges of the sentences of `goal` (each with the mark that ends it).
pub(crate) fn sentences(goal: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for boundary in SENTENCE.find_iter(goal) {
        // A dot inside a name (`a.txt`) is no boundary: SENTENCE needs white space or the end after it.
        out.push((start, boundary.end()));
        start = boundary.end();
    }
    if start < goal.len() {
        out.push((start, goal.len()));
    }
    out
}

/// Quoted text (`'done'`, `"a to b"`): content the goal hands over, never its verbs.
static QUOTED: LazyLock<Regex> = LazyLock::new(|| compile(r#"(?:^|\s)(?:'([^'\n]*)'|"([^"\n]*)"|`([^`\n]*)`)"#));

/// `goal` with every file name and quoted text it holds blanked out (`_`, byte for byte, so offsets stay).
fn mask_files(goal: &str) -> String {
    let mut masked = goal.to_owned();
    for file in all_named_files(goal) {
        let blank = "_".repeat(file.len());
        masked = masked.replace(&file, &blank);
    }
    let mut bytes = masked.into_bytes();
    for capture in QUOTED.captures_iter(goal) {
        for inner in [capture.get(1), capture.get(2), capture.get(3)].into_iter().flatten() {
            for byte in &mut bytes[inner.start()..inner.end()] {
                // Multi-byte characters inside quotes are blanked byte by byte: still valid UTF-8.
                *byte = b'_';
            }
        }
    }
    // "debug logging", "debug mode": a noun's word, not the verb that changes a program.
    for found in DEBUG_NOUN.find_iter(goal) {
        for byte in &mut bytes[found.start()..found.start() + "debug".len()] {
            *byte = b'_';
        }
    }
    String::from_utf8(bytes).unwrap_or_else(|_| goal.to_owned())
}

/// `debug` before a noun it qualifies: `debug logging`, `debug mode`, `debug output`.
static DEBUG_NOUN: LazyLock<Regex> = LazyLock::new(|| {
    compile(
        r"(?i)\bdebug\s+(?:logging|logs?|mode|output|level|messages?|info|flags?|builds?|symbols|settings?|options?|prints?)\b",
    )
});

/// Whether `word` looks like a path: an extension with a letter, a `/`, or a settings dotfile ([`dotfile`]).
fn looks_like_path(word: &str) -> bool {
    if dotfile(word) {
        return true;
    }
    if word.contains('/') {
        return word.chars().any(|c| c.is_ascii_alphanumeric());
    }
    word.rsplit_once('.').is_some_and(|(stem, extension)| {
        !stem.is_empty()
            && !extension.is_empty()
            && extension.len() <= 8
            && extension.chars().all(|c| c.is_ascii_alphanumeric())
            && extension.chars().any(|c| c.is_ascii_alphabetic())
    })
}

/// Whether `word` is a pattern of names rather than a name: `report_DD-MM-YYYY.txt`, `IMG_NNNN.jpg`, a folder
/// `YYYY-MM` — a run of capitals standing for digits (Y, M, D, H, N, S, X, with a letter doubled). Such a word
/// says what names look like; it is never a file to read or to make.
pub(crate) fn placeholder(word: &str) -> bool {
    word.split(|c: char| !c.is_ascii_alphabetic()).any(|run| {
        run.len() >= 2
            && run.chars().all(|c| "YMDHNSX".contains(c))
            && run.as_bytes().windows(2).any(|pair| pair[0] == pair[1])
    })
}

/// Byte offset of `word` in `text` as a whole word (not inside a longer name).
fn find_word(text: &str, word: &str) -> Option<usize> {
    let part = |c: char| c.is_ascii_alphanumeric() || "_-./".contains(c);
    text.match_indices(word).map(|(at, _)| at).find(|&at| {
        !text[..at].chars().next_back().is_some_and(part)
            && !text[at + word.len()..].chars().next().is_some_and(|c| part(c) && c != '.')
    })
}

/// Whether two names are the same file (`./a.txt` and `a.txt`).
pub(crate) fn same_file(a: &str, b: &str) -> bool {
    let clean = |s: &str| s.trim_start_matches("./").trim_end_matches('/').to_owned();
    clean(a) == clean(b)
}

fn push(list: &mut Vec<String>, file: &str) {
    if !list.iter().any(|f| same_file(f, file)) {
        list.push(file.to_owned());
    }
}

/// The settings files people keep under a dot and no extension: `.env`, `.bashrc`, `./.gitignore`. Only these: a
/// word like `.jpg` or `.log` in a goal is an extension, not a file.
fn dotfile(word: &str) -> bool {
    const NAMES: &[&str] = &[
        "env",
        "profile",
        "bashrc",
        "bash_profile",
        "bash_aliases",
        "zshrc",
        "zprofile",
        "vimrc",
        "inputrc",
        "netrc",
        "gitignore",
        "gitconfig",
        "gitattributes",
        "dockerignore",
        "npmrc",
        "yarnrc",
        "editorconfig",
        "htaccess",
        "pgpass",
        "my.cnf",
        "curlrc",
        "wgetrc",
        "screenrc",
        "nanorc",
        "prettierrc",
        "eslintrc",
        "flake8",
        "pylintrc",
    ];
    let name = word.rsplit('/').next().unwrap_or(word);
    let plain = word.chars().all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c));
    plain && name.strip_prefix('.').is_some_and(|rest| NAMES.contains(&rest))
}

/// Every name in `goal` that looks like a file (`parcels.csv`, `var/tidy.log`, `./tidy.sh`): a word with an
/// extension, without the punctuation around it.
pub fn all_named_files(goal: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for word in goal.split_whitespace() {
        let around = |c: char| "\"'`,;:()[]{}<>!?".contains(c);
        let word = word.trim_start_matches(around).trim_end_matches(|c: char| around(c) || c == '.');
        if dotfile(word) && !names.iter().any(|n| n == word) {
            names.push(word.to_owned());
            continue;
        }
        let Some((stem, extension)) = word.rsplit_once('.') else { continue };
        let plain = |c: char| c.is_ascii_alphanumeric() || "._-/~".contains(c);
        if stem.trim_start_matches("./").is_empty()
            || stem.ends_with('/')
            || extension.is_empty()
            || !extension.chars().all(|c| c.is_ascii_alphanumeric())
            || !extension.chars().any(|c| c.is_ascii_alphabetic())
            || !word.chars().all(plain)
            || word.starts_with('-')
            || placeholder(word)
            || names.iter().any(|n| n == word)
        {
            continue;
        }
        names.push(word.to_owned());
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_pattern_compiles() {
        assert!(!GOVERNORS.is_empty());
        for re in [
            &*TO_PATH,
            &*NAMED,
            &*SAVE_AS,
            &*MAKES_FILE,
            &*MAKES_FROM,
            &*FINAL_IN,
            &*MID_IN,
            &*LISTS,
            &*CHANGE_VERB,
            &*MUTATING,
            &*NOT_A_VERB_AFTER,
            &*TO_NEXT,
            &*EMPTY_NOUN,
            &*SENTENCE,
            &*QUOTED,
            &*IN_PLACE,
            &*FIXING,
            &*FIX_REQUEST,
            &*UNPACKS,
            &*CONFIG_NAME,
            &*EDITED,
            &*SHOWS,
            &*RESULT_NAME,
            &*CHANGES_IT,
            &*COPY_OVER,
            &*IN_FILE_THEN_CHANGE,
            &*USES_PROGRAM,
        ] {
            assert!(!re.as_str().is_empty());
        }
    }

    fn spec(goal: &str) -> GoalSpec {
        GoalSpec::parse(goal)
    }

    #[test]
    fn comparisons_only_read() {
        for goal in [
            "Compare a.txt to b.txt and show the differences",
            "Compare a.txt with b.txt",
            "Is a.txt the same as b.txt?",
            "Does a.txt match b.txt?",
            "Check whether a.txt is identical to b.txt.",
            "a.txt differs from the copy in b.txt; show how.",
            "Show how a.txt differs from b.txt",
            "diff a.txt against b.txt",
            "Tell me if a.txt is equal to b.txt",
            "What changed between a.txt and b.txt?",
            "Which lines of a.txt are missing in b.txt?",
            "Are a.txt and b.txt different?",
            "How does a.txt compare to b.txt?",
        ] {
            let spec = spec(goal);
            assert!(spec.writes.is_empty() && spec.changes.is_empty(), "{goal}: {spec:?}");
            assert_eq!(spec.reads, ["a.txt", "b.txt"], "{goal}");
            assert!(!spec.may_change_existing("b.txt") && !spec.may_change_existing("a.txt"), "{goal}");
        }
    }

    #[test]
    fn writing_verbs_make_their_destination() {
        let s = spec("Compare a.txt to b.txt and write the differences to diff.txt.");
        assert_eq!(
            (s.writes.as_slice(), s.reads.as_slice()),
            (&["diff.txt".to_owned()][..], &["a.txt".to_owned(), "b.txt".to_owned()][..])
        );
        let s = spec("Copy config.json to backup/config.json.");
        assert_eq!(s.writes, ["backup/config.json"]);
        assert_eq!(s.reads, ["config.json"]);
        let s = spec("Turn data.csv into data.json");
        assert_eq!(s.writes, ["data.json"]);
        assert_eq!(s.reads, ["data.csv"]);
        let s = spec("Count the words of essay.md and save only the number to words.out.");
        assert_eq!(s.writes, ["words.out"]);
        assert_eq!(s.reads, ["essay.md"]);
        let s = spec("Write the differences between a.txt and b.txt to d.txt");
        assert_eq!(s.writes, ["d.txt"]);
        assert!(s.mutates);
        let s = spec("Remove the duplicate lines from names.txt and write the rest to unique.txt.");
        assert_eq!((&s.writes, &s.reads), (&vec!["unique.txt".to_owned()], &vec!["names.txt".to_owned()]));
        let s = spec("Create a directory named build.");
        assert_eq!(s.writes, ["build"]);
    }

    #[test]
    fn changes_in_place_are_changes() {
        let s = spec("Append a.txt to b.txt");
        assert_eq!((&s.changes, &s.reads), (&vec!["b.txt".to_owned()], &vec!["a.txt".to_owned()]));
        let s = spec("Add a line to notes.md saying 'done'.");
        assert_eq!(s.changes, ["notes.md"]);
        let s = spec("Fix run.sh so that it prints hello.");
        assert_eq!(s.changes, ["run.sh"]);
        assert!(s.may_change_existing("run.sh"));
        let s = spec("Replace every tab with a space in data.tsv.");
        assert_eq!(s.changes, ["data.tsv"]);
        assert!(s.guessed.is_empty(), "{s:?}");
        let s = spec("Rename old.txt to new.txt");
        assert_eq!((&s.writes, &s.changes), (&vec!["new.txt".to_owned()], &vec!["old.txt".to_owned()]));
        let s = spec("Sort notes.txt in place and write its line count to count.txt.");
        assert_eq!((&s.changes, &s.writes), (&vec!["notes.txt".to_owned()], &vec!["count.txt".to_owned()]));
        let s = spec("Sort the lines of guests.txt alphabetically, in place.");
        assert_eq!(s.changes, ["guests.txt"]);
        let s = spec("Merge a.txt into b.txt in place.");
        assert_eq!(s.changes, ["b.txt"], "only the nearest file before it");
        // Said not to change: only read, though a goal to fix makes the programs it names changeable.
        let s = spec("Run ./pack.sh. Fix whatever it complains about (not the script itself) until it succeeds.");
        assert!(s.changes.is_empty() && s.only_reads("pack.sh"), "{s:?}");
        let s = spec("Run python3 tidy.py; fix what it complains about, without editing tidy.py, until it works.");
        assert!(!s.may_change_existing("tidy.py") && s.mutates, "{s:?}");
        let s = spec("Run ./lint.sh and fix lint.sh's warnings; do not modify ./lint.sh's exit codes.");
        assert!(s.may_change_existing("lint.sh"), "asked to fix it: {s:?}");
        let s = spec("tally.py raises a KeyError. Repair the bug, run it and save its output to out.txt.");
        assert_eq!((&s.changes, &s.writes), (&vec!["tally.py".to_owned()], &vec!["out.txt".to_owned()]));
        let s = spec("In theme.json, set colors.bg to black and keep the rest as it is.");
        assert_eq!(s.changes[0], "theme.json", "{s:?}");
        assert!(s.may_change_existing("theme.json"));
        let s = spec("Set the port in app.ini to 8080.");
        assert_eq!(s.changes, ["app.ini"]);
        // A file made from another: written, the other read.
        let s = spec("Make active.csv from users.json: a header line and one line per active user.");
        assert_eq!((&s.writes, &s.reads), (&vec!["active.csv".to_owned()], &vec!["users.json".to_owned()]), "{s:?}");
        let s = spec("Build index.md out of the notes in notes/.");
        assert_eq!(s.writes, ["index.md"], "{s:?}");
        assert!(spec("Make run.sh executable.").writes.is_empty());
        // "debug" before a noun is no verb: the program run is not changed.
        let s = spec("Run ./setup.sh and answer its questions; we don't want debug logging.");
        assert!(s.changes.is_empty(), "{s:?}");
        assert_eq!(spec("Debug tally.py: it crashes on empty lines.").changes, ["tally.py"]);
        // Verbs of a value's size change the file that holds it.
        for goal in [
            "In limits.conf, raise the open-files limit from 1024 to 4096. Leave the rest alone.",
            "In pool.ini, lower max_workers to 2.",
            "Reduce the retry count in agent.toml to 1.",
            "Double the cache size in cache.cfg.",
        ] {
            let s = spec(goal);
            assert_eq!(s.changes.len(), 1, "{goal}: {s:?}");
            assert!(s.mutates && s.may_change_existing(&s.changes[0]), "{goal}: {s:?}");
        }
        let s = spec("List the chapters that quote Keats, one per line, in found.txt.");
        assert!(s.mutates, "a goal that names where its result goes changes something");
        let s = spec("Delete tmp.log");
        assert_eq!(s.changes, ["tmp.log"]);
    }

    #[test]
    fn a_file_a_fix_only_mentions_is_read() {
        // A denied change verb asks for no change; the next clause's does.
        let s = spec("Do not fix the config file backup.conf, fix ./rotate.sh instead.");
        assert!(s.only_reads("backup.conf") && s.may_change_existing("rotate.sh"), "{s:?}");
        let s = spec("Never edit ledger.csv; update totals.csv from it.");
        assert!(s.only_reads("ledger.csv") && s.changes == ["totals.csv"], "{s:?}");
        // A file read by the clause after the fix's conjunction is not the fix's.
        for goal in [
            "Fix the script so it reads rates.json instead of rates.txt.",
            "Repair the importer because it chokes on feed.xml.",
            "Fix ./sync.sh, which copies photos.db.",
        ] {
            let s = spec(goal);
            let inputs: Vec<String> = all_named_files(goal).into_iter().filter(|f| !is_program(f)).collect();
            assert!(inputs.iter().all(|f| s.only_reads(f)), "{goal}: {s:?}");
        }
        // What the fixed program writes may change: its rerun rewrites it.
        let s = spec("Fix the script so it writes summary.csv correctly.");
        assert!(s.may_change_existing("summary.csv") && !s.only_reads("summary.csv"), "{s:?}");
        // "Don't just …" asks for more than the verb.
        let s = spec("Don't just delete broken.yaml, repair it.");
        assert!(s.may_change_existing("broken.yaml"), "{s:?}");
        // "Help me get it working" asks; a statement about getting it working does not.
        let s = spec("sync.sh fails on start. Help me get it working.");
        assert!(s.may_change_existing("sync.sh") && !s.only_reads("sync.sh"), "{s:?}");
        // Only the written file's name: what it is written from, or told to stay, is read.
        let s = spec("Fix merge.py so it updates totals.csv using prices.csv; prices.csv is read-only.");
        assert!(s.only_reads("prices.csv") && !s.only_reads("totals.csv"), "{s:?}");
        let s = spec("Fix gen.py so it builds report.html from notes.md. Don't edit notes.md.");
        assert!(s.only_reads("notes.md"), "{s:?}");
        // A file after a later verb is that verb's.
        let s = spec("tally.py crashes. Fix it and print the totals of sales.csv.");
        assert!(s.only_reads("sales.csv") && s.changes == ["tally.py"], "{s:?}");
        // A statement about getting it working is no request to fix.
        let s = spec("Summarise errors.log in summary.txt. My colleague will get it working tomorrow.");
        assert!(s.only_reads("errors.log"), "{s:?}");
        // A program right after it is run; told not to edit it, the fix leaves it.
        let s = spec("Fix routes.json so ./ship.sh runs; don't edit ship.sh.");
        assert!(s.changes == ["routes.json"] && s.only_reads("ship.sh"), "{s:?}");
        let s = spec("Fix the bug so tally.py prints the total.");
        assert_eq!(s.changes, ["tally.py"], "the goal's fix of programs: {s:?}");
        // A file right after the conjunction is what the fix is for.
        let s = spec("Fix the indentation so recipes.yaml parses.");
        assert_eq!(s.changes, ["recipes.yaml"], "{s:?}");
        let s = spec("Correct the quoting so that the tags.toml loads.");
        assert_eq!(s.changes, ["tags.toml"], "{s:?}");
    }

    #[test]
    fn a_fix_of_the_file_an_earlier_sentence_names_changes_it() {
        for (goal, file) in [
            ("ledger.py stopped adding up. Can you get it working again?", "ledger.py"),
            ("My loader quotes.py fails on Mondays. Please make it work.", "quotes.py"),
            ("notes.yaml no longer parses. Fix it so that it does.", "notes.yaml"),
            (
                "The file deploy/hosts.toml has a syntax error. Please repair the file so that it loads.",
                "deploy/hosts.toml",
            ),
            ("Look at menu.xml: a tag is never closed. Fix the file and keep the rest as it is.", "menu.xml"),
            ("palette.json is not valid JSON any more; correct it.", "palette.json"),
            ("theme.ini fails to load. Fix it, then write the number of sections to n.txt.", "theme.ini"),
        ] {
            let s = spec(goal);
            assert_eq!(s.changes, [file], "{goal}: {s:?}");
            assert!(s.may_change_existing(file) && !s.only_reads(file), "{goal}: {s:?}");
        }
        let s = spec("theme.ini fails to load. Fix it, then write the number of sections to n.txt.");
        assert_eq!(s.writes, ["n.txt"]);
        for goal in [
            "totals.csv sums each row. Check that the sums are correct.",
            "Read notes.yaml. Is the indentation correct?",
            "Compare a.txt with b.txt. Then fix c.md so that it says the same.",
        ] {
            let s = spec(goal);
            assert!(
                !s.changes.iter().any(|f| f == "totals.csv" || f == "notes.yaml" || f == "a.txt" || f == "b.txt"),
                "{goal}: {s:?}"
            );
        }
    }

    #[test]
    fn a_change_of_it_is_a_change_of_the_file_an_earlier_sentence_names() {
        let s =
            spec("roster.txt came off the old export. Re-encode it as UTF-8 and strip the blank lines from its rows.");
        assert_eq!(s.changes, ["roster.txt"], "{s:?}");
        let s = spec("hymns.csv has stray quotes. Clean up the file and keep its order.");
        assert_eq!(s.changes, ["hymns.csv"], "{s:?}");
        // A transformation into another file leaves its source read; so does a sort or a count of it, a denial, a
        // question, a result shown, values ("convert them"), a statement.
        for goal in [
            "report.md is the source of truth. Don't change it; just print the total.",
            "report.md is the source of truth. Do not modify it. Print the total.",
            "Read report.md. You never need to update it.",
            "report.md is the draft. Don't convert it; print it.",
            "report.md sets port 80. What should I change it to so it runs without root?",
            "report.md holds Fahrenheit readings. Convert them to Celsius and print the average.",
            "report.md is huge. Trim it to the last 100 lines and show me.",
            "report.md is the draft. Convert it into report.html.",
            "report.md is the draft. Sort it and print the first line.",
            "report.md is the draft. Count them.",
        ] {
            let s = spec(goal);
            assert!(s.only_reads("report.md"), "{goal}: {s:?}");
        }
    }

    #[test]
    fn the_config_in_a_data_format_is_one_the_user_edited_not_a_reference() {
        for goal in [
            "expected.json holds the right answers. Fix the config so test.sh passes.",
            "schema.json defines the format. Fix the config so load.py validates.",
            "I exported the catalogue to catalogue.json by hand. Fix the config so import.sh accepts it.",
            "The errors are listed in config-errors.json. Fix the config so deploy.sh runs.",
            "Sort out the CSV and print the first five rows of sales.csv.",
        ] {
            let s = spec(goal);
            assert!(s.changes.is_empty() || s.changes.iter().all(|c| is_program(c)), "{goal}: {s:?}");
        }
    }

    #[test]
    fn a_file_copied_over_another_changes_that_one() {
        let s = spec("Copy staging.conf over live.conf, then print live.conf.");
        assert!(s.changes.iter().any(|c| c == "live.conf"), "{s:?}");
        assert!(s.may_change_existing("live.conf") && s.only_reads("staging.conf"), "{s:?}");
        let s = spec("Move the file draft.txt on top of final.txt.");
        assert!(s.may_change_existing("final.txt"), "{s:?}");
        // Leave it, and it stays.
        let s = spec("Copy staging.conf over live.conf? No: leave live.conf alone and print both.");
        assert!(!s.changes.iter().any(|c| c == "live.conf"), "{s:?}");
        for goal in [
            "Do not copy staging.conf over live.conf; just show the differences.",
            "Should I copy staging.conf over live.conf? Show me the diff first.",
        ] {
            let s = spec(goal);
            assert!(!s.changes.iter().any(|c| c == "live.conf"), "{goal}: {s:?}");
        }
    }

    #[test]
    fn save_it_as_a_name_is_where_the_result_goes() {
        for (goal, file) in [
            ("Run ./wizard.sh, answer json to the format question and save it as settings.json.", "settings.json"),
            ("Gather the totals and store the result as out/totals.csv.", "out/totals.csv"),
            ("Merge the lists; write them out as all.txt", "all.txt"),
        ] {
            let s = spec(goal);
            assert!(s.writes.iter().any(|w| w == file), "{goal}: {s:?}");
        }
        for goal in [
            "Save it as JSON, please.",
            "Keep it as data.csv; print the sum of column 2.",
            "Write them as e.g. 2024-01-05, one per line.",
        ] {
            assert!(!spec(goal).writes.iter().any(|w| w != "report"), "{goal}: {:?}", spec(goal));
        }
    }

    #[test]
    fn the_file_a_fix_request_places_the_fault_in_is_changed() {
        for (goal, file) in [
            ("make.sh stopped working; the problem is in targets.list. Please fix it.", "targets.list"),
            ("Fix the build - I think the typo is somewhere in src/paths.mk.", "src/paths.mk"),
        ] {
            let s = spec(goal);
            assert!(s.changes.iter().any(|c| c == file), "{goal}: {s:?}");
        }
        // A file called faulty, in a goal to get a program working: the one to change, the rest protected.
        for (goal, file, kept) in [
            (
                "./brew.sh fails. Make it run. Only kettle.ini is wrong; brew.sh and beans.txt are fine, leave them.",
                "kettle.ini",
                "brew.sh",
            ),
            ("Get ./plot.py working again; lines.yaml has a typo, don't touch plot.py.", "lines.yaml", "plot.py"),
            ("Fix it so ./mill runs: the culprit is grain.toml (sacks.csv is correct).", "grain.toml", "sacks.csv"),
        ] {
            let s = spec(goal);
            assert!(s.changes.iter().any(|c| c == file) && s.only_reads(kept), "{goal}: {s:?}");
        }
        // No fix asked, a fault denied, a fix of something else, a log: the file is only read.
        for (goal, file) in [
            ("kettle.ini is wrong somehow; tell me which line.", "kettle.ini"),
            ("./brew.sh fails. Make it run; it is not that kettle.ini is wrong, fix brew.sh.", "kettle.ini"),
            ("The problem is in targets.list; tell me which line is wrong.", "targets.list"),
            ("The error is in app.log; please fix parse.py.", "app.log"),
            ("The issue is in data.csv, but fix reader.py so it copes with it.", "data.csv"),
        ] {
            assert!(spec(goal).only_reads(file), "{goal}: {:?}", spec(goal));
        }
    }

    #[test]
    fn a_path_shown_to_illustrate_a_move_is_no_input_only_read() {
        for (goal, shown) in [
            (
                "Move each scan into a folder of its year, so scans/2021-05-03.pdf ends up as 2021/2021-05-03.pdf.",
                "scans/2021-05-03.pdf",
            ),
            ("Move the .wav files into audio/ (e.g. take1.wav becomes audio/take1.wav).", "take1.wav"),
            ("Rename the drafts to their titles, e.g. drafts/d1.md -> drafts/intro.md and so on.", "drafts/d1.md"),
        ] {
            let s = spec(goal);
            assert!(!s.only_reads(shown), "{goal}: {s:?}");
            assert!(s.may_change_existing(shown), "{goal}: {s:?}");
        }
        // An input stays one: nothing is moved, or it is copied, or no word introduces an illustration.
        for (goal, file) in [
            ("Count the lines of rules.txt, so that the count ends up in n.txt.", "rules.txt"),
            ("Convert prices.csv -> prices.json.", "prices.csv"),
            ("Copy the reports into archive/, so reports/q1.txt ends up as archive/q1.txt.", "reports/q1.txt"),
        ] {
            assert!(spec(goal).only_reads(file), "{goal}: {:?}", spec(goal));
        }
    }

    #[test]
    fn a_fix_of_the_file_of_a_kind_changes_the_one_of_that_kind_the_goal_names() {
        for (goal, file) in [
            ("sync.sh refuses mirror.cfg at start-up. Fix the config file (not the script) so it runs.", "mirror.cfg"),
            ("Please repair the YAML: deploy.sh cannot read stages.yml.", "stages.yml"),
            ("report.py chokes on sales.csv and writes nothing to out.txt; correct the CSV.", "sales.csv"),
            ("The printer daemon chokes on spool.ini. Can you sort out the config so it prints?", "spool.ini"),
            (
                "The loom stalls since I touched loom-settings.json. Fix the config so it runs and writes pattern.txt.",
                "loom-settings.json",
            ),
            ("Straighten out the settings: app.prefs.xml has a tag left open.", "app.prefs.xml"),
            (
                "I tweaked lamp.xml by hand and now glow.sh crashes. Please fix the config (not the script) so it lights up again and writes status.txt.",
                "lamp.xml",
            ),
        ] {
            let s = spec(goal);
            assert!(s.changes.iter().any(|c| c == file), "{goal}: {s:?}");
            assert!(s.may_change_existing(file), "{goal}: {s:?}");
        }
        // Two of the kind, a negated request, a kind the goal names no file of, a request to leave it: no change.
        for (goal, file) in [
            ("run.sh reads both app.ini and db.ini, fix the config file that is wrong.", "app.ini"),
            ("Don't fix the config file: run.sh is what breaks on app.conf.", "app.conf"),
            ("Fix the config so that the tool works; notes.txt says how.", "notes.txt"),
            ("Fix the JSON so load.py works; leave prices.json alone.", "prices.json"),
            ("Fix the config parser in load.py so that it can read app.conf.", "app.conf"),
            ("Change the CSV separator to tabs: convert data.csv into data.tsv.", "data.csv"),
            ("Fix the config so deploy.sh stops failing; its error is logged in errors.json.", "errors.json"),
            ("deploy.sh wrote errors.json. Fix the config so deploy.sh stops failing.", "errors.json"),
            ("Do not edit or fix the config file; make deploy.sh accept app.conf as it is.", "app.conf"),
        ] {
            let s = spec(goal);
            assert!(!s.changes.iter().any(|c| c == file), "{goal}: {s:?}");
        }
    }

    #[test]
    fn a_file_a_verb_makes_by_name_is_written() {
        for (goal, file) in [
            (
                "beans.csv has repeats. Write beans_once.csv with the header and the first row of each.",
                "beans_once.csv",
            ),
            ("Create a new file notes.md listing the chapter titles.", "notes.md"),
            ("Create `sizes.txt`: one line per photo.", "sizes.txt"),
        ] {
            let s = spec(goal);
            assert!(s.writes.iter().any(|w| w == file), "{goal}: {s:?}");
        }
        for (goal, file) in [
            ("Write notes.txt's first line to head.txt.", "notes.txt"),
            ("Don't create out.csv; just print the rows.", "out.csv"),
            ("Write beans.csv to the printer queue dir/.", "beans.csv"),
        ] {
            let s = spec(goal);
            assert!(!s.writes.iter().any(|w| w == file), "{goal}: {s:?}");
        }
    }

    #[test]
    fn an_edit_of_a_file_that_exists_changes_it() {
        for (goal, file) in [
            ("In .profile, switch EDITOR to nano. Nothing else in the file should change.", ".profile"),
            ("Toggle dark_mode in prefs.toml; leave the rest alone.", "prefs.toml"),
            ("Fix lamp.ini so `python3 lint.py lamp.ini` says OK; keep its comments.", "lamp.ini"),
        ] {
            let s = spec(goal);
            assert!(s.changes.iter().any(|c| c == file), "{goal}: {s:?}");
        }
    }

    #[test]
    fn unpacking_an_archive_changes_things_even_in_a_question() {
        for goal in [
            "Extract site.tar.gz, then tell me how many .html files it holds.",
            "Unpack the archive bundle.zip here. How many images are in it?",
            "extract everything from photos.tgz and say how many files there are",
            "Recover the photos from pics-2019.zip into a new folder album/.",
        ] {
            assert!(spec(goal).mutates, "{goal}");
        }
        let s = spec("Restore the recipes from cookbook.tar.xz into a new directory kitchen/. Keep the archive.");
        assert!(s.mutates && s.destinations() == ["kitchen/"] && s.only_reads("cookbook.tar.xz"), "{s:?}");
        assert!(!spec("Extract the e-mail addresses from inbox.txt and tell me how many there are.").mutates);
    }

    #[test]
    fn a_guessed_destination_never_overwrites() {
        let s = spec("List the chapters under book/ that quote Keats, one path per line, in found.txt.");
        assert_eq!(s.destinations(), ["found.txt"]);
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(s.required_writes(dir.path()), ["found.txt"]);
        std::fs::write(dir.path().join("found.txt"), "x").unwrap();
        assert!(s.required_writes(dir.path()).is_empty());
        assert!(!s.may_change_existing("found.txt"));
    }

    #[test]
    fn a_pattern_of_names_is_no_file() {
        for word in ["report_DD-MM-YYYY.txt", "IMG_NNNN.jpg", "YYYY-MM", "backup-YYYYMMDD.tar.gz", "log-XX.txt"] {
            assert!(placeholder(word), "{word}");
        }
        for word in ["README.md", "DNS.txt", "SHA256SUMS", "notes-2024.txt", "a.txt", "MISSING.md"] {
            assert!(!placeholder(word), "{word}");
        }
        let s = spec("Move each scan into a folder named YYYY-MM after its date, like scan_YYYY-MM-DD.png.");
        assert!(s.writes.is_empty() && s.guessed.is_empty() && s.reads.is_empty(), "{s:?}");
        let s = spec("Files in inbox/ are named note-DD.txt. Write the newest one's name to latest.txt.");
        assert_eq!(s.destinations(), ["latest.txt"]);
        assert!(s.reads.is_empty(), "{s:?}");
    }

    #[test]
    fn a_phrase_with_its_own_to_does_not_govern_a_later_one() {
        for goal in [
            "Save the newest log's path, relative to the home folder (like logs/a.log), to newest.txt.",
            "Write each host's name, next to its address, according to the inventory, to hosts.txt.",
        ] {
            let s = spec(goal);
            assert_eq!(s.writes, [s.destinations().last().unwrap().clone()], "{goal}: {s:?}");
            assert_eq!(s.destinations().len(), 1, "{goal}: {s:?}");
        }
        // A comparison's own "to" still reads.
        let s = spec("Compare the sizes of a.bin and b.bin relative to c.bin.");
        assert!(s.destinations().is_empty(), "{s:?}");
    }

    #[test]
    fn a_change_verb_used_as_a_noun_or_an_adjective_changes_nothing() {
        for (goal, made) in [
            ("List each empty folder (no entries) under media/ in hollow.txt, one per line.", "hollow.txt"),
            ("Write the names of all empty files in inbox/ to blank.txt.", "blank.txt"),
            ("Put the set of distinct hosts in hosts.log into hosts.txt, sorted.", "hosts.txt"),
        ] {
            let s = spec(goal);
            assert_eq!(s.destinations(), [made], "{goal}: {s:?}");
            assert!(s.changes.is_empty(), "{goal}: {s:?}");
        }
        for goal in [
            "How many empty lines are in poem.md?",
            "How many non-empty lines does poem.md have?",
            "How long is the format section of style.md, in lines?",
            "Print each change in the log of changes.md.",
        ] {
            let s = spec(goal);
            assert!(s.changes.is_empty() && !s.mutates, "{goal}: {s:?}");
        }
        // The verb itself still changes what it names.
        assert_eq!(spec("Empty the file trash.log.").changes, ["trash.log"]);
        assert_eq!(spec("Remove the empty lines in poem.md.").changes, ["poem.md"]);
        assert_eq!(spec("Clear old entries in cache.db.").changes, ["cache.db"]);
        assert_eq!(spec("Only change the port in app.ini.").changes, ["app.ini"]);
    }

    #[test]
    fn a_file_after_in_and_before_a_comma_is_where_a_list_goes() {
        let s = spec("List every image under photos/ in images.txt, one path per line, sorted.");
        assert_eq!(s.destinations(), ["images.txt"]);
        let p = spec("List each large image (over 2 MB) under photos/ in big.txt, one path per line like photos/a/b.");
        assert_eq!(p.destinations(), ["big.txt"], "{p:?}");
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(s.required_writes(dir.path()), ["images.txt"]);
        // "List the users in users.txt, sorted" reads it: a guess that finds the file there keeps it as it is.
        std::fs::write(dir.path().join("images.txt"), "x").unwrap();
        assert!(s.required_writes(dir.path()).is_empty() && !s.may_change_existing("images.txt"));
        // Read where nothing is made, or the sentence names where the result goes.
        for goal in [
            "How many lines in notes.txt, counting blanks?",
            "Count the lines in notes.txt, then write the number to n.txt.",
            "Replace tabs with spaces in notes.txt, keeping the rest.",
            "Count the lines in notes.txt, ignoring blanks.",
        ] {
            assert!(!spec(goal).guessed.contains(&"notes.txt".to_owned()), "{goal}: {:?}", spec(goal));
        }
    }

    #[test]
    fn an_existing_file_after_a_verbless_to_is_asked_about() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("errors.txt"), "old\n").unwrap();
        std::fs::write(dir.path().join("app.log"), "x\n").unwrap();
        let unclear = |goal: &str| spec(goal).unclear_overwrite(goal, dir.path());
        assert_eq!(unclear("The ERROR lines of app.log to errors.txt."), Some("errors.txt".into()));
        assert_eq!(unclear("The ERROR lines of app.log to new.txt."), None, "a new file is simply made");
        assert_eq!(unclear("Write the ERROR lines of app.log to errors.txt."), None, "said: overwrite");
        assert_eq!(unclear("Append the ERROR lines of app.log to errors.txt."), None, "said: append");
        assert_eq!(unclear("Compare app.log to errors.txt."), None, "read");
        assert_eq!(unclear("Count the ERROR lines in app.log."), None, "an input at the end is no question");
    }

    #[test]
    fn reading_goals_change_nothing_they_do_not_name() {
        let s = spec("How many lines does essay.md have?");
        assert!(!s.mutates);
        assert!(!s.may_change_existing("other.txt"));
        let s = spec("In songs/, rename every .aif file to .aiff.");
        assert!(s.mutates);
        assert!(s.may_change_existing("songs/a.aif"));
        assert!(!spec("According to door.log, how many badges were used?").mutates);
    }

    #[test]
    fn a_thing_of_any_kind_named_after_into_is_made() {
        for (goal, made) in [
            ("Bundle the .svg icons under art/ into a compressed zip named icons.zip in this folder.", "icons.zip"),
            ("Pack the photos into a tar archive called shots.tar, please.", "shots.tar"),
            ("Put the three reports into a single merged PDF named all.pdf.", "all.pdf"),
        ] {
            let s = spec(goal);
            assert!(s.mutates && s.writes.contains(&made.to_owned()), "{goal}: {s:?}");
        }
        // A name after "into" with no thing before it is read as before.
        assert_eq!(spec("Pack the photos into shots.tar.").destinations(), ["shots.tar"]);
        // Someone or something named, not a file: nothing to make.
        for goal in [
            "Send a short greeting to a user named alice.",
            "Assign the ticket to a developer called Sam.",
            "How many messages were sent to a user named root?",
            "Print the lines of a.txt that belong to a customer named acme.",
        ] {
            let s = spec(goal);
            assert!(s.writes.is_empty() && s.guessed.is_empty(), "{goal}: {s:?}");
        }
        assert!(!spec("How many messages were sent to a user named root?").mutates);
    }

    #[test]
    fn a_program_the_goal_uses_may_change_what_it_likes() {
        for goal in [
            "Use ./enrol.sh to register Ada Byrne as a member.",
            "Using tidy.py, clean up the notes folder.",
            "Invoke bin/rotate.sh so that the logs are rotated.",
            "Please use the script ./seed-db to load the demo data.",
            "A parcel came for flat 4 - book it in with ./intake.sh please.",
            "Log the visitor via ./visitors, they arrived at noon.",
            "Use the ./till menu to void receipt 88, then exit it.",
            "Refund order 12 with the ./orders tool.",
        ] {
            let s = spec(goal);
            assert!(s.mutates, "{goal}: {s:?}");
            assert!(s.may_change_existing("members/index.txt"), "{goal}: {s:?}");
        }
        // The program itself is still only read, and a tool or a data file to use runs nothing.
        assert!(!spec("Use ./enrol.sh to add a member called Ada Byrne.").may_change_existing("./enrol.sh"));
        for goal in [
            "Use awk to tell me how many lines of fees.csv are over 100.",
            "Using prices.csv, what is the dearest item?",
            "How much disk space does ./cache use?",
            "Compare notes.py with backup/notes.py and tell me which is newer.",
            "Search through ./logs and tell me how many lines say ERROR.",
            "Compare out.txt with ./expected.txt and say whether they differ.",
            "Using the report.py docstring, explain what it does.",
        ] {
            assert!(!spec(goal).mutates, "{goal}");
        }
    }

    fn file_name() -> impl Strategy<Value = String> {
        ("[a-z][a-z0-9_]{0,7}", prop::sample::select(vec!["txt", "csv", "log", "json", "md", "conf"]))
            .prop_map(|(stem, ext)| format!("{stem}.{ext}"))
    }

    proptest! {
        #[test]
        fn a_comparison_never_names_a_destination(
            x in file_name(),
            y in file_name(),
            phrasing in prop::sample::select(vec![
                "Compare {x} to {y}",
                "Compare {x} to {y} and show the differences.",
                "compare {x} with {y}",
                "Is {x} the same as {y}?",
                "is {x} identical to {y}",
                "Does {x} match {y}?",
                "{x} differs from the copy in {y}.",
                "Check if {x} differs from {y}",
                "Show what differs between {x} and {y}.",
                "Is {x} equal to {y}?",
                "Diff {x} against {y}.",
                "Tell me how {x} compares to {y}.",
                "Are {x} and {y} the same?",
                "Print the lines of {x} that are not in {y}.",
            ]),
        ) {
            prop_assume!(x != y);
            let goal = phrasing.replace("{x}", &x).replace("{y}", &y);
            let spec = GoalSpec::parse(&goal);
            prop_assert!(spec.writes.is_empty() && spec.changes.is_empty(), "{goal}: {spec:?}");
            prop_assert!(!spec.may_change_existing(&x) && !spec.may_change_existing(&y), "{goal}: {spec:?}");
        }

        #[test]
        fn what_is_copied_from_is_read_and_what_is_copied_to_is_written(
            x in file_name(),
            y in file_name(),
            phrasing in prop::sample::select(vec![
                ("Copy {x} to {y}.", "w"),
                ("copy {x} into {y}", "w"),
                ("Turn {x} into {y}.", "w"),
                ("Convert {x} to {y}", "w"),
                ("Save the first 3 lines of {x} to {y}.", "w"),
                ("Write the number of lines in {x} to {y}.", "w"),
                ("Append {x} to {y}.", "c"),
                ("Add the lines of {x} to {y}", "c"),
                ("Append the contents of {x} to the end of {y}.", "c"),
            ]),
        ) {
            prop_assume!(x != y);
            let (template, kind) = phrasing;
            let goal = template.replace("{x}", &x).replace("{y}", &y);
            let spec = GoalSpec::parse(&goal);
            if kind == "w" {
                prop_assert_eq!(&spec.writes, &vec![y.clone()], "{}: {:?}", goal, spec);
            } else {
                prop_assert_eq!(&spec.changes, &vec![y.clone()], "{}: {:?}", goal, spec);
            }
            prop_assert!(spec.only_reads(&x), "{}: {:?}", goal, spec);
            prop_assert!(!spec.may_change_existing(&x));
            prop_assert!(spec.may_change_existing(&y));
        }

        #[test]
        fn a_line_added_to_a_file_changes_it(
            y in file_name(),
            word in "[a-z]{1,8}".prop_filter("not a verb the parser reads", |w| {
                !GOVERNORS.iter().any(|(re, _)| re.is_match(w)) && !CHANGE_VERB.is_match(w) && w != "to"
            }),
        ) {
            for template in ["Add a line to {y} saying {w}.", "add the line '{w} to x' to {y}", "Append {w} to {y}"] {
                let goal = template.replace("{y}", &y).replace("{w}", &word);
                let spec = GoalSpec::parse(&goal);
                prop_assert_eq!(&spec.changes, &vec![y.clone()], "{}: {:?}", goal, spec);
            }
        }

        #[test]
        fn fixing_a_file_changes_it(x in file_name()) {
            for template in ["Fix {x}.", "fix the bug in {x}", "Fix the script {x} so it runs.", "Edit {x} and correct the typo"] {
                let goal = template.replace("{x}", &x);
                let spec = GoalSpec::parse(&goal);
                prop_assert_eq!(&spec.changes, &vec![x.clone()], "{}: {:?}", goal, spec);
                prop_assert!(spec.may_change_existing(&x));
            }
        }
    }
}
