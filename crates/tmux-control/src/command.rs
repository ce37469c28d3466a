//! Building command lines that tmux's parser reads back exactly, and checking
//! raw lines before they go onto a shared control connection.

use crate::Error;

/// A tmux command built from a name and arguments; each argument is quoted
/// with [`quote_arg`] when the line is produced.
///
/// ```
/// use tmux_control::Command;
/// let line = Command::new("set-buffer").arg("-b").arg("x").arg("it's $HOME; ~{#}").to_line()?;
/// assert_eq!(line, r"set-buffer -b x 'it'\''s $HOME; ~{#}'");
/// # Ok::<(), tmux_control::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    name: String,
    args: Vec<String>,
}

impl Command {
    /// A command named `name` (for example `capture-pane`) with no arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into(), args: Vec::new() }
    }

    /// Appends one argument, passed to tmux literally.
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Appends several arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// The command's name, such as `capture-pane`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The arguments, each passed to tmux literally.
    pub fn arguments(&self) -> &[String] {
        &self.args
    }

    /// The command line to send (without the final newline), checked with
    /// [`check_command_line`].
    pub fn to_line(&self) -> Result<String, Error> {
        let mut line = quote_arg(&self.name)?;
        for arg in &self.args {
            line.push(' ');
            line.push_str(&quote_arg(arg)?);
        }
        check_command_line(&line)?;
        Ok(line)
    }
}

/// Something that can become one checked command line: a [`Command`], or a raw
/// `&str`/`String` line that is checked with [`check_command_line`].
pub trait IntoCommandLine {
    /// The line to send, without the final newline.
    fn into_command_line(self) -> Result<String, Error>;
}

impl IntoCommandLine for &str {
    fn into_command_line(self) -> Result<String, Error> {
        check_command_line(self)?;
        Ok(self.to_owned())
    }
}

impl IntoCommandLine for String {
    fn into_command_line(self) -> Result<String, Error> {
        check_command_line(&self)?;
        Ok(self)
    }
}

impl IntoCommandLine for &String {
    fn into_command_line(self) -> Result<String, Error> {
        self.as_str().into_command_line()
    }
}

impl IntoCommandLine for &Command {
    fn into_command_line(self) -> Result<String, Error> {
        self.to_line()
    }
}

impl IntoCommandLine for Command {
    fn into_command_line(self) -> Result<String, Error> {
        self.to_line()
    }
}

/// Quotes one argument for tmux's command parser so it arrives literally.
///
/// Plain words (letters, digits and `-_./:%@=,+`, not starting with `%`
/// unless they are a pane id like `%3`) are left bare; anything else is
/// single-quoted, where tmux expands nothing (`$`, `~`, `;`, `#`, `{}`,
/// `\` and double quotes are literal), and a single quote becomes `'\''`.
/// Control characters other than tab (including newlines, which would end
/// the command line) cannot be quoted: they are an error.
///
/// ```
/// use tmux_control::quote_arg;
/// assert_eq!(quote_arg("%3")?, "%3");
/// assert_eq!(quote_arg("a b")?, "'a b'");
/// assert_eq!(quote_arg("")?, "''");
/// assert!(quote_arg("two\nlines").is_err());
/// # Ok::<(), tmux_control::Error>(())
/// ```
pub fn quote_arg(arg: &str) -> Result<String, Error> {
    if let Some(bad) = arg.chars().find(|&c| c.is_control() && c != '\t') {
        return Err(Error::UnquotableArgument {
            arg: arg.to_owned(),
            problem: format!(
                "it contains the control character {bad:?}; send such bytes with \
                 `send-keys -H` or `load-buffer` instead"
            ),
        });
    }
    let is_plain = |c: char| c.is_ascii_alphanumeric() || "-_./:%@=,+".contains(c);
    // A bare word starting with `%` is a parser directive (`%if`) or a syntax
    // error (`%0:continue`) unless it is exactly a pane id.
    let is_directive_like =
        arg.strip_prefix('%').is_some_and(|rest| rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()));
    if !arg.is_empty() && arg.chars().all(is_plain) && !is_directive_like {
        return Ok(arg.to_owned());
    }
    let mut quoted = String::with_capacity(arg.len() + 2);
    quoted.push('\'');
    for c in arg.chars() {
        if c == '\'' {
            quoted.push_str(r"'\''");
        } else {
            quoted.push(c);
        }
    }
    quoted.push('\'');
    Ok(quoted)
}

/// Checks that `line` is exactly one command that is safe on a shared control
/// connection: tmux answers it with exactly one reply block, it does not
/// detach the client, and it does not block the connection.
///
/// Rejected: an empty or blank line (an empty line detaches the client), a
/// comment-only line (no reply block would come), control characters such as
/// a newline (the line would split), several commands joined with `;` (one
/// reply block each would put the reply matching off), and `wait-for` (it
/// blocks every later command on the connection until signalled; use a
/// dedicated connection or a subprocess).
///
/// Not rejected but worth knowing: `run-shell`, `if-shell` and similar
/// commands without `-b` are answered at once yet hold this client's queue
/// until their shell command ends, delaying every later command.
pub fn check_command_line(line: &str) -> Result<(), Error> {
    let bad = |problem: &str| Err(Error::BadCommand { command: line.to_owned(), problem: problem.to_owned() });
    if line.chars().any(|c| c.is_control() && c != '\t') {
        return bad("it contains a control character such as a newline; send one command per line \
             and pass such bytes with `send-keys -H` or `load-buffer`");
    }
    let words = split_words(line);
    let Some(name) = words.first_word else {
        return bad("it has no command (an empty line would detach the control client); \
             pass a tmux command such as `list-panes`");
    };
    if words.has_separator {
        return bad("it holds several commands separated by `;`; send each command with its own call \
             (quote a literal `;` as ';' or \\;)");
    }
    if !name.is_empty() && "wait-for".starts_with(name.as_str()) {
        return bad("`wait-for` blocks every later command on the shared control connection until it \
             is signalled; run it on a dedicated connection or as a subprocess");
    }
    Ok(())
}

/// What [`check_command_line`] needs from a line, read the way tmux's lexer
/// reads it: quotes, backslash escapes, `{ }` blocks and `#` comments.
struct LineWords {
    first_word: Option<String>,
    has_separator: bool,
}

fn split_words(line: &str) -> LineWords {
    let mut words = LineWords { first_word: None, has_separator: false };
    let mut word = String::new();
    let mut in_word = false;
    let mut word_count = 0;
    let mut brace_depth = 0usize;
    let mut chars = line.chars();
    let mut finish_word = |word: &mut String, in_word: &mut bool, count: &mut usize| {
        if *in_word {
            if *count == 0 {
                words.first_word = Some(std::mem::take(word));
            }
            *count += 1;
            word.clear();
            *in_word = false;
        }
    };
    let mut separator = false;
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => finish_word(&mut word, &mut in_word, &mut word_count),
            '#' if !in_word => break, // a comment runs to the end of the line
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        _ => word.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            '{' if !in_word => brace_depth += 1,
            '}' if !in_word => brace_depth = brace_depth.saturating_sub(1),
            ';' if brace_depth == 0 => {
                finish_word(&mut word, &mut in_word, &mut word_count);
                separator = true;
            }
            _ => {
                in_word = true;
                word.push(c);
            }
        }
    }
    finish_word(&mut word, &mut in_word, &mut word_count);
    words.has_separator = separator;
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_stay_bare() {
        assert_eq!(quote_arg("capture-pane").unwrap(), "capture-pane");
        assert_eq!(quote_arg("-t").unwrap(), "-t");
        assert_eq!(quote_arg("%12").unwrap(), "%12");
        assert_eq!(quote_arg("a%b").unwrap(), "a%b");
    }

    #[test]
    fn percent_words_other_than_pane_ids_are_quoted() {
        assert_eq!(quote_arg("%0:continue").unwrap(), "'%0:continue'");
        assert_eq!(quote_arg("%if").unwrap(), "'%if'");
        assert_eq!(quote_arg("%").unwrap(), "'%'");
    }

    #[test]
    fn awkward_words_are_single_quoted() {
        assert_eq!(quote_arg("it's").unwrap(), r"'it'\''s'");
        assert_eq!(quote_arg("$HOME ~ ; # {}").unwrap(), "'$HOME ~ ; # {}'");
        assert_eq!(quote_arg(r"back\slash").unwrap(), r"'back\slash'");
        assert_eq!(quote_arg("").unwrap(), "''");
    }

    #[test]
    fn control_characters_cannot_be_quoted() {
        assert_eq!(quote_arg("a\tb").unwrap(), "'a\tb'");
        for bad in ["a\nb", "a\rb", "\0", "\u{1b}[0m"] {
            let error = quote_arg(bad).unwrap_err();
            assert!(error.to_string().contains("control character"), "{error}");
        }
    }

    #[test]
    fn one_command_lines_pass() {
        for ok in [
            "list-panes",
            "display-message -p '#{pane_id}'",
            "send-keys -t %1 -l 'a;b'",
            r"bind-key x display a \; display b",
            "if-shell true { display a ; display b }",
            "display-message -p x # trailing comment",
            "set-buffer -b w wait-for",
        ] {
            check_command_line(ok).unwrap();
        }
    }

    #[test]
    fn lines_that_would_break_the_connection_are_rejected() {
        for (line, needle) in [
            ("", "no command"),
            ("   ", "no command"),
            ("# just a comment", "no command"),
            ("a\nb", "control character"),
            ("display a ; display b", "several commands"),
            ("display a; display b", "several commands"),
            ("wait-for ch", "wait-for"),
            ("wait ch", "wait-for"),
            ("'wait-for' -S ch", "wait-for"),
        ] {
            let error = check_command_line(line).unwrap_err();
            assert!(error.to_string().contains(needle), "{line:?}: {error}");
        }
    }

    #[test]
    fn built_commands_quote_every_argument() {
        let line = Command::new("send-keys").args(["-t", "%1", "-l", "echo \"$x\" ';' {y}"]).to_line().unwrap();
        assert_eq!(line, r#"send-keys -t %1 -l 'echo "$x" '\'';'\'' {y}'"#);
        assert!(Command::new("wait-for").arg("x").to_line().is_err());
    }
}
