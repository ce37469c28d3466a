//! A count of a CSV file's records that counts its header line too, made to count the records only.
//!
//! "How many customers are listed in customers.csv?": `len(list(csv.reader(f)))` and `wc -l < customers.csv` count
//! the header line as one more record. Qwen2.5-Coder 1.5B did so in both the script and the second script written
//! to compare (they agreed: the wrong number was taken as checked). Where the goal asks how many (and not how many
//! lines), the script counts the rows of one CSV file, and that file's first line is a header (no field a number,
//! and the next line holds digits), the count reads the records: `csv.DictReader` for `csv.reader` (the header
//! becomes the field names), `tail -n +2 FILE | wc -l` for `wc -l`, and `tail -n +2 FILE | cut …` for a column's
//! distinct values counted (`cut -d, -f2 FILE | sort -u | wc -l`, where the header's name was one more value).

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

/// `len(list(csv.reader(` and `sum(1 for … in csv.reader(`: a count of a reader's rows.
static PY_COUNT: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r"(?:\blen\(\s*list\(\s*|\bsum\(\s*1\s+for\s+\w+\s+in\s+)csv\.reader\(")
});

/// The CSV files python code opens by name.
static PY_OPENS: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r#"\bopen\(\s*['"]([\w./-]+\.[ct]sv)['"]"#));

/// `wc -l < FILE.csv`, `wc -l FILE.csv` (the file one plain word), at a command's start or after a pipe's `(`/`$(`.
static WC_LINES: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"\bwc\s+-l\s+(?:<\s*)?([\w./-]+\.[ct]sv)\b"));

/// `cut OPTIONS FILE.csv` that starts a pipeline counted by `wc -l` on the same line (`cut -d, -f2 x.csv | sort -u |
/// wc -l`): the distinct values of a column, the header's name among them.
static CUT_COUNTED: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r"\bcut((?:[ \t]+-\S+)+)[ \t]+([\w./-]+\.[ct]sv)([ \t]*\|[^\n]*\bwc[ \t]+-l\b)")
});

/// A script that skips a first line already (`tail -n +2`, `sed 1d`, `NR>1`, `next(reader)`, `[1:]`, `- 1`).
static SKIPS_FIRST: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"tail\s+-n\s*\+2|tail\s+\+2|sed\s+(?:-\S+\s+)*'?1d|NR\s*>\s*1|NR\s*!=\s*1|\bnext\(|readline\(\)|\[1:\]|islice\(|-\s*1\b",
    )
});

/// Words that ask for a file's lines: then the header is one of them.
static ASKS_LINES: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)\blines?\b|\bheader\b|\bincluding\b"));

/// `script` with counts of a CSV file's rows made counts of its records (see the module).
pub(crate) fn records_counted(goal: &str, script: &str, cwd: &Path) -> String {
    if !goal.to_ascii_lowercase().contains("how many") || ASKS_LINES.is_match(goal) || SKIPS_FIRST.is_match(script) {
        return script.to_owned();
    }
    let mut text = script.to_owned();
    if PY_COUNT.is_match(&text) {
        let opened: std::collections::BTreeSet<&str> =
            PY_OPENS.captures_iter(script).filter_map(|c| c.get(1)).map(|m| m.as_str()).collect();
        if let [file] = opened.into_iter().collect::<Vec<_>>()[..]
            && has_header(&cwd.join(file))
        {
            text = PY_COUNT
                .replace_all(&text, |c: &regex::Captures<'_>| c[0].replace("csv.reader(", "csv.DictReader("))
                .into_owned();
        }
    }
    let cut = CUT_COUNTED
        .captures(&text)
        .map(|c| (c.get(0).map_or(0..0, |m| m.range()), c[1].to_owned(), c[2].to_owned(), c[3].to_owned()));
    if let Some((whole, options, file, rest)) = cut
        && has_header(&cwd.join(&file))
    {
        text.replace_range(whole, &format!("tail -n +2 {file} | cut{options}{rest}"));
        return text;
    }
    if let Some(found) = WC_LINES.captures(&text)
        && WC_LINES.captures_iter(&text).count() == 1
        && has_header(&cwd.join(&found[1]))
    {
        let file = found[1].to_owned();
        let whole = found.get(0).map_or(0..0, |m| m.range());
        text.replace_range(whole, &format!("tail -n +2 {file} | wc -l"));
    }
    text
}

/// Whether the first line of the CSV (or TSV) file at `path` is a header: fields none of which is a number, over a
/// line that holds digits.
fn has_header(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else { return false };
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let (Some(first), Some(second)) = (lines.next(), lines.next()) else { return false };
    let separator = if path.extension().is_some_and(|e| e == "tsv") { '\t' } else { ',' };
    let fields: Vec<&str> = first.split(separator).map(|f| f.trim().trim_matches('"')).collect();
    let numeric = |f: &str| f.parse::<f64>().is_ok();
    fields.len() >= 2
        && fields.iter().all(|f| !f.is_empty() && !numeric(f) && !f.chars().any(|c| c.is_ascii_digit()))
        && second.chars().any(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("members.csv"), "member_id,name,joined\n7,Ona,2021-03-01\n9,Pia,2022-07-15\n")
            .unwrap();
        std::fs::write(dir.path().join("raw.csv"), "7,Ona,2021-03-01\n9,Pia,2022-07-15\n").unwrap();
        dir
    }

    #[test]
    fn a_count_of_rows_that_takes_the_header_in_counts_the_records() {
        let dir = world();
        let goal = "How many members are listed in members.csv? Just the number.";
        let python = "python3 - <<'EOF'\nimport csv\nwith open('members.csv', newline='') as f:\n    \
                      print(len(list(csv.reader(f))))\nEOF";
        let counted = records_counted(goal, python, dir.path());
        assert!(counted.contains("print(len(list(csv.DictReader(f))))"), "{counted}");
        let one_line = "python3 -c \"import csv; print(sum(1 for row in csv.reader(open('members.csv'))))\"";
        assert!(records_counted(goal, one_line, dir.path()).contains("sum(1 for row in csv.DictReader(open("));
        assert_eq!(records_counted(goal, "wc -l < members.csv", dir.path()), "tail -n +2 members.csv | wc -l");
        assert_eq!(
            records_counted(goal, "n=$(wc -l members.csv)\necho $n", dir.path()),
            "n=$(tail -n +2 members.csv | wc -l)\necho $n"
        );
        let distinct = "How many different places do the members of members.csv come from?";
        assert_eq!(
            records_counted(distinct, "cut -d',' -f3 members.csv | sort -u | wc -l > n.txt", dir.path()),
            "tail -n +2 members.csv | cut -d',' -f3 | sort -u | wc -l > n.txt"
        );
        // Run, it counts the records.
        let script = records_counted(goal, "wc -l < members.csv", dir.path());
        let out = std::process::Command::new("bash").arg("-c").arg(&script).current_dir(dir.path()).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "2");
    }

    #[test]
    fn lines_asked_for_a_file_without_a_header_or_other_counts_are_left_alone() {
        let dir = world();
        let goal = "How many members are listed in members.csv?";
        for skipped in [
            "echo $(( $(wc -l < members.csv) - 1 ))",
            "cut -d, -f2 members.csv | tail -n +2 | sort -u | wc -l",
            "python3 - <<'EOF'\nimport csv\nf = open('members.csv')\nnext(f)\nprint(len(list(csv.reader(f))))\nEOF",
        ] {
            assert_eq!(records_counted(goal, skipped, dir.path()), skipped, "the header is skipped already");
        }
        let lines = "How many lines does members.csv have?";
        assert_eq!(records_counted(lines, "wc -l < members.csv", dir.path()), "wc -l < members.csv");
        let raw = "How many members are in raw.csv?";
        assert_eq!(records_counted(raw, "wc -l < raw.csv", dir.path()), "wc -l < raw.csv");
        let listing = "List the members of members.csv.";
        assert_eq!(records_counted(listing, "wc -l < members.csv", dir.path()), "wc -l < members.csv");
        let goal = "How many members joined in 2022?";
        let filtered = "grep -c 2022 members.csv";
        assert_eq!(records_counted(goal, filtered, dir.path()), filtered);
    }
}
