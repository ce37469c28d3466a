//! The shape a goal states for its result, and whether a result has it: "success means checked".
//!
//! A small model's script often exits 0 with a result that the goal's own words rule out: the header line of the
//! CSV it read is still there, the names are on one line, the list is not sorted, `12 notes.txt` stands where the
//! number alone was asked for, the JSON lacks a key the goal names. Existence of the file proves none of that. This
//! module reads, from the goal's English, the shapes it clearly states ([`shapes`]) and checks a result's text
//! against each ([`check`]), with a reason a small model can act on: what is wrong, where, and how to fix it.
//!
//! Reading is conservative on purpose: a shape wrongly read turns a right result into a repair that breaks it, while
//! a shape not read only leaves a check undone. So a phrase counts only where it clearly speaks of the result (file
//! names and quoted text are masked first: `sorted.txt` says nothing about order), a goal with two destinations gets
//! no shapes (which result a phrase is about is not known), and a conditional goal ("if … write MISSING") makes the
//! number loose: the words it allows instead pass too. Checks are lenient where a right result can take several
//! forms (any usual alphabetical collation, a sort key that cannot be found in the result passes).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::claims::goal_destinations;

/// A property a goal states about its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shape {
    /// One number and nothing else ("just the number", "how many"); `otherwise` holds the words a conditional goal
    /// allows instead ("if it is missing, write MISSING").
    Number {
        /// Results allowed instead of a number.
        otherwise: Vec<String>,
    },
    /// Every line one number ("numbers only").
    Numbers,
    /// One item per line: no list written on one line, no blank lines between items.
    OnePerLine,
    /// Valid JSON of a kind, holding the keys the goal names (on the object, or on each object of an array).
    Json {
        /// The kind of value asked for.
        kind: JsonKind,
        /// Keys the goal names, in its order.
        keys: Vec<String>,
    },
    /// The header line of the input it read is absent.
    NoHeader,
    /// The first line is the header the goal states: these column names, in this order ("a header line
    /// id,name,email").
    Header(Vec<String>),
    /// Each line (or each string of a JSON array) is an existing path.
    ExistingPaths {
        /// Whether paths must be absolute or relative.
        form: PathForm,
    },
    /// An existing path and a number beside it, in any layout ("its path and its size in bytes"): not the path
    /// alone, nor the number alone.
    PathAndNumber,
    /// No upper-case letter.
    LowerCase,
    /// No lower-case letter.
    UpperCase,
    /// Items in order.
    Sorted(Sort),
    /// No item twice.
    Unique,
    /// At most this many items ("the 3 largest", "top 5"); fewer may be right when the input holds fewer.
    Count(usize),
}

/// The kind of JSON value a goal asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonKind {
    /// Any valid JSON.
    Any,
    /// An object (`{…}`).
    Object,
    /// An array (`[…]`).
    Array,
    /// JSON Lines: one JSON value on each line (`.jsonl`, "one JSON object per line").
    Lines,
}

/// How the paths in a result are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PathForm {
    /// Either way.
    Any,
    /// Absolute ("full paths").
    Absolute,
    /// Relative, to `base` under the working directory when the goal names one ("relative to src/").
    Relative {
        /// The directory the paths are relative to, as the goal names it.
        base: Option<String>,
    },
}

/// The order a goal asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sort {
    /// How keys compare.
    pub(crate) order: Order,
    /// Which way.
    pub(crate) direction: Direction,
    /// What is compared: the whole item when `None`.
    pub(crate) by: Option<SortKey>,
}

/// How sort keys compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    /// As text: byte order, case-insensitive, or ignoring punctuation (as `sort` does in most locales).
    Alphabetical,
    /// As numbers.
    Numeric,
    /// Not stated: any of the above.
    Any,
}

/// Which way a sort goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// Smallest first.
    Ascending,
    /// Largest first.
    Descending,
    /// Not stated where either is usual ("sorted by count").
    Either,
}

/// What a sort compares when not the whole item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SortKey {
    /// A column, counted from 0 ("by the second column").
    Column(usize),
    /// A named key ("by age"): a column of the input's header, a JSON key, or a measure ("count", "size") found as
    /// the one numeric field of each line.
    Named(String),
}

/// What a check needs to know besides the result.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ShapeContext<'a> {
    /// The working directory relative paths resolve against.
    pub(crate) cwd: &'a Path,
    /// The first line of each CSV/TSV file the goal reads.
    pub(crate) input_headers: &'a [String],
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Number { .. } => f.write_str("just the number"),
            Shape::Numbers => f.write_str("one number per line"),
            Shape::OnePerLine => f.write_str("one item per line"),
            Shape::Json { kind, keys } => {
                let kind = match kind {
                    JsonKind::Any => "valid JSON",
                    JsonKind::Object => "a JSON object",
                    JsonKind::Array => "a JSON array",
                    JsonKind::Lines => "one JSON value per line",
                };
                if keys.is_empty() { f.write_str(kind) } else { write!(f, "{kind} with the keys {}", keys.join(", ")) }
            }
            Shape::NoHeader => f.write_str("without the input's header line"),
            Shape::Header(names) => write!(f, "with the header {}", names.join(",")),
            Shape::ExistingPaths { form: PathForm::Absolute } => f.write_str("one existing absolute path per line"),
            Shape::ExistingPaths { form: PathForm::Relative { .. } } => {
                f.write_str("one existing relative path per line")
            }
            Shape::ExistingPaths { form: PathForm::Any } => f.write_str("one existing path per line"),
            Shape::PathAndNumber => f.write_str("an existing path and a number"),
            Shape::LowerCase => f.write_str("in lower case"),
            Shape::UpperCase => f.write_str("in upper case"),
            Shape::Sorted(sort) => {
                f.write_str(match sort.order {
                    Order::Alphabetical => "sorted alphabetically",
                    Order::Numeric => "sorted numerically",
                    Order::Any => "sorted",
                })?;
                match &sort.by {
                    Some(SortKey::Column(i)) => write!(f, " by column {}", i + 1)?,
                    Some(SortKey::Named(name)) => write!(f, " by {name}")?,
                    None => {}
                }
                f.write_str(match sort.direction {
                    Direction::Ascending => ", ascending",
                    Direction::Descending => ", descending",
                    Direction::Either => "",
                })
            }
            Shape::Unique => f.write_str("without duplicates"),
            Shape::Count(n) => write!(f, "at most {n} items"),
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading shapes

use crate::patterns::constant as pattern;

/// What masking hides: file names (`sorted.txt`, `data/top`), `$VARS`, the `PATH` variable.
static MASKED_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"[\w~+-]*[\w~]\.[A-Za-z][A-Za-z0-9]{0,7}\b|(?:~|\.{1,2})?/[\w.+/-]+|\w[\w.+-]*/[\w.+/-]*|\$\{?\w+\}?|\bPATH\b",
    )
});

/// "one per line", "each on its own line", "on separate lines", "a line each", "newline-separated".
static ONE_PER_LINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \bone\s+(?:[\w-]+\s+){0,3}?(?:per|on\s+each|on\s+every|to\s+a)\s+line\b
        | \b(?:each|every)\s+(?:[\w-]+\s+){0,3}?(?:on|in)\s+(?:its|their|his|her|a)\s+(?:own|separate|new|single)\s+line\b
        | \b(?:on|in)\s+(?:separate|individual|distinct|different|their\s+own|its\s+own|new)\s+lines\b
        | \b(?:on|in)\s+a\s+line\s+(?:of\s+(?:its|their)\s+own|by\s+(?:itself|themselves))\b
        | \b(?:a|one)\s+line\s+(?:each|apiece|per\s+[\w-]+|for\s+each)\b
        | \b(?:newline|line)[-\s]separated\b
        | \bseparated\s+by\s+(?:a\s+)?(?:newlines?|line\s*breaks?|new\s+lines)\b
        | \b(?:each|every)\s+line\s+(?:holds|contains|has|is|with)\s+(?:one|a\s+single|only\s+one|exactly\s+one)\b",
    )
});

/// "on one line", "comma-separated": the items are not one per line, or the lines are rows with separators.
static NOT_ONE_PER_LINE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:on|in)\s+(?:one|a\s+single|the\s+same)\s+line\b|\b(?:comma|space|tab|semicolon|pipe)[-\s]separated\b|\bseparated\s+by\s+(?:a\s+)?(?:commas?|spaces?|tabs?|semicolons?)\b",
    )
});

/// "without the header", "skip the header row", "excluding the header", "header excluded", "data rows only".
static NO_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \b(?:without|excluding|exclude|excluded|skip|skips|skipping|skipped|omit|omits|omitting|drop|drops|dropping
           |ignore|ignores|ignoring|minus|except(?:\s+for)?|remove|removes|removing|strip|strips|stripping
           |leave\s+out|leaving\s+out|leave\s+off|discard|discarding|not\s+including|but\s+not|cut|cutting
           |delete|deleting)
          \s+(?:(?:the|a|any|its|their|first|csv|column|top)\s+)*(?:header|heading)s?(?:\s+(?:row|line)s?)?\b
        | \b(?:without|excluding|skip|skipping|ignore|ignoring|omit|omitting|drop|dropping)\s+the\s+first\s+(?:line|row)\b
        | \b(?:header|heading)s?(?:\s+(?:row|line)s?)?\s+(?:excluded|removed|omitted|skipped|dropped|stripped|left\s+out|not\s+included)\b
        | \bleave\s+the\s+header(?:\s+(?:row|line))?\s+out\b
        | \b(?:only\s+the\s+data\s+(?:rows|lines)|data\s+(?:rows|lines)\s+only)\b",
    )
});

/// "a CSV file without a header": the input has none, which says nothing about the result.
static INPUT_WITHOUT_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:files?|csv|tsv|table|input)\s+(?:that\s+\w+\s+|which\s+\w+\s+)?(?:without|with\s+no|has\s+no|have\s+no|having\s+no|lacks?)\s+(?:a\s+|any\s+)?headers?\b",
    )
});

/// A header the goal spells out: "a header line id,name,email", "with the header `sku,qty`", "header row:
/// date,amount". Two names or more, joined by commas alone (as the line itself is written).
static STATED_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\bheader(?:\s+(?:line|row))?(?:\s+(?:of|is|reading|saying))?\s*:?\s*[`'\x22]?([A-Za-z_][\w.-]*(?:,[A-Za-z_][\w.-]*)+)[`'\x22]?",
    )
});

/// Columns the goal names for its result: "columns sku,name,shortfall", "with the columns `a,b`".
static COLUMNS_NAMED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\bcolumns\s*(?:named\s+|called\s+)?:?\s*[`'\x22]?([A-Za-z_][\w.-]*(?:,[A-Za-z_][\w.-]*)+)[`'\x22]?")
});

/// "no header", "without a header", "without any header".
static HEADERLESS: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\b(?:no|without(?:\s+(?:a|the|any))?)\s+header"));

/// The column names of a header `goal` states ([`STATED_HEADER`]), read from the goal itself (file names in it are
/// not masked: `a header line name,file.csv` is rare, a header of names that look like words is not).
fn stated_header(goal: &str) -> Option<Vec<String>> {
    // "columns sku,name,qty with a header line": the columns are the header's when the goal asks for one.
    let columns = || {
        COLUMNS_NAMED
            .captures(goal)
            .filter(|_| goal.to_lowercase().contains("header") && !HEADERLESS.is_match(goal))
            .and_then(|c| c.get(1))
    };
    let found = STATED_HEADER.captures(goal).and_then(|c| c.get(1)).or_else(columns)?.as_str();
    // "the header id, name and email" ends where the list does; an "and" joins no header's names.
    let names: Vec<String> = found.trim_end_matches('.').split(',').map(|n| n.trim().to_owned()).collect();
    (names.len() >= 2 && names.iter().all(|n| !n.is_empty() && !n.contains(' '))).then_some(names)
}

/// Both cases, or any, named as what the input may be in: "upper and lower case", "upper- or lowercase", "any
/// case", "mixed case".
static EITHER_CASE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)\b(?:upper|lower)(?:[-\s]?case)?[-\s]*(?:and|or|/)\s*(?:upper|lower)[-\s]?case\b
        | \b(?:any|either|whatever|mixed|mixed[-\s]up)\s+(?:(?:mix|combination)\s+of\s+)?(?:letter\s+)?case\b",
    )
});

/// "in lower case", "lowercased", "lowercase them", "converted to lowercase", "the lowercase names" (not "lowercase
/// letters": a goal may count or find those; not "a lowercase .jpg": the case of an extension in names changed).
static LOWER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \b(?:in|into|to|as|all|entirely|fully|be|are|is|made|make|convert(?:ed)?\s+(?:[\w-]+\s+){0,3}?to)
          \s+(?:all\s+)?(?:lower[-\s]?case|small\s+letters|lower\s+letters)\b
        | \blower[-\s]?cased\b
        | \blower[-\s]?case\s+(?:it|them|each|every|all|the|those|these)\b
        | \blower[-\s]?case\s*(?:$|[,;:!)]|\.(?:\s|$))
        | \b(?:the|a|an|as|all|their|its)\s+lower[-\s]?case\s+(?:names?|words?|emails?|addresses|versions?|text|lines?|strings?|keys?|values?|list|tags?|titles?|ids?
             |usernames?|copies|copy|form|hostnames?|domains?|labels?)\b",
    )
});

/// A remark in parentheses.
static PARENTHESES: LazyLock<Regex> = LazyLock::new(|| pattern(r"\([^()]*\)"));

/// "in upper case", "in capitals", "all caps", "uppercased".
static UPPER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \b(?:in|into|to|as|all|entirely|fully|be|are|is|made|make|convert(?:ed)?\s+(?:[\w-]+\s+){0,3}?to)
          \s+(?:all\s+)?(?:upper[-\s]?case|capitals|capital\s+letters|block\s+letters|caps)\b
        | \bupper[-\s]?cased\b
        | \ball[-\s]caps\b
        | \bupper[-\s]?case\s+(?:it|them|each|every|all|the|those|these)\b
        | \bupper[-\s]?case\s*(?:$|[,;:!)]|\.(?:\s|$))
        | \b(?:the|a|an|as|all|their|its)\s+upper[-\s]?case\s+(?:names?|words?|emails?|addresses|versions?|text|lines?|strings?|keys?|values?|list|tags?|titles?|ids?
             |usernames?|copies|copy|form|hostnames?|domains?|labels?)\b",
    )
});

/// "sorted", "in alphabetical order", "in descending order", "ranked by", "largest first".
static SORTED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \b(?:sorted|sort|sorting|ordered|arranged|arrange|ranked)\b
        | \balphabetical(?:ly)?\b | \bnumerically\b
        | \bin\s+(?:(?:alphabetical|alphabetic|numeric(?:al)?|ascending|descending|increasing|decreasing
                     |lexical|lexicographic(?:al)?|sorted|natural|size)\s+)+order\b
        | \bin\s+order(?:\s*$|\s*[.,;:!)]|\s+and\b|\s+to\s+_)
        | \b(?:ascending|descending|increasing|decreasing)\b
        | \b(?:largest|biggest|highest|most|greatest|smallest|lowest|least|fewest|oldest|newest|latest|earliest
              |longest|shortest)\s+(?:[\w-]+\s+)?first\b
        | \bfrom\s+(?:the\s+)?(?:largest|biggest|highest|most|greatest|smallest|lowest|least|fewest|longest|shortest
              |oldest|newest)\s+to\b
        | \bfrom\s+(?:the\s+)?(?:largest|biggest|highest|most|greatest|smallest|lowest|least|fewest|longest|shortest
              |oldest|newest)\s+[\w-]+\s+to\s+(?:the\s+)?(?:largest|biggest|highest|most|greatest|smallest|lowest|least
              |fewest|longest|shortest|oldest|newest)\b",
    )
});

/// "in any order", "in the order they appear", "unsorted", "do not sort": no order asked for.
static NOT_SORTED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \b(?:not|n't|no\s+need\s+to|without|never)\s+(?:be\s+|been\s+|need\s+to\s+be\s+)?(?:sort|sorted|sorting|ordered)\b
        | \bin\s+(?:any|no\s+particular|the\s+same|the\s+original|their\s+original|original)\s+order\b
        | \bin\s+the\s+order\s+(?:they|it|of|in\s+which|given|found|listed)\b
        | \b(?:keep|keeping|preserve|preserving|retain|retaining)\s+(?:the\s+|their\s+|its\s+)?(?:original\s+)?order\b
        | \border\s+(?:does\s+not|doesn't|is\s+not|isn't|need\s+not|won't)\b
        | \border\s+of\s+(?:appearance|occurrence)\b",
    )
});

/// "sort out" (to fix), "sorting through", "a sort of": the word without an order, blanked before [`SORTED`] looks.
static PHRASAL_SORT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\bsort(?:s|ed|ing)?\s+(?:(?:it|them|this|that|things|everything)\s+)?(?:out|of|through)\b")
});

/// "descending", "reverse", "largest first", "from highest to lowest", "from the highest score to the lowest",
/// "Z to A".
static DESCENDING: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \b(?:descending|decreasing|reverse|reversed)\b
        | \b(?:largest|biggest|highest|most|greatest|newest|latest|longest)\s+(?:[\w-]+\s+)?first\b
        | \bfrom\s+(?:the\s+)?(?:largest|biggest|highest|most|greatest|longest|newest)\s+to\b
        | \bfrom\s+(?:the\s+)?(?:largest|biggest|highest|most|greatest|longest|newest)\s+[\w-]+\s+to\s+(?:the\s+)?
              (?:smallest|lowest|least|fewest|shortest|oldest)\b
        | \bz\s*(?:-|to)\s*a\b | \bhigh\s+to\s+low\b | \b(?:large|big)\s+to\s+small\b",
    )
});

/// "ascending", "smallest first", "from lowest to highest", "from the oldest entry to the newest", "A to Z".
static ASCENDING: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \b(?:ascending|increasing)\b
        | \b(?:smallest|lowest|least|fewest|oldest|earliest|shortest)\s+(?:[\w-]+\s+)?first\b
        | \bfrom\s+(?:the\s+)?(?:smallest|lowest|least|fewest|shortest|oldest)\s+to\b
        | \bfrom\s+(?:the\s+)?(?:smallest|lowest|least|fewest|shortest|oldest)\s+[\w-]+\s+to\s+(?:the\s+)?
              (?:largest|biggest|highest|most|greatest|longest|newest)\b
        | \ba\s*(?:-|to)\s*z\b | \blow\s+to\s+high\b | \bsmall\s+to\s+(?:large|big)\b",
    )
});

/// "by age", "by the second column", "by their count" after a sort word.
static SORT_BY: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)^[^.;:!?]{0,40}?\bby\s+(?:the\s+|their\s+|its\s+|each\s+\w+'s\s+)?(?:values?\s+(?:of|in)\s+(?:the\s+)?)?
        (?:(?P<ordinal>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th))\s+(?:column|field)
          | (?:column|field)\s+(?P<index>\d+)
          | (?P<quoted>[`'\x22][^`'\x22]+[`'\x22])
          | (?P<word>(?:(?:file|last|first|total|modification|creation|line|word|character)\s+)?[\w-]+))",
    )
});

/// Superlatives whose "first" names the measure the order goes by ("largest first": by size).
static SUPERLATIVE_FIRST: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)\b(?:(?P<value>largest|biggest|highest|greatest|smallest|lowest)|(?P<time>oldest|newest|latest|earliest)
        |(?P<length>longest|shortest)|(?P<count>most|least|fewest))\s+(?:(?P<noun>[\w-]+)\s+)?first\b
        | \bfrom\s+(?:the\s+)?(?:(?P<value2>largest|biggest|highest|greatest|smallest|lowest)|(?P<time2>oldest|newest)
        |(?P<length2>longest|shortest)|(?P<count2>most|least|fewest))\s+to\b
        | \bfrom\s+(?:the\s+)?(?:(?P<value3>largest|biggest|highest|greatest|smallest|lowest)|(?P<time3>oldest|newest)
        |(?P<length3>longest|shortest)|(?P<count3>most|least|fewest))\s+[\w-]+\s+to\s+(?:the\s+)?(?:largest|biggest
        |highest|most|greatest|smallest|lowest|least|fewest|longest|shortest|oldest|newest)\b",
    )
});

/// "unique", "distinct", "no duplicates", "without duplicates", "remove duplicates", "each only once".
static UNIQUE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \b(?:unique|distinct|deduplicated|de-duplicated|deduped)\b
        | \bno\s+(?:duplicates?|repeats|repetitions?|duplicate\s+[\w-]+|[\w-]+\s+(?:twice|more\s+than\s+once))\b
        | \bwithout\s+(?:any\s+)?(?:duplicates?|repeats|repetitions?|duplication|repeating)\b
        | \b(?:remove|removing|drop|dropping|eliminate|eliminating|strip|stripping|filter\s+out)\s+(?:the\s+|any\s+|all\s+)?duplicates?\b
        | \b(?:each|every)\s+(?:[\w-]+\s+){0,2}(?:only\s+)?once\b
        | \bonly\s+once\b",
    )
});

/// "not unique", "non-unique", "duplicated lines": the result is the repeated ones.
static NOT_UNIQUE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)\b(?:not|non)[-\s]+(?:unique|distinct)\b | \bappear(?:s|ing)?\s+more\s+than\s+once\b | \bhow\s+many\s+times\b
        | \b(?:run|runs|execute|call|invoke|try|visit|read|open|process|ping|fetch|download)\s+(?:each|every)\b",
    )
});

/// "as JSON", "in JSON", "valid JSON", "write a JSON …": the result is JSON.
static JSON_ANY: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \b(?:as|in|into|to)\s+(?:(?:a|an|valid|one|single)\s+)*json\b
        | \b(?:valid|formatted|pretty-printed)\s+json\b | \bjson[-\s]formatted\b
        | \b(?:write|writes|create|creates|produce|produces|output|outputs|save|saves|make|makes|return|returns|print|prints|be|is)
          \s+(?:it\s+|them\s+)?(?:(?:a|an|one|single|valid)\s+)*json\b",
    )
});

/// JSON Lines: "JSON Lines", "JSONL", "NDJSON", "one JSON object per line", "a JSON record on each line".
static JSON_LINES: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \bjson[\s-]*lines?\b | \bjsonl\b | \bndjson\b | \bnewline[\s-]delimited\s+json\b
        | \bjson\s+(?:objects?|values?|records?|documents?)?\s*(?:per|on\s+(?:each|every|its\s+own))\s+line\b",
    )
});

/// "a JSON array", "a JSON list", "a list as JSON".
static JSON_ARRAY: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\bjson\s+(?:array|list)s?\b|\b(?:array|list)\s+(?:in|as)\s+json\b"));

/// "a JSON object", "a JSON dictionary", "with keys …".
static JSON_OBJECT: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\bjson\s+(?:object|dict(?:ionary)?|map|mapping)\b|\bwith\s+(?:the\s+)?keys\b"));

/// Where a list of keys starts: "keys name and age", "the fields: a, b".
static JSON_KEYS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:keys?|fields?|properties|property|attributes?|members?)\b\s*(?:named\s+|called\s+|:\s*)?")
});

/// "full paths", "relative paths", "the path of …", "file paths", "path names".
static PATHS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \b(?:full|absolute|relative|complete|file|their|the|its|with|as)\s+(?:file\s+)?paths?\b
        | \bpaths?\s+(?:of|to)\s+(?:the|each|every|all)\b
        | \bpath\s*names?\b",
    )
});

/// "full paths", "absolute paths".
static ABSOLUTE_PATHS: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:full|absolute|complete)\s+(?:file\s+)?paths?\b|\bpath\s*names?\s+in\s+full\b"));

/// "that exist", "existing": the goal asks for existing paths although a word of [`PATHS_MAY_NOT_EXIST`] is there.
static EXISTING: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:that|which)\s+(?:still\s+)?exists?\b|\bexisting\b"));

/// "relative paths", "relative to …".
static RELATIVE_PATHS: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\brelative\s+(?:file\s+)?paths?\b|\brelative\s+to\b"));

/// The directory after "relative to", in the unmasked goal.
static RELATIVE_TO: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\brelative\s+to\s+[`'\x22]?([\w.~+/-]+)"));

/// A path asked for together with something measured about it (`its path and its size in bytes`, `the size and
/// path of each`, `the path, and how many lines it has`, `the path with its modification date`): a line holds more
/// than a path. The measure follows the path's conjunction at once, or after a possessive (`with its size`), so a
/// condition on the files (`the paths of files with more than 20 lines`) is not one; `other` marks a measure that
/// is not a number (a date, an owner, a checksum).
static PATH_AND_MEASURE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \bpaths?\b [^.;!?]{0,40}? (?:\b(?:and|with|plus|followed\s+by|next\s+to|beside|alongside)\b|,)\s+
            (?:(?:and|also|then|exactly|its|their|the|his|her|each|every|exact|total|full|whole|file|file's|one's)\s+){0,3}
            (?P<m1>sizes?|bytes?|byte\s+counts?|(?:line|word|character|char|file)\s+counts?|counts?|numbers?\s+of\s+[\w-]+
               |lengths?|totals?|how\s+(?:big|large|many|much|long|heavy)
               |(?P<other>dates?|times?|timestamps?|owners?|checksums?|hash(?:es)?|modified|mtimes?
                  |modification\s+(?:dates?|times?)|permissions?|modes?|ages?))\b
        | \b(?:its|their|the|each\s+[\w-]+'s)\s+(?:exact\s+|total\s+|file\s+)?
            (?P<m2>sizes?|byte\s+counts?|(?:line|word|character)\s+counts?|lengths?|numbers?\s+of\s+[\w-]+
               |(?P<other2>dates?|timestamps?|owners?|checksums?|hash(?:es)?|modification\s+(?:dates?|times?)
                  |permissions?))\b
            [^.;!?]{0,25}? \b(?:and|with|plus|followed\s+by|next\s+to|beside|alongside)\s+
            (?:(?:its|their|the|his|her|each|every|full|relative|absolute|complete|file)\s+){0,3}paths?\b",
    )
});

/// What follows a measure that makes it a condition on the files, not something asked for (`with size 0`, `with
/// their sizes over 1 MB`).
static COMPARED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)^\s*(?:(?:is|are|was|were|of|in\s+bytes)\s+)?
        (?:over|under|above|below|greater|less|more|fewer|smaller|bigger|larger|higher|lower|at\s+(?:least|most)
           |exceed\w*|equal\w*|between|zero|up\s+to|[<>=\d])",
    )
});

/// A path asked for as the answer: "print its path", "answer with the full path", "give the paths".
static PATH_REQUESTED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)\b(?:write|give|print|output|return|report|show|state|include|list|name|answer\s+with|reply\s+with
           |respond\s+with|tell\s+me)
        \s+(?:me\s+)?(?:only\s+|just\s+|also\s+)?(?:its|their|the)\s+(?:full\s+|relative\s+|absolute\s+|complete\s+)?
        (?:file\s+)?paths?\b",
    )
});

/// A question for a number: "how many bytes", "how big is it", "how long".
static NUMBER_QUESTION: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\bhow\s+(?:many|much|big|large|long|heavy)\b"));

/// Words before a number question that take it back ("no matter how big", "regardless of how many").
static NOT_ASKED: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:no\s+matter|regardless\s+of|irrespective\s+of)\s*$"));

/// Words that make a listed path's existence unknown: it was deleted, is missing, is a URL's path, or is read from
/// a list.
static PATHS_MAY_NOT_EXIST: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \b(?:missing|nonexistent|non-existent|broken|dangling|deleted|delete|deleting|remove|removed|removing
           |move|moved|moving|rename|renamed|renaming|rm|erase|erased|purge|urls?|https?|requests?|requested
           |endpoints?|routes?|uris?|web)\b
        | \b(?:not|n't)\s+exist | \bpaths?\s+(?:listed\s+|mentioned\s+|named\s+|written\s+|found\s+)?(?:in|from|inside)\s+(?:the\s+)?(?:file\s+)?_",
    )
});

/// "just the number", "the number only", "nothing but the count", "a single number": one number, plainly.
static STRONG_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \b(?:just|only|solely|simply)\s+(?:the|a|one)\s+(?:single\s+)?(?:number|count|total|sum|integer|figure)\b
        | \b(?:number|count|total|sum|integer|figure)\s+(?:only|alone|and\s+nothing\s+else)\b
        | \bnothing\s+(?:but|except|other\s+than|else\s+than)\s+(?:the\s+)?(?:number|count|total|sum)\b
        | \b(?:a|one)\s+single\s+(?:number|integer|figure)\b
        | \bas\s+(?:a|one)\s+(?:single\s+|plain\s+|bare\s+)?(?:number|integer)\b",
    )
});

/// What just precedes a number's form when it is the form of every value of many ("with each price as a plain
/// number"), for [`number_shape`].
static EACH_VALUE: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\b(?:each|every|all)\s+(?:[\w-]+\s+){0,3}$"));

/// "how many", "the number of", "count the", "the total", "the average": a number unless the goal wants more.
static WEAK_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \bhow\s+many\b
        | \bthe\s+(?:total\s+)?(?:number|count)\s+of\b
        | \bcount\s+(?:the|all|how)\b
        | \bthe\s+(?:count|total|sum|average|mean|median)\b",
    )
});

/// A goal whose answer is a name or a path: "its name", "the path of", "write the name". The measure it names to
/// choose by ("the file with the largest size, the number of bytes: write its name") is not its result.
static NAME_ASKED: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \b(?:its|their|his|her)\s+(?:full\s+|file\s*|folder\s+|directory\s+|relative\s+|absolute\s+)?(?:names?|paths?)\b
        | \bthe\s+(?:full\s+|file\s*|folder\s+|directory\s+|relative\s+|absolute\s+)?(?:name|path)\s+(?:of|to)\b
        | \b(?:write|give|print|output|return|save|reply\s+with|answer\s+with)\s+(?:only\s+|just\s+)?the\s+(?:file\s*)?(?:name|path)\b",
    )
});

/// A question that opens with "which", "who" or "whose", and the word after it ("which folder is the largest
/// (the total of its sizes in bytes)?" asks for a folder).
static WHICH: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)(?:^|[.?!;:]\s+)(?:which|who|whose)\b\s*(\w*)"));

/// Words after "which" that ask for a number after all ("which number", "which total").
const NUMBER_NOUNS: &[&str] =
    &["number", "numbers", "count", "total", "sum", "amount", "value", "integer", "figure", "percentage"];

/// Whether `text` (masked) asks for a name or a path rather than a number: [`NAME_ASKED`], or a [`WHICH`] question
/// about something other than a number.
fn name_asked(text: &str) -> bool {
    NAME_ASKED.is_match(text)
        || WHICH.captures_iter(text).any(|c| {
            let word = c.get(1).map_or("", |m| m.as_str()).to_ascii_lowercase();
            !NUMBER_NOUNS.contains(&word.as_str())
        })
}

/// A goal that wants several numbers, or a number with something else, or counts per group.
static MANY_NUMBERS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \bby\b
        | \band\s+(?:also\s+)?(?:its|their|the|his|her)\s+(?:names?|paths?|files?|words?|counts?|numbers?|totals?|lines?
             |sizes?|values?|averages?|sums?|percentages?|list)\b
        | \b(?:along|together)\s+with\b | \bwith\s+(?:its|their)\b | \bplus\b | \bfollowed\s+by\b | \bcommas?\b
        | \b(?:numbers|counts|totals)\b | \band\s+how\s+(?:many|much)\b",
    )
});

/// "for each file", "per status", "each user's", "grouped": one number per group, not one number.
static PER_GROUP: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"(?i)\b(?:for|of|in|per|from)\s+(?:each|every)\b|\bper\s+[\w-]+|\beach\s+[\w-]+'s\b|\bgrouped\b")
});

/// "lines whose number of fields is 3", "where the count of x exceeds 2": a number in a condition, not the result.
static NUMBER_IN_CONDITION: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \b(?:whose|where|with|if|when|that|which|having)\s+(?:the\s+)?(?:total\s+)?(?:number|count)\s+of\b
        | \b(?:number|count)\s+of\s+[\w-]+(?:\s+[\w-]+)?\s+(?:is|are|was|exceeds|equals|greater|less|more|above|below
             |over|under|at\s+least|at\s+most)\b",
    )
});

/// "numbers only", "only the numbers", "one number per line": every line a number.
static NUMBERS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \b(?:just|only)\s+the\s+numbers\b | \bnumbers\s+only\b | \bonly\s+numbers\b
        | \b(?:each|every)\s+line\s+(?:is\s+|holds\s+|contains\s+)?(?:a|one|just\s+a|only\s+a)\s+(?:number|integer)\b
        | \bone\s+(?:number|integer)\s+(?:per|on\s+each|a)\s+line\b",
    )
});

/// A condition that may change what is written ("if …", "otherwise").
static CONDITIONAL: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:if|unless|otherwise|else|in\s+case|whether)\b"));

/// The words a conditional goal allows instead of the number (`write MISSING`, `print 'n/a'`), in the unmasked goal.
static ALTERNATIVE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r#"(?x)\b(?i:write|print|output|put|answer|reply|respond|say|return|echo|store|save)\s+(?i:with\s+)?(?i:the\s+(?:word|text|string|value)\s+)?
        (?:"([^"\n]+)"|'([^'\n]+)'|`([^`\n]+)`|“([^”\n]+)”|\b([A-Z][A-Z0-9_-]+)\b|(-?\d+(?:\.\d+)?)\b)"#,
    )
});

/// "top 5", "the first 10", "the 3 largest", "the five most common": at most that many items.
static COUNT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)
        \b(?:top|first|last)[-\s]+(?P<a>\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty)\b
          (?P<after_a>(?:\s*[\w%-]+){0,6})
        | \b(?P<b>\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty)\s+
          (?:largest|biggest|smallest|highest|lowest|most|least|oldest|newest|longest|shortest|greatest|fewest
             |earliest|latest|best|worst|heaviest|lightest|busiest|top|first|last|recent|recently)\b
          (?P<after_b>(?:\s*[\w%-]+){0,6})",
    )
});

/// Words after a count that make it not a count of result items ("the last 7 days", "the first 3 columns").
static NOT_ITEMS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?ix)^\s*(?:\w+\s+)?(?:(?:characters?|chars?|bytes?|columns?|fields?|cols?|digits?|letters?|seconds?|secs?
        |minutes?|mins?|hours?|days?|weeks?|months?|years?|ms|percent|kb|mb|gb|k|decimals?|places?|bits?)\b|%)
        | \b(?:of|in|for|from)\s+(?:each|every)\b | \bper\b",
    )
});

/// The shapes `goal` clearly states for its result, in a fixed order (see the module's doc for what is left out).
pub(crate) fn shapes(goal: &str) -> Vec<Shape> {
    let destinations = goal_destinations(goal);
    if destinations.len() > 1 {
        return Vec::new();
    }
    let masked = without_input_descriptions(goal, mask(goal), &destinations);
    let text = masked.as_str();
    let mut found = Vec::new();

    let json = json_shape(goal, text);
    let numbers = NUMBERS.is_match(text);
    let one_per_line = (ONE_PER_LINE.is_match(text) || numbers) && !NOT_ONE_PER_LINE.is_match(text);
    let count = count_shape(text);
    let sorted = sorted_shape(goal, text);
    let paths = paths_shape(goal, text);
    // A list asked for is not one number; paths are left out here: "the number of file paths" is a number.
    let listy = one_per_line || json.is_some() || count.is_some() || sorted.is_some();

    if numbers {
        found.push(Shape::Numbers);
    } else if let Some(number) = number_shape(goal, text, listy) {
        found.push(number);
    }
    if one_per_line {
        found.push(Shape::OnePerLine);
    }
    if let Some(json) = json {
        found.push(json);
    }
    if NO_HEADER.is_match(text) && !INPUT_WITHOUT_HEADER.is_match(text) {
        found.push(Shape::NoHeader);
    } else if let Some(names) = stated_header(goal) {
        found.push(Shape::Header(names));
    }
    if let Some(paths) = paths
        && !found.iter().any(|s| matches!(s, Shape::Number { .. } | Shape::Numbers))
    {
        found.push(paths);
    }
    // Both cases named ("the first letter in upper case, the rest in lower case") is about parts: neither holds.
    // A case in parentheses qualifies the word before it ("the tag NOTE (in capitals)"), not the result.
    let unqualified = PARENTHESES.replace_all(text, " ");
    // "in any mix of upper and lower case" says the input's case does not matter: no case of the result.
    let unqualified = EITHER_CASE.replace_all(&unqualified, " ");
    match (LOWER.is_match(&unqualified), UPPER.is_match(&unqualified)) {
        (true, false) => found.push(Shape::LowerCase),
        (false, true) => found.push(Shape::UpperCase),
        _ => {}
    }
    if let Some(sorted) = sorted {
        found.push(sorted);
    }
    if UNIQUE.is_match(text) && !NOT_UNIQUE.is_match(text) {
        found.push(Shape::Unique);
    }
    if let Some(count) = count {
        found.push(count);
    }
    found
}

/// A parenthesis right after a file's name (`events.jsonl (one JSON object per line)`) describes that file; when
/// the file is not where the result goes, what it says is the input's shape, not the result's: blanked.
fn without_input_descriptions(goal: &str, masked: String, destinations: &[String]) -> String {
    let mut bytes = masked.into_bytes();
    for found in DESCRIBED_FILE.captures_iter(goal) {
        let (Some(file), Some(description)) = (found.get(1), found.get(2)) else { continue };
        if destinations.iter().any(|d| crate::goal_spec::same_file(d, file.as_str())) {
            continue;
        }
        bytes[description.start()..description.end()].iter_mut().for_each(|b| *b = b'_');
    }
    String::from_utf8(bytes).unwrap_or_else(|_| goal.to_owned())
}

/// A file's name and the parenthesis right after it.
static DESCRIBED_FILE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"([\w.~/-]*\w\.[A-Za-z][A-Za-z0-9]{0,7})[`'\x22]?\s*(\([^()]*\))"));

/// `goal` with file names, `$VARS` and quoted text blanked out (same byte offsets), so that `sorted.txt` or
/// `"unique"` is not read as a shape while positions still point into the goal.
fn mask(goal: &str) -> String {
    let mut bytes = goal.as_bytes().to_vec();
    let blank = |bytes: &mut Vec<u8>, from: usize, to: usize| {
        // Whole characters only: every byte of a multi-byte character becomes `_`, so the text stays UTF-8.
        bytes[from..to].iter_mut().for_each(|b| *b = b'_');
    };
    for found in MASKED_WORDS.find_iter(goal) {
        blank(&mut bytes, found.start(), found.end());
    }
    for (from, to) in quoted_spans(goal) {
        blank(&mut bytes, from, to);
    }
    String::from_utf8(bytes).unwrap_or_else(|_| goal.to_owned())
}

/// The texts the goal quotes (see [`quoted_spans`]), in order.
pub(crate) fn quoted_texts(goal: &str) -> Vec<&str> {
    quoted_spans(goal).into_iter().map(|(start, end)| &goal[start..end]).collect()
}

/// The byte ranges inside quotes: `"…"`, `` `…` ``, `“…”`, `‘…’`, and `'…'` where the quote opens a word (so
/// "the user's names" is not a quote).
fn quoted_spans(goal: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut chars = goal.char_indices().peekable();
    let mut previous: Option<char> = None;
    while let Some((at, c)) = chars.next() {
        let close = match c {
            '"' => Some('"'),
            '`' => Some('`'),
            '“' => Some('”'),
            '‘' => Some('’'),
            '\'' if !previous.is_some_and(char::is_alphanumeric) => Some('\''),
            _ => None,
        };
        previous = Some(c);
        let Some(close) = close else { continue };
        let start = at + c.len_utf8();
        let end = goal[start..].char_indices().find(|&(i, q)| {
            q == close && (close != '\'' || !goal[start + i + 1..].chars().next().is_some_and(char::is_alphanumeric))
        });
        if let Some((i, _)) = end {
            spans.push((start, start + i));
            while chars.peek().is_some_and(|&(j, _)| j <= start + i) {
                chars.next();
            }
            previous = Some(close);
        }
    }
    spans
}

/// One number, when the goal asks for it plainly, or weakly ("how many") and nothing says it wants more or a list
/// (`listy`); a conditional goal only with the words it allows instead.
fn number_shape(goal: &str, text: &str, listy: bool) -> Option<Shape> {
    // "with each price as a plain number": the form of every value, not one number for the result.
    let strong = STRONG_NUMBER.find_iter(text).any(|m| !EACH_VALUE.is_match(&text[..m.start()]));
    let weak = WEAK_NUMBER.find_iter(text).count();
    let weakly = weak > 0
        && !MANY_NUMBERS.is_match(text)
        && !NUMBER_IN_CONDITION.is_match(text)
        && !name_asked(text)
        && !path_and_number(text);
    let asked = (strong || weakly) && !listy && !PER_GROUP.is_match(text);
    if !asked {
        return None;
    }
    if !CONDITIONAL.is_match(text) {
        return Some(Shape::Number { otherwise: Vec::new() });
    }
    // A condition may change what is written: the number is strict only beside the words the goal allows instead.
    let otherwise: Vec<String> = ALTERNATIVE
        .captures_iter(goal)
        .filter_map(|c| (1..=6).find_map(|i| c.get(i)).map(|m| m.as_str().to_owned()))
        .collect();
    (!otherwise.is_empty()).then_some(Shape::Number { otherwise })
}

/// Whether `goal` asks for a name or a path (alone, or with a number beside it: "its path and its size") and does
/// not plainly ask for a number ("just the number"): then "the number of bytes" in it is the measure to choose by,
/// or a part of the result, not the whole of it.
pub(crate) fn asks_name(goal: &str) -> bool {
    let masked = mask(goal);
    (name_asked(&masked) || path_and_number(&masked)) && !STRONG_NUMBER.is_match(&masked)
}

/// Whether `text` (masked) asks for a path and a number beside it: a path with a numeric measure
/// ([`path_with_measure`]: "its path and its size in bytes", "the byte count and the path"), or a path asked for
/// ([`PATH_REQUESTED`]) in a goal that also asks how many or how big ([`NUMBER_QUESTION`]: "how many bytes is it?
/// Answer with its path").
fn path_and_number(text: &str) -> bool {
    PATHS.is_match(text)
        && (path_with_measure(text) == Some(true)
            || PATH_REQUESTED.is_match(text)
                && NUMBER_QUESTION.find_iter(text).any(|m| !NOT_ASKED.is_match(&text[..m.start()])))
}

/// Whether `text` (masked) asks for a path with something measured about it ([`PATH_AND_MEASURE`]), and if so
/// whether a number is among what is measured. A measure compared with something ([`COMPARED`]: "with size 0") is
/// a condition on the files, not asked for. Every place a match may start is tried: a condition first does not
/// hide a measure asked for after it.
fn path_with_measure(text: &str) -> Option<bool> {
    let mut found = None;
    let mut at = 0;
    while let Some(c) = PATH_AND_MEASURE.captures_at(text, at) {
        let Some(whole) = c.get(0) else { break };
        let measure = c.name("m1").or_else(|| c.name("m2"));
        if !measure.is_some_and(|m| COMPARED.is_match(&text[m.end()..])) {
            let numeric = c.name("other").is_none() && c.name("other2").is_none();
            found = Some(found == Some(true) || numeric);
        }
        at = whole.start() + text[whole.start()..].chars().next().map_or(1, char::len_utf8);
    }
    found
}

/// JSON where the goal says so or writes a `.json` file, with its kind and the keys it names.
fn json_shape(goal: &str, text: &str) -> Option<Shape> {
    let to_json_file = goal_destinations(goal).first().is_some_and(|d| d.to_ascii_lowercase().ends_with(".json"));
    let said = JSON_ANY.find(text);
    let to_lines_file = goal_destinations(goal)
        .first()
        .is_some_and(|d| [".jsonl", ".ndjson"].iter().any(|e| d.to_ascii_lowercase().ends_with(e)));
    if said.is_none() && !to_json_file && !to_lines_file && !JSON_LINES.is_match(text) {
        return None;
    }
    let kind = if to_lines_file || JSON_LINES.is_match(text) {
        JsonKind::Lines
    } else if JSON_ARRAY.is_match(text) {
        JsonKind::Array
    } else if JSON_OBJECT.is_match(text) {
        JsonKind::Object
    } else {
        JsonKind::Any
    };
    let keys = JSON_KEYS.find_iter(text).map(|m| key_list(&goal[m.end()..])).find(|keys| !keys.is_empty());
    Some(Shape::Json { kind, keys: keys.unwrap_or_default() })
}

/// Words that end a list of keys ("with keys name and age to people.json").
const NOT_KEYS: &str = "to in into for with from where which that the each of as and \
    or write save then on per whose containing holding set mapping giving is are should must plus both \
    all its their only values value one two three it them file json object array list given like such \
    following below above";

/// The keys listed at the start of `rest`: quoted or bare names separated by commas and "and".
fn key_list(rest: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut rest = rest.trim_start();
    loop {
        let (key, after) = match rest.chars().next() {
            Some(q @ ('"' | '\'' | '`' | '“')) => {
                let close = if q == '“' { '”' } else { q };
                let inner = &rest[q.len_utf8()..];
                let Some(end) = inner.find(close) else { break };
                (inner[..end].to_owned(), &inner[end + close.len_utf8()..])
            }
            Some(c) if c.is_alphabetic() || c == '_' => {
                let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')).unwrap_or(rest.len());
                let word = &rest[..end];
                if NOT_KEYS.split_whitespace().any(|stop| stop.eq_ignore_ascii_case(word)) {
                    break;
                }
                (word.to_owned(), &rest[end..])
            }
            _ => break,
        };
        if key.trim().is_empty() {
            break;
        }
        keys.push(key);
        let after = after.trim_start();
        let (comma, after) = match after.strip_prefix(',') {
            Some(after) => (true, after.trim_start()),
            None => (false, after),
        };
        let and = after.strip_prefix("and ").or_else(|| after.strip_prefix("& ")).map(str::trim_start);
        match (comma, and) {
            (_, Some(next)) => rest = next,
            (true, None) => rest = after,
            (false, None) => break,
        }
    }
    keys
}

/// Existing paths where the goal lists paths, unless they may not exist (deleted, missing, URLs, read from a list).
fn paths_shape(goal: &str, text: &str) -> Option<Shape> {
    if !PATHS.is_match(text) {
        return None;
    }
    if PATHS_MAY_NOT_EXIST.is_match(text) && !EXISTING.is_match(text) {
        return None;
    }
    let form = path_form(goal, text);
    // A path with a number beside it ("its path and its size"): both, in any layout. A conditional goal may allow
    // a word instead ("if there is none, print NONE"), and a path relative to a directory the goal names is not
    // found from the working directory: then it is not checked.
    if path_and_number(text) {
        let elsewhere = matches!(form, PathForm::Relative { base: Some(_) });
        return (!CONDITIONAL.is_match(text) && !elsewhere).then_some(Shape::PathAndNumber);
    }
    // A path with something else measured (a date, an owner): a line is more than a path.
    if path_with_measure(text).is_some() {
        return None;
    }
    Some(Shape::ExistingPaths { form })
}

/// How the paths `goal` (masked: `text`) asks for are written: absolute, relative (to a directory it names), or
/// either.
fn path_form(goal: &str, text: &str) -> PathForm {
    if ABSOLUTE_PATHS.is_match(text) {
        PathForm::Absolute
    } else if RELATIVE_PATHS.is_match(text) {
        let base = RELATIVE_TO
            .captures(goal)
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().trim_end_matches(['.', ',', ';', ':']).to_owned())
            .filter(|b| {
                !["the", "this", "current", "working", "here", "it", "its", "their", "cwd"]
                    .contains(&b.to_ascii_lowercase().as_str())
                    && b != "."
                    && b != "./"
            });
        PathForm::Relative { base }
    } else {
        PathForm::Any
    }
}

/// An order, with how keys compare, which way, and by what, unless the goal says no order is needed.
fn sorted_shape(goal: &str, text: &str) -> Option<Shape> {
    let blanked = PHRASAL_SORT.replace_all(text, |c: &regex::Captures<'_>| "_".repeat(c[0].len()));
    let text = blanked.as_ref();
    let found = SORTED.find(text)?;
    if NOT_SORTED.is_match(text) {
        return None;
    }
    let lower = text.to_ascii_lowercase();
    let alphabetical = lower.contains("alphabetic") || lower.contains("lexic") || ASCENDING_AZ.is_match(text);
    let numeric = lower.contains("numeric");
    let order = match (alphabetical, numeric) {
        (true, false) => Order::Alphabetical,
        (false, true) => Order::Numeric,
        _ => Order::Any,
    };
    let mut by = SORT_BY.captures(&text[found.end()..]).and_then(|c| {
        let offset = found.end();
        if let Some(ordinal) = c.name("ordinal") {
            return ordinal_index(ordinal.as_str()).map(SortKey::Column);
        }
        if let Some(index) = c.name("index") {
            return index.as_str().parse::<usize>().ok().filter(|&i| i > 0).map(|i| SortKey::Column(i - 1));
        }
        if let Some(quoted) = c.name("quoted") {
            // Masked in `text`: the key is read from the goal itself.
            let key = &goal[offset + quoted.start() + 1..offset + quoted.end() - 1];
            return Some(SortKey::Named(key.to_owned()));
        }
        c.name("word").map(|w| SortKey::Named(w.as_str().to_ascii_lowercase()))
    });
    if by.is_none()
        && let Some(c) = SUPERLATIVE_FIRST.captures(text)
    {
        let measure = |names: [&str; 3]| names.iter().any(|n| c.name(n).is_some());
        // "longest wavelength first": the measure is the wavelength, not a length in the result; "largest file
        // first", "most common word first": the measure of an item.
        let noun = c.name("noun").map(|n| n.as_str().to_ascii_lowercase());
        let of_the_item = if measure(["value", "value2", "value3"]) {
            "value"
        } else if measure(["time", "time2", "time3"]) {
            "time"
        } else if measure(["length", "length2", "length3"]) {
            "length"
        } else {
            "count"
        };
        let key = noun.filter(|n| !ITEM_NOUNS.contains(&n.as_str())).unwrap_or_else(|| of_the_item.to_owned());
        by = Some(SortKey::Named(key));
    }
    let direction = match (DESCENDING.is_match(text), ASCENDING.is_match(text)) {
        (true, false) => Direction::Descending,
        (false, true) => Direction::Ascending,
        (true, true) => return None,
        // "sorted", "alphabetically": ascending, as everyone reads it; "sorted by count", "the largest …, sorted":
        // either way is usual.
        (false, false) if by.as_ref().is_some_and(|k| !is_name_key(k)) || SUPERLATIVE.is_match(text) => {
            Direction::Either
        }
        (false, false) => Direction::Ascending,
    };
    Some(Shape::Sorted(Sort { order, direction, by }))
}

/// Nouns after a superlative that name the items, not the measure (`largest file first`, `oldest entry first`).
const ITEM_NOUNS: &[&str] = &[
    "one", "ones", "file", "files", "line", "lines", "entry", "entries", "item", "items", "row", "rows", "record",
    "records", "word", "words", "name", "names", "value", "values", "number", "numbers", "common", "frequent",
    "recent", "used", "popular", "first", "of",
];

/// A superlative or a ranking: an order whose direction, unstated, may be either.
static SUPERLATIVE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:largest|biggest|highest|most|greatest|smallest|lowest|least|fewest|oldest|newest|latest|earliest|longest|shortest|top|ranked|best|worst)\b",
    )
});

/// "A to Z", "Z-A": an alphabetical order.
static ASCENDING_AZ: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?i)\ba\s*(?:-|to)\s*z\b|\bz\s*(?:-|to)\s*a\b"));

fn ordinal_index(word: &str) -> Option<usize> {
    const ORDINALS: [&str; 10] =
        ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];
    let word = word.to_ascii_lowercase();
    if let Some(i) = ORDINALS.iter().position(|o| *o == word) {
        return Some(i);
    }
    word.trim_end_matches(char::is_alphabetic).parse::<usize>().ok().filter(|&n| n > 0).map(|n| n - 1)
}

/// A count of result items; not of columns, characters or days, nor per group.
fn count_shape(text: &str) -> Option<Shape> {
    let mut counts = COUNT.captures_iter(text).filter_map(|c| {
        let (number, after) = match (c.name("a"), c.name("b")) {
            (Some(a), _) => (a, c.name("after_a")),
            (None, Some(b)) => (b, c.name("after_b")),
            (None, None) => return None,
        };
        if after.is_some_and(|after| NOT_ITEMS.is_match(after.as_str())) {
            return None;
        }
        word_number(number.as_str())
    });
    let first = counts.next()?;
    // Two different counts ("the top 3 of the first 100 lines"): which bounds the result is not known.
    counts.all(|n| n == first).then_some(Shape::Count(first))
}

fn word_number(word: &str) -> Option<usize> {
    const WORDS: [(&str, usize); 13] = [
        ("two", 2),
        ("three", 3),
        ("four", 4),
        ("five", 5),
        ("six", 6),
        ("seven", 7),
        ("eight", 8),
        ("nine", 9),
        ("ten", 10),
        ("eleven", 11),
        ("twelve", 12),
        ("fifteen", 15),
        ("twenty", 20),
    ];
    let word = word.to_ascii_lowercase();
    WORDS.iter().find(|(w, _)| *w == word).map(|&(_, n)| n).or_else(|| word.parse().ok()).filter(|&n| n > 0)
}

// ---------------------------------------------------------------------------------------------------------------
// Checking a result

/// Whether `text` has `shape`; `Err` says what is wrong and how to fix it, briefly, for a small model's repair.
/// Surrounding white space and a trailing newline are tolerated; an empty result passes every shape (whether
/// emptiness is right is the caller's judgement).
pub(crate) fn check(shape: &Shape, text: &str, context: &ShapeContext) -> Result<(), String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(());
    }
    match shape {
        Shape::Number { otherwise } => check_number(trimmed, otherwise),
        Shape::Numbers => check_numbers(trimmed),
        Shape::OnePerLine => check_one_per_line(trimmed),
        Shape::Json { kind, keys } => check_json(trimmed, *kind, keys),
        Shape::NoHeader => check_no_header(trimmed, context),
        Shape::Header(names) => check_header(trimmed, names),
        Shape::ExistingPaths { form } => check_paths(trimmed, form, context),
        Shape::PathAndNumber => check_path_and_number(trimmed, context),
        Shape::LowerCase => check_case(trimmed, true),
        Shape::UpperCase => check_case(trimmed, false),
        Shape::Sorted(sort) => check_sorted(trimmed, sort, context),
        Shape::Unique => check_unique(trimmed),
        Shape::Count(n) => check_count(trimmed, *n, context),
    }
}

/// Every reason `text` lacks one of `shapes`, in their order: all of them go into one repair prompt.
pub(crate) fn problems(shapes: &[Shape], text: &str, context: &ShapeContext) -> Vec<String> {
    shapes.iter().filter_map(|shape| check(shape, text, context).err()).collect()
}

/// The most bytes read from an input to find its header line.
const HEADER_LIMIT: usize = 8192;

/// The header line of `path` when it is a CSV or TSV file (by its extension) with a first line: what
/// [`ShapeContext::input_headers`] holds. Reads a bounded prefix, so a large input costs nothing.
pub(crate) fn input_header(path: &Path) -> Option<String> {
    use std::io::Read;
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    if !["csv", "tsv"].contains(&extension.as_str()) {
        return None;
    }
    let mut prefix = Vec::new();
    std::fs::File::open(path).ok()?.take(HEADER_LIMIT as u64).read_to_end(&mut prefix).ok()?;
    let text = String::from_utf8_lossy(&prefix);
    let line = text.lines().next()?.trim_start_matches('\u{feff}').trim_end();
    (!line.trim().is_empty()).then(|| line.to_owned())
}

/// One number, as a person writes it: `12`, `-3`, `+4`, `1,024`, `3875.50`, `.5`, `1e6`.
static NUMBER: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^[-+]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?$"));

/// Whether `text` (trimmed) is one number.
pub(crate) fn is_number(text: &str) -> bool {
    NUMBER.is_match(text.trim())
}

fn check_number(text: &str, otherwise: &[String]) -> Result<(), String> {
    if is_number(text) || otherwise.iter().any(|word| word.trim().eq_ignore_ascii_case(text)) {
        return Ok(());
    }
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    if lines > 1 {
        return Err(format!("it holds {lines} lines, not one number: write only the number"));
    }
    let first = text.split_whitespace().next().unwrap_or_default();
    if is_number(first) {
        return Err(format!(
            "it holds `{}`: the number and more; write only the number (cut the rest off: `awk '{{print $1}}'`)",
            excerpt(text)
        ));
    }
    Err(format!("it holds `{}`, not a number: write only the number, without words", excerpt(text)))
}

fn check_numbers(text: &str) -> Result<(), String> {
    for (number, line) in numbered_lines(text) {
        if !is_number(line) {
            return Err(format!(
                "line {number} `{}` is not a number: write only the numbers, one per line",
                excerpt(line)
            ));
        }
    }
    Ok(())
}

/// Non-blank lines, numbered from 1 as in the text, trimmed.
fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty())
}

fn check_one_per_line(text: &str) -> Result<(), String> {
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let number = i + 1;
        let line = line.trim();
        if line.is_empty() {
            return Err(format!("line {number} is blank: write one item on each line, with no blank lines"));
        }
        if line.contains("\\n") {
            return Err(format!(
                "line {number} holds a literal `\\n`: print real line breaks (`printf '%s\\n' …`), one item per line"
            ));
        }
        let bracketed = (line.starts_with('[') && line.ends_with(']'))
            || (line.starts_with('(') && line.ends_with(')') && line.contains(", "));
        if bracketed && (line.contains(',') || line.starts_with("['") || line.starts_with("[\"")) {
            return Err(format!(
                "line {number} `{}` is a whole list on one line: write each item on its own line (`for x in items: \
                 print(x)`)",
                excerpt(line)
            ));
        }
    }
    // One line of single words joined by ", ": a list written on one line ("Smith, John" is one item).
    if let [line] = lines.as_slice() {
        let parts: Vec<&str> = line.trim().split(", ").collect();
        if parts.len() >= 3 && parts.iter().all(|p| !p.is_empty() && !p.contains(char::is_whitespace)) {
            return Err(format!(
                "line 1 `{}` holds several items separated by commas: write each on its own line (`tr -s ', ' '\\n'`)",
                excerpt(line)
            ));
        }
    }
    Ok(())
}

fn check_json(text: &str, kind: JsonKind, keys: &[String]) -> Result<(), String> {
    if kind == JsonKind::Lines {
        for (number, line) in numbered_lines(text) {
            let value = serde_json::from_str::<Value>(line).map_err(|error| {
                format!("line {number} is not one JSON value ({error}): write one JSON value per line")
            })?;
            if let Value::Object(object) = &value
                && let Some(key) = keys.iter().find(|k| !object.contains_key(k.as_str()))
            {
                return Err(format!(
                    "the object on line {number} has no key `{key}`: give every line the keys {}",
                    keys.join(", ")
                ));
            }
        }
        return Ok(());
    }
    let value = match serde_json::from_str::<Value>(text) {
        Ok(value) => value,
        Err(error) => return Err(json_error(text, kind, &error)),
    };
    match (kind, &value) {
        (JsonKind::Object, Value::Object(_))
        | (JsonKind::Array, Value::Array(_))
        | (JsonKind::Any | JsonKind::Lines, _) => {}
        (JsonKind::Object, other) => {
            return Err(format!("it is a JSON {}, not an object: write one JSON object `{{…}}`", json_type(other)));
        }
        (JsonKind::Array, other) => {
            return Err(format!("it is a JSON {}, not an array: write one JSON array `[…]`", json_type(other)));
        }
    }
    if keys.is_empty() {
        return Ok(());
    }
    let missing = |object: &serde_json::Map<String, Value>| keys.iter().find(|k| !object.contains_key(k.as_str()));
    let has = |object: &serde_json::Map<String, Value>| {
        let names: Vec<&str> = object.keys().map(String::as_str).take(8).collect();
        names.join(", ")
    };
    match &value {
        Value::Object(object) => match missing(object) {
            Some(key) => Err(format!(
                "the JSON object has no key `{key}` (it has: {}): use exactly the keys the goal names: {}",
                has(object),
                keys.join(", ")
            )),
            None => Ok(()),
        },
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let Value::Object(object) = item else {
                    return Err(format!(
                        "item {} of the JSON array is a {}, not an object: write objects with the keys {}",
                        i + 1,
                        json_type(item),
                        keys.join(", ")
                    ));
                };
                if let Some(key) = missing(object) {
                    return Err(format!(
                        "item {} of the JSON array has no key `{key}` (it has: {}): give every object the keys {}",
                        i + 1,
                        has(object),
                        keys.join(", ")
                    ));
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn json_error(text: &str, kind: JsonKind, error: &serde_json::Error) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if lines.len() > 1 && lines.iter().all(|l| serde_json::from_str::<Value>(l).is_ok()) {
        let want = if kind == JsonKind::Object { "object" } else { "array (wrap the values in `[ ]`, with commas)" };
        return format!("it holds one JSON value per line, not one JSON document: write one JSON {want}");
    }
    if text.contains("{'") || text.contains("['") || text.contains("': ") || text.contains(": True") {
        return "it is a Python literal, not JSON (single quotes, True/None): write it with `json.dump`, not `print`"
            .to_owned();
    }
    format!("it is not valid JSON ({error}): write it with a JSON tool (`json.dump`, `jq`)")
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// An input header, split: its text, its separator, its column names.
struct Header {
    line: String,
    separator: Separator,
    fields: Vec<String>,
}

impl Header {
    fn parse(line: &str) -> Option<Header> {
        let line = line.trim_start_matches('\u{feff}').trim();
        if line.is_empty() {
            return None;
        }
        let separator = Separator::of_header(line);
        let fields = separator.split(line).into_iter().map(|f| unquote(f).to_ascii_lowercase()).collect();
        Some(Header { line: line.to_owned(), separator, fields })
    }

    fn index_of(&self, name: &str) -> Option<usize> {
        let name = normal_name(name);
        self.fields.iter().position(|f| {
            let f = normal_name(f);
            f == name || f.trim_end_matches('s') == name.trim_end_matches('s')
        })
    }
}

fn headers(context: &ShapeContext) -> Vec<Header> {
    context.input_headers.iter().filter_map(|h| Header::parse(h)).collect()
}

fn normal_name(name: &str) -> String {
    name.trim().to_ascii_lowercase().replace([' ', '-'], "_")
}

fn unquote(field: &str) -> &str {
    let field = field.trim();
    field.strip_prefix('"').and_then(|f| f.strip_suffix('"')).unwrap_or(field)
}

/// How a line's fields are separated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Separator {
    Tab,
    Comma,
    Semicolon,
    Pipe,
    Space,
}

impl Separator {
    fn of_header(line: &str) -> Separator {
        [Separator::Tab, Separator::Comma, Separator::Semicolon, Separator::Pipe]
            .into_iter()
            .find(|s| line.contains(s.char()))
            .unwrap_or(Separator::Space)
    }

    /// The separator every one of `lines` holds, preferring tab, then comma; white space otherwise.
    fn of_lines(lines: &[&str]) -> Separator {
        [Separator::Tab, Separator::Comma, Separator::Semicolon, Separator::Pipe]
            .into_iter()
            .find(|s| lines.iter().all(|l| l.contains(s.char())))
            .unwrap_or(Separator::Space)
    }

    fn char(self) -> char {
        match self {
            Separator::Tab => '\t',
            Separator::Comma => ',',
            Separator::Semicolon => ';',
            Separator::Pipe => '|',
            Separator::Space => ' ',
        }
    }

    fn split(self, line: &str) -> Vec<&str> {
        match self {
            Separator::Space => line.split_whitespace().collect(),
            other => line.split(other.char()).map(str::trim).collect(),
        }
    }
}

/// Whether `line` is `header` itself, or only column names of it (`name` from `name,age`: a projection that kept
/// the header).
fn is_header_line(line: &str, header: &Header) -> bool {
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
    if squeeze(line) == squeeze(&header.line) {
        return true;
    }
    if header.fields.len() < 2 {
        return false;
    }
    let separator = Separator::of_lines(&[line]);
    let fields = separator.split(line);
    !fields.is_empty()
        && fields.len() < header.fields.len()
        && fields.iter().all(|f| {
            let f = unquote(f).to_ascii_lowercase();
            !f.is_empty() && header.fields.contains(&f)
        })
}

/// The first line of `text` holds the column names `names`, in order (quotes, case and spaces around them aside;
/// split at the line's own separator, so a tab-separated header passes).
fn check_header(text: &str, names: &[String]) -> Result<(), String> {
    let first = text.lines().next().unwrap_or_default().trim_start_matches('\u{feff}').trim_end();
    let got: Vec<String> = Separator::of_lines(&[first])
        .split(first)
        .iter()
        .map(|cell| cell.trim().trim_matches('"').trim().to_lowercase())
        .collect();
    let want: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
    if got == want {
        return Ok(());
    }
    Err(format!("its first line is `{}`, not the header `{}` the goal states", excerpt(first), names.join(",")))
}

fn check_no_header(text: &str, context: &ShapeContext) -> Result<(), String> {
    let headers = headers(context);
    for (number, line) in numbered_lines(text) {
        for header in &headers {
            // One column name alone counts on the first line only: further down it may be a value ("count" in a
            // list of words read from `word,count`).
            let lone_name =
                !line.eq_ignore_ascii_case(&header.line) && Separator::of_lines(&[line]).split(line).len() < 2;
            if !is_header_line(line, header) || (lone_name && number > 1) {
                continue;
            }
            let what = if line.eq_ignore_ascii_case(&header.line) {
                format!("line {number} is the input's header `{}`", excerpt(&header.line))
            } else {
                format!(
                    "line {number} `{}` is column names from the input's header `{}`",
                    excerpt(line),
                    excerpt(&header.line)
                )
            };
            return Err(format!("{what}: leave the header out (`tail -n +2` before the rest, or `NR > 1` in awk)"));
        }
    }
    Ok(())
}

fn check_paths(text: &str, form: &PathForm, context: &ShapeContext) -> Result<(), String> {
    let items = match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(values)) if values.iter().all(Value::is_string) => values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.as_str().map(|s| (format!("item {}", i + 1), s.to_owned())))
            .collect(),
        _ => numbered_lines(text).map(|(n, l)| (format!("line {n}"), l.to_owned())).collect::<Vec<_>>(),
    };
    let base = match form {
        PathForm::Relative { base: Some(base) } => context.cwd.join(base),
        _ => context.cwd.to_path_buf(),
    };
    for (place, path) in &items {
        match form {
            PathForm::Absolute if !path.starts_with('/') => {
                return Err(format!(
                    "{place} `{}` is not a full path: write absolute paths (`find \"$PWD\" …` or `realpath`)",
                    excerpt(path)
                ));
            }
            PathForm::Relative { base: named } if path.starts_with('/') => {
                let to = named.as_deref().unwrap_or("the working directory");
                return Err(format!(
                    "{place} `{}` is an absolute path: write paths relative to {to} (`find . …` there)",
                    excerpt(path)
                ));
            }
            _ => {}
        }
        if !exists(path, &base, context.cwd) {
            let part_exists = path.split_whitespace().count() > 1
                && path.split_whitespace().any(|part| exists(part, &base, context.cwd));
            return Err(if part_exists {
                format!("{place} `{}` is not just a path: write only the path, one per line", excerpt(path))
            } else {
                format!(
                    "{place} `{}` is not an existing path (relative paths are taken from {}): write paths as `find` \
                     prints them, one per line",
                    excerpt(path),
                    base.display()
                )
            });
        }
    }
    Ok(())
}

fn exists(path: &str, base: &Path, cwd: &Path) -> bool {
    let path = path.trim();
    let candidates: Vec<PathBuf> = if let Some(home) = path.strip_prefix("~/") {
        std::env::var_os("HOME").map(|h| vec![PathBuf::from(h).join(home)]).unwrap_or_default()
    } else {
        vec![base.join(path), cwd.join(path)]
    };
    candidates.iter().any(|p| p.symlink_metadata().is_ok())
}

/// A number as an answer writes it: `2048`, `1,024`, `12.5`, or with a unit stuck to it (`2048B`, `4.2K`).
static NUMBER_WITH_UNIT: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?[A-Za-z%]{0,5}$"));

/// A file's name with an extension (`notes.txt`), for a result that names the file without its directories.
static FILE_NAME: LazyLock<Regex> = LazyLock::new(|| pattern(r"^[\w.+-]*\w\.[A-Za-z][A-Za-z0-9]{0,7}$"));

/// The label a value may carry (`size=`, `path:`).
static LABEL: LazyLock<Regex> = LazyLock::new(|| pattern(r"^[A-Za-z_][\w-]*\s*[=:]\s*"));

/// The most tokens one path in a result may span (a name with spaces in it is several).
const PATH_TOKENS: usize = 8;

/// The most lines of a result looked at for a path and a number.
const PATH_AND_NUMBER_LINES: usize = 500;

/// `word` without the quotes, brackets and punctuation around it in a sentence, a table or JSON.
fn bare(word: &str) -> &str {
    word.trim_start_matches(['"', '\'', '`', '(', '[', '{', '<', '*'])
        .trim_end_matches(['"', '\'', '`', ')', ']', '}', '>', ',', ';', ':', '.', '!', '?', '*'])
}

/// Where each white-space-separated word of `line` starts and ends.
fn word_spans(line: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(from)) => {
                spans.push((from, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(from) = start {
        spans.push((from, line.len()));
    }
    spans
}

/// Whether `text` holds an existing path and a number apart from it, in any layout: `2048\tdocs/a b.txt`, `docs/a
/// b.txt: 2048 bytes`, a sentence, two lines, JSON. A path may hold spaces (the longest run of words that exists is
/// taken); a file's bare name passes for the path, but a path that does not exist, with no existing one beside it,
/// fails.
fn check_path_and_number(text: &str, context: &ShapeContext) -> Result<(), String> {
    let exists_here = |candidate: &str| {
        let candidate = bare(candidate);
        let real = |c: &str| c.chars().any(char::is_alphanumeric) && exists(c, context.cwd, context.cwd);
        if real(candidate) {
            return true;
        }
        LABEL.find(candidate).is_some_and(|label| real(&candidate[label.end()..]))
    };
    let mut path = false;
    let mut name = false;
    let mut number = false;
    let mut stray: Option<String> = None;
    for line in text.lines().take(PATH_AND_NUMBER_LINES) {
        let words = word_spans(line);
        let mut i = 0;
        while i < words.len() {
            let last =
                (i..words.len().min(i + PATH_TOKENS)).rev().find(|&j| exists_here(&line[words[i].0..words[j].1]));
            if let Some(j) = last {
                path = true;
                i = j + 1;
                continue;
            }
            let word = bare(&line[words[i].0..words[i].1]);
            let value = LABEL.find(word).map_or(word, |label| &word[label.end()..]);
            if NUMBER_WITH_UNIT.is_match(value) {
                number = true;
            } else if value.contains('/') && value.chars().any(char::is_alphabetic) {
                if stray.is_none() {
                    stray = Some(value.to_owned());
                }
            } else if FILE_NAME.is_match(value) {
                name = true;
            }
            i += 1;
        }
        if path && number {
            return Ok(());
        }
    }
    let example = "(`printf '%s\\t%s\\n' \"$path\" \"$number\"`)";
    match (path || name, number, stray) {
        (false, _, Some(stray)) => Err(format!(
            "`{}` is not an existing path (relative paths are taken from {}): give the path as `find` prints it, \
             with the number beside it",
            excerpt(&stray),
            context.cwd.display()
        )),
        (false, true, None) => {
            Err(format!("it holds a number but no path: give the path too, and the number beside it {example}"))
        }
        (false, false, None) => {
            Err(format!("it holds no existing path and no number: give both, the path and the number {example}"))
        }
        (true, false, _) => {
            Err(format!("it holds the path but no number: give the number too, beside the path {example}"))
        }
        (true, true, _) => Ok(()),
    }
}

fn check_case(text: &str, lower: bool) -> Result<(), String> {
    // In JSON, keys are names the goal gives: only the values' text must be in the case asked for.
    let strings: Vec<String> = match serde_json::from_str::<Value>(text) {
        Ok(value @ (Value::Array(_) | Value::Object(_))) => {
            let mut found = Vec::new();
            collect_strings(&value, &mut found);
            found
        }
        _ => text.lines().map(str::to_owned).collect(),
    };
    let wrong = |c: char| if lower { c.is_uppercase() } else { c.is_lowercase() };
    let Some(bad) = strings.iter().find(|s| s.chars().any(wrong)) else { return Ok(()) };
    let (case, other, fix) = if lower {
        ("lower", "upper", "tr '[:upper:]' '[:lower:]'")
    } else {
        ("upper", "lower", "tr '[:lower:]' '[:upper:]'")
    };
    let place = match text.lines().position(|l| l.contains(bad.as_str())) {
        Some(i) => format!("line {}", i + 1),
        None => "a value".to_owned(),
    };
    Err(format!("{place} `{}` has {other}-case letters: write it in {case} case (`{fix}`)", excerpt(bad)))
}

fn collect_strings(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::String(s) => found.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, found)),
        Value::Object(object) => object.values().for_each(|v| collect_strings(v, found)),
        _ => {}
    }
}

/// The result's items: the elements of a JSON array, or its non-blank lines; each with where it is.
fn items(text: &str) -> Vec<(String, Value)> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(values)) => {
            values.into_iter().enumerate().map(|(i, v)| (format!("item {}", i + 1), v)).collect()
        }
        _ => numbered_lines(text).map(|(n, l)| (format!("line {n}"), Value::String(l.to_owned()))).collect(),
    }
}

/// An item as text: a string as it is, anything else as JSON.
fn item_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn check_unique(text: &str) -> Result<(), String> {
    let items = items(text);
    for (i, (place, value)) in items.iter().enumerate() {
        if let Some((first, _)) = items[..i].iter().find(|(_, v)| v == value) {
            return Err(format!(
                "{place} `{}` repeats {first}: leave duplicates out (`sort -u`, or `awk '!seen[$0]++'` to keep the order)",
                excerpt(&item_text(value))
            ));
        }
    }
    Ok(())
}

fn check_count(text: &str, n: usize, context: &ShapeContext) -> Result<(), String> {
    let headers = headers(context);
    let count = match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(values)) => values.len(),
        Ok(Value::Object(object)) => object.len(),
        _ => {
            let mut lines: Vec<&str> = numbered_lines(text)
                .map(|(_, l)| l)
                // The input's header left in is the NoHeader check's to report, not a surplus item.
                .filter(|l| !headers.iter().any(|h| is_header_line(l, h)))
                .collect();
            if own_header(&lines) {
                lines.remove(0);
            }
            match lines.as_slice() {
                [one] if n > 1 && one.contains(',') => one.split(',').filter(|p| !p.trim().is_empty()).count(),
                _ => lines.len(),
            }
        }
    };
    if count > n {
        return Err(format!("it holds {count} items; the goal asks for {n}: keep only the first {n} (`head -n {n}`)"));
    }
    Ok(())
}

/// Whether the first of `lines` is a header the result gives itself (`word,count` above `the,12`): no digit in it,
/// a digit in every other line, and as many fields in each.
fn own_header(lines: &[&str]) -> bool {
    let [first, rest @ ..] = lines else { return false };
    let separator = Separator::of_lines(lines);
    let width = separator.split(first).len();
    !rest.is_empty()
        && width >= 2
        && !first.chars().any(|c| c.is_ascii_digit())
        && rest.iter().all(|l| l.chars().any(|c| c.is_ascii_digit()) && separator.split(l).len() == width)
}

fn is_name_key(key: &SortKey) -> bool {
    matches!(key, SortKey::Named(name) if NAME_KEYS.contains(&name.as_str()))
}

/// Keys that name the item's text ("by name"): its one non-numeric field.
const NAME_KEYS: &[&str] =
    &["name", "names", "word", "words", "title", "filename", "file name", "path", "text", "label", "key", "letter"];

/// Keys that name a measure ("by count"): its one numeric field.
const MEASURE_KEYS: &[&str] = &[
    "count",
    "counts",
    "frequency",
    "occurrences",
    "occurrence",
    "number",
    "total",
    "size",
    "file size",
    "amount",
    "value",
    "score",
    "length",
    "lines",
    "bytes",
    "sum",
    "quantity",
    "price",
    "total size",
    "line count",
    "word count",
];

/// The sort key of each item, or `None` where the key cannot be found in the result (then the order is not
/// judged).
fn sort_keys(items: &[(String, Value)], by: Option<&SortKey>, context: &ShapeContext) -> Option<Vec<String>> {
    let Some(by) = by else { return Some(items.iter().map(|(_, v)| item_text(v)).collect()) };
    // JSON objects: the named key of each.
    if items.iter().all(|(_, v)| v.is_object()) {
        let SortKey::Named(name) = by else { return None };
        return items.iter().map(|(_, v)| v.get(name.as_str()).map(item_text)).collect();
    }
    let texts: Vec<String> = items.iter().map(|(_, v)| item_text(v)).collect();
    let lines: Vec<&str> = texts.iter().map(String::as_str).collect();
    let field = |separator: Separator, index: usize| -> Option<Vec<String>> {
        lines.iter().map(|l| separator.split(l).get(index).map(|f| unquote(f).to_owned())).collect()
    };
    match by {
        SortKey::Column(index) => {
            let separator = headers(context)
                .iter()
                .map(|h| h.separator)
                .find(|s| lines.iter().all(|l| l.contains(s.char())))
                .unwrap_or_else(|| Separator::of_lines(&lines));
            field(separator, *index)
        }
        SortKey::Named(name) => {
            for header in headers(context) {
                if let Some(index) = header.index_of(name)
                    && lines.iter().all(|l| header.separator.split(l).len() == header.fields.len())
                {
                    return field(header.separator, index);
                }
            }
            let separator = Separator::of_lines(&lines);
            let widths: Vec<usize> = lines.iter().map(|l| separator.split(l).len()).collect();
            let width = widths.first().copied()?;
            let numeric_at =
                |i: usize| lines.iter().all(|l| separator.split(l).get(i).is_some_and(|f| is_number(unquote(f))));
            let numeric: Vec<usize> = (0..width).filter(|&i| numeric_at(i)).collect();
            let same_width = widths.iter().all(|&w| w == width);
            if MEASURE_KEYS.contains(&name.as_str()) && same_width && width >= 2 && numeric.len() == 1 {
                return field(separator, numeric[0]);
            }
            if NAME_KEYS.contains(&name.as_str()) {
                if numeric.is_empty() {
                    return Some(texts.clone());
                }
                if same_width && width == 2 && numeric.len() == 1 {
                    return field(separator, 1 - numeric[0]);
                }
            }
            None
        }
    }
}

/// A number a sort compares: the whole key when it is one, else its leading number (as `sort -n` reads it).
fn numeric_key(key: &str) -> Option<f64> {
    let key = key.trim();
    let cleaned = |s: &str| s.replace(',', "").parse::<f64>().ok();
    if is_number(key) {
        return cleaned(key);
    }
    let lead: String = key.chars().take_while(|c| c.is_ascii_digit() || *c == '.' || *c == '-' || *c == ',').collect();
    (!lead.is_empty()).then(|| cleaned(&lead)).flatten()
}

/// `10.0.0.2` as `[10, 0, 0, 2]`: a key of two dots or more between whole numbers.
fn dotted_key(key: &str) -> Option<Vec<u64>> {
    let parts: Option<Vec<u64>> = key.trim().split('.').map(|p| p.parse().ok()).collect();
    parts.filter(|p| p.len() > 2)
}

fn alnum_fold(key: &str) -> String {
    key.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// Whether `keys` are in order under some comparison `order` allows, in some direction `direction` allows.
fn in_order(keys: &[String], order: Order, direction: Direction) -> bool {
    let directions: &[bool] = match direction {
        Direction::Ascending => &[true],
        Direction::Descending => &[false],
        Direction::Either => &[true, false],
    };
    let sorted_by = |compare: &dyn Fn(&str, &str) -> std::cmp::Ordering| {
        directions.iter().any(|&up| {
            keys.windows(2).all(|w| {
                let ordering = compare(&w[0], &w[1]);
                if up { ordering.is_le() } else { ordering.is_ge() }
            })
        })
    };
    let numbers: Option<Vec<f64>> = keys.iter().map(|k| numeric_key(k)).collect();
    let numeric_ok = || {
        numbers.as_ref().is_some_and(|numbers| {
            directions.iter().any(|&up| numbers.windows(2).all(|w| if up { w[0] <= w[1] } else { w[0] >= w[1] }))
        })
    };
    let text_ok = || {
        sorted_by(&|a, b| a.cmp(b))
            || sorted_by(&|a, b| a.to_lowercase().cmp(&b.to_lowercase()))
            || sorted_by(&|a, b| alnum_fold(a).cmp(&alnum_fold(b)))
    };
    // Dotted numbers (addresses, versions) compare part by part: `10.0.0.9` before `10.0.0.10`.
    let dotted: Option<Vec<Vec<u64>>> = keys.iter().map(|k| dotted_key(k)).collect();
    let dotted_ok = || {
        dotted.as_ref().is_some_and(|parts| {
            directions.iter().any(|&up| parts.windows(2).all(|w| if up { w[0] <= w[1] } else { w[0] >= w[1] }))
        })
    };
    match order {
        Order::Numeric | Order::Any if numbers.is_none() && dotted.is_some() => dotted_ok(),
        // A key with no number cannot be judged as a number: the order is not held against the result.
        Order::Numeric => numbers.is_none() || numeric_ok(),
        Order::Alphabetical => text_ok(),
        // Numbers sorted as text (`10` before `9`: `sort` without `-n`) are not in order.
        Order::Any if keys.iter().all(|k| is_number(k)) => numeric_ok(),
        Order::Any => numeric_ok() || text_ok(),
    }
}

fn check_sorted(text: &str, sort: &Sort, context: &ShapeContext) -> Result<(), String> {
    let mut items = items(text);
    // A header line (the input's, or one the result starts with) is not an item to order.
    let headers = headers(context);
    let lines: Vec<&str> = items.iter().filter_map(|(_, v)| v.as_str()).collect();
    if lines.len() == items.len()
        && let Some(first) = lines.first()
        && (headers.iter().any(|h| is_header_line(first, h)) || own_header(&lines))
    {
        items.remove(0);
    }
    if items.len() < 2 {
        return Ok(());
    }
    let Some(keys) = sort_keys(&items, sort.by.as_ref(), context) else { return Ok(()) };
    if in_order(&keys, sort.order, sort.direction) {
        return Ok(());
    }
    // Name the first pair out of order under the plainest reading of what was asked.
    let numeric = match sort.order {
        Order::Numeric => true,
        Order::Alphabetical => false,
        Order::Any => keys.iter().all(|k| is_number(k)),
    };
    let up = sort.direction != Direction::Descending;
    let out_of_order = keys.windows(2).position(|w| {
        let ordering = if let (Some(a), Some(b)) = (dotted_key(&w[0]), dotted_key(&w[1])) {
            a.cmp(&b)
        } else if numeric {
            numeric_key(&w[0]).partial_cmp(&numeric_key(&w[1])).unwrap_or(std::cmp::Ordering::Equal)
        } else {
            w[0].to_lowercase().cmp(&w[1].to_lowercase())
        };
        if up { ordering.is_gt() } else { ordering.is_lt() }
    });
    let at = out_of_order.unwrap_or(0);
    let (first, second) = (&items[at], &items[at + 1]);
    let how = match (numeric, sort.direction) {
        (true, Direction::Descending) => "largest first",
        (true, _) => "smallest first",
        (false, Direction::Descending) => "in reverse alphabetical order",
        (false, _) => "in alphabetical order",
    };
    let by = match &sort.by {
        Some(SortKey::Column(i)) => format!(" by column {}", i + 1),
        Some(SortKey::Named(name)) => format!(" by {name}"),
        None => String::new(),
    };
    let mut flags = String::new();
    if numeric {
        flags.push('n');
    }
    if sort.direction == Direction::Descending {
        flags.push('r');
    }
    let dotted = keys.iter().all(|k| dotted_key(k).is_some());
    if dotted {
        flags = flags.replace('n', "V");
        if !flags.contains('V') {
            flags.insert(0, 'V');
        }
    }
    let command = if flags.is_empty() { "sort".to_owned() } else { format!("sort -{flags}") };
    Err(format!(
        "{} `{}` comes before {} `{}`, which is out of order: sort the result{by} {how} (`{command}`)",
        first.0,
        excerpt(&item_text(&first.1)),
        second.0,
        excerpt(&item_text(&second.1)),
    ))
}

/// The first line of `text`, at most 60 characters, with `…` when cut.
fn excerpt(text: &str) -> String {
    let line: String = text.lines().next().unwrap_or_default().chars().take(60).collect();
    if line.len() < text.len() { format!("{line}…") } else { line }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn context<'a>(cwd: &'a Path, headers: &'a [String]) -> ShapeContext<'a> {
        ShapeContext { cwd, input_headers: headers }
    }

    /// Checks `text` against `shape` with no input headers, in `/`.
    fn plain(shape: &Shape, text: &str) -> Result<(), String> {
        check(shape, text, &context(Path::new("/"), &[]))
    }

    fn number() -> Shape {
        Shape::Number { otherwise: Vec::new() }
    }

    fn sorted(order: Order, direction: Direction, by: Option<SortKey>) -> Shape {
        Shape::Sorted(Sort { order, direction, by })
    }

    #[test]
    fn a_case_the_input_may_be_in_is_no_case_of_the_result() {
        for goal in [
            "Rename every .tif under scans/, whatever its mix of upper and lower case, to end in .tiff.",
            "Give every .PNG or .png file (upper- or lowercase) a .png ending.",
            "Count the lines of notes.txt that say done in any case.",
        ] {
            let found = shapes(goal);
            assert!(!found.contains(&Shape::LowerCase) && !found.contains(&Shape::UpperCase), "{goal}: {found:?}");
        }
        assert!(shapes("Write the tags of posts.txt to tags.txt in lower case.").contains(&Shape::LowerCase));
    }

    #[test]
    fn every_pattern_compiles() {
        let patterns: [&LazyLock<Regex>; 55] = [
            &JSON_LINES,
            &PATH_AND_MEASURE,
            &COMPARED,
            &PATH_REQUESTED,
            &NUMBER_QUESTION,
            &NOT_ASKED,
            &NUMBER_WITH_UNIT,
            &FILE_NAME,
            &LABEL,
            &NAME_ASKED,
            &WHICH,
            &MASKED_WORDS,
            &ONE_PER_LINE,
            &NOT_ONE_PER_LINE,
            &NO_HEADER,
            &INPUT_WITHOUT_HEADER,
            &LOWER,
            &UPPER,
            &PARENTHESES,
            &SORTED,
            &NOT_SORTED,
            &EACH_VALUE,
            &PHRASAL_SORT,
            &STATED_HEADER,
            &COLUMNS_NAMED,
            &HEADERLESS,
            &DESCENDING,
            &ASCENDING,
            &SORT_BY,
            &SUPERLATIVE_FIRST,
            &UNIQUE,
            &NOT_UNIQUE,
            &JSON_ANY,
            &JSON_ARRAY,
            &JSON_OBJECT,
            &JSON_KEYS,
            &PATHS,
            &ABSOLUTE_PATHS,
            &EXISTING,
            &RELATIVE_PATHS,
            &RELATIVE_TO,
            &PATHS_MAY_NOT_EXIST,
            &STRONG_NUMBER,
            &WEAK_NUMBER,
            &MANY_NUMBERS,
            &PER_GROUP,
            &NUMBER_IN_CONDITION,
            &NUMBERS,
            &CONDITIONAL,
            &ALTERNATIVE,
            &COUNT,
            &NOT_ITEMS,
            &ASCENDING_AZ,
            &SUPERLATIVE,
            &NUMBER,
        ];
        for pattern in patterns {
            assert!(!LazyLock::force(pattern).as_str().is_empty());
        }
    }

    #[test]
    fn file_names_and_quotes_are_masked() {
        let goal = "Copy sorted.txt and data/unique to 'lower case' in $PATH, the user's \"top 5\" list";
        let masked = mask(goal);
        assert_eq!(masked.len(), goal.len());
        for word in ["sorted", "unique", "lower case", "PATH", "top 5"] {
            assert!(!masked.contains(word), "{word} in {masked}");
        }
        assert!(masked.contains("the user's"), "{masked}");
    }

    #[test]
    fn one_per_line_is_read_in_its_usual_phrasings() {
        for phrase in [
            "one per line",
            "one name per line",
            "each on its own line",
            "each name on a separate line",
            "on separate lines",
            "a line each",
            "one line per user",
            "newline-separated",
            "separated by newlines",
            "each on a line by itself",
            "one to a line",
        ] {
            let goal = format!("Write the names in users.txt to names.txt, {phrase}.");
            assert!(shapes(&goal).contains(&Shape::OnePerLine), "{phrase}");
        }
        for goal in [
            "Write the names in users.txt to names.txt, comma-separated on one line.",
            "Write the number of words per line of a.txt to counts.txt.",
            "Copy oneperline.txt to b.txt.",
        ] {
            assert!(!shapes(goal).contains(&Shape::OnePerLine), "{goal}");
        }
    }

    #[test]
    fn one_per_line_checks() {
        let shape = Shape::OnePerLine;
        assert_eq!(plain(&shape, "alice\nbob\ncarol\n"), Ok(()));
        assert_eq!(plain(&shape, "Smith, John\n"), Ok(()), "one item with a comma");
        assert_eq!(plain(&shape, "bob,42\ncarol,37\n"), Ok(()), "rows");
        for wrong in ["alice, bob, carol", "['alice', 'bob']", "alice\\nbob", "alice\n\nbob"] {
            assert!(plain(&shape, wrong).is_err(), "{wrong}");
        }
        assert!(plain(&shape, "['alice', 'bob']").unwrap_err().contains("on its own line"));
    }

    #[test]
    fn a_number_is_read_unless_the_goal_wants_more() {
        for goal in [
            "Count the words of essay.md and save just the number to n.txt.",
            "How many guests are in guests.csv? Write the number to n.txt.",
            "Write the number of lines in a.txt to n.txt.",
            "Answer with the number only.",
            "Write the total length in seconds of clips/ to length.txt.",
            "Write a single number to n.txt: the count of errors.",
            "Count the lines of a.txt that hold ERROR and write the count to n.txt.",
            "Write the number of unique addresses in a.log to n.txt.",
        ] {
            assert_eq!(shapes(goal).first(), Some(&number()), "{goal}");
        }
        for goal in [
            "Write the number of lines in each file of logs/ to counts.txt.",
            "Write the number of lines and the number of words of a.txt to stats.txt.",
            "Write the lines of a.txt whose number of fields is 3 to b.txt.",
            "Write the number of orders per status to counts.txt.",
            "Write the top 5 words of a.txt with their counts to top.txt.",
            "Copy number.txt to b.txt.",
            "Count the lines in in.txt into n.txt, even if some are blank.",
            "How many lines and how many words does a.txt have?",
            "For each file in logs/, write just the number of lines to counts.txt, one per line.",
        ] {
            assert!(!shapes(goal).iter().any(|s| matches!(s, Shape::Number { .. })), "{goal}");
        }
    }

    #[test]
    fn a_name_asked_for_is_not_a_number_whatever_measure_it_names() {
        for goal in [
            "Which folder under music/ is the largest (the total of its files' sizes in bytes)? Write its name to a.txt.",
            "Which track under music/ has the largest size (the number of bytes)? Write its name to a.txt.",
            "Which of the clips lasts longest, in seconds? Write the name of the clip to a.txt.",
            "Find the album whose tracks add up to the largest sum in KB and write its path to a.txt.",
            "Who has the highest total in scores.csv? Reply with the name only.",
        ] {
            assert!(!shapes(goal).iter().any(|s| matches!(s, Shape::Number { .. })), "{goal}: {:?}", shapes(goal));
            assert!(asks_name(goal), "{goal}");
        }
        for goal in [
            "Which number appears most often in nums.txt? Write just the number to a.txt.",
            "What is the total size in bytes of music/? Write the number to a.txt.",
            "Which port does the [db] section set? Answer with the number only.",
        ] {
            assert_eq!(shapes(goal).first(), Some(&number()), "{goal}");
            assert!(!asks_name(goal), "{goal}");
        }
    }

    #[test]
    fn a_conditional_goal_allows_its_words_beside_the_number() {
        let goal = "Write the number of lines in in.txt to n.txt. If in.txt does not exist, write MISSING instead.";
        let shape = Shape::Number { otherwise: vec!["MISSING".to_owned()] };
        assert_eq!(shapes(goal), vec![shape.clone()]);
        assert_eq!(plain(&shape, "MISSING\n"), Ok(()));
        assert_eq!(plain(&shape, "12\n"), Ok(()));
        assert!(plain(&shape, "12 in.txt").is_err());
    }

    #[test]
    fn number_checks() {
        for right in ["12\n", " -3 ", "1,024", "3875.50", "+4", ".5", "1e6"] {
            assert_eq!(plain(&number(), right), Ok(()), "{right}");
        }
        assert_eq!(
            plain(&number(), "12 notes.txt"),
            Err("it holds `12 notes.txt`: the number and more; write only the number (cut the rest off: `awk \
                 '{print $1}'`)"
                .to_owned())
        );
        assert!(plain(&number(), "Total: 12").unwrap_err().contains("not a number"));
        assert!(plain(&number(), "12\n13").unwrap_err().contains("2 lines"));
        assert_eq!(plain(&number(), "\n"), Ok(()), "emptiness is the caller's to judge");
        assert_eq!(shapes("Write the ports in a.conf to ports.txt, numbers only, one per line.")[0], Shape::Numbers);
        assert_eq!(plain(&Shape::Numbers, "80\n443\n"), Ok(()));
        assert!(plain(&Shape::Numbers, "80\nhttps\n").unwrap_err().starts_with("line 2 `https`"));
    }

    #[test]
    fn json_is_read_with_its_kind_and_keys() {
        let keys = |k: &[&str]| k.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            shapes("Write the user as JSON with keys name and age to user.json."),
            vec![Shape::Json { kind: JsonKind::Object, keys: keys(&["name", "age"]) }]
        );
        assert_eq!(
            shapes("Write a JSON object with the fields a, b and `c d` to out.json."),
            vec![Shape::Json { kind: JsonKind::Object, keys: keys(&["a", "b", "c d"]) }]
        );
        assert_eq!(
            shapes("Write the users to users.json as a JSON array."),
            vec![Shape::Json { kind: JsonKind::Array, keys: Vec::new() }]
        );
        assert_eq!(
            shapes("Convert data.csv to data.json."),
            vec![Shape::Json { kind: JsonKind::Any, keys: Vec::new() }]
        );
        assert_eq!(shapes("Write the port in the JSON file config.json to port.txt."), vec![]);
        // A word that only starts like one ("keywords", "fieldset") starts no list of keys.
        assert_eq!(
            shapes("Turn the keywords column of tags.csv into a JSON array in tags.json."),
            vec![Shape::Json { kind: JsonKind::Array, keys: Vec::new() }]
        );
    }

    #[test]
    fn json_checks() {
        let object = Shape::Json { kind: JsonKind::Object, keys: vec!["name".to_owned(), "age".to_owned()] };
        assert_eq!(plain(&object, "{\"name\": \"bob\", \"age\": 42, \"city\": \"x\"}\n"), Ok(()));
        assert_eq!(
            plain(&object, "{\"name\": \"bob\", \"years\": 42}"),
            Err("the JSON object has no key `age` (it has: name, years): use exactly the keys the goal names: name, \
                 age"
            .to_owned())
        );
        assert!(plain(&object, "[1]").unwrap_err().contains("not an object"));
        assert!(plain(&object, "{'name': 'bob'}").unwrap_err().contains("Python literal"));
        assert!(plain(&object, "{\"name\": \"bob\",}").unwrap_err().contains("not valid JSON"));
        let array = Shape::Json { kind: JsonKind::Array, keys: vec!["name".to_owned()] };
        assert_eq!(plain(&array, "[{\"name\": \"a\"}, {\"name\": \"b\"}]"), Ok(()));
        assert!(plain(&array, "[{\"name\": \"a\"}, {\"nom\": \"b\"}]").unwrap_err().starts_with("item 2"));
        assert!(plain(&array, "[\"a\", \"b\"]").unwrap_err().contains("not an object"));
        assert!(plain(&array, "{\"name\": \"a\"}\n{\"name\": \"b\"}").unwrap_err().contains("one JSON value per line"));
        // JSON Lines: a value on each line, and a document is not that.
        let lines = Shape::Json { kind: JsonKind::Lines, keys: vec!["name".to_owned()] };
        assert_eq!(plain(&lines, "{\"name\": \"a\"}\n{\"name\": \"b\", \"n\": 1}\n"), Ok(()));
        assert!(plain(&lines, "{\"name\": \"a\"}\n{\"nom\": \"b\"}").unwrap_err().contains("line 2 has no key `name`"));
        assert!(
            plain(&lines, "[{\"name\": \"a\"},\n{\"name\": \"b\"}]")
                .unwrap_err()
                .contains("line 1 is not one JSON value")
        );
        for goal in [
            "Convert staff.csv to JSON Lines in staff.jsonl.",
            "Write one JSON object per line to out.txt, with the keys name and age.",
            "Turn the CSV into NDJSON at rows.ndjson.",
            "Write the rows of a.csv to rows.jsonl.",
        ] {
            assert!(
                shapes(goal).iter().any(|s| matches!(s, Shape::Json { kind: JsonKind::Lines, .. })),
                "{goal}: {:?}",
                shapes(goal)
            );
        }
    }

    #[test]
    fn a_parenthesis_describing_an_input_is_not_the_results_shape() {
        let goal = "Convert trips.log (one JSON object per line) into trips.csv with a header.";
        assert!(
            !shapes(goal).iter().any(|s| matches!(s, Shape::Json { .. } | Shape::OnePerLine)),
            "{:?}",
            shapes(goal)
        );
        // Said of the result, it is the result's.
        let goal = "Convert trips.csv into trips.txt (one JSON object per line).";
        assert!(
            shapes(goal).iter().any(|s| matches!(s, Shape::Json { kind: JsonKind::Lines, .. })),
            "{:?}",
            shapes(goal)
        );
    }

    #[test]
    fn no_header_is_read_in_its_usual_phrasings() {
        for phrase in [
            "without the header",
            "skip the header row",
            "excluding the header",
            "leave out the header line",
            "omitting the CSV header",
            "header excluded",
            "ignoring the header line",
            "data rows only",
        ] {
            let goal = format!("Write the names in users.csv to names.txt, {phrase}.");
            assert!(shapes(&goal).contains(&Shape::NoHeader), "{phrase}");
        }
        assert!(
            !shapes("users.csv is a CSV file without a header; write its names to n.txt.").contains(&Shape::NoHeader)
        );
        assert!(!shapes("Copy header.csv to b.csv.").contains(&Shape::NoHeader));
    }

    #[test]
    fn a_stated_header_is_checked() {
        let shape = Shape::Header(vec!["id".into(), "variety".into(), "kg".into()]);
        let dir = tempfile::tempdir().unwrap();
        let context = context(dir.path(), &[]);
        assert!(check(&shape, "id,variety,kg\n1,bosc,3\n", &context).is_ok());
        assert!(check(&shape, "\"id\", \"Variety\",kg\n1,bosc,3\n", &context).is_ok(), "quotes, case, spaces");
        assert!(check(&shape, "id\tvariety\tkg\n1\tbosc\t3\n", &context).is_ok(), "its own separator");
        assert_eq!(
            check(&shape, "id,variety,kg,origin\n1,bosc,3,fr\n", &context).unwrap_err(),
            "its first line is `id,variety,kg,origin`, not the header `id,variety,kg` the goal states"
        );
        assert!(stated_header("Keep the header line as it is.").is_none());
        assert_eq!(stated_header("End with a header row: date,amount.").unwrap(), ["date", "amount"]);
        let columns = "Write low.csv: columns sku,qty with a header line, one row per item.";
        assert_eq!(stated_header(columns).unwrap(), ["sku", "qty"]);
        assert!(stated_header("Write low.csv with columns sku,qty and no header.").is_none());
        assert!(stated_header("Write low.csv with columns sku,qty.").is_none(), "no header asked for");
        assert!(stated_header("the header id, name and email").is_none(), "no list of names with commas only");
    }

    #[test]
    fn no_header_checks() {
        let headers = ["name,age,city".to_owned()];
        let context = context(Path::new("/"), &headers);
        assert_eq!(check(&Shape::NoHeader, "alice\nbob\n", &context), Ok(()));
        assert_eq!(
            check(&Shape::NoHeader, "name,age,city\nalice,30,x\n", &context),
            Err("line 1 is the input's header `name,age,city`: leave the header out (`tail -n +2` before the rest, \
                 or `NR > 1` in awk)"
                .to_owned())
        );
        assert!(check(&Shape::NoHeader, "name\nalice\n", &context).unwrap_err().contains("column names"));
        assert!(check(&Shape::NoHeader, "alice,30\nname,age\n", &context).is_err(), "sorted into the middle");
        assert_eq!(check(&Shape::NoHeader, "alice\nname\n", &context), Ok(()), "a value, further down");
        assert_eq!(plain(&Shape::NoHeader, "name\nalice\n"), Ok(()), "no header known");
    }

    #[test]
    fn paths_are_read_with_their_form() {
        assert_eq!(
            shapes("Write the full paths of the .log files under var/ to logs.txt."),
            vec![Shape::ExistingPaths { form: PathForm::Absolute }]
        );
        assert_eq!(
            shapes("List the paths of the files in src/, relative to src/, in files.txt."),
            vec![Shape::ExistingPaths { form: PathForm::Relative { base: Some("src/".to_owned()) } }]
        );
        for goal in [
            "Write the number of file paths in list.txt to n.txt.",
            "Delete the .tmp files and write their paths to deleted.txt.",
            "Write the paths requested in access.log to paths.txt.",
            "Write the directories in the PATH variable to dirs.txt.",
            // A path with something measured beside it: a line is more than a path.
            "Which file under media/ is the biggest? Print its path and its size in bytes.",
            "Print the path of the newest log, and how many lines it has.",
            "List the size and the path of each file in tmp/, biggest first.",
        ] {
            assert!(!shapes(goal).iter().any(|s| matches!(s, Shape::ExistingPaths { .. })), "{goal}");
        }
    }

    #[test]
    fn path_checks() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("my docs")).unwrap();
        std::fs::write(dir.path().join("my docs/a b.txt"), "x").unwrap();
        let context = context(dir.path(), &[]);
        let any = Shape::ExistingPaths { form: PathForm::Any };
        assert_eq!(check(&any, "my docs/a b.txt\n./my docs\n", &context), Ok(()));
        assert!(check(&any, "my docs/c.txt", &context).unwrap_err().contains("not an existing path"));
        assert!(check(&any, "-rw-r--r-- 1 u g 1 my", &context).unwrap_err().contains("not an existing path"));
        let absolute = Shape::ExistingPaths { form: PathForm::Absolute };
        let full = format!("{}\n", dir.path().join("my docs/a b.txt").display());
        assert_eq!(check(&absolute, &full, &context), Ok(()));
        assert!(check(&absolute, "my docs/a b.txt", &context).unwrap_err().contains("not a full path"));
        let relative = Shape::ExistingPaths { form: PathForm::Relative { base: Some("my docs".to_owned()) } };
        assert_eq!(check(&relative, "a b.txt", &context), Ok(()));
        assert!(check(&relative, &full, &context).unwrap_err().contains("absolute path"));
    }

    #[test]
    fn a_path_asked_with_a_number_is_read_as_both() {
        for goal in [
            "What is the heaviest file in media/, nested folders too? Print its full path and its size in bytes.",
            "Find the largest file below backups/ and report the path together with its byte count.",
            "Which log under var/ takes up the most room, and how large is it exactly? Reply with its path.",
            "Tell me the size in bytes and the path of the biggest photo in pics/.",
            "The bulkiest file under src/: give its path, and how many bytes it holds.",
            "Print the path of the newest log, and how many lines it has.",
            "List the size and the path of each file in tmp/, biggest first.",
        ] {
            let found = shapes(goal);
            assert!(found.contains(&Shape::PathAndNumber), "{goal}: {found:?}");
            assert!(
                !found.iter().any(|s| matches!(s, Shape::ExistingPaths { .. } | Shape::Number { .. })),
                "{goal}: {found:?}"
            );
            assert!(asks_name(goal), "not one number: {goal}");
        }
        // Paths alone: a measure in a condition on the files is not asked for.
        for goal in [
            "List the paths of the files over 500 bytes in logs/, one per line.",
            "Write the paths of the files with more than 20 lines to long.txt.",
            "Write the paths of the files with size 0 to empty.txt.",
            "Write the paths of the largest files to big.txt, no matter how big they are.",
        ] {
            let found = shapes(goal);
            assert!(found.iter().any(|s| matches!(s, Shape::ExistingPaths { .. })), "{goal}: {found:?}");
            assert!(!found.contains(&Shape::PathAndNumber), "{goal}: {found:?}");
        }
        // Something measured that is not a number, or a goal that may allow a word instead: neither check.
        for goal in [
            "Print the path of each file with its modification date.",
            "Which file in docs/ is largest? If there is a tie, print TIE; otherwise print its path and its size.",
            "Which file under logs/ is largest? Give its path relative to logs/ and its size.",
        ] {
            let found = shapes(goal);
            assert!(
                !found.iter().any(|s| matches!(s, Shape::ExistingPaths { .. } | Shape::PathAndNumber)),
                "{goal}: {found:?}"
            );
        }
        // A number alone asked about paths is still a number.
        assert_eq!(shapes("How many file paths does list.txt hold?"), vec![number()]);
    }

    #[test]
    fn a_path_and_a_number_are_checked_in_any_layout() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("old runs/2023")).unwrap();
        std::fs::write(dir.path().join("old runs/2023/big log.txt"), "12345").unwrap();
        let context = context(dir.path(), &[]);
        let both = Shape::PathAndNumber;
        let full = dir.path().join("old runs/2023/big log.txt").display().to_string();
        for text in [
            "5\told runs/2023/big log.txt\n".to_owned(),
            "old runs/2023/big log.txt: 5 bytes".to_owned(),
            "./old runs/2023/big log.txt 5B".to_owned(),
            "The largest is old runs/2023/big log.txt, at 5 bytes.".to_owned(),
            "old runs/2023/big log.txt\n5 bytes\n".to_owned(),
            "{\"path\": \"old runs/2023/big log.txt\", \"size\": 5}".to_owned(),
            "path=old runs/2023/big log.txt size=5".to_owned(),
            format!("{full} (1,024 bytes)"),
            "big log.txt: 5 bytes".to_owned(),
        ] {
            assert_eq!(check(&both, &text, &context), Ok(()), "{text}");
        }
        let only_number = check(&both, "5 bytes\n", &context).unwrap_err();
        assert!(only_number.contains("no path"), "{only_number}");
        let only_path = check(&both, "old runs/2023/big log.txt\n", &context).unwrap_err();
        assert!(only_path.contains("no number"), "{only_path}");
        let made_up = check(&both, "archive/big.txt: 5 bytes", &context).unwrap_err();
        assert!(made_up.contains("`archive/big.txt` is not an existing path"), "{made_up}");
        assert!(check(&both, "the biggest one", &context).unwrap_err().contains("no existing path and no number"));
        assert_eq!(plain(&both, "\n"), Ok(()), "an empty result is the caller's judgement");
    }

    #[test]
    fn case_is_read_and_checked() {
        for goal in [
            "Write the names in a.txt to b.txt in lower case.",
            "Write the names, lowercased, to b.txt.",
            "Lowercase the names of a.txt and write them to b.txt.",
            "Convert the names in a.txt to lowercase and write them to b.txt.",
            "Write the lowercase names of a.txt to b.txt.",
        ] {
            assert!(shapes(goal).contains(&Shape::LowerCase), "{goal}");
        }
        assert!(shapes("Write the words of a.txt in capitals to b.txt.").contains(&Shape::UpperCase));
        assert!(shapes("Write the names in ALL CAPS to b.txt.").contains(&Shape::UpperCase));
        let word = shapes("List the files whose content holds the word TODO (uppercase), one per line, in todos.txt.");
        assert!(!word.contains(&Shape::UpperCase), "the case qualifies the word searched for: {word:?}");
        let both = shapes("Write each name with the first letter in upper case and the rest in lower case to b.txt.");
        assert!(!both.contains(&Shape::LowerCase) && !both.contains(&Shape::UpperCase));
        assert!(
            !shapes("Count the lowercase letters in a.txt and write the count to n.txt.").contains(&Shape::LowerCase)
        );
        assert!(!shapes("Write the lines of a.txt with uppercase letters to b.txt.").contains(&Shape::UpperCase));
        assert_eq!(plain(&Shape::LowerCase, "alice\nbob 2\n"), Ok(()));
        assert_eq!(
            plain(&Shape::LowerCase, "alice\nBob\n"),
            Err("line 2 `Bob` has upper-case letters: write it in lower case (`tr '[:upper:]' '[:lower:]'`)".to_owned())
        );
        assert_eq!(plain(&Shape::UpperCase, "{\"name\": \"BOB\"}"), Ok(()), "JSON keys keep their case");
        assert!(plain(&Shape::UpperCase, "BOB\nAlice").is_err());
    }

    #[test]
    fn order_is_read_with_its_direction_and_key() {
        let read = |goal: &str| {
            shapes(goal).into_iter().find_map(|s| match s {
                Shape::Sorted(sort) => Some(sort),
                _ => None,
            })
        };
        let sort = |order, direction, by: Option<SortKey>| Some(Sort { order, direction, by });
        assert_eq!(read("Write the names to b.txt, sorted."), sort(Order::Any, Direction::Ascending, None));
        assert_eq!(
            read("Write the names to b.txt in alphabetical order."),
            sort(Order::Alphabetical, Direction::Ascending, None)
        );
        assert_eq!(
            read("Write the numbers to b.txt in descending numeric order."),
            sort(Order::Numeric, Direction::Descending, None)
        );
        assert_eq!(
            read("Write the rows of users.csv to b.csv, sorted by age."),
            sort(Order::Any, Direction::Either, Some(SortKey::Named("age".to_owned())))
        );
        assert_eq!(
            read("Sort the rows of a.tsv by the second column, smallest first, into b.tsv."),
            sort(Order::Any, Direction::Ascending, Some(SortKey::Column(1)))
        );
        assert_eq!(
            read("Write the words and their counts to c.txt, most frequent first."),
            sort(Order::Any, Direction::Descending, Some(SortKey::Named("count".to_owned())))
        );
        // A measure named after the superlative is what the order goes by, not a length, size or count in the
        // result; an item named there leaves the measure to the superlative.
        assert_eq!(
            read("Print each product and its stock, one per line, highest price first."),
            sort(Order::Any, Direction::Descending, Some(SortKey::Named("price".to_owned())))
        );
        assert_eq!(
            read("Write the tracks to t.txt, one per line, longest duration first."),
            sort(Order::Any, Direction::Descending, Some(SortKey::Named("duration".to_owned())))
        );
        assert_eq!(
            read("Write the lines of a.txt to b.txt, longest line first."),
            sort(Order::Any, Direction::Descending, Some(SortKey::Named("length".to_owned())))
        );
        // A noun between the two ends of the range: the measure it names, the direction the ends give.
        let value = Some(SortKey::Named("value".to_owned()));
        assert_eq!(
            read("Copy the cities of towns.csv into big.csv, from the largest population to the smallest."),
            sort(Order::Any, Direction::Descending, value.clone())
        );
        assert_eq!(
            read("Write the events of a.log to b.log from the oldest event to the newest."),
            sort(Order::Any, Direction::Ascending, Some(SortKey::Named("time".to_owned())))
        );
        assert_eq!(read("Copy the files from the newest backup to restore/."), None, "a range needs both ends");
        let towns = sort(Order::Any, Direction::Descending, value).map(Shape::Sorted).unwrap();
        assert_eq!(plain(&towns, "city,population\nOslo,709000\nBergen,291000\nAlesund,67000\n"), Ok(()));
        assert!(plain(&towns, "city,population\nAlesund,67000\nBergen,291000\nOslo,709000\n").is_err());
        assert_eq!(read("Write the lines of a.txt in reverse order to b.txt."), None, "reversed, not sorted");
        assert_eq!(read("Write the names to b.txt in any order."), None);
        assert_eq!(read("Write the names to b.txt in the order they appear."), None);
        assert_eq!(read("Copy sorted.txt to b.txt."), None);
        assert_eq!(read("Sort out the broken lines of a.txt into b.txt."), None);
        assert_eq!(
            read("Write the 3 largest files of data/ to big.txt, sorted."),
            sort(Order::Any, Direction::Either, None),
            "largest first or last"
        );
    }

    #[test]
    fn order_checks() {
        let ascending = sorted(Order::Alphabetical, Direction::Ascending, None);
        assert_eq!(plain(&ascending, "alice\nBob\ncarol\n"), Ok(()), "case-insensitive collation");
        assert_eq!(plain(&ascending, "Bob\nalice\n"), Ok(()), "byte order");
        assert_eq!(
            plain(&ascending, "carol\nalice\n"),
            Err("line 1 `carol` comes before line 2 `alice`, which is out of order: sort the result in alphabetical \
                 order (`sort`)"
                .to_owned())
        );
        let numeric = sorted(Order::Numeric, Direction::Descending, None);
        assert_eq!(plain(&numeric, "100\n20\n3\n"), Ok(()));
        assert!(plain(&numeric, "3\n20\n").unwrap_err().contains("(`sort -nr`)"));
        let headers = ["name,age".to_owned()];
        let by_age = sorted(Order::Any, Direction::Either, Some(SortKey::Named("age".to_owned())));
        let context = context(Path::new("/"), &headers);
        assert_eq!(check(&by_age, "name,age\nbob,9\nalice,30\n", &context), Ok(()));
        assert!(check(&by_age, "bob,9\nalice,30\ncarol,12\n", &context).is_err());
        assert!(check(&by_age, "bob,9\ncarol,12\nalice,30\n", &context).is_ok());
        let any = sorted(Order::Any, Direction::Ascending, None);
        assert!(plain(&any, "10\n9\n").unwrap_err().contains("(`sort -n`)"), "numbers sorted as text");
        let by_count = sorted(Order::Any, Direction::Either, Some(SortKey::Named("count".to_owned())));
        assert_eq!(plain(&by_count, "word,count\nthe,12\na,7\n"), Ok(()), "its own header");
        assert_eq!(plain(&any, "name,age\nalice,30\nbob,9\n"), Ok(()), "its own header, then rows in order");
        assert_eq!(check(&by_age, "bob\nalice\n", &context), Ok(()), "the key is not in the result");
        let by_count = sorted(Order::Any, Direction::Descending, Some(SortKey::Named("count".to_owned())));
        assert_eq!(plain(&by_count, "   12 apple\n    3 pear\n"), Ok(()));
        assert!(plain(&by_count, "3 pear\n12 apple\n").is_err());
        let by_name = sorted(Order::Any, Direction::Ascending, Some(SortKey::Named("name".to_owned())));
        assert_eq!(plain(&by_name, "[{\"name\": \"a\"}, {\"name\": \"b\"}]"), Ok(()));
        assert!(plain(&by_name, "[{\"name\": \"b\"}, {\"name\": \"a\"}]").unwrap_err().starts_with("item 1"));
    }

    #[test]
    fn unique_is_read_and_checked() {
        for phrase in ["without duplicates", "unique", "distinct", "no duplicates", "each only once", "deduplicated"] {
            let goal = format!("Write the {phrase} emails of a.txt to b.txt.");
            assert!(shapes(&goal).contains(&Shape::Unique), "{phrase}");
        }
        assert!(!shapes("Write the lines of a.txt that are not unique to d.txt.").contains(&Shape::Unique));
        assert!(!shapes("Copy unique.txt to b.txt.").contains(&Shape::Unique));
        assert!(!shapes("Run each script in bin/ once and write the output to out.txt.").contains(&Shape::Unique));
        assert_eq!(plain(&Shape::Unique, "a\nb\n"), Ok(()));
        assert!(plain(&Shape::Unique, "a\nb\na\n").unwrap_err().starts_with("line 3 `a` repeats line 1"));
    }

    #[test]
    fn a_count_is_read_and_checked() {
        assert!(shapes("Write the 3 largest files in data/ to big.txt.").contains(&Shape::Count(3)));
        assert!(shapes("Write the top five words of a.txt to top.txt.").contains(&Shape::Count(5)));
        assert!(shapes("Write the first 10 lines of a.txt to b.txt.").contains(&Shape::Count(10)));
        for goal in [
            "Write the files changed in the last 7 days to recent.txt.",
            "Write the first 3 columns of a.csv to b.csv.",
            "Write the first 2 lines of each file to heads.txt.",
            "Write the top 10% of scores to top.txt.",
        ] {
            assert!(!shapes(goal).iter().any(|s| matches!(s, Shape::Count(_))), "{goal}");
        }
        let headers = ["name,size".to_owned()];
        let context = context(Path::new("/"), &headers);
        assert_eq!(check(&Shape::Count(3), "a\nb\n", &context), Ok(()), "fewer may be all there is");
        assert_eq!(check(&Shape::Count(2), "name,size\na,1\nb,2\n", &context), Ok(()), "the header is not an item");
        assert_eq!(
            check(&Shape::Count(2), "a\nb\nc\n", &context),
            Err("it holds 3 items; the goal asks for 2: keep only the first 2 (`head -n 2`)".to_owned())
        );
        assert!(check(&Shape::Count(2), "[1, 2, 3]", &context).is_err());
        assert_eq!(check(&Shape::Count(2), "word,count\nthe,12\na,7\n", &context), Ok(()), "its own header");
        assert!(check(&Shape::Count(2), "word\nthe\na\n", &context).is_err(), "a word is no header");
    }

    #[test]
    fn dotted_numbers_sort_part_by_part() {
        let shape = sorted(Order::Numeric, Direction::Ascending, None);
        assert_eq!(plain(&shape, "10.0.0.2\n10.0.0.10\n192.168.1.1\n"), Ok(()));
        assert_eq!(
            plain(&shape, "10.0.0.10\n10.0.0.2\n"),
            Err("line 1 `10.0.0.10` comes before line 2 `10.0.0.2`, which is out of order: sort the result smallest \
                 first (`sort -V`)"
                .to_owned())
        );
    }

    #[test]
    fn goals_as_people_write_them() {
        let value = |name: &str| Some(SortKey::Named(name.to_owned()));
        for (goal, expected) in [
            ("Count the .log files in logs/ and write the count to n.txt.", vec![number()]),
            (
                "Write the email addresses in contacts.csv, lowercased and deduplicated, to emails.txt.",
                vec![Shape::LowerCase, Shape::Unique],
            ),
            (
                "Find the 5 largest files under data/ and write their paths to big.txt, largest first.",
                vec![
                    Shape::ExistingPaths { form: PathForm::Any },
                    sorted(Order::Any, Direction::Descending, value("value")),
                    Shape::Count(5),
                ],
            ),
            (
                "Extract the unique IP addresses from access.log, sorted numerically, one per line, into ips.txt.",
                vec![Shape::OnePerLine, sorted(Order::Numeric, Direction::Ascending, None), Shape::Unique],
            ),
            (
                "Write the top 3 most frequent words in text.txt with their counts to top.txt, most frequent first.",
                vec![sorted(Order::Any, Direction::Descending, value("count")), Shape::Count(3)],
            ),
            (
                "Sort the rows of scores.csv by score in descending order and write them to sorted.csv.",
                vec![sorted(Order::Any, Direction::Descending, value("score"))],
            ),
            ("Write the words of poem.txt that appear more than once to repeated.txt.", vec![]),
            ("Write the users older than 30 from users.csv to old.csv, keeping the header.", vec![]),
            ("Print the lines of error.log that contain ERROR, in the order they appear.", vec![]),
            ("If backup.tar exists, write YES to found.txt, otherwise write NO.", vec![]),
            ("Rename every .jpeg file in photos/ to .jpg.", vec![]),
            (
                "Write the ripe pears in pears.json to ripe.csv: a header line id,variety,kg, then one row each.",
                vec![Shape::Header(vec!["id".into(), "variety".into(), "kg".into()])],
            ),
            (
                "Join a.tsv and b.tsv into both.csv with the header `name,shelf`.",
                vec![Shape::Header(vec!["name".into(), "shelf".into()])],
            ),
            // A case word before an extension speaks of the names changed, not of all that is printed.
            ("Make every song under tunes/ end in a lowercase .mp3 rather than .MP3.", vec![]),
            ("Give each track under tunes/ an upper-case .WAV ending.", vec![]),
            // "Sort out" is to fix, not to order.
            ("Get ./bake.sh to finish. The oven setup needs sorting out; write the log to bake.log.", vec![]),
            ("Sort out the mess in pantry.ini so ./stock runs.", vec![]),
            // A form for each value is no single number.
            ("Turn weights.tsv into weights.csv with each weight as a plain number (no units).", vec![]),
            ("Rewrite temps.txt so every reading becomes a plain number, one per line.", vec![Shape::OnePerLine]),
        ] {
            assert_eq!(shapes(goal), expected, "{goal}");
        }
    }

    #[test]
    fn all_problems_are_told_and_headers_are_read_from_csv_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("users.csv"), "\u{feff}name,age\r\nalice,30\r\n").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "name,age\n").unwrap();
        assert_eq!(input_header(&dir.path().join("users.csv")).as_deref(), Some("name,age"));
        assert_eq!(input_header(&dir.path().join("notes.txt")), None, "not a table");
        assert_eq!(input_header(&dir.path().join("gone.csv")), None);
        let headers = vec![input_header(&dir.path().join("users.csv")).unwrap()];
        let context = context(dir.path(), &headers);
        let goal = "Write the names in users.csv, without the header, sorted, to names.txt.";
        let found = problems(&shapes(goal), "name\nbob\nalice\n", &context);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].contains("header") && found[1].contains("out of order"), "{found:?}");
        assert_eq!(problems(&shapes(goal), "alice\nbob\n", &context), Vec::<String>::new());
    }

    #[test]
    fn two_destinations_get_no_shapes() {
        assert_eq!(shapes("Write the names to a.txt, sorted, and the number of names to n.txt."), vec![]);
    }

    #[test]
    fn several_shapes_are_read_together() {
        let goal = "Write the names of the users in users.csv, without the header, one per line, sorted and \
                    without duplicates, to names.txt.";
        assert_eq!(
            shapes(goal),
            vec![Shape::OnePerLine, Shape::NoHeader, sorted(Order::Any, Direction::Ascending, None), Shape::Unique]
        );
    }

    /// File names whose words are shape words: masked, they say nothing.
    fn file_name() -> impl Strategy<Value = String> {
        (
            prop::sample::select(vec![
                "sorted", "unique", "lower", "upper", "top5", "header", "paths", "numbers", "count", "json", "a",
                "data",
            ]),
            "[a-z]{0,5}",
            prop::sample::select(vec!["txt", "csv", "log", "tsv"]),
        )
            .prop_map(|(stem, tail, ext)| format!("{stem}{tail}.{ext}"))
    }

    fn noun() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec!["names", "emails", "user ids", "cities", "words", "titles"])
    }

    proptest! {
        #[test]
        fn file_names_alone_state_no_shape(from in file_name(), to in file_name(), verb in prop::sample::select(vec!["Copy", "Move", "Append"])) {
            prop_assert_eq!(shapes(&format!("{verb} {from} to {to}.")), vec![]);
        }

        #[test]
        fn paraphrases_are_read(
            noun in noun(),
            from in file_name(),
            to in file_name(),
            (phrase, shape) in prop::sample::select(vec![
                ("one per line", Shape::OnePerLine),
                ("each on its own line", Shape::OnePerLine),
                ("on separate lines", Shape::OnePerLine),
                ("without the header", Shape::NoHeader),
                ("skipping the header row", Shape::NoHeader),
                ("excluding the header line", Shape::NoHeader),
                ("in lower case", Shape::LowerCase),
                ("lowercased", Shape::LowerCase),
                ("in upper case", Shape::UpperCase),
                ("without duplicates", Shape::Unique),
                ("with no duplicates", Shape::Unique),
                ("in alphabetical order", Shape::Sorted(Sort { order: Order::Alphabetical, direction: Direction::Ascending, by: None })),
                ("sorted alphabetically", Shape::Sorted(Sort { order: Order::Alphabetical, direction: Direction::Ascending, by: None })),
                ("sorted in descending order", Shape::Sorted(Sort { order: Order::Any, direction: Direction::Descending, by: None })),
                ("sorted from A to Z", Shape::Sorted(Sort { order: Order::Alphabetical, direction: Direction::Ascending, by: None })),
                ("in ascending order", Shape::Sorted(Sort { order: Order::Any, direction: Direction::Ascending, by: None })),
                ("a line each", Shape::OnePerLine),
                ("newline-separated", Shape::OnePerLine),
                ("one entry per line", Shape::OnePerLine),
                ("header excluded", Shape::NoHeader),
                ("omitting the header", Shape::NoHeader),
                ("deduplicated", Shape::Unique),
                ("each only once", Shape::Unique),
                ("in capitals", Shape::UpperCase),
                ("converted to lowercase", Shape::LowerCase),
                ("as a JSON array", Shape::Json { kind: JsonKind::Array, keys: Vec::new() }),
                ("as JSON with keys id and total", Shape::Json { kind: JsonKind::Object, keys: vec!["id".to_owned(), "total".to_owned()] }),
                ("numbers only", Shape::Numbers),
                ("just the number", Shape::Number { otherwise: Vec::new() }),
            ]),
            before in any::<bool>(),
        ) {
            let goal = if before {
                format!("Write the {noun} in {from}, {phrase}, to {to}.")
            } else {
                format!("Write the {noun} in {from} to {to}, {phrase}.")
            };
            prop_assert!(shapes(&goal).contains(&shape), "{goal}: {:?}", shapes(&goal));
        }

        #[test]
        fn stated_counts_are_read(n in 2usize..=20, words in any::<bool>(), from in file_name(), to in file_name(),
            form in prop::sample::select(vec!["the top {n} {noun}", "the {n} largest {noun}", "the first {n} {noun}", "the {n} most common {noun}"]),
            noun in noun()) {
            const NAMES: [&str; 21] = ["", "", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve", "", "", "fifteen", "", "", "", "", "twenty"];
            let number = if words && !NAMES[n].is_empty() { NAMES[n].to_owned() } else { n.to_string() };
            let phrase = form.replace("{n}", &number).replace("{noun}", noun);
            let goal = format!("Write {phrase} of {from} to {to}.");
            prop_assert!(shapes(&goal).contains(&Shape::Count(n)), "{goal}");
        }

        #[test]
        fn any_sorted_list_passes_and_an_adjacent_inversion_fails(mut words in prop::collection::btree_set("[a-z]{1,6}", 2..12), at in any::<prop::sample::Index>()) {
            let shape = sorted(Order::Alphabetical, Direction::Ascending, None);
            let mut words: Vec<String> = std::mem::take(&mut words).into_iter().collect();
            prop_assert_eq!(plain(&shape, &words.join("\n")), Ok(()));
            let descending = sorted(Order::Any, Direction::Descending, None);
            let reversed: Vec<&str> = words.iter().rev().map(String::as_str).collect();
            prop_assert_eq!(plain(&descending, &reversed.join("\n")), Ok(()));
            let i = at.index(words.len() - 1);
            words.swap(i, i + 1);
            prop_assert!(plain(&shape, &words.join("\n")).is_err());
        }

        #[test]
        fn numbers_sort_as_numbers(mut numbers in prop::collection::btree_set(-10_000i64..10_000, 2..12), at in any::<prop::sample::Index>()) {
            let shape = sorted(Order::Numeric, Direction::Ascending, None);
            let mut numbers: Vec<i64> = std::mem::take(&mut numbers).into_iter().collect();
            let text = |numbers: &[i64]| numbers.iter().map(i64::to_string).collect::<Vec<_>>().join("\n");
            prop_assert_eq!(plain(&shape, &text(&numbers)), Ok(()));
            let i = at.index(numbers.len() - 1);
            numbers.swap(i, i + 1);
            prop_assert!(plain(&shape, &text(&numbers)).is_err());
        }

        #[test]
        fn duplicates_are_found(words in prop::collection::btree_set("[a-z]{1,6}", 1..10), at in any::<prop::sample::Index>()) {
            let mut words: Vec<String> = words.into_iter().collect();
            prop_assert_eq!(plain(&Shape::Unique, &words.join("\n")), Ok(()));
            let again = words[at.index(words.len())].clone();
            words.push(again);
            prop_assert!(plain(&Shape::Unique, &words.join("\n")).is_err());
        }

        #[test]
        fn a_count_bounds_the_items(n in 1usize..10, k in 1usize..20) {
            let text: Vec<String> = (0..k).map(|i| format!("item{i}")).collect();
            prop_assert_eq!(plain(&Shape::Count(n), &text.join("\n")).is_ok(), k <= n);
        }

        #[test]
        fn numbers_pass_and_numbers_with_words_fail(n in any::<i64>(), x in any::<f32>(), word in "[a-z]{1,8}") {
            prop_assert_eq!(plain(&number(), &format!("{n}\n")), Ok(()));
            if x.is_finite() {
                prop_assert_eq!(plain(&number(), &format!("{x}")), Ok(()));
            }
            let with_word = format!("{n} {word}");
            prop_assert!(plain(&number(), &with_word).is_err());
        }

        #[test]
        fn a_header_left_in_is_found(fields in prop::collection::btree_set("[a-z]{2,8}", 2..6), rows in prop::collection::vec(0u32..1000, 1..5)) {
            let fields: Vec<String> = fields.into_iter().collect();
            let headers = [fields.join(",")];
            let context = context(Path::new("/"), &headers);
            let body: Vec<String> = rows.iter().map(|r| vec![r.to_string(); fields.len()].join(",")).collect();
            prop_assert_eq!(check(&Shape::NoHeader, &body.join("\n"), &context), Ok(()));
            let with_header = format!("{}\n{}", headers[0], body.join("\n"));
            prop_assert!(check(&Shape::NoHeader, &with_header, &context).is_err());
            let column = format!("{}\n{}", fields[0], rows.iter().map(u32::to_string).collect::<Vec<_>>().join("\n"));
            prop_assert!(check(&Shape::NoHeader, &column, &context).is_err());
        }

        #[test]
        fn any_goal_and_any_result_are_taken_without_a_panic(
            goal in "(?s).{0,120}",
            words in prop::collection::vec(prop::sample::select(vec![
                "sorted by", "'age'", "“x”", "keys", "top 3", "relative to", "é’", "without the header", "\"",
                "json with fields", "lowercase", "if", "write", "NONE", "the number of", "paths", ", ",
            ]), 0..8),
            text in "(?s).{0,80}",
        ) {
            let goal = format!("{goal} {}", words.join(" "));
            let shapes = shapes(&goal);
            let headers = ["a,b".to_owned(), "é\tx".to_owned()];
            let context = context(Path::new("/nonexistent"), &headers);
            for shape in &shapes {
                let _ = check(shape, &text, &context);
            }
            let sort = |by| sorted(Order::Any, Direction::Either, Some(by));
            for shape in [sort(SortKey::Named("b".to_owned())), sort(SortKey::Column(3)), Shape::NoHeader, Shape::Count(2)] {
                let _ = check(&shape, &text, &context);
            }
        }

        #[test]
        fn json_objects_with_the_keys_pass(keys in prop::collection::btree_set("[a-z]{1,8}", 1..5), extra in "[A-Z]{1,4}", drop in any::<prop::sample::Index>()) {
            let keys: Vec<String> = keys.into_iter().collect();
            let mut object = serde_json::Map::new();
            for key in &keys {
                object.insert(key.clone(), Value::from(1));
            }
            object.insert(extra, Value::from("x"));
            let shape = Shape::Json { kind: JsonKind::Object, keys: keys.clone() };
            prop_assert_eq!(plain(&shape, &Value::Object(object.clone()).to_string()), Ok(()));
            object.remove(&keys[drop.index(keys.len())]);
            prop_assert!(plain(&shape, &Value::Object(object).to_string()).is_err());
        }
    }
}
