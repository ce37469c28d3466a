//! A shell variable read under a misspelled name: `$SCR` where the script sets `SRC`.
//!
//! Bash expands a name that was never set to nothing, without an error: `for f in "$SCR"/*.txt` loops over
//! `/*.txt`, and the error that follows (`cp: cannot stat '/*.txt'`) names no line and no variable. Neither local
//! model found the fault from that error; both re-ran the script or rewrote other lines. Where a shell script the
//! goal asks to fix reads a name that it never sets nor names bare anywhere (`read SCR`, `for SCR in`, `SCR=`),
//! that the environment does not set, and that is one letter from exactly one name the script sets (a letter
//! changed, added, dropped, or two swapped), each line that reads it reads the set name instead: a correction the
//! file makes certain, made without a call.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

/// A name read: `$NAME`, `${NAME`.
static READ: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)"));

/// A name set: `NAME=`, `NAME+=`, `NAME[i]=`, after `export`/`local`/`readonly`/`declare …` or at a command's start.
static SET: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?m)(?:^|[;&|({]\s*|\b(?:export|local|readonly|declare|typeset)(?:\s+-\w+)*\s+)\s*([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\+?=",
    )
});

/// Names bash or the system sets itself.
const SHELL_SET: &[&str] = &[
    "BASH",
    "BASHPID",
    "BASH_SOURCE",
    "BASH_VERSION",
    "BASH_REMATCH",
    "LINENO",
    "RANDOM",
    "SECONDS",
    "PWD",
    "OLDPWD",
    "IFS",
    "PPID",
    "UID",
    "EUID",
    "HOSTNAME",
    "HOME",
    "PATH",
    "USER",
    "SHELL",
    "TERM",
    "REPLY",
    "OPTARG",
    "OPTIND",
    "FUNCNAME",
    "PIPESTATUS",
    "EPOCHSECONDS",
    "EPOCHREALTIME",
    "TMPDIR",
    "LANG",
    "LOGNAME",
    "HOSTTYPE",
    "OSTYPE",
    "MACHTYPE",
    "GROUPS",
    "SHLVL",
    "COLUMNS",
    "LINES",
];

/// The lines (number from 1, new text) of shell script `text` that read a misspelled name, each reading the name
/// the script sets instead (see the module); `None` where there is no such name, or more than one candidate.
pub(crate) fn corrected_reads(text: &str) -> Option<Vec<(usize, String)>> {
    // Names may come from elsewhere: a file it sources, an `eval`, names exported by `set -a`, a name reference.
    if SETS_ELSEWHERE.is_match(text) {
        return None;
    }
    let set: BTreeSet<&str> = SET.captures_iter(text).filter_map(|c| c.get(1)).map(|m| m.as_str()).collect();
    let read: BTreeSet<&str> = READ.captures_iter(text).filter_map(|c| c.get(1)).map(|m| m.as_str()).collect();
    let mut found: Option<(&str, &str)> = None;
    for name in read {
        if name.len() < 3 || set.contains(name) || named_bare(text, name) || unsettable(name) {
            continue;
        }
        let close: Vec<&&str> = set.iter().filter(|s| one_letter_apart(name, s)).collect();
        let [right] = close.as_slice() else { continue };
        if found.is_some() {
            // Two misspellings: fixed one at a time would be a guess at which; left to the model.
            return None;
        }
        found = Some((name, right));
    }
    let (wrong, right) = found?;
    let reads = Regex::new(&format!(r"\$(\{{?){}\b", regex::escape(wrong))).ok()?;
    let lines: Vec<(usize, String)> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| reads.is_match(line))
        .map(|(at, line)| {
            (at + 1, reads.replace_all(line, |c: &regex::Captures<'_>| format!("${}{right}", &c[1])).into_owned())
        })
        .collect();
    // A correction of a few lines (a reply may replace six).
    (!lines.is_empty() && lines.len() <= 6).then_some(lines)
}

/// A script that may set names this file does not show: `source f`, `. f`, `eval`, `set -a`, `declare -n`.
static SETS_ELSEWHERE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?m)(?:^|[;&|]\s*)\s*(?:source|\.)\s+\S|\beval\b|\bset\s+-\w*a|\b(?:declare|local|typeset)\s+-\w*n\b",
    )
});

/// Whether `name` is set by bash, the system, or this environment.
fn unsettable(name: &str) -> bool {
    SHELL_SET.contains(&name) || std::env::var_os(name).is_some()
}

/// Whether `text` names `name` other than by reading it: `read NAME`, `for NAME in`, `getopts … NAME`.
fn named_bare(text: &str, name: &str) -> bool {
    let Ok(word) = Regex::new(&format!(r"\b{}\b", regex::escape(name))) else { return true };
    word.find_iter(text).any(|m| {
        let before = &text[..m.start()];
        !(before.ends_with('$') || before.ends_with("${"))
    })
}

/// Whether `a` and `b` differ by one letter changed, added or dropped, or two neighbours swapped.
fn one_letter_apart(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a == b {
        return false;
    }
    match a.len().abs_diff(b.len()) {
        0 => {
            let differ: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
            match differ.as_slice() {
                [_] => true,
                [i, j] => *j == i + 1 && a[*i] == b[*j] && a[*j] == b[*i],
                _ => false,
            }
        }
        1 => {
            let (short, long) = if a.len() < b.len() { (&a, &b) } else { (&b, &a) };
            (0..long.len())
                .any(|skip| long.iter().enumerate().filter(|(i, _)| *i != skip).map(|(_, c)| c).eq(short.iter()))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COPY: &str = "#!/bin/bash\nset -e\nSRC=notes\nDEST=saved\nmkdir -p \"$DEST\"\nfor f in \"$SCR\"/*.md; do\n    \
                        cp \"$f\" \"$DEST/\"\ndone\necho \"copied from ${SCR}\"\n";

    #[test]
    fn a_name_read_one_letter_from_a_name_set_reads_that_name() {
        assert_eq!(
            corrected_reads(COPY),
            Some(vec![(6, "for f in \"$SRC\"/*.md; do".to_owned()), (9, "echo \"copied from ${SRC}\"".to_owned())])
        );
        let dropped = "out_dir=build\nmkdir -p \"$outdir\"\n";
        assert_eq!(corrected_reads(dropped), Some(vec![(2, "mkdir -p \"$out_dir\"".to_owned())]));
    }

    #[test]
    fn names_set_otherwise_or_far_from_any_are_left_alone() {
        for text in [
            "#!/bin/bash\nread -r SCR\nSRC=x\necho \"$SCR $SRC\"\n",
            "for SCR in a b; do echo \"$SCR\"; done\nSRC=1\n",
            "SRC=a\necho \"$TARGET\"\n",
            "SRC=a\nSRD=b\necho \"$SRE\"\n",
            "SRC=a\necho \"$HOME\"\n",
            "ab=1\necho $ac\n",
            "SRC=a\nDST=b\necho \"$SCR $DTS\"\n",
            "source deploy.conf\nTARGETS=\"web db\"\necho \"$TARGET\"\n",
            ". ./env.sh\nSRC=a\necho \"$SCR\"\n",
        ] {
            assert_eq!(corrected_reads(text), None, "{text}");
        }
        assert!(one_letter_apart("SCR", "SRC") && one_letter_apart("name", "names") && one_letter_apart("ab", "ax"));
        assert!(!one_letter_apart("SRC", "CRS") && !one_letter_apart("same", "same"));
    }
}
