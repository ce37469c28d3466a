//! Tier 0 for arithmetic: "What is 19 times 21?" is answered exactly, without a model.
//!
//! A small model answers such questions from memory and is often wrong (Qwen2.5-Coder-0.5B was 20 off a product
//! of two two-digit numbers); arithmetic needs no judgement, so tier 0 computes it. Only a whole question that is one
//! expression is taken: an optional lead (`what is`, `calculate`, …), the expression (digits, `+ - * / ^`,
//! `×`, `÷`, parentheses, and the words `plus`, `minus`, `times`, `multiplied by`, `divided by`, `over`,
//! `to the power of`), a closing `?` or `.`, and at most a short instruction about the reply's form ("Answer
//! with the number only."). Anything else is declined, so a question about numbers in a file still reaches
//! a model.

/// The answer to `task` when it is an arithmetic question, as text (`391`, `2.5`); `None` otherwise.
///
/// ```
/// assert_eq!(clive_router::arithmetic_answer("What is 19 times 21? Answer with the number only.").as_deref(), Some("399"));
/// assert_eq!(clive_router::arithmetic_answer("calculate (2 + 3) * 4.5").as_deref(), Some("22.5"));
/// assert_eq!(clive_router::arithmetic_answer("what is the sum of the numbers in a.txt?"), None);
/// ```
pub fn arithmetic_answer(task: &str) -> Option<String> {
    let (question, rest) = split_question(task.trim());
    if !rest.is_empty() && !is_form_instruction(rest) {
        return None;
    }
    let expression = strip_lead(question.trim().trim_end_matches(['?', '.', '!', '=']).trim());
    let tokens = tokenize(&expression.to_ascii_lowercase())?;
    if !tokens.iter().any(|t| matches!(t, Token::Op(_))) {
        return None;
    }
    let mut parser = Parser { tokens: &tokens, at: 0 };
    let value = parser.expression(0)?;
    if parser.at != tokens.len() {
        return None;
    }
    format_number(value)
}

/// The first sentence that holds a digit, and what follows it.
fn split_question(task: &str) -> (&str, &str) {
    let mut end = None;
    for (i, c) in task.char_indices() {
        // A '.' between digits is a decimal point, not the end of the sentence.
        let next = task[i + c.len_utf8()..].chars().next();
        if c == '?' || c == '!' || (c == '.' && !next.is_some_and(|n| n.is_ascii_digit())) {
            end = Some(i + c.len_utf8());
            break;
        }
    }
    match end {
        Some(end) => (&task[..end], task[end..].trim()),
        None => (task, ""),
    }
}

/// A short follow-up that only says how to reply ("Answer with the number only.", "Just the number.").
fn is_form_instruction(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let words = lower.split_whitespace().count();
    words <= 12
        && !lower.chars().any(|c| c.is_ascii_digit())
        && ["number", "only", "just", "reply", "answer", "result", "digits"].iter().any(|w| lower.contains(w))
}

fn strip_lead(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    for lead in ["what is", "what's", "whats", "how much is", "calculate", "compute", "evaluate", "work out", "solve"] {
        if let Some(rest) = lower.strip_prefix(lead) {
            return text[text.len() - rest.len()..].trim().to_owned();
        }
    }
    text.to_owned()
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Token {
    Number(f64),
    Op(char),
    Open,
    Close,
}

/// Words that stand for an operator, longest first.
const WORD_OPERATORS: &[(&str, char)] = &[
    ("to the power of", '^'),
    ("multiplied by", '*'),
    ("divided by", '/'),
    ("times", '*'),
    ("plus", '+'),
    ("minus", '-'),
    ("over", '/'),
];

fn tokenize(text: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let c = rest.chars().next()?;
        if c.is_ascii_digit() || (c == '.' && rest[1..].starts_with(|d: char| d.is_ascii_digit())) {
            let len = number_len(rest);
            let digits: String = rest[..len].chars().filter(|&d| d != ',').collect();
            tokens.push(Token::Number(digits.parse().ok()?));
            rest = &rest[len..];
        } else if let Some((word, op)) = WORD_OPERATORS.iter().find(|(word, _)| starts_with_word(rest, word)) {
            tokens.push(Token::Op(*op));
            rest = &rest[word.len()..];
        } else if rest.starts_with("**") {
            tokens.push(Token::Op('^'));
            rest = &rest[2..];
        } else {
            let token = match c {
                '+' | '-' | '*' | '/' | '^' => Token::Op(c),
                '×' | 'x' => Token::Op('*'),
                '÷' => Token::Op('/'),
                '(' => Token::Open,
                ')' => Token::Close,
                _ => return None,
            };
            // `x` is an operator only between numbers (`3 x 4`, `3x4`), never part of a word.
            if c == 'x' && rest[1..].starts_with(|n: char| n.is_ascii_alphabetic()) {
                return None;
            }
            tokens.push(token);
            rest = &rest[c.len_utf8()..];
        }
        rest = rest.trim_start();
    }
    Some(tokens)
}

fn starts_with_word(text: &str, word: &str) -> bool {
    text.starts_with(word) && !text[word.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
}

/// The length of the number at the start of `text`: digits, one decimal point, and commas that group
/// exactly three digits (`1,000`; `1,2` is two numbers).
fn number_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut seen_point = false;
    while i < bytes.len() {
        match bytes[i] {
            b'0'..=b'9' => i += 1,
            b'.' if !seen_point && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                seen_point = true;
                i += 1;
            }
            b',' if !seen_point
                && bytes.len() >= i + 4
                && bytes[i + 1..i + 4].iter().all(u8::is_ascii_digit)
                && !bytes.get(i + 4).is_some_and(u8::is_ascii_digit) =>
            {
                i += 4;
            }
            _ => break,
        }
    }
    i
}

/// Precedence climbing over the tokens; `^` binds tightest and to the right, unary minus above `*`.
struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
}

/// The deepest nesting of parentheses and unary signs taken, so that no input can exhaust the stack.
const MAX_DEPTH: usize = 64;

impl Parser<'_> {
    fn expression(&mut self, depth: usize) -> Option<f64> {
        let mut value = self.term(depth)?;
        while let Some(Token::Op(op @ ('+' | '-'))) = self.tokens.get(self.at).copied() {
            self.at += 1;
            let right = self.term(depth)?;
            value = if op == '+' { value + right } else { value - right };
        }
        Some(value)
    }

    fn term(&mut self, depth: usize) -> Option<f64> {
        let mut value = self.unary(depth)?;
        while let Some(Token::Op(op @ ('*' | '/'))) = self.tokens.get(self.at).copied() {
            self.at += 1;
            let right = self.unary(depth)?;
            value = if op == '*' {
                value * right
            } else if right == 0.0 {
                return None;
            } else {
                value / right
            };
        }
        Some(value)
    }

    fn unary(&mut self, depth: usize) -> Option<f64> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.tokens.get(self.at) {
            Some(Token::Op('-')) => {
                self.at += 1;
                Some(-self.unary(depth + 1)?)
            }
            Some(Token::Op('+')) => {
                self.at += 1;
                self.unary(depth + 1)
            }
            _ => self.power(depth),
        }
    }

    fn power(&mut self, depth: usize) -> Option<f64> {
        let base = self.atom(depth)?;
        if let Some(Token::Op('^')) = self.tokens.get(self.at) {
            self.at += 1;
            let exponent = self.unary(depth + 1)?;
            return Some(base.powf(exponent));
        }
        Some(base)
    }

    fn atom(&mut self, depth: usize) -> Option<f64> {
        match self.tokens.get(self.at).copied()? {
            Token::Number(n) => {
                self.at += 1;
                Some(n)
            }
            Token::Open => {
                self.at += 1;
                let value = self.expression(depth + 1)?;
                if self.tokens.get(self.at) != Some(&Token::Close) {
                    return None;
                }
                self.at += 1;
                Some(value)
            }
            _ => None,
        }
    }
}

/// An integer without a decimal point; otherwise up to 12 significant digits, trailing zeros dropped.
/// Not finite, or too large to print exactly: `None` (a model tier decides).
fn format_number(value: f64) -> Option<String> {
    if !value.is_finite() || value.abs() >= 1e15 {
        return None;
    }
    if value == 0.0 {
        return Some("0".to_owned());
    }
    if value.fract() == 0.0 {
        return Some(format!("{value:.0}"));
    }
    let digits = 12 - (value.abs().log10().floor() as i32 + 1).clamp(0, 12);
    let text = format!("{value:.*}", usize::try_from(digits).unwrap_or(0));
    let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_owned() } else { text };
    Some(text)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn questions_in_words_and_symbols() {
        for (question, answer) in [
            ("What is 19 times 21? Answer with the number only.", "399"),
            ("what's 2+2", "4"),
            ("How much is 1,000 divided by 8?", "125"),
            ("calculate 2 ^ 10", "1024"),
            ("7 / 2", "3.5"),
            ("What is 0.1 + 0.2?", "0.3"),
            ("-(3 - 5) * 4", "8"),
            ("What is 12 x 12?", "144"),
            ("10 minus 20", "-10"),
            ("what is 1/3", "0.333333333333"),
            ("What is 2 to the power of 8? Just the number.", "256"),
        ] {
            assert_eq!(arithmetic_answer(question).as_deref(), Some(answer), "{question}");
        }
    }

    #[test]
    fn anything_else_is_left_to_a_model() {
        for task in [
            "What is 17?",
            "what is the sum of the numbers in data.txt?",
            "What is 19 times 21? Then write it to a.txt and mail it to bob.",
            "count the lines in 3.txt",
            "How many files are in the docs directory?",
            "What is the exit status of a shell killed by SIGTERM?",
            "1 / 0",
            "what is 2 + ",
            "(1 + 2",
            "9 ^ 999",
            "sort -u x 2",
            "what is 2 xor 3",
        ] {
            assert_eq!(arithmetic_answer(task), None, "{task}");
        }
    }

    proptest! {
        #[test]
        fn integer_products_and_sums_are_exact(a in -100_000i64..100_000, b in -100_000i64..100_000) {
            prop_assert_eq!(arithmetic_answer(&format!("What is {a} times {b}?")), Some((a * b).to_string()));
            prop_assert_eq!(arithmetic_answer(&format!("{a} + {b}")), Some((a + b).to_string()));
        }

        #[test]
        fn never_panics(text in "\\PC{0,60}") {
            let _ = arithmetic_answer(&text);
        }

        #[test]
        fn deep_nesting_is_declined_not_a_stack_overflow(depth in 1usize..5000) {
            let text = format!("{}1{}", "(".repeat(depth), ")".repeat(depth));
            let _ = arithmetic_answer(&format!("{text} + 1"));
        }
    }
}
