//! A CSV reader that python code reads more than once, read into a list where it is made.
//!
//! `rows = csv.DictReader(f)` is an iterator over the file: it can be read once, it has no `len()`, and it cannot
//! be read after the `with` block closes its file. Small models' scripts rely on all three: a join that loops over
//! a second file's reader inside the loop over the first (every row after the first finds nothing: one row
//! written for a file of many), `len(rows)` after a `sum` over them (`TypeError: object of type 'DictReader' has no
//! len()`, twice in a row for Qwen2.5-Coder 1.5B). `list(csv.DictReader(f))` is what such code means; it is made
//! so where the name is read in more than one place, measured with `len`, or looped over inside another loop. A
//! reader the code steps through itself (`next(rows)`, `rows.fieldnames`) is left as it is, and so is a reader
//! read once, which may be a large file streamed on purpose.

use std::sync::LazyLock;

use regex::Regex;

/// `NAME = csv.reader(` or `NAME = csv.DictReader(` at the start of a line: the call's end is found by its brackets.
static READER: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r"^(?P<indent>[ \t]*)(?P<name>[A-Za-z_]\w*)\s*=\s*(?P<call>csv\.(?:Dict)?[Rr]eader\()")
});

/// A `for` line: its indentation.
static FOR_LINE: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"^([ \t]*)for\s.+:\s*(?:#.*)?$"));

/// `code` with each reader that is read again wrapped in `list(…)`.
pub(crate) fn listed_readers(code: &str) -> String {
    let lines: Vec<&str> = code.split('\n').collect();
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    for (at, line) in lines.iter().enumerate() {
        let Some(found) = READER.captures(line) else { continue };
        let Some(call) = found.name("call") else { continue };
        // The call ends where its brackets close; after it only a comment may follow (not `; next(r)`).
        let Some(end) = closing(line, call.end()) else { continue };
        let after = line[end..].trim_start();
        if !(after.is_empty() || after.starts_with('#')) {
            continue;
        }
        let name = &found["name"];
        if read_again(&lines[at + 1..], name) {
            let (call, rest) = (&line[call.start()..end], &line[end..]);
            out[at] = format!("{}{} = list({call}){rest}", &found["indent"], name);
        }
    }
    out.join("\n")
}

/// Where the bracket opened just before `from` closes in `line` (the index after it); quotes are skipped.
pub(super) fn closing(line: &str, from: usize) -> Option<usize> {
    let (mut depth, mut quote) = (1usize, None::<char>);
    for (at, c) in line[from..].char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => {
                depth -= 1;
                if depth == 0 {
                    return Some(from + at + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether the lines after a reader's assignment read it in a way an iterator cannot serve: in two places or more,
/// with `len`, or in a loop inside another loop; never when they step through it themselves or rebind the name.
fn read_again(after: &[&str], name: &str) -> bool {
    let Ok(word) = Regex::new(&format!(r"\b{}\b", regex::escape(name))) else { return false };
    let Ok(own) = Regex::new(&format!(r"\bnext\(\s*{0}\b|\b{0}\s*\.|\b{0}\s*=[^=]", regex::escape(name))) else {
        return false;
    };
    // A loop that stops early (`break`) may mean the next one to go on where it stopped.
    if after.iter().any(|line| own.is_match(line) || line.trim() == "break") {
        return false;
    }
    let uses: Vec<usize> = (0..after.len()).filter(|&i| word.is_match(after[i])).collect();
    let counted = uses.iter().map(|&i| word.find_iter(after[i]).count()).sum::<usize>();
    counted >= 2
        || uses.iter().any(|&i| after[i].contains(&format!("len({name})")))
        || uses.iter().any(|&i| in_inner_loop(after, i, name))
}

/// Whether line `at` loops over `name` inside a `for` loop that an earlier line opened.
fn in_inner_loop(lines: &[&str], at: usize, name: &str) -> bool {
    let Some(own) = FOR_LINE.captures(lines[at]) else { return false };
    if !lines[at].contains(&format!(" in {name}")) {
        return false;
    }
    let depth = own[1].len();
    // The lines above, back to one less indented than this loop: an enclosing `for` among them.
    let mut smallest = depth;
    for line in lines[..at].iter().rev().filter(|l| !l.trim().is_empty()) {
        let indent = line.len() - line.trim_start().len();
        if indent < smallest {
            smallest = indent;
            if FOR_LINE.is_match(line) {
                return true;
            }
            if indent == 0 {
                return false;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_read_again_is_read_into_a_list() {
        // Looped over inside another loop: a join.
        let join = "with open('a.csv') as f, open('b.csv') as g:\n    people = csv.DictReader(f)\n    \
                    towns = csv.DictReader(g)\n    for p in people:\n        for t in towns:\n            \
                    print(p, t)\n";
        assert_eq!(listed_readers(join), join.replace("towns = csv.DictReader(g)", "towns = list(csv.DictReader(g))"));
        // Summed, then measured.
        let mean = "with open('m.csv') as f:\n    rows = csv.DictReader(f)\n    total = sum(float(r['mm']) for r in \
                    rows)\nprint(total / len(rows))\n";
        assert_eq!(listed_readers(mean), mean.replace("rows = csv.DictReader(f)", "rows = list(csv.DictReader(f))"));
        let twice = "r = csv.reader(open('x.csv'))\nhigh = max(row[1] for row in r)\nlow = min(row[1] for row in r)";
        assert!(listed_readers(twice).starts_with("r = list(csv.reader(open('x.csv')))\n"));
        // A comment after the call stays after it.
        let noted = "rows = csv.DictReader(f)  # one dict (per row)\nprint(len(rows))";
        assert_eq!(listed_readers(noted), "rows = list(csv.DictReader(f))  # one dict (per row)\nprint(len(rows))");
    }

    #[test]
    fn a_reader_read_once_or_stepped_through_is_left_alone() {
        for code in [
            "rows = csv.DictReader(f)\nfor r in rows:\n    print(r)\n",
            "rows = csv.reader(f)\nheader = next(rows)\nfor r in rows:\n    print(r)\nprint(len(header))",
            "rows = csv.DictReader(f)\nprint(rows.fieldnames)\nfor r in rows:\n    print(r)\n",
            "rows = csv.DictReader(f)\nfor r in rows:\n    print(r)\nrows = csv.DictReader(g)\nfor r in rows:\n    pass",
            "for name in names:\n    rows = csv.DictReader(open(name))\n    for r in rows:\n        print(r)\n",
            "total = 0\nrows = list(csv.DictReader(f))\nprint(len(rows), rows)\n",
            "r = csv.reader(f); next(r)\nfor x in r:\n    print(x)\nprint(len(r))",
            "r = csv.reader(f)\nfor x in r:\n    if x[0] == 'id':\n        break\nfor x in r:\n    print(x)\n",
        ] {
            assert_eq!(listed_readers(code), code, "{code}");
        }
    }
}
