//! The exit codes of `clive`, stable and documented in `--help` and `docs/clive.md`.

/// A management command succeeded, or a task's command exited 0.
pub const SUCCESS: i32 = 0;
/// A management command found nothing to act on (no such session, no log).
pub const NOT_FOUND: i32 = 1;
/// `clive plan run`: a subtask did not succeed.
pub const PLAN_FAILED: i32 = 1;
/// A task that needed a model did not reach its goal (a subtask failed, or its claim of success did not hold);
/// with `--bool`: the answer is NO.
pub const TASK_FAILED: i32 = 1;
/// `--bool`: no yes/no answer (the task failed, or its result says neither).
pub const NO_ANSWER: i32 = 3;
/// The token budget (`--max-tokens`) ran out before the task was done.
pub const BUDGET_SPENT: i32 = 4;
/// Bad usage, an invalid plan file, or a task that needs a model while no provider is configured.
pub const USAGE: i32 = 2;
/// The safety gate refused the command; nothing was typed. `--allow-destructive` overrides.
pub const REFUSED: i32 = 77;
/// The task's command did not finish within `--timeout`; its session is kept.
pub const TIMED_OUT: i32 = 124;
/// clive itself failed (tmux missing or broken, state directory not writable).
pub const INTERNAL: i32 = 125;
/// Interrupted by Ctrl-C; the command was interrupted too and its session is kept.
pub const INTERRUPTED: i32 = 130;

/// The table printed at the end of `--help`.
pub const HELP_TABLE: &str = "\
Exit codes:
  0..=255  a task that is a shell command: the exit code of its command (tier 0)
  0        a task that needs a model reached its goal (--bool: YES); a management command succeeded
  1        the task did not reach its goal (--bool: NO); no such session or log; `plan run`: a subtask failed
  2        bad usage, an invalid plan file, or the task needs a model and no provider is configured
  3        --bool: no yes/no answer (the task failed, or its result says neither)
  4        the token budget (--max-tokens) ran out before the task was done
  77       refused by the safety gate; nothing was typed (override: --allow-destructive)
  124      the command or a subtask timed out (--timeout); its session is kept
  125      clive itself failed (tmux missing, state directory not writable)
  130      interrupted (Ctrl-C); the command got Ctrl-C too and its session is kept";
