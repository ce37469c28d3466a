//! The exit codes of `clive`, stable and documented in `--help` and `docs/clive.md`.

/// A management command succeeded, or a task's command exited 0.
pub const SUCCESS: i32 = 0;
/// A management command found nothing to act on (no such session, no log).
pub const NOT_FOUND: i32 = 1;
/// `clive plan run`: a subtask did not succeed.
pub const PLAN_FAILED: i32 = 1;
/// Bad usage, an invalid plan file, a task that needs a model while no provider is configured, or a plan the
/// planner could not make valid.
pub const USAGE: i32 = 2;
/// The task is too vague: clive printed one question for the user and ran nothing.
pub const CLARIFY: i32 = 5;
/// The model provider failed (unreachable, refused the key, kept failing); nothing was run.
pub const MODEL_UNAVAILABLE: i32 = 69;
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
  0..=255  a task: the exit code of its command (one shell command, from tier 0 or the classifier)
  0        a management command succeeded
  1        no such session or log; `plan run`: a subtask did not succeed
  2        bad usage, an invalid plan file, the task needs a model and no provider is configured, or the
           planner's plan stayed invalid
  5        the task is too vague: clive printed a question (stdout) and ran nothing
  69       the model provider failed (unreachable, bad key); nothing was run
  77       refused by the safety gate; nothing was typed (override: --allow-destructive)
  124      the command timed out (--timeout); its session is kept
  125      clive itself failed (tmux missing, state directory not writable)
  130      interrupted (Ctrl-C); the command got Ctrl-C too and its session is kept";
