//! The environment every pane starts with: the caller's, minus what tmux and the shell set themselves, plus
//! settings that keep programs from stopping in a pager, an editor or a prompt nobody sees.

use std::ffi::OsString;

/// Variables that make programs print and return instead of waiting for a person, with the reason for each.
/// `TERM` is left to tmux (its `default-terminal`, `screen-256color` on servers we start).
pub const NEVER_HANG: &[(&str, &str, &str)] = &[
    ("PAGER", "cat", "programs that page (man, psql, …) print instead"),
    ("GIT_PAGER", "cat", "git log/diff/show print instead of opening less"),
    ("MANPAGER", "cat", "man prints the page"),
    ("SYSTEMD_PAGER", "", "systemctl and journalctl print instead of paging"),
    ("AWS_PAGER", "", "the AWS CLI prints instead of paging"),
    ("GH_PAGER", "cat", "the GitHub CLI prints instead of paging"),
    ("LESS", "-FRX", "a less started anyway quits when the text fits and leaves it on screen"),
    ("EDITOR", "true", "a program that opens an editor (git commit without -m) gets an empty text back"),
    ("VISUAL", "true", "as EDITOR"),
    ("GIT_TERMINAL_PROMPT", "0", "git fails instead of asking for a user name or password"),
    ("DEBIAN_FRONTEND", "noninteractive", "apt and dpkg take defaults instead of asking"),
    ("PIP_NO_INPUT", "1", "pip fails instead of asking"),
    ("NONINTERACTIVE", "1", "installers that honour it (Homebrew) take defaults"),
    ("HISTFILE", "/dev/null", "no shell history file"),
];

/// Variables never copied from the caller: tmux and the pane's shell set their own.
pub const NOT_INHERITED: &[&str] = &["TMUX", "TMUX_PANE", "TERM", "PWD", "OLDPWD", "SHLVL", "_", "COLUMNS", "LINES"];

/// tmux refuses a command message past about 16 KB; the environment gets at most this much of it.
pub const ENVIRONMENT_BUDGET_BYTES: usize = 12_000;

/// The environment for a pane, as `KEY=value` pairs to give tmux (`new-window -e`): the caller's variables
/// (those that are valid UTF-8, minus [`NOT_INHERITED`], `TERM_*` and secrets such as `OPENAI_API_KEY`, which
/// panes get from the server instead), then [`NEVER_HANG`] over them. When
/// the caller's environment is too large for tmux, its largest variables are left out, with a warning.
pub fn pane_environment(caller: impl IntoIterator<Item = (OsString, OsString)>) -> Vec<(String, String)> {
    let mut vars: Vec<(String, String)> = caller
        .into_iter()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| {
            !NOT_INHERITED.contains(&k.as_str())
                && !k.starts_with("TERM_")
                && !k.is_empty()
                && !k.contains('=')
                && NEVER_HANG.iter().all(|(name, _, _)| name != k)
                // Secrets (API keys, tokens) are never put on a tmux command line, where `ps` shows them while
                // a session is created: panes get them from the server's environment, which is the environment
                // of the clive that started the server.
                && !crate::sandbox::looks_secret(k)
        })
        .collect();
    let size = |vars: &[(String, String)]| vars.iter().map(|(k, v)| k.len() + v.len() + 8).sum::<usize>();
    let ours: Vec<(String, String)> =
        NEVER_HANG.iter().map(|(name, value, _)| ((*name).to_owned(), (*value).to_owned())).collect();
    while size(&vars) + size(&ours) > ENVIRONMENT_BUDGET_BYTES {
        let Some((largest, _)) = vars.iter().enumerate().max_by_key(|(_, (k, v))| k.len() + v.len()) else { break };
        let (name, value) = vars.swap_remove(largest);
        tracing::warn!(variable = %name, bytes = value.len(), "environment variable too large to pass to a pane; left out");
    }
    vars.extend(ours);
    vars
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs.iter().map(|(k, v)| (OsString::from(k), OsString::from(v))).collect()
    }

    fn value<'a>(vars: &'a [(String, String)], name: &str) -> Option<&'a str> {
        vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    #[test]
    fn the_callers_variables_pass_and_ours_win() {
        let vars = pane_environment(env(&[("FOO", "bar"), ("PAGER", "less"), ("TMUX", "/x,1,0"), ("TERM", "xterm")]));
        assert_eq!(value(&vars, "FOO"), Some("bar"));
        assert_eq!(value(&vars, "PAGER"), Some("cat"));
        assert_eq!(value(&vars, "TMUX"), None);
        assert_eq!(value(&vars, "TERM"), None);
        assert_eq!(vars.iter().filter(|(k, _)| k == "PAGER").count(), 1);
        for (name, expected, _) in NEVER_HANG {
            assert_eq!(value(&vars, name), Some(*expected));
        }
    }

    #[test]
    fn an_oversized_environment_loses_its_largest_variables_only() {
        let big = "x".repeat(ENVIRONMENT_BUDGET_BYTES);
        let vars = pane_environment(env(&[("SMALL", "1"), ("HUGE", &big), ("TERM_PROGRAM", "x")]));
        assert_eq!(value(&vars, "HUGE"), None);
        assert_eq!(value(&vars, "SMALL"), Some("1"));
        assert_eq!(value(&vars, "TERM_PROGRAM"), None);
        assert_eq!(value(&vars, "GIT_PAGER"), Some("cat"));
    }
}
