//! Files an error names as where a value is to be found: read, never changed by a fix.
//!
//! "VERSION file not found. It must contain the version being released, which is the newest released version in
//! HISTORY.md" asks for VERSION to be written with a value read from HISTORY.md. Qwen2.5-Coder 1.5B wrote a made-up
//! version into VERSION and, told the next time that the version had no entry in the history, edited the history to
//! match: the input the value was to come from was changed to fit a guess. A fix-and-rerun loop keeps the files its
//! errors name this way and takes back a fix that changes one (a file the goal itself asks to change excepted).

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::changes::{Change, ChangeKind};

/// A value said to be in a file: `which is the newest version in F`, `found in F`, `listed in F`, `taken from F`, `as
/// given in F`, `according to F`.
static SOURCE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r#"(?ix)(?P<before>\b\w+\s+)?
        (?:(?:which|that)\s+(?:is|are)\s+(?:\w[\w-]*\s+){0,6}?(?:in|from)
        |(?:found|listed|given|recorded|named|stated|written|kept|defined)\s+in
        |(?:read|taken|copied|looked\s+up)\s+from
        |according\s+to)
        \s+[`'"]?(?P<file>(?:\./)?[\w./-]*\w\.\w+|(?-i:[A-Z][A-Z0-9_]{2,}))\b"#,
    )
});

/// Words that turn the phrase into a complaint about the file (`not found in F`, `which is missing from F`, `cannot
/// read from F`).
static NEGATED: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:not|no|never|missing|absent|wrong|invalid|unknown|bad|empty|unset|cannot|unable|failed|error)\b|n't\b",
    )
});

/// The files here `error` names as where a value is found (relative to `cwd`, as named), leaving out `except` (the
/// program, the files the goal asks to change). The file must end its clause: in "timeout 'abc' read from app.conf
/// must be a number" the file is where the fault is, not a source. The caller asks only of an error that says a
/// file is missing (where the value is to go).
pub(crate) fn value_sources(error: &str, cwd: &Path, except: &[String]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for capture in SOURCE.captures_iter(error) {
        let Some(whole) = capture.get(0) else { continue };
        let rest = error[whole.end()..].lines().next().unwrap_or("");
        let rest = rest.trim_start_matches(['`', '\'', '"']).trim();
        let ends_clause = rest.is_empty() || rest.starts_with(['.', ';', ',', ')', ':']);
        if NEGATED.is_match(whole.as_str()) || !ends_clause {
            continue;
        }
        let file = capture["file"].trim_start_matches("./").to_owned();
        let excepted = except.iter().any(|e| e.trim_start_matches("./") == file);
        if !excepted && cwd.join(&file).is_file() && !found.contains(&file) {
            found.push(file);
        }
    }
    found
}

/// The files `fix` writes, as it names them without a leading `./`: redirection targets, `tee`'s arguments, the files
/// of a `sed -i` (read as the shell's sed fixes read it: `-Ei`, `-i.bak`, `--in-place`) and of a `perl -pi`.
fn written_files(fix: &str) -> Vec<String> {
    let parsed = router::shell_syntax::parse(fix);
    let mut written = Vec::new();
    for command in parsed.commands() {
        let redirected = command.redirections.iter().filter(|r| r.writes()).filter_map(|r| r.target.as_ref());
        written.extend(redirected.map(|t| t.text.clone()));
        let words: Vec<&str> = command.words.iter().map(|w| w.text.as_str()).collect();
        // `perl -pi -e …`, `-i.bak`: an option cluster with an `i` edits in place.
        let perl_in_place =
            |w: &&str| w.strip_prefix('-').and_then(|f| f.split('.').next()).is_some_and(|f| f.contains('i'));
        match words.first().map(|w| router::shell_syntax::program_name(w)) {
            Some("tee") => written.extend(words[1..].iter().map(|w| (*w).to_owned())),
            Some("sed") => written.extend(
                super::literal_sed::SedCall::read(&command.words[1..]).map(|sed| sed.files).unwrap_or_default(),
            ),
            Some("perl") if words[1..].iter().any(perl_in_place) => {
                written.extend(words[1..].iter().map(|w| (*w).to_owned()));
            }
            _ => {}
        }
    }
    written.into_iter().map(|file| file.trim_start_matches("./").to_owned()).collect()
}

/// Why `fix` is not run when it writes to one of `sources` ([`written_files`]): told what is missing instead
/// (`missing`, the files the error says are missing), where the value is to go.
pub(crate) fn writes_a_source(fix: &str, sources: &[String], missing: &[String]) -> Option<String> {
    let written = written_files(fix).into_iter().find(|file| sources.contains(file))?;
    let instead = match missing {
        [wanted, ..] => format!(": write {wanted}, which is missing, with the value read from {written}"),
        [] => String::new(),
    };
    Some(format!(
        "it writes to {written}, which the error names as where the value is found: leave it as it is{instead}"
    ))
}

/// The command that writes a missing file its value, where `fix` writes `NAME=VALUE` into another file and NAME is
/// one of `missing` (the files the error says are missing): Qwen2.5-Coder 0.5B and 1.5B, told "VERSION file not
/// found", both wrote `VERSION=2.4.0` into the changelog the value was read from, the 0.5B as `sed -i
/// 's/^VERSION=/VERSION=2.4.0/'`. A file named for one value holds the value alone. `None` for a fix that writes a
/// missing file itself, or a value that is no literal (`$VERSION`, `…`).
pub(crate) fn value_for_missing(fix: &str, missing: &[String]) -> Option<String> {
    let written = written_files(fix);
    missing.iter().find_map(|name| {
        if written.contains(name) {
            return None;
        }
        let target = regex::escape(name);
        // Only a literal (word characters, dots and signs: no `$NAME`, no `…`), ending where the text around it does:
        // a quote, a blank, `\n`, a sed delimiter, the end.
        let assigned = Regex::new(&format!(
            r#"(?:^|[\s'"/^])(?:export\s+)?{target}\s*=\s*(?P<value>[\w.+:@-]+)(?:['"\s;|&)\\/]|$)"#
        ))
        .ok()?;
        let value = assigned.captures(fix)?["value"].to_owned();
        Some(format!("printf '%s\\n' {} > {}", tmux_habitat::shell_quote(&value), tmux_habitat::shell_quote(name)))
    })
}

/// The first of `changes` that modifies or deletes one of `sources`, as a reason for the model.
pub(crate) fn changes_a_source(changes: &[Change], sources: &[String]) -> Option<String> {
    let changed = changes.iter().find(|change| {
        change.kind != ChangeKind::Created && !change.dir && sources.iter().any(|s| Path::new(s) == change.path)
    })?;
    let name = changed.path.display();
    Some(format!(
        "nothing kept: it changed {name}, which the error names as where the value is found: read the value from \
         {name} and put it where the error asks"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for file in ["HISTORY.md", "kiln.cfg", "glaze.toml", "fire.sh", "RELEASE"] {
            std::fs::write(dir.path().join(file), "x\n").unwrap();
        }
        dir
    }

    #[test]
    fn a_file_named_as_where_a_value_is_found_is_a_source() {
        let dir = world();
        let sources = |error: &str| value_sources(error, dir.path(), &["fire.sh".to_owned()]);
        let error =
            "fire: STAMP file not found. It must contain the release, which is the newest release in HISTORY.md.";
        assert_eq!(sources(error), ["HISTORY.md"]);
        assert_eq!(sources("fire: heat must be one of the values listed in glaze.toml"), ["glaze.toml"]);
        assert_eq!(sources("fire: take the kiln name from RELEASE; it is read from ./kiln.cfg"), ["kiln.cfg"]);
        assert_eq!(sources("set heat according to `glaze.toml`"), ["glaze.toml"]);
    }

    #[test]
    fn a_file_the_error_finds_fault_with_is_no_source() {
        let dir = world();
        let sources = |error: &str| value_sources(error, dir.path(), &["fire.sh".to_owned()]);
        assert!(sources("fire: key 'heat' not found in kiln.cfg").is_empty());
        assert!(sources("fire: heat, which is not set in kiln.cfg, is needed").is_empty());
        assert!(sources("fire: version 1.2 has no entry in HISTORY.md").is_empty(), "the file is only named");
        assert!(sources("fire: the value which is in missing.cfg").is_empty(), "no such file here");
        assert!(sources("fire: the steps which are listed in fire.sh").is_empty(), "the program");
        assert!(sources("fire: heat, which is wrong in kiln.cfg").is_empty());
        assert!(sources("fire: port 99999 given in kiln.cfg is out of range").is_empty(), "the file is at fault");
        assert!(sources("fire: theme 'drak' listed in glaze.toml does not exist").is_empty());
        assert!(sources("fire: timeout 'abc' read from kiln.cfg must be a number").is_empty());
        assert!(sources("fire: cannot read from kiln.cfg").is_empty());
        std::fs::write(dir.path().join("config"), "x\n").unwrap();
        assert!(sources("fire: the name, which is the first word in config").is_empty(), "a lower-case name");
    }

    #[test]
    fn a_fix_that_writes_to_a_source_is_refused_before_it_runs() {
        let sources = ["HISTORY.md".to_owned()];
        let missing = ["STAMP".to_owned()];
        let refused = |fix: &str| writes_a_source(fix, &sources, &missing);
        let told = refused("printf 'STAMP=1.2\\n' >> HISTORY.md").unwrap();
        assert!(told.contains("writes to HISTORY.md") && told.contains("write STAMP, which is missing"), "{told}");
        assert!(refused("echo 1.2 | tee -a ./HISTORY.md").is_some());
        assert!(refused("sed -i 's/^## Next/## 1.2/' HISTORY.md").is_some());
        assert!(refused("sed -Ei 's/^## Next/## 1.2/' HISTORY.md").is_some());
        assert!(refused("perl -pi -e 's/Next/1.2/' HISTORY.md").is_some());
        assert_eq!(refused("printf '1.2\\n' > STAMP"), None);
        assert_eq!(refused("sed -n 's/^## //p' HISTORY.md"), None, "read, not written");
        assert_eq!(refused("grep -m1 '^## ' HISTORY.md > STAMP"), None);
        assert!(!writes_a_source("echo x > HISTORY.md", &sources, &[]).unwrap().contains("missing"));
    }

    #[test]
    fn a_value_written_as_name_equals_value_elsewhere_goes_into_the_missing_file() {
        let missing = ["STAMP".to_owned()];
        let moved = |fix: &str| value_for_missing(fix, &missing);
        assert_eq!(moved("printf 'STAMP=1.2.0\\n' >> HISTORY.md").as_deref(), Some("printf '%s\\n' '1.2.0' > 'STAMP'"));
        assert_eq!(
            moved("sed -i 's/^STAMP=/STAMP=1.2.0/' HISTORY.md").as_deref(),
            Some("printf '%s\\n' '1.2.0' > 'STAMP'")
        );
        assert_eq!(moved("echo STAMP = v1.2 >> notes.txt").as_deref(), Some("printf '%s\\n' 'v1.2' > 'STAMP'"));
        assert_eq!(moved("echo 'STAMP=$STAMP' > HISTORY.md"), None, "no literal");
        assert_eq!(moved("echo STAMP=v$(git describe) >> HISTORY.md"), None, "a value cut short");
        assert_eq!(moved("echo \"STAMP=2.4.0-${S}\" >> HISTORY.md"), None);
        assert_eq!(moved("printf 'STAMP=1.2\\n' | tee STAMP"), None, "the missing file itself, by tee");
        assert_eq!(moved("sed -i 's/^STAMP=/STAMP=\\n/' HISTORY.md"), None, "no value");
        assert_eq!(moved("printf 'STAMP=1.2\\n' > STAMP"), None, "the missing file itself");
        assert_eq!(moved("printf 'BUILDSTAMP=1.2\\n' >> a.env"), None, "another name");
        assert_eq!(value_for_missing("printf 'STAMP=1.2\\n' >> a.env", &[]), None);
    }

    #[test]
    fn a_fix_that_changes_a_source_is_told_apart() {
        let change = |path: &str, kind| Change {
            path: path.into(),
            kind,
            bytes_before: Some(1),
            bytes_after: Some(2),
            dir: false,
        };
        let sources = ["HISTORY.md".to_owned()];
        let told = changes_a_source(
            &[change("STAMP", ChangeKind::Created), change("HISTORY.md", ChangeKind::Modified)],
            &sources,
        );
        assert!(told.unwrap().contains("it changed HISTORY.md"));
        assert_eq!(changes_a_source(&[change("STAMP", ChangeKind::Modified)], &sources), None);
    }
}
