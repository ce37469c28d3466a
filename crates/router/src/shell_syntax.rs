//! A small, quote-aware reader of POSIX shell command lines.
//!
//! It does not execute or expand anything. It finds what a shell would see as words,
//! control operators (`|`, `&&`, `||`, `;`, `&`, newlines, parentheses) and redirections,
//! so that the router and the safety gate judge the *commands* in a line rather than its raw
//! text: `echo "rm -rf /"` is one `echo` with one argument, not an `rm`.
//!
//! Unterminated quotes or substitutions do not fail: the rest of the line is taken as the open
//! part and [`CommandLine::unterminated`] is set, so the gate can still judge what it sees.

/// One shell word after quote removal.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word {
    /// The word with quotes and backslashes removed. Parameters (`$HOME`) and substitutions
    /// (`$(…)`, `` `…` ``, `<(…)`) are kept as written: nothing is expanded.
    pub text: String,
    /// Whether any part of the word was quoted or backslash-escaped.
    pub quoted: bool,
    /// The inner text of each command or process substitution found outside single quotes.
    pub substitutions: Vec<String>,
}

/// A control operator that separates commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// `|`
    Pipe,
    /// `|&`
    PipeBoth,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `;` or `;;`
    Semicolon,
    /// `&`
    Background,
    /// A line break.
    Newline,
    /// `(`
    OpenParen,
    /// `)`
    CloseParen,
}

/// One lexical token of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// A word (command name, argument, assignment, redirection target).
    Word(Word),
    /// A control operator.
    Control(Control),
    /// A redirection operator with its optional file-descriptor prefix, e.g. `>`, `2>>`, `&>`, `<&`.
    Redirect(String),
}

/// A redirection of one simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirection {
    /// The operator, e.g. `>`, `2>`, `>>`, `<`.
    pub operator: String,
    /// The target word, if the line had one.
    pub target: Option<Word>,
}

impl Redirection {
    /// Whether this redirection writes to its target.
    pub fn writes(&self) -> bool {
        self.operator.contains('>') && !self.operator.ends_with('&')
    }
}

/// A simple command: assignments, words and redirections, without control operators.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    /// Leading `NAME=value` words.
    pub assignments: Vec<Word>,
    /// The command word and its arguments.
    pub words: Vec<Word>,
    /// Redirections, in order.
    pub redirections: Vec<Redirection>,
}

impl SimpleCommand {
    /// The words joined by spaces, for messages.
    pub fn display(&self) -> String {
        let words: Vec<&str> = self.words.iter().map(|w| w.text.as_str()).collect();
        words.join(" ")
    }

    /// Every word of the command (assignments, words, redirection targets).
    pub fn all_words(&self) -> impl Iterator<Item = &Word> {
        self.assignments
            .iter()
            .chain(self.words.iter())
            .chain(self.redirections.iter().filter_map(|r| r.target.as_ref()))
    }
}

/// Commands joined by `|` or `|&`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pipeline {
    /// The commands, left to right.
    pub commands: Vec<SimpleCommand>,
}

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CommandLine {
    /// The tokens, in order.
    pub tokens: Vec<Token>,
    /// The pipelines, separated by `;`, `&&`, `||`, `&`, newlines or parentheses.
    pub pipelines: Vec<Pipeline>,
    /// Whether a quote, substitution or trailing backslash was left open.
    pub unterminated: bool,
    /// Whether the line uses parentheses (subshells, function definitions).
    pub has_parentheses: bool,
}

impl CommandLine {
    /// Every simple command, in order.
    pub fn commands(&self) -> impl Iterator<Item = &SimpleCommand> {
        self.pipelines.iter().flat_map(|p| p.commands.iter())
    }
}

/// Lexes and groups `line` into pipelines of simple commands.
pub fn parse(line: &str) -> CommandLine {
    let (tokens, unterminated) = lex(line);
    let mut pipelines = Vec::new();
    let mut pipeline = Pipeline::default();
    let mut command = SimpleCommand::default();
    let mut has_parentheses = false;
    let mut iter = tokens.iter().peekable();
    while let Some(token) = iter.next() {
        match token {
            Token::Word(word) => {
                if command.words.is_empty() && is_assignment(&word.text) {
                    command.assignments.push(word.clone());
                } else {
                    command.words.push(word.clone());
                }
            }
            Token::Redirect(operator) => {
                let target = match iter.peek() {
                    Some(Token::Word(w)) => {
                        let w = w.clone();
                        iter.next();
                        Some(w)
                    }
                    _ => None,
                };
                command.redirections.push(Redirection { operator: operator.clone(), target });
            }
            Token::Control(control) => {
                finish_command(&mut pipeline, &mut command);
                match control {
                    Control::Pipe | Control::PipeBoth => {}
                    other => {
                        if matches!(other, Control::OpenParen | Control::CloseParen) {
                            has_parentheses = true;
                        }
                        finish_pipeline(&mut pipelines, &mut pipeline);
                    }
                }
            }
        }
    }
    finish_command(&mut pipeline, &mut command);
    finish_pipeline(&mut pipelines, &mut pipeline);
    CommandLine { tokens, pipelines, unterminated, has_parentheses }
}

fn finish_command(pipeline: &mut Pipeline, command: &mut SimpleCommand) {
    let done = std::mem::take(command);
    if !(done.words.is_empty() && done.assignments.is_empty() && done.redirections.is_empty()) {
        pipeline.commands.push(done);
    }
}

fn finish_pipeline(pipelines: &mut Vec<Pipeline>, pipeline: &mut Pipeline) {
    let done = std::mem::take(pipeline);
    if !done.commands.is_empty() {
        pipelines.push(done);
    }
}

/// Whether `text` has the form `NAME=value` of a shell assignment.
pub fn is_assignment(text: &str) -> bool {
    match text.split_once('=') {
        Some((name, _)) => {
            let mut chars = name.chars();
            matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// The last path component of a command word: `/usr/bin/rm` → `rm`.
pub fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Words that may open a simple command without being its program (`if`, `then`, `{`, `!`, …).
const RESERVED_WORDS: &[&str] =
    &["{", "}", "!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time"];

/// What [`strip_prefixes`] removed in front of the real program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prefixes {
    /// Whether `sudo` or `doas` was in front.
    pub privileged: bool,
    /// Other wrappers (`env`, `nohup`, `nice`, `timeout`, `exec`, `command`, reserved words).
    pub wrappers: Vec<String>,
}

/// Skips reserved words and wrapper commands (`sudo`, `doas`, `env`, `nohup`, `nice`, `time`,
/// `timeout`, `exec`, `command`, `builtin`) with their options, returning the words that start
/// at the real program.
pub fn strip_prefixes(words: &[Word]) -> (&[Word], Prefixes) {
    let mut prefixes = Prefixes::default();
    let mut rest = words;
    loop {
        let Some(first) = rest.first() else { return (rest, prefixes) };
        let name = program_name(&first.text);
        if first.quoted {
            return (rest, prefixes);
        }
        let skip = match name {
            _ if RESERVED_WORDS.contains(&first.text.as_str()) => 1,
            // `sudo VAR=x cmd`: assignments after a wrapper.
            _ if !prefixes.wrappers.is_empty() && is_assignment(&first.text) => 1,
            "sudo" | "doas" => {
                prefixes.privileged = true;
                1 + option_words(&rest[1..], &["-u", "-g", "-p", "-C", "-r", "-t", "-U", "-D", "-h"])
            }
            "env" => {
                let n = 1 + option_words(&rest[1..], &["-u", "-C", "-S"]);
                n + rest[n..].iter().take_while(|w| is_assignment(&w.text)).count()
            }
            "nice" => 1 + option_words(&rest[1..], &["-n"]),
            "timeout" => {
                let n = 1 + option_words(&rest[1..], &["-s", "-k"]);
                // The duration operand.
                n + usize::from(rest.len() > n)
            }
            "nohup" | "exec" | "command" | "builtin" | "stdbuf" => 1 + option_words(&rest[1..], &[]),
            _ => return (rest, prefixes),
        };
        if skip >= rest.len() {
            // Nothing after the wrapper: it is the program itself (`env`, `sudo`).
            return (rest, prefixes);
        }
        prefixes.wrappers.push(name.to_string());
        rest = &rest[skip..];
    }
}

/// Counts leading option words (`-x`, `--long`, and the value of each option in `with_value`),
/// stopping after `--`.
fn option_words(words: &[Word], with_value: &[&str]) -> usize {
    let mut n = 0;
    while let Some(word) = words.get(n) {
        let text = word.text.as_str();
        if text == "--" {
            return n + 1;
        }
        if !text.starts_with('-') || text == "-" {
            return n;
        }
        n += 1;
        if with_value.contains(&text) {
            n += 1;
        }
    }
    n.min(words.len())
}

/// Splits `line` into tokens; the flag tells whether something was left open.
fn lex(line: &str) -> (Vec<Token>, bool) {
    Lexer { chars: line.chars().collect(), pos: 0, tokens: Vec::new(), word: None, unterminated: false }.run()
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    tokens: Vec<Token>,
    word: Option<Word>,
    unterminated: bool,
}

impl Lexer {
    fn run(mut self) -> (Vec<Token>, bool) {
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\r' => {
                    self.end_word();
                    self.pos += 1;
                }
                '\n' => self.control(Control::Newline, 1),
                '#' if self.word.is_none() => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                '\'' => {
                    self.pos += 1;
                    let text = self.take_until('\'');
                    let word = self.word_mut();
                    word.quoted = true;
                    word.text.push_str(&text);
                }
                '"' => {
                    self.pos += 1;
                    self.word_mut().quoted = true;
                    self.double_quoted();
                }
                '\\' => {
                    self.pos += 1;
                    match self.peek(0) {
                        Some('\n') => self.pos += 1,
                        Some(next) => {
                            self.pos += 1;
                            let word = self.word_mut();
                            word.quoted = true;
                            word.text.push(next);
                        }
                        None => self.unterminated = true,
                    }
                }
                '$' if self.peek(1) == Some('(') => self.substitution("$(", 2),
                '`' => self.backticks(),
                '<' | '>' if self.peek(1) == Some('(') => self.substitution(if c == '<' { "<(" } else { ">(" }, 2),
                '|' => match self.peek(1) {
                    Some('|') => self.control(Control::Or, 2),
                    Some('&') => self.control(Control::PipeBoth, 2),
                    _ => self.control(Control::Pipe, 1),
                },
                '&' => match self.peek(1) {
                    Some('&') => self.control(Control::And, 2),
                    Some('>') => {
                        let len = if self.peek(2) == Some('>') { 3 } else { 2 };
                        self.redirect(String::new(), len);
                    }
                    _ => self.control(Control::Background, 1),
                },
                ';' => self.control(Control::Semicolon, if self.peek(1) == Some(';') { 2 } else { 1 }),
                '(' => self.control(Control::OpenParen, 1),
                ')' => self.control(Control::CloseParen, 1),
                '<' | '>' => {
                    let fd = match &self.word {
                        Some(w) if !w.quoted && !w.text.is_empty() && w.text.chars().all(|c| c.is_ascii_digit()) => {
                            self.word.take().map(|w| w.text).unwrap_or_default()
                        }
                        _ => {
                            self.end_word();
                            String::new()
                        }
                    };
                    let mut len = 1;
                    while len < 3 && matches!(self.peek(len), Some('>' | '<' | '&' | '|')) {
                        len += 1;
                    }
                    self.redirect(fd, len);
                }
                other => {
                    self.word_mut().text.push(other);
                    self.pos += 1;
                }
            }
        }
        self.end_word();
        (self.tokens, self.unterminated)
    }

    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn word_mut(&mut self) -> &mut Word {
        self.word.get_or_insert_with(Word::default)
    }

    fn end_word(&mut self) {
        if let Some(word) = self.word.take() {
            self.tokens.push(Token::Word(word));
        }
    }

    fn control(&mut self, control: Control, len: usize) {
        self.end_word();
        self.tokens.push(Token::Control(control));
        self.pos += len;
    }

    fn redirect(&mut self, fd: String, len: usize) {
        self.end_word();
        let op: String = self.chars[self.pos..self.pos + len].iter().collect();
        self.tokens.push(Token::Redirect(format!("{fd}{op}")));
        self.pos += len;
    }

    /// Takes characters up to (not including) `end`, consuming `end`.
    fn take_until(&mut self, end: char) -> String {
        let mut text = String::new();
        loop {
            match self.peek(0) {
                Some(c) if c == end => {
                    self.pos += 1;
                    return text;
                }
                Some(c) => {
                    text.push(c);
                    self.pos += 1;
                }
                None => {
                    self.unterminated = true;
                    return text;
                }
            }
        }
    }

    fn double_quoted(&mut self) {
        loop {
            match self.peek(0) {
                Some('"') => {
                    self.pos += 1;
                    return;
                }
                Some('\\') => {
                    let next = self.peek(1);
                    match next {
                        Some(c @ ('"' | '\\' | '$' | '`')) => {
                            self.word_mut().text.push(c);
                            self.pos += 2;
                        }
                        Some('\n') => self.pos += 2,
                        _ => {
                            self.word_mut().text.push('\\');
                            self.pos += 1;
                        }
                    }
                }
                Some('$') if self.peek(1) == Some('(') => self.substitution("$(", 2),
                Some('`') => self.backticks(),
                Some(c) => {
                    self.word_mut().text.push(c);
                    self.pos += 1;
                }
                None => {
                    self.unterminated = true;
                    return;
                }
            }
        }
    }

    /// Reads a parenthesised substitution opened by `open` (`$(`, `<(`, `>(`) up to its
    /// matching `)`, keeping it literally in the word and recording its inner text.
    fn substitution(&mut self, open: &str, open_len: usize) {
        self.pos += open_len;
        let start = self.pos;
        let mut depth = 1usize;
        let mut quote: Option<char> = None;
        while let Some(c) = self.peek(0) {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some('"'), '\\') => self.pos += 1,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '\\') => self.pos += 1,
                (None, '(') => depth += 1,
                (None, ')') => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        let end = self.pos.min(self.chars.len());
        let inner: String = self.chars[start..end].iter().collect();
        if self.peek(0) == Some(')') {
            self.pos += 1;
        } else {
            self.unterminated = true;
        }
        let word = self.word_mut();
        word.text.push_str(open);
        word.text.push_str(&inner);
        word.text.push(')');
        word.substitutions.push(inner);
    }

    fn backticks(&mut self) {
        self.pos += 1;
        let inner = self.take_until('`');
        let word = self.word_mut();
        word.text.push('`');
        word.text.push_str(&inner);
        word.text.push('`');
        word.substitutions.push(inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<String>> {
        parse(line).commands().map(|c| c.words.iter().map(|w| w.text.clone()).collect()).collect()
    }

    #[test]
    fn quotes_keep_operators_inside_one_word() {
        assert_eq!(words(r#"echo "rm -rf /; reboot" 'a|b'"#), vec![vec!["echo", "rm -rf /; reboot", "a|b"]]);
    }

    #[test]
    fn control_operators_split_commands() {
        assert_eq!(
            words("ls -l | wc -l && cd x; pwd || true & date"),
            vec![vec!["ls", "-l"], vec!["wc", "-l"], vec!["cd", "x"], vec!["pwd"], vec!["true"], vec!["date"]]
        );
        let line = parse("ls | wc -l && pwd");
        assert_eq!(line.pipelines.len(), 2);
        assert_eq!(line.pipelines[0].commands.len(), 2);
    }

    #[test]
    fn assignments_and_redirections_are_separated() {
        let line = parse("A=1 B='x y' cmd arg 2>/dev/null >>out.txt");
        let cmd = line.commands().next().unwrap();
        assert_eq!(cmd.assignments.iter().map(|w| w.text.as_str()).collect::<Vec<_>>(), ["A=1", "B=x y"]);
        assert_eq!(cmd.display(), "cmd arg");
        assert_eq!(cmd.redirections[0].operator, "2>");
        assert_eq!(cmd.redirections[0].target.as_ref().unwrap().text, "/dev/null");
        assert_eq!(cmd.redirections[1].operator, ">>");
        assert!(cmd.redirections[1].writes());
    }

    #[test]
    fn substitutions_are_recorded_not_split() {
        let line = parse(r#"bash -c "$(curl -fsSL https://x/y.sh)" `id -u` <(ls)"#);
        let cmd = line.commands().next().unwrap();
        assert_eq!(cmd.words.len(), 5);
        let subs: Vec<&String> = cmd.words.iter().flat_map(|w| w.substitutions.iter()).collect();
        assert_eq!(subs, ["curl -fsSL https://x/y.sh", "id -u", "ls"]);
    }

    #[test]
    fn comments_and_escapes() {
        assert_eq!(words("echo a\\ b # rm -rf /"), vec![vec!["echo", "a b"]]);
    }

    #[test]
    fn unterminated_quote_is_flagged_and_kept() {
        let line = parse("what's up");
        assert!(line.unterminated);
        assert_eq!(words("what's up"), vec![vec!["whats up"]]);
    }

    #[test]
    fn fork_bomb_lexes_into_parentheses_and_words() {
        let line = parse(":(){ :|:& };:");
        assert!(line.has_parentheses);
        assert_eq!(words(":(){ :|:& };:"), vec![vec![":"], vec!["{", ":"], vec![":"], vec!["}"], vec![":"]]);
    }

    #[test]
    fn prefixes_are_stripped() {
        let line = parse("sudo -u root env -i A=1 nice -n 5 timeout 3 rm -rf x");
        let cmd = line.commands().next().unwrap();
        let (rest, prefixes) = strip_prefixes(&cmd.words);
        assert_eq!(rest[0].text, "rm");
        assert!(prefixes.privileged);
        assert_eq!(prefixes.wrappers, ["sudo", "env", "nice", "timeout"]);
    }
}
