//! The codes of a task's outcome: what a report's `exit_code` says, what a kept session records, and what the
//! `clive` binary exits with (stable, documented in `clive --help` and `docs/clive.md`). Errors carry none: the
//! binary maps each [`crate::Error`] to one.

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
/// The task's work in panes ran to its end, but its result could not be checked (no check the shell knows of
/// applied, and the final look gave no answer): stdout has the result, `--json` says `verified: false`, and
/// stderr says so. Treat it as "done, unchecked": never as a checked success.
pub const UNCHECKED: i32 = 6;
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
/// clive itself failed (tmux missing or broken, state directory not writable, stdout not writable: the output is
/// lost, whatever the command's exit code).
pub const INTERNAL: i32 = 125;
/// Interrupted by Ctrl-C; the command was interrupted too and its session is kept.
pub const INTERRUPTED: i32 = 130;
