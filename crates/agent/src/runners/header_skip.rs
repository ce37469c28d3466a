//! A CSV's or TSV's header line kept out of what a small model's script counts.
//!
//! `cut -d, -f3 customers.csv | sort -u | wc -l` counts the header's `country` as one more country, and
//! `awk -F, '{s += $4} END {print s}' sales.csv` reads the header's `amount` as a zero that does no harm, until
//! it is a `min` or a distinct value. A person skips the first line of a file with a header without thinking; a
//! small model does not (Qwen2.5-Coder-0.5B, on a task nobody tuned for). So where the goal asks for a number or
//! for distinct values, and a file the script reads with `cut` or `awk` has a header line, the shell makes the
//! script skip it: `tail -n +2 FILE | cut …`, `awk 'NR > 1 …' FILE`. Never where the goal keeps the header
//! ("with the header", "including the header") or the script already skips a line (`NR`, `tail -n +2`,
//! `sed 1d`).

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::runners::result_check::mentions_number;

/// A goal that keeps the header in its result.
static KEEPS_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:with|keep|keeps|keeping|including|include|includes|plus|and)\s+(?:the\s+|its\s+|a\s+)?(?:header|heading|column\s+names)",
    )
});

/// A goal that asks for distinct values (whose list or count a header line would join).
static DISTINCT: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)\b(?:distinct|different|unique|each\s+(?:different|distinct))\b"));

/// A script that already skips a line of its input somewhere.
static SKIPS_A_LINE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r"\bNR\b|\bFNR\b|tail\s+(?:-n\s*)?\+2|sed\s+(?:-\S+\s+)?'?1d|\bnext\(|DictReader|header")
});

/// The files of `files` (names as the goal gives them, relative to `cwd`) whose first line is a header: a CSV or
/// TSV whose first line's fields are all names (no number among them) while the next line holds a number, or
/// whose fields include a word of the goal (`country` in "how many different countries").
pub(crate) fn headed_files(goal: &str, files: &[String], cwd: &Path) -> Vec<String> {
    let goal_words: Vec<String> =
        goal.split(|c: char| !c.is_alphanumeric() && c != '_').map(str::to_lowercase).filter(|w| w.len() > 2).collect();
    files
        .iter()
        .filter(|file| {
            let path = crate::claims::resolve(file, cwd);
            let Some(header) = crate::goal_shape::input_header(&path) else { return false };
            let separator = if header.contains('\t') { '\t' } else { ',' };
            let fields: Vec<String> =
                header.split(separator).map(|f| f.trim().trim_matches('"').to_lowercase()).collect();
            if fields.iter().any(|f| f.is_empty() || crate::goal_shape::is_number(f)) {
                return false;
            }
            let second = std::fs::read_to_string(&path).ok().and_then(|t| t.lines().nth(1).map(str::to_owned));
            let numbers_below = second.is_some_and(|line| {
                line.split(separator).any(|f| crate::goal_shape::is_number(f.trim().trim_matches('"')))
            });
            let named = fields.iter().any(|f| {
                let plurals = [format!("{f}s"), format!("{f}es"), format!("{}ies", f.trim_end_matches('y'))];
                goal_words.iter().any(|w| w == f || plurals.contains(w))
            });
            numbers_below || named
        })
        .cloned()
        .collect()
}

/// `text` (a bash script) made to skip the header line of each of `headed` where it reads one with `cut` or `awk`,
/// when `goal` asks for a number or for distinct values and does not keep the header.
pub(crate) fn skip_headers(goal: &str, text: &str, headed: &[String]) -> String {
    if headed.is_empty()
        || KEEPS_HEADER.is_match(goal)
        || !(mentions_number(goal) || DISTINCT.is_match(goal))
        || SKIPS_A_LINE.is_match(text)
    {
        return text.to_owned();
    }
    let mut out = text.to_owned();
    for file in headed {
        let name = regex::escape(file);
        // `cut -d, -f3 FILE` (options in any order, quoted or not) at the start of a pipeline.
        let cut = crate::patterns::constant(&format!(
            r#"(?m)(^|[|;&(]\s*|\$\(\s*)cut((?:\s+-[a-zA-Z](?:\s*(?:'[^']*'|"[^"]*"|[^\s'"|;&)]+))?)+)\s+(?:\./)?{name}(\s*(?:$|[|;&)>]))"#
        ));
        out = cut
            .replace_all(&out, |c: &regex::Captures<'_>| format!("{}tail -n +2 {file} | cut{}{}", &c[1], &c[2], &c[3]))
            .into_owned();
        // `awk -F, '{…}' FILE` or `awk -F, '$3 > 5 {…}' FILE`: a program with no BEGIN, reading FILE alone.
        let awk = crate::patterns::constant(&format!(
            r#"(?m)\bawk((?:\s+-[Fv]\s*(?:'[^']*'|"[^"]*"|\S+))*)\s+'([^']*)'\s+(?:\./)?{name}(\s*(?:$|[|;&)>]))"#
        ));
        out = awk
            .replace_all(&out, |c: &regex::Captures<'_>| {
                let program = c[2].trim_start();
                if program.contains("BEGIN") {
                    return c[0].to_owned();
                }
                let skipping = match program.strip_prefix('{') {
                    Some(_) => format!("NR > 1 {program}"),
                    None => match program.split_once('{') {
                        Some((pattern, action)) => format!("NR > 1 && ({}) {{{action}", pattern.trim()),
                        None => format!("NR > 1 && ({program})"),
                    },
                };
                format!("awk{} '{skipping}' {file}{}", &c[1], &c[3])
            })
            .into_owned();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_patterns_compile() {
        for re in [&*KEEPS_HEADER, &*DISTINCT, &*SKIPS_A_LINE] {
            assert!(!re.as_str().is_empty());
        }
    }

    #[test]
    fn a_count_or_distinct_values_skip_the_header() {
        let headed = ["people.csv".to_owned()];
        let goal = "How many different cities do the people in people.csv live in?";
        for (before, after) in [
            ("cut -d',' -f3 people.csv | sort -u | wc -l", "tail -n +2 people.csv | cut -d',' -f3 | sort -u | wc -l"),
            (
                "cut -f3 -d, people.csv | sort | uniq | wc -l",
                "tail -n +2 people.csv | cut -f3 -d, | sort | uniq | wc -l",
            ),
            (
                "n=$(cut -d, -f3 ./people.csv | sort -u | wc -l)",
                "n=$(tail -n +2 people.csv | cut -d, -f3 | sort -u | wc -l)",
            ),
            (
                "awk -F, '{print $3}' people.csv | sort -u | wc -l",
                "awk -F, 'NR > 1 {print $3}' people.csv | sort -u | wc -l",
            ),
            (
                "awk -F',' '$2 > 30 {print $3}' people.csv | sort -u | wc -l",
                "awk -F',' 'NR > 1 && ($2 > 30) {print $3}' people.csv | sort -u | wc -l",
            ),
        ] {
            assert_eq!(skip_headers(goal, before, &headed), after, "{before}");
        }
        for kept in [
            "tail -n +2 people.csv | cut -d, -f3 | sort -u | wc -l",
            "awk -F, 'NR>1 {print $3}' people.csv | sort -u | wc -l",
            "awk -F, 'BEGIN {n=0} {n++} END {print n}' people.csv",
            "cut -d, -f3 other.csv | sort -u | wc -l",
            "grep -c Oslo people.csv",
        ] {
            assert_eq!(skip_headers(goal, kept, &headed), kept, "{kept}");
        }
        let script = "cut -d, -f1 people.csv > names.txt";
        assert_eq!(
            skip_headers("Write the names column of people.csv, with the header, to names.txt.", script, &headed),
            script
        );
        assert_eq!(
            skip_headers("Put the first column of people.csv in names.txt.", script, &headed),
            script,
            "no count"
        );
    }

    #[test]
    fn a_header_is_a_line_of_names_above_data() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write("people.csv", "id,name,city\n1,Ann,Oslo\n");
        write("pairs.csv", "name,email\nann,a@x.org\n");
        write("raw.csv", "1,Ann,Oslo\n2,Bo,Rome\n");
        write("notes.txt", "id,name\n1,x\n");
        let files: Vec<String> =
            ["people.csv", "pairs.csv", "raw.csv", "notes.txt", "gone.csv"].map(String::from).to_vec();
        assert_eq!(headed_files("How many distinct emails?", &files, dir.path()), ["people.csv", "pairs.csv"]);
        assert_eq!(headed_files("How many rows?", &files, dir.path()), ["people.csv"]);
    }
}
