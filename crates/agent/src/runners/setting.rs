//! A fix that sets one key of a config file: `set FILE KEY VALUE`, or `set FILE [SECTION] KEY VALUE` for a key in an
//! INI section.
//!
//! Asked for a shell command to correct a setting, small models wrote `sed -i` on the error message's own words (which
//! are in no file), replaced a line where the key was missing, or wrote `s/^\[section\]/a key = v/`, which replaces
//! the section's header. Asked to name the file, the key and the value instead, the same models named them right
//! (Qwen2.5-Coder 1.5B on every distinct first error of the visible fix-and-rerun tasks). The edit itself is the
//! shell's: the key's line is changed in place (its separator, spacing and quotes kept), or added to its section in
//! the style of the keys around it, or the file is made when the error names it and it is missing.

use router::shell_syntax;

use crate::config_line::{KeyLine, bare, unquoted};

/// One key to set in one config file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Setting {
    /// The file, as the reply names it (relative to the working directory).
    pub(crate) file: String,
    /// The INI section it goes in, without brackets.
    pub(crate) section: Option<String>,
    pub(crate) key: String,
    pub(crate) value: String,
}

/// What a reply of the `set` form asks for: a setting, or why it cannot be read as one.
pub(crate) type Parsed = Result<Setting, String>;

const USAGE: &str = "write it as `set FILE KEY VALUE`, or `set FILE [SECTION] KEY VALUE` for a key in a section";

impl Setting {
    /// Reads a fix reply of the `set` form; `None` for any other command (the shell's own `set -e` among them).
    pub(crate) fn parse(line: &str) -> Option<Parsed> {
        let line = line.trim();
        let rest = line.strip_prefix("set")?;
        if !rest.starts_with([' ', '\t']) {
            return None;
        }
        let first = rest.split_whitespace().next()?;
        if first.starts_with(['-', '+']) {
            return None;
        }
        let parsed = shell_syntax::parse(line);
        let commands: Vec<_> = parsed.commands().collect();
        if commands.len() != 1 || line.contains('\n') {
            return Some(Err(format!("a `set` reply is one setting and nothing else: {USAGE}")));
        }
        let words: Vec<String> = commands[0].words.iter().skip(1).map(|w| w.text.clone()).collect();
        Some(Self::from_words(&words))
    }

    fn from_words(words: &[String]) -> Parsed {
        let Some((file, mut rest)) = words.split_first() else { return Err(USAGE.into()) };
        let mut section = None;
        if rest.first().is_some_and(|w| w.starts_with('[')) {
            // A section's name may hold spaces: `[web server]` arrives as two words.
            let end = rest
                .iter()
                .position(|w| w.ends_with(']'))
                .ok_or_else(|| format!("no `]` ends the section: {USAGE}"))?;
            let name = rest[..=end].join(" ");
            let name = name.trim_start_matches('[').trim_end_matches(']').trim();
            if name.is_empty() {
                return Err(format!("the section has no name: {USAGE}"));
            }
            section = Some(name.to_owned());
            rest = &rest[end + 1..];
        }
        let (key, value) = match rest {
            // `KEY=VALUE` in one word, as a config file writes it.
            [one] if one.contains('=') => {
                let (key, value) = one.split_once('=').unwrap_or_default();
                (key.trim().to_owned(), value.trim().to_owned())
            }
            [key, value @ ..] if !value.is_empty() => (key.trim_end_matches([':', '=']).to_owned(), value.join(" ")),
            _ => return Err(format!("a key and its value are needed: {USAGE}")),
        };
        let value = value.trim_start_matches(['=', ':']).trim().to_owned();
        if key.is_empty() || key.contains(['[', ']', '=']) {
            return Err(format!("`{key}` is no key: {USAGE}"));
        }
        if value.is_empty() {
            return Err(format!("no value for {key}: {USAGE}"));
        }
        Ok(Self { file: file.clone(), section, key, value })
    }

    /// `set SECTION.KEY VALUE` with the file left out (Qwen2.5-Coder 0.5B's `set report.workers 16`), spelled out
    /// as `set FILE [SECTION] KEY VALUE` for the one file of `named` (the files the error names, relative to `cwd`)
    /// that has the section. `None` for any other reply, or where the first word is a file here.
    pub(crate) fn dotted(line: &str, named: &[String], cwd: &std::path::Path) -> Option<String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let ["set", first, value @ ..] = words.as_slice() else { return None };
        if value.is_empty() || cwd.join(first).exists() {
            return None;
        }
        let (section, key) = first.split_once('.')?;
        // `set app.conf mode fast` names a file that is not there yet.
        if CONFIG_EXTENSIONS.contains(&key.to_ascii_lowercase().as_str()) {
            return None;
        }
        let plain = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !plain(section) || !plain(key) {
            return None;
        }
        let header = format!("[{section}]");
        let holding: Vec<&String> = named
            .iter()
            .filter(|file| std::fs::read_to_string(cwd.join(file)).is_ok_and(|t| t.lines().any(|l| l.trim() == header)))
            .collect();
        let [file] = holding.as_slice() else { return None };
        Some(format!("set {file} [{section}] {key} {}", value.join(" ")))
    }

    /// The setting a `sed -i` reply means when it substitutes a key's name and separator alone
    /// (`sed -i 's/^target=/target=C/' units.conf`): Qwen2.5-Coder 0.5B's way of setting a value, which puts the new
    /// value before the old one (`target=Ccelsius`), or matches nothing where the file spaces its `=` or writes
    /// `key: value`. Only for one file here that sets the key already; `None` for any other command.
    pub(crate) fn from_sed(line: &str, cwd: &std::path::Path) -> Option<Setting> {
        let parsed = shell_syntax::parse(line);
        let [command] = parsed.commands().collect::<Vec<_>>()[..] else { return None };
        let (words, _) = shell_syntax::strip_prefixes(&command.words);
        let (program, args) = words.split_first()?;
        if shell_syntax::program_name(&program.text) != "sed" || !command.redirections.is_empty() {
            return None;
        }
        let call = crate::runners::literal_sed::SedCall::read(args)?;
        let [file] = call.files.as_slice() else { return None };
        let (pattern, replacement, flags) = crate::runners::literal_sed::substitution(&call.expression)?;
        if !flags.chars().all(|f| f == 'g') {
            return None;
        }
        let key = key_alone(pattern)?;
        let value = replacement.strip_prefix(key)?.trim_start_matches([' ', '\t']);
        let value = value.strip_prefix(['=', ':'])?.trim();
        if value.is_empty() || value.contains(['&', '\\']) {
            return None;
        }
        let text = std::fs::read_to_string(cwd.join(file)).ok()?;
        text.lines().any(|l| KeyLine::read(l).is_some_and(|k| k.key == key)).then(|| Setting {
            file: file.clone(),
            section: None,
            key: key.to_owned(),
            value: value.to_owned(),
        })
    }

    /// This setting for a file the shell reads (`sourced`, [`sourced_by_shell`]): a value holding a blank or a
    /// character the shell reads is quoted (`REPORT_TITLE=Weekly Sales` runs `Sales` as a command). A value quoted
    /// already, or that needs none, stays as it is.
    pub(crate) fn for_shell(&self, sourced: bool) -> Setting {
        let plain = |c: char| c.is_ascii_alphanumeric() || "_-.,/:@%+=~".contains(c);
        // One quoted string, not `"a" b "c"`.
        let quoted = self.value.len() > 1
            && ['"', '\''].iter().any(|&q| {
                self.value.starts_with(q) && self.value.ends_with(q) && !self.value[1..self.value.len() - 1].contains(q)
            });
        if !sourced || quoted || self.value.chars().all(plain) {
            return self.clone();
        }
        Setting { value: tmux_habitat::shell_quote(&self.value), ..self.clone() }
    }

    /// The file's text with the key set, from its text now (`None`: the file does not exist yet). An error says why
    /// the key cannot be placed (in a file of several sections, which one is for the reply to say).
    pub(crate) fn apply(&self, text: Option<&str>) -> Result<String, String> {
        let text = text.unwrap_or("");
        let lines: Vec<&str> = text.lines().collect();
        let sections = sections(&lines);
        let named: Vec<&str> = sections.iter().filter_map(|s| s.name).collect();
        // The style of a new line: the keys around it, else any key of the file.
        let every: Vec<KeyLine> = sections.iter().flat_map(|s| s.keys(&lines)).map(|(_, k)| k).collect();
        let target = match &self.section {
            Some(name) => match sections.iter().find(|s| s.name == Some(name.as_str())) {
                Some(section) => Some(section),
                None => return Ok(self.appended_section(text, name, &every)),
            },
            None if named.is_empty() => sections.first(),
            None => {
                let holding: Vec<&Section> =
                    sections.iter().filter(|s| s.keys(&lines).iter().any(|(_, k)| k.key == self.key)).collect();
                match holding.as_slice() {
                    [one] => Some(*one),
                    [] if named.len() == 1 && sections[0].keys(&lines).is_empty() => sections.last(),
                    _ => {
                        let list: Vec<String> = named.iter().map(|n| format!("[{n}]")).collect();
                        return Err(format!(
                            "{} has the sections {}: say which one {} goes in (`set {} [SECTION] {} {}`)",
                            self.file,
                            list.join(", "),
                            self.key,
                            self.file,
                            self.key,
                            self.value
                        ));
                    }
                }
            }
        };
        let Some(target) = target else { return Ok(join_with(text, &[self.line(None, &every)])) };
        let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
        let keys = target.keys(&lines);
        if let Some((at, found)) = keys.iter().find(|(_, k)| k.key == self.key) {
            out[*at] = found.without_comment(&self.value);
            return Ok(rejoin(text, &out));
        }
        let near: Vec<KeyLine> = keys.iter().map(|(_, k)| k.clone()).collect();
        let line = self.line(target.name, if near.is_empty() { &every } else { &near });
        match keys.last().map_or(target.header, |(at, _)| Some(*at)) {
            Some(at) => out.insert(at + 1, line),
            // A file without sections or keys: the line goes at its end.
            None => return Ok(join_with(text, &[line])),
        }
        Ok(rejoin(text, &out))
    }

    /// Whether `text` sets the key already: in the setting's section where it names one, else in any.
    pub(crate) fn is_set_in(&self, text: &str) -> bool {
        let lines: Vec<&str> = text.lines().collect();
        sections(&lines)
            .iter()
            .filter(|s| self.section.as_deref().is_none_or(|name| s.name == Some(name)))
            .any(|s| s.keys(&lines).iter().any(|(_, k)| k.key == self.key))
    }

    /// The text with a new section holding the key at its end.
    fn appended_section(&self, text: &str, name: &str, like: &[KeyLine]) -> String {
        let mut lines = Vec::new();
        if !text.trim().is_empty() {
            lines.push(String::new());
        }
        lines.push(format!("[{name}]"));
        lines.push(self.line(Some(name), like));
        join_with(text, &lines)
    }

    /// A new line for the key, in the style of the keys around it (`like`): their separator, indentation and quotes.
    fn line(&self, section: Option<&str>, like: &[KeyLine]) -> String {
        if let Some(model) = like.first() {
            let quote = like.iter().all(|k| k.quote().is_some()).then(|| model.quote()).flatten();
            let value = match quote {
                Some(q) if !bare(&self.value) => format!("{q}{}{q}", unquoted(&self.value)),
                _ => self.value.clone(),
            };
            return format!("{}{}{}{value}", model.prefix, self.key, model.separator);
        }
        let toml = self.file.ends_with(".toml");
        let value = if toml && !bare(&self.value) && !self.value.starts_with(['"', '\'', '[', '{']) {
            format!("\"{}\"", self.value)
        } else {
            self.value.clone()
        };
        let spaced = section.is_some() || toml || self.file.ends_with(".ini") || self.file.ends_with(".cfg");
        format!("{}{}{value}", self.key, if spaced { " = " } else { "=" })
    }
}

/// Extensions of config and data files: `NAME.EXT` with one of them names a file, not a section's key.
const CONFIG_EXTENSIONS: &[&str] =
    &["conf", "cfg", "ini", "toml", "yaml", "yml", "json", "env", "txt", "csv", "properties", "xml", "sh", "py", "rc"];

/// The key of a sed pattern that matches a key's name and separator and nothing of its value (`^target=`,
/// `^mode *= *`, `port:\s*`, `^name=.*` whose value the replacement gives whole).
fn key_alone(pattern: &str) -> Option<&str> {
    let pattern = pattern.strip_prefix('^').unwrap_or(pattern);
    let end = pattern.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')).unwrap_or(pattern.len());
    let (key, mut rest) = pattern.split_at(end);
    if key.is_empty() || !key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return None;
    }
    for tail in ["$", ".*", ".\\+", ".+"] {
        rest = rest.strip_suffix(tail).unwrap_or(rest);
    }
    let mut separator = rest.to_owned();
    for blank in ["[[:space:]]*", "[ \t]*", "\\s*", "\\s+", " *", " +", "\\?", " "] {
        separator = separator.replace(blank, "");
    }
    matches!(separator.as_str(), "=" | ":").then_some(key)
}

/// Whether `file` (relative to `cwd`, its text `text` where it exists) is read by a shell, so that its values
/// follow the shell's quoting: a shell file by its name (`.sh`, `.bash`, `.env`, `.envrc`), a file that `export`s,
/// or one a shell script here (two folders down at most) reads with `source FILE` or `. FILE`.
pub(crate) fn sourced_by_shell(file: &str, text: Option<&str>, cwd: &std::path::Path) -> bool {
    let name = file.rsplit('/').next().unwrap_or(file);
    if [".sh", ".bash", ".env", ".envrc"].iter().any(|ext| name.ends_with(ext))
        || text.is_some_and(|t| t.lines().any(|l| l.trim_start().starts_with("export ")))
    {
        return true;
    }
    let sources = |script: &str| {
        script.lines().any(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            words.windows(2).any(|pair| {
                matches!(pair[0], "source" | ".")
                    && pair[1].trim_matches(['"', '\'', ';']).rsplit('/').next().is_some_and(|w| w == name)
            })
        })
    };
    crate::runners::looked::files_under(cwd, 3, SCANNED, |path, _| {
        std::fs::metadata(path).is_ok_and(|m| m.len() <= 64 * 1024)
            && std::fs::read_to_string(path).is_ok_and(|script| {
                (path.extension().is_some_and(|e| e == "sh" || e == "bash")
                    || ["#!/bin/bash", "#!/bin/sh", "#!/usr/bin/env bash"].iter().any(|s| script.starts_with(s)))
                    && sources(&script)
            })
    })
}

/// The most directory entries [`sourced_by_shell`] looks at.
const SCANNED: usize = 500;

/// `lines` joined back as `original` ended: with its final newline, or without one.
fn rejoin(original: &str, lines: &[String]) -> String {
    let mut text = lines.join("\n");
    if original.is_empty() || original.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// `text` with `lines` after it (a newline first where it lacks its last one).
fn join_with(text: &str, lines: &[String]) -> String {
    let mut out = text.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// One section of a config file: the lines before the first header (no name), or a `[name]` header's lines.
struct Section<'a> {
    name: Option<&'a str>,
    /// The header's line.
    header: Option<usize>,
    /// The lines after the header, up to the next one.
    body: std::ops::Range<usize>,
}

impl Section<'_> {
    /// The key lines of the section, with their index.
    fn keys<'l>(&self, lines: &[&'l str]) -> Vec<(usize, KeyLine<'l>)> {
        let body = self.body.clone();
        lines[body.clone()].iter().zip(body).filter_map(|(line, at)| KeyLine::read(line).map(|k| (at, k))).collect()
    }
}

fn sections<'a>(lines: &[&'a str]) -> Vec<Section<'a>> {
    let mut out = vec![Section { name: None, header: None, body: 0..0 }];
    for (at, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if let Some(name) = trimmed.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            out.push(Section { name: Some(name.trim()), header: Some(at), body: at + 1..at + 1 });
        } else if let Some(last) = out.last_mut() {
            last.body.end = at + 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn set(line: &str) -> Setting {
        Setting::parse(line).expect("a set reply").expect("a setting")
    }

    fn applied(line: &str, text: Option<&str>) -> String {
        set(line).apply(text).unwrap()
    }

    #[test]
    fn set_replies_are_read_and_other_commands_are_not() {
        assert_eq!(
            set("set mailer.cfg [server] host mail.example.org"),
            Setting {
                file: "mailer.cfg".into(),
                section: Some("server".into()),
                key: "host".into(),
                value: "mail.example.org".into()
            }
        );
        assert_eq!(set("set app.env PORT 8080").section, None);
        assert_eq!(set("set app.env PORT=8080").value, "8080", "KEY=VALUE in one word");
        assert_eq!(set("set app.env PORT = 8080").value, "8080");
        assert_eq!(set("set site.ini [web server] title \"My Site\"").section.as_deref(), Some("web server"));
        assert_eq!(set("set site.ini [web server] title \"My Site\"").value, "My Site");
        assert_eq!(set("set site.ini title My Site").value, "My Site");
        for other in ["set -e", "set -o pipefail", "set +x", "settings.sh", "setx a b", "sed -i 's/a/b/' x"] {
            assert!(Setting::parse(other).is_none(), "{other}");
        }
        for bad in ["set a.ini", "set a.ini key", "set a.ini [s key v", "set a.ini [] key v", "set a.ini k v; ./run.sh"]
        {
            let why = Setting::parse(bad).unwrap().unwrap_err();
            assert!(why.contains("set FILE KEY VALUE"), "{bad}: {why}");
        }
    }

    #[test]
    fn a_key_there_is_changed_in_place_in_its_own_style() {
        assert_eq!(
            applied("set d.conf MODE production", Some("# where\nMODE=prod\nVERSION=2\n")),
            "# where\nMODE=production\nVERSION=2\n"
        );
        assert_eq!(applied("set a.toml name web", Some("name = \"api\"\nport = 80\n")), "name = \"web\"\nport = 80\n");
        assert_eq!(applied("set a.env HOST h2", Some("export HOST='h1'")), "export HOST='h2'", "no final newline kept");
        assert_eq!(applied("set a.yml level: debug", Some("log:\n  level: info\n")), "log:\n  level: debug\n");
        let ini = "[local]\ntimeout = 5\n\n[remote]\nhost = example.org\ntimeout = 10\n";
        assert_eq!(
            applied("set s.ini [remote] timeout 30", Some(ini)),
            "[local]\ntimeout = 5\n\n[remote]\nhost = example.org\ntimeout = 30\n"
        );
        // A comment after the value goes: the program that complained may read it as part of the value.
        assert_eq!(applied("set w.ini PORT 81", Some("PORT = 80 ; the web port\n")), "PORT = 81\n");
    }

    #[test]
    fn a_missing_key_is_added_to_its_section_like_the_keys_around_it() {
        let ini = "[sync]\nsource = files\n\n[log]\nlevel=info\n";
        assert_eq!(
            applied("set s.ini [sync] target mirror", Some(ini)),
            "[sync]\nsource = files\ntarget = mirror\n\n[log]\nlevel=info\n"
        );
        assert_eq!(
            applied("set s.ini [log] file out.log", Some(ini)),
            "[sync]\nsource = files\n\n[log]\nlevel=info\nfile=out.log\n"
        );
        assert_eq!(
            applied("set s.ini [new] a 1", Some(ini)),
            format!("{ini}\n[new]\na = 1\n"),
            "a new section at the end"
        );
        assert_eq!(
            applied("set s.ini [empty] a 1", Some("[empty]\n[next]\nb = 2\n")),
            "[empty]\na = 1\n[next]\nb = 2\n"
        );
        assert_eq!(applied("set r.conf channel beta", Some("name=app\n")), "name=app\nchannel=beta\n");
        assert_eq!(applied("set r.conf channel beta", Some("# only a comment\n")), "# only a comment\nchannel=beta\n");
        assert_eq!(applied("set a.toml name web", Some("[x]\nport = 1\n")), "[x]\nport = 1\nname = web\n");
        assert_eq!(
            applied("set a.toml [x] name web", Some("[x]\nname2 = \"a\"\n")),
            "[x]\nname2 = \"a\"\nname = \"web\"\n"
        );
        assert_eq!(applied("set a.toml [x] port 8", Some("[x]\nname2 = \"a\"\n")), "[x]\nname2 = \"a\"\nport = 8\n");
    }

    #[test]
    fn a_sed_that_substitutes_a_key_alone_sets_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("oven.conf"), "# oven\nheat = low\nfan: off\n").unwrap();
        let from = |line: &str| Setting::from_sed(line, dir.path()).map(|s| (s.key, s.value));
        let set = |key: &str, value: &str| Some((key.to_owned(), value.to_owned()));
        assert_eq!(from("sed -i 's/^heat=/heat=high/' oven.conf"), set("heat", "high"));
        assert_eq!(from("sed -i 's/^heat *= */heat = high/' oven.conf"), set("heat", "high"));
        assert_eq!(from("sed -i 's/^heat=.*/heat=high/g' oven.conf"), set("heat", "high"));
        assert_eq!(from("sed -i 's|fan:\\s*|fan: on|' oven.conf"), set("fan", "on"));
        assert_eq!(from("sed -i -e 's/^heat=/heat=high/' oven.conf"), set("heat", "high"));
        let applied = Setting::from_sed("sed -i 's/^heat=/heat=high/' oven.conf", dir.path()).unwrap();
        assert_eq!(applied.apply(Some("# oven\nheat = low\nfan: off\n")).unwrap(), "# oven\nheat = high\nfan: off\n");
        // A pattern with the old value, another key's line, a key the file lacks, no file here, not in place.
        assert_eq!(from("sed -i 's/^heat = low/heat = high/' oven.conf"), None);
        assert_eq!(from("sed -i 's/^heat=/fan=on/' oven.conf"), None);
        assert_eq!(from("sed -i 's/^VERSION=/VERSION=2/' oven.conf"), None);
        assert_eq!(from("sed -i 's/^heat=/heat=high/' grill.conf"), None);
        assert_eq!(from("sed 's/^heat=/heat=high/' oven.conf"), None);
        assert_eq!(from("sed -i 's/^heat=/heat=&x/' oven.conf"), None);
        assert_eq!(from("sed -i 's/^heat=/heat=high/' oven.conf && cat oven.conf"), None);
    }

    #[test]
    fn a_dotted_key_is_spelled_out_in_the_file_the_error_names() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("mill.ini"), "[grind]\nspeed = fast\n").unwrap();
        std::fs::write(dir.path().join("other.ini"), "[bake]\nheat = 1\n").unwrap();
        let named = ["mill.ini".to_owned(), "other.ini".to_owned()];
        let spelled = |line: &str| Setting::dotted(line, &named, dir.path());
        assert_eq!(spelled("set grind.speed 12").as_deref(), Some("set mill.ini [grind] speed 12"));
        assert_eq!(spelled("set mill.ini speed 12"), None, "a file here");
        assert_eq!(spelled("set roast.speed 12"), None, "no file has the section");
        assert_eq!(spelled("set grind.speed"), None, "no value");
        std::fs::write(dir.path().join("x.ini"), "[app]\nspeed = 1\n").unwrap();
        let named = ["x.ini".to_owned()];
        assert_eq!(Setting::dotted("set app.conf mode fast", &named, dir.path()), None, "a file not there yet");
        assert_eq!(spelled("mkdir grind.speed"), None);
    }

    #[test]
    fn a_file_the_shell_reads_gets_its_values_quoted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("jobs")).unwrap();
        std::fs::write(dir.path().join("jobs/print.sh"), "#!/bin/bash\nsource ./press.cfg\necho \"$BANNER\"\n")
            .unwrap();
        std::fs::write(dir.path().join("press.cfg"), "INK=black\nBANNER=Draft\n").unwrap();
        std::fs::write(dir.path().join("other.cfg"), "INK=black\n").unwrap();
        assert!(sourced_by_shell("press.cfg", Some("INK=black\n"), dir.path()), "read by jobs/print.sh");
        assert!(!sourced_by_shell("other.cfg", Some("INK=black\n"), dir.path()));
        assert!(sourced_by_shell("other.cfg", Some("export INK=black\n"), dir.path()));
        assert!(sourced_by_shell("site.env", None, dir.path()));
        let banner = |value: &str| {
            let setting =
                Setting { file: "press.cfg".into(), section: None, key: "BANNER".into(), value: value.into() };
            setting.for_shell(true).apply(Some("INK=black\nBANNER=Draft\n")).unwrap()
        };
        assert_eq!(banner("Spring Sale"), "INK=black\nBANNER='Spring Sale'\n");
        assert_eq!(banner("Final"), "INK=black\nBANNER=Final\n");
        assert_eq!(banner("'Spring Sale'"), "INK=black\nBANNER='Spring Sale'\n", "quoted already");
        assert_eq!(banner("Save $5 now"), "INK=black\nBANNER='Save $5 now'\n");
        assert_eq!(banner("it's $5"), "INK=black\nBANNER='it'\\''s $5'\n");
        assert_eq!(banner("~/press"), "INK=black\nBANNER=~/press\n", "a tilde still expands");
        assert_eq!(banner("\"a\" b \"c\""), "INK=black\nBANNER='\"a\" b \"c\"'\n", "not one quoted string");
        // Each reads back, through bash, as the value given.
        for value in ["Spring Sale", "Save $5 now", "it's $5", "a \"b\" `c`"] {
            let text = banner(value);
            let out = std::process::Command::new("bash")
                .arg("-c")
                .arg(format!("{text}printf %s \"$BANNER\""))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout), value, "{text}");
        }
        let ini =
            Setting { file: "press.ini".into(), section: None, key: "banner".into(), value: "Spring Sale".into() };
        assert_eq!(ini.for_shell(false), ini, "not read by a shell");
    }

    #[test]
    fn a_missing_file_is_made_and_an_ambiguous_section_is_asked_for() {
        assert_eq!(applied("set t.conf threshold 3", None), "threshold=3\n");
        assert_eq!(applied("set t.ini [main] threshold 3", None), "[main]\nthreshold = 3\n");
        assert_eq!(applied("set t.toml name web", None), "name = \"web\"\n");
        let two = "[a]\nx = 1\n[b]\ny = 2\n";
        let why = set("set t.ini z 3").apply(Some(two)).unwrap_err();
        assert_eq!(why, "t.ini has the sections [a], [b]: say which one z goes in (`set t.ini [SECTION] z 3`)");
        assert_eq!(applied("set t.ini y 3", Some(two)), "[a]\nx = 1\n[b]\ny = 3\n", "the one section holding it");
        assert_eq!(applied("set t.ini z 3", Some("[only]\nx = 1\n")), "[only]\nx = 1\nz = 3\n");
    }

    proptest! {
        /// Setting a key leaves every other line as it was, holds the value afterwards, and a second time changes
        /// nothing.
        #[test]
        fn setting_is_exact_and_idempotent(
            keys in proptest::collection::vec(("[a-e]{1,3}", "[a-z0-9]{1,6}"), 0..6),
            section in proptest::option::of("[s-u]"),
            key in "[a-e]{1,3}",
            value in "[a-z0-9]{1,6}",
            sep in prop_oneof![Just("="), Just(" = "), Just(": ")],
        ) {
            let mut text = String::from("[s]\n");
            for (k, v) in &keys {
                text.push_str(&format!("{k}{sep}{v}\n"));
            }
            let mut setting = set(&format!("set x.ini {} {key} {value}", section.as_ref().map(|s| format!("[{s}]")).unwrap_or_default()));
            setting.value = value.clone();
            let Ok(once) = setting.apply(Some(&text)) else { return Ok(()) };
            let twice = setting.apply(Some(&once)).unwrap();
            prop_assert_eq!(&twice, &once);
            let wanted = format!("{key}{}{value}", if keys.is_empty() { " = " } else { sep });
            prop_assert!(once.lines().any(|l| l == wanted), "{} in {}", wanted, once);
            // Every line that was there is there still, but for the key's own line where it was changed.
            let changed: Vec<&str> = text.lines().filter(|l| !once.lines().any(|o| o == *l)).collect();
            prop_assert!(changed.iter().all(|l| l.starts_with(&format!("{key}{sep}"))), "{:?}", changed);
        }
    }
}
