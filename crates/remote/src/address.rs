//! `clive@<host>` addresses in a task, and the task split into one step per address.
//!
//! An address counts only where a person addresses an agent: at the start of the task or of a clause (after
//! `,`, `;`, `:`, a full stop, `then`, `and`, `also`, `next`), or after `ask`, `tell`, `have` or `let`.
//! `send the report to clive@ikangai.com` mentions an e-mail address and is not routed anywhere (the
//! predecessor sent it to the host `ikangai.com`); `root@devbox` and `bob@example.com` are never addresses.
//! Punctuation after the host (`clive@devbox,` `clive@devbox.` `clive@devbox:`) is not part of it.

use std::fmt;

/// The word before `@` that makes an agent address.
pub const AGENT_USER: &str = "clive";

/// A validated agent address: `clive@<host>`, where host is an SSH host name or alias.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Address {
    host: String,
}

impl Address {
    /// The address of `host`; the host must be an SSH host name or alias (letters, digits, `.`, `_`, `-`,
    /// starting and ending with a letter or digit, at most 253 characters).
    pub fn new(host: &str) -> Result<Address, AddressError> {
        if host.is_empty() {
            return Err(AddressError::MissingHost);
        }
        if !is_host(host) {
            return Err(AddressError::BadHost { host: host.to_owned() });
        }
        Ok(Address { host: host.to_owned() })
    }

    /// The host name or alias.
    pub fn host(&self) -> &str {
        &self.host
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{AGENT_USER}@{}", self.host)
    }
}

/// A task that cannot be split into steps for agents.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AddressError {
    /// `clive@` with no host after it.
    #[error("`clive@` needs a host after it, as in `clive@devbox check disk usage`")]
    MissingHost,
    /// The host is not a host name.
    #[error("`clive@{host}`: `{host}` is not an SSH host name or alias (letters, digits, `.`, `_`, `-`)")]
    BadHost {
        /// What followed `clive@`.
        host: String,
    },
    /// An address with no task after it.
    #[error("`{address}` needs a task after it, as in `{address} check disk usage`")]
    EmptyTask {
        /// The address.
        address: String,
    },
    /// Work before the first address, which clive would have to do itself first: no rule splits it (clive-core
    /// hands such a task to the planner, which places the agents' steps among local ones).
    #[error(
        "the task starts with work for this machine (`{before}`) before `{address}`: only a planner can place \
         the agents' steps among local ones"
    )]
    LocalWorkFirst {
        /// The text before the first address.
        before: String,
        /// The first address.
        address: String,
    },
}

/// One step of a task for agents: what one agent is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Who does it.
    pub address: Address,
    /// What it is asked, in the user's words, without the address.
    pub task: String,
    /// Whether it waits for the step before it (`… then clive@b …`); `false` for the first step and for steps
    /// joined with `and`, `,`, `;` or `also` alone.
    pub after_previous: bool,
}

/// Where an address was found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The address, or why the `clive@` there is not one.
    pub address: Result<Address, AddressError>,
    /// Byte offset of `clive@`.
    pub start: usize,
    /// Byte offset just after the host (punctuation after it excluded).
    pub end: usize,
}

/// The agent addresses of `text`, in order; a `clive@` in address position with a missing or bad host is
/// reported as an error in place. `clive@` mentioned elsewhere (an e-mail address) is left out.
pub fn find(text: &str) -> Vec<Found> {
    let lower = text.to_ascii_lowercase();
    let needle = "clive@";
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(offset) = lower.get(from..).and_then(|rest| rest.find(needle)) {
        let start = from + offset;
        let host_start = start + needle.len();
        from = host_start;
        let before = &text[..start];
        // Part of a longer word (`bob.clive@x`, `myclive@x`): not an address.
        if before.chars().next_back().is_some_and(|c| !(c.is_whitespace() || "(\"'`,;".contains(c))) {
            continue;
        }
        if !in_address_position(before) {
            continue;
        }
        let rest = &text[host_start..];
        let token_len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || "._-@".contains(c))).unwrap_or(rest.len());
        let token = &rest[..token_len];
        // `clive@user@host` or `clive@host@x`: not an agent address.
        if token.contains('@') {
            continue;
        }
        let host = token.trim_end_matches(['.', '-', '_']);
        let end = host_start + host.len();
        found.push(Found { address: Address::new(host), start, end });
        from = end.max(from);
    }
    found
}

/// Splits a task into one [`Step`] per address. `Ok(None)`: the task addresses no agent.
pub fn split(task: &str) -> Result<Option<Vec<Step>>, AddressError> {
    let found = find(task);
    let Some(first) = found.first() else { return Ok(None) };
    let before = strip_lead_in(&task[..first.start]);
    if !before.is_empty() {
        let address = first.address.as_ref().map(ToString::to_string).unwrap_or_else(|_| "clive@".to_owned());
        return Err(AddressError::LocalWorkFirst { before: before.to_owned(), address });
    }
    let mut steps = Vec::new();
    let mut after_previous = false;
    for (index, here) in found.iter().enumerate() {
        let address = here.address.clone()?;
        let until = found.get(index + 1).map_or(task.len(), |next| next.start);
        let (text, next_after) = cut_connector(&task[here.end..until]);
        let text = clean_step(text);
        if text.is_empty() {
            return Err(AddressError::EmptyTask { address: address.to_string() });
        }
        steps.push(Step { address, task: text.to_owned(), after_previous });
        after_previous = next_after;
    }
    Ok(Some(steps))
}

/// Words after which an address addresses an agent.
const LEAD_INS: [&str; 9] = ["ask", "tell", "have", "let", "then", "and", "also", "next", "afterwards"];

fn in_address_position(before: &str) -> bool {
    let trimmed = before.trim_end_matches(|c: char| c.is_whitespace() || "(\"'`".contains(c));
    if trimmed.is_empty() || trimmed.ends_with([',', ';', ':', '.', '!', '?']) {
        return true;
    }
    let last = trimmed.rsplit(|c: char| c.is_whitespace()).next().unwrap_or_default().to_ascii_lowercase();
    LEAD_INS.contains(&last.as_str())
}

/// The text before the first address without the words that only introduce it (`ask`, `please`).
fn strip_lead_in(before: &str) -> &str {
    let mut text = before.trim_matches(|c: char| c.is_whitespace() || "(\"'`,;:".contains(c));
    for word in ["please", "ask", "tell", "have", "let"] {
        if text.eq_ignore_ascii_case(word) {
            text = "";
        }
        if let Some(rest) = strip_word(text, word) {
            text = rest;
        }
    }
    text.trim()
}

fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let head = text.get(..word.len())?;
    let rest = &text[word.len()..];
    (head.eq_ignore_ascii_case(word) && rest.starts_with(char::is_whitespace)).then(|| rest.trim_start())
}

/// Cuts the connector (`then`, `and then`, `,`) off the end of a step's text; says whether the next step
/// waits for this one.
fn cut_connector(text: &str) -> (&str, bool) {
    let mut rest = text.trim_end();
    let mut sequential = false;
    loop {
        let before = rest;
        rest = rest.trim_end_matches(|c: char| c.is_whitespace() || "(\"'`".contains(c));
        for word in ["then", "afterwards", "next", "and", "also", "ask", "tell", "have", "let", "please"] {
            if let Some(cut) = strip_last_word(rest, word) {
                sequential |= matches!(word, "then" | "afterwards" | "next");
                rest = cut;
            }
        }
        if let Some(cut) = rest.strip_suffix(',').or_else(|| rest.strip_suffix(';')) {
            rest = cut;
        }
        if rest == before {
            break;
        }
    }
    (rest, sequential)
}

fn strip_last_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let start = text.len().checked_sub(word.len())?;
    let tail = text.get(start..)?;
    let head = &text[..start];
    (tail.eq_ignore_ascii_case(word) && (head.is_empty() || head.ends_with(char::is_whitespace))).then_some(head)
}

/// A step's text without the punctuation that joined it to its address (`clive@a: do x` → `do x`) and the
/// `to` of `ask clive@a to do x`.
fn clean_step(text: &str) -> &str {
    let text = text.trim_start_matches(|c: char| c.is_whitespace() || ",;:.!?)\"'`".contains(c)).trim_end();
    strip_word(text, "to").unwrap_or(text)
}

fn is_host(host: &str) -> bool {
    // One rule for host names: the plan format's (a `remote` subtask's `host`).
    dag_sched::is_host_name(host)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn hosts(task: &str) -> Vec<String> {
        find(task).into_iter().filter_map(|f| f.address.ok()).map(|a| a.host().to_owned()).collect()
    }

    fn steps(task: &str) -> Vec<(String, String, bool)> {
        split(task)
            .unwrap_or_else(|e| panic!("{task}: {e}"))
            .unwrap_or_default()
            .into_iter()
            .map(|s| (s.address.host().to_owned(), s.task, s.after_previous))
            .collect()
    }

    #[test]
    fn the_address_table() {
        let table: &[(&str, &[&str])] = &[
            ("clive@devbox check disk usage and report", &["devbox"]),
            ("clive@devbox, check disk usage", &["devbox"]),
            ("clive@devbox: check disk usage", &["devbox"]),
            ("clive@devbox.example.com. check it", &["devbox.example.com"]),
            ("ask clive@gpu to render the video", &["gpu"]),
            ("Clive@gpu render it", &["gpu"]),
            ("(clive@gpu) render it", &["gpu"]),
            ("clive@gpu render the video then clive@web upload it", &["gpu", "web"]),
            ("clive@a x, clive@b y; clive@c z", &["a", "b", "c"]),
            ("mail bob@example.com the report", &[]),
            ("send the report to clive@ikangai.com", &[]),
            ("ssh root@devbox uptime", &[]),
            ("user@host check disk", &[]),
            ("myclive@devbox check disk", &[]),
            ("bob.clive@devbox check disk", &[]),
            ("clive@user@host check", &[]),
            ("check the clive@ docs", &[]),
            ("", &[]),
        ];
        for (task, expected) in table {
            assert_eq!(hosts(task), *expected, "{task}");
        }
    }

    #[test]
    fn clive_at_alone_is_an_error_in_address_position() {
        assert_eq!(split("clive@ check disk"), Err(AddressError::MissingHost));
        assert_eq!(split("clive@"), Err(AddressError::MissingHost));
        assert_eq!(split("clive@. check"), Err(AddressError::MissingHost));
        assert_eq!(split("clive@-x check"), Err(AddressError::BadHost { host: "-x".into() }));
        assert!(AddressError::MissingHost.to_string().contains("clive@devbox"));
    }

    #[test]
    fn steps_carry_the_task_and_the_dependency() {
        assert_eq!(
            steps("clive@devbox check disk usage and report."),
            [("devbox".into(), "check disk usage and report.".into(), false)]
        );
        assert_eq!(
            steps("clive@gpu render the video then clive@web upload it"),
            [("gpu".into(), "render the video".into(), false), ("web".into(), "upload it".into(), true),]
        );
        assert_eq!(
            steps("ask clive@a to count files, and then ask clive@b to sum them"),
            [("a".into(), "count files".into(), false), ("b".into(), "sum them".into(), true),]
        );
        assert_eq!(
            steps("clive@a check disk and clive@b check disk"),
            [("a".into(), "check disk".into(), false), ("b".into(), "check disk".into(), false),]
        );
        assert_eq!(steps("mail bob@example.com"), []);
    }

    #[test]
    fn bad_tasks_say_what_to_do() {
        assert_eq!(split("clive@devbox"), Err(AddressError::EmptyTask { address: "clive@devbox".into() }));
        assert_eq!(split("clive@a then clive@b sum"), Err(AddressError::EmptyTask { address: "clive@a".into() }));
        let error = split("count the files then clive@b sum them").unwrap_err();
        assert!(matches!(&error, AddressError::LocalWorkFirst { before, .. } if before == "count the files then"));
    }

    fn host() -> impl Strategy<Value = String> {
        "[a-z0-9]([a-z0-9._-]{0,20}[a-z0-9])?".prop_filter("no @", |h| !h.contains('@'))
    }

    proptest! {
        #[test]
        fn any_host_and_task_round_trip(host in host(), punct in "[.,;:!?]?", task in "[a-z]{1,8}( [a-z]{1,8}){0,5}") {
            let text = format!("clive@{host}{punct} {task}");
            let parsed = split(&text).unwrap().unwrap();
            prop_assert_eq!(parsed.len(), 1);
            prop_assert_eq!(parsed[0].address.host(), host.trim_end_matches(['.', '-', '_']));
            prop_assert!(!parsed[0].task.is_empty());
        }

        #[test]
        fn other_users_are_never_addresses(user in "[a-z]{1,8}", host in host(), task in "[a-z ]{0,20}") {
            prop_assume!(user != "clive");
            let direct = format!("{user}@{host} {task}");
            let mention = format!("send it to {user}@{host}");
            prop_assert!(find(&direct).is_empty());
            prop_assert!(find(&mention).is_empty());
        }

        #[test]
        fn never_panics(text in "\\PC{0,80}") {
            let _ = split(&text);
        }
    }
}
