//! The exit codes of `clive`, stable and documented in `--help` and `docs/clive.md`: the codes of a task's outcome
//! ([`clive_core::exit_code`]), the exit status they become, and the table `--help` prints.

pub use clive_core::exit_code::*;

/// The process exit status of `code`: its low eight bits, as `std::process::exit` would give the parent.
pub fn to_exit_code(code: i32) -> std::process::ExitCode {
    std::process::ExitCode::from(code.to_le_bytes()[0])
}

/// The table printed at the end of `--help`.
pub const HELP_TABLE: &str = "\
Exit codes:
  0..=255  a task that is one shell command (from tier 0 or the classifier): the exit code of its command
  0        a task that needed the agent reached its goal (--bool: YES); a management command succeeded
  1        the task did not reach its goal (--bool: NO); no such session or log; `plan run`: a subtask failed
  2        bad usage, an invalid plan file, the task needs a model and no provider is configured, or the
           planner's plan stayed invalid
  3        --bool: no yes/no answer (the task failed, or its result says neither)
  4        the token budget (--max-tokens) ran out before the task was done
  5        the task is too vague: clive printed a question (stdout) and ran nothing
  6        the task ran to its end but its result could not be checked (--json: verified false)
  69       the model provider failed (unreachable, bad key); nothing was run
  77       refused by the safety gate; nothing was typed (override: --allow-destructive)
  124      the command or a subtask timed out (--timeout); its session is kept
  125      clive itself failed (tmux missing, state directory not writable, a write to stdout failed)
  130      interrupted (Ctrl-C); the command got Ctrl-C too and its session is kept";
