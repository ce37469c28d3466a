//! A goal that runs a program and answers its questions ("run ./setup.sh and answer its questions: …"): the program
//! itself is the first attempt, without a call, its questions answered from the goal ([`super::questions`]).
//!
//! A small script writer, asked for a script, pipes guessed answers into such a program instead (Qwen2.5-Coder-0.5B
//! piped `Python 3.12` to a question whose answer was `3.12`), or edits the file the program would write.

use std::sync::LazyLock;

use regex::Regex;

use super::rerun::{PROGRAM, asked_besides_the_program, program_command};

/// Words that say the program's questions are to be answered: `answer its questions`, `reply to the prompts`,
/// `when it asks`, `fill in its prompts`.
static ANSWERS_ITS_QUESTIONS: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)\b(?:answer|answering|reply\s+to|respond\s+to|fill\s+in|go\s+through)\s+(?:all\s+(?:of\s+)?)?(?:its|the|each\s+of\s+its|every)\s+(?:questions?|prompts?)\b|\bwhen\s+it\s+asks\b",
    )
});

/// Words that run the program right before its name: `run`, `start`, `launch`, `execute` (and `the script`).
static RUN_VERB: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r"(?i)\b(?:run|start|launch|execute)\s+(?:the\s+(?:script|program|tool)\s+)?$")
});

/// The command that runs the program `goal` says to run and answer the questions of, when the goal asks for nothing
/// else: no file to write or change of its own (what the program makes is the program's).
pub(crate) fn program_to_answer(goal: &str) -> Option<String> {
    if !ANSWERS_ITS_QUESTIONS.is_match(goal) {
        return None;
    }
    let spec = asked_besides_the_program(goal);
    if !spec.writes.is_empty() || !spec.guessed.is_empty() || !spec.changes.is_empty() {
        return None;
    }
    let run = PROGRAM.captures_iter(goal).find(|found| {
        let start = found.get(0).map_or(0, |m| m.start());
        RUN_VERB.is_match(&goal[..start])
    })?;
    Some(program_command(&run))
}

#[cfg(test)]
mod tests {
    use super::program_to_answer;

    #[test]
    fn a_program_whose_questions_the_goal_answers_runs_first() {
        for (goal, command) in [
            ("Run ./wizard.sh and answer its questions: the region is north and the size is 3.", "./wizard.sh"),
            ("Please start configure.py and reply to the prompts: owner Mia, no telemetry.", "python3 configure.py"),
            ("Execute the script ./enrol and, when it asks, say the branch is west.", "./enrol"),
            ("Run ./init.sh and answer its questions: the app is called kite. It writes app.conf.", "./init.sh"),
            ("Run ./setup.sh and answer its questions: port 9090, and we don't want debug logging.", "./setup.sh"),
        ] {
            assert_eq!(program_to_answer(goal).as_deref(), Some(command), "{goal}");
        }
        for goal in [
            // Nothing says its questions are answered.
            "Run ./report.sh and tell me what it prints.",
            // A file of the goal's own to write besides the program's.
            "Run ./wizard.sh, answer its questions with north and 3, and save what it prints to out.txt.",
            // A program to fix.
            "Fix ./wizard.sh so it stops failing, then run it and answer its questions with north.",
            // No program run: its questions are only talked about.
            "Read faq.md and answer its questions in answers.txt.",
        ] {
            assert_eq!(program_to_answer(goal), None, "{goal}");
        }
    }
}
