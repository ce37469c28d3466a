//! A python CSV reader or writer on a tab-separated file, told its delimiter.
//!
//! `csv.DictReader(f)` splits at commas. On a `.tsv` file every line is one field, and the first column's name is
//! the whole header line: `row['dept_id']` raises `KeyError: 'dept_id'`. Qwen2.5-Coder 1.5B wrote such a reader for
//! a join of two `.tsv` files, and asked to correct it, wrote the same script again. Where the file a reader or
//! writer is given is opened in the code by a literal name ending `.tsv` or `.tab` (`open('staff.tsv') as f`, `f =
//! open("staff.tsv")`, or the `open(…)` itself as its argument), and the call sets no delimiter or dialect of its
//! own, it gets `delimiter='\t'`.

use std::sync::LazyLock;

use regex::Regex;

use crate::runners::python_readers::closing;

/// `open('NAME…') as VAR` and `VAR = open('NAME…'`: the variable and the file's name.
static OPENED: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"open\(\s*(?:r|f)?['"](?P<a>[^'"]+)['"][^()]*(?:\([^()]*\)[^()]*)*\)\s+as\s+(?P<va>[A-Za-z_]\w*)|(?P<vb>[A-Za-z_]\w*)\s*=\s*open\(\s*(?:r|f)?['"](?P<b>[^'"]+)['"]"#,
    )
});

/// The start of a reader's or writer's call.
static CALL: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"\bcsv\.(?:DictReader|reader|DictWriter|writer)\("));

/// `open('NAME…'` as a call's first argument: the file's name.
static OPEN_ARGUMENT: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r#"^\s*open\(\s*(?:r|f)?['"]([^'"]+)['"]"#));

/// A name of a tab-separated file.
fn tab_separated(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".tsv") || lower.ends_with(".tab")
}

/// `code` (python) with each reader and writer of a tab-separated file given `delimiter='\t'` (see the module). A
/// variable is the file the nearest `open` before the call bound it to; a call with another csv call inside its
/// arguments is left as it is.
pub(crate) fn tab_delimited(code: &str) -> String {
    if !code.contains("csv.") {
        return code.to_owned();
    }
    // (where, variable, file) for each binding, in order.
    let bindings: Vec<(usize, String, String)> = OPENED
        .captures_iter(code)
        .filter_map(|c| {
            let var = c.name("va").or_else(|| c.name("vb"))?.as_str().to_owned();
            let name = c.name("a").or_else(|| c.name("b"))?.as_str().to_owned();
            Some((c.get(0)?.start(), var, name))
        })
        .collect();
    let mut inserts: Vec<usize> = Vec::new();
    for call in CALL.find_iter(code) {
        let start = call.end();
        // `closing` reads one line: a call's arguments end on its own line.
        let line_end = code[start..].find('\n').map_or(code.len(), |at| start + at);
        let Some(end) = closing(&code[..line_end], start) else { continue };
        let arguments = &code[start..end - 1];
        if arguments.contains("delimiter") || arguments.contains("dialect") || arguments.contains("csv.") {
            continue;
        }
        let first = arguments.split(',').next().unwrap_or("").trim();
        let file = OPEN_ARGUMENT.captures(arguments).map(|c| c[1].to_owned()).or_else(|| {
            bindings.iter().rev().find(|(at, var, _)| *at < call.start() && var == first).map(|(_, _, f)| f.clone())
        });
        if file.is_some_and(|f| tab_separated(&f)) {
            inserts.push(end - 1);
        }
    }
    let mut out = code.to_owned();
    // From the last back, so that an insertion moves none before it.
    for at in inserts.into_iter().rev() {
        out.insert_str(at, ", delimiter='\\t'");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_of_a_tsv_file_splits_at_tabs() {
        let join = "with open('staff.tsv', newline='') as f1, open('teams.tsv') as f2:\n    people = \
                    csv.DictReader(f1)\n    teams = list(csv.DictReader(f2))";
        assert_eq!(
            tab_delimited(join),
            join.replace("DictReader(f1)", "DictReader(f1, delimiter='\\t')")
                .replace("DictReader(f2)", "DictReader(f2, delimiter='\\t')")
        );
        let inline = "rows = list(csv.reader(open(\"a.TSV\", newline=\"\")))";
        assert_eq!(tab_delimited(inline), "rows = list(csv.reader(open(\"a.TSV\", newline=\"\"), delimiter='\\t'))");
        let written = "out = open('totals.tsv', 'w')\nw = csv.writer(out)";
        assert_eq!(tab_delimited(written), "out = open('totals.tsv', 'w')\nw = csv.writer(out, delimiter='\\t')");
    }

    #[test]
    fn a_name_bound_again_is_the_file_it_was_bound_to_last() {
        let convert = "with open('people.csv') as f:\n    rows = list(csv.reader(f))\nwith open('people.tsv', 'w') as \
                       f:\n    csv.writer(f).writerows(rows)";
        assert_eq!(
            tab_delimited(convert),
            convert.replace("csv.writer(f)", "csv.writer(f, delimiter='\\t')"),
            "the reader reads the .csv"
        );
    }

    #[test]
    fn other_files_and_stated_delimiters_are_left_alone() {
        for code in [
            "with open('a.csv') as f:\n    rows = csv.DictReader(f)",
            "with open('a.tsv') as f:\n    rows = csv.DictReader(f, delimiter='\\t')",
            "with open('a.tsv') as f:\n    rows = csv.reader(f, dialect='excel-tab')",
            "with open('a.tsv') as f, open('b.csv') as g:\n    rows = csv.reader(g)",
            "rows = csv.reader(sys.stdin)",
            "out = csv.DictWriter(o, fieldnames=csv.DictReader(f).fieldnames)",
        ] {
            assert_eq!(tab_delimited(code), code, "{code}");
        }
    }
}
