//! The runners, one per mode, and what they share.

mod any_case;
mod asked_program;
mod consensus;
mod consent;
mod dot_glob;
mod field_grep;
mod final_look;
mod fix_sources;
mod float_noise;
mod header_count;
mod interactive;
mod kind_glob;
mod line_fix;
mod literal_sed;
mod looked;
mod misspelled;
mod not_installed;
mod peek;
mod program_rewrite;
mod python_readers;
mod questions;
mod rerun;
mod result_check;
mod script;
mod script_fix;
mod setting;
mod size_bound;
mod spaced_names;
mod staging;
mod stated;
mod tab_separated;
mod text;
mod toml_line;
mod value_source;
mod word_split;

pub use interactive::InteractiveRunner;
pub use peek::named_files;
pub use script::ScriptRunner;
pub use text::{AnswerRunner, LlmRunner};

use dag_sched::{Event, RunRequest, SubtaskContext, SubtaskStatus};
use tmux_habitat::Pane;

use crate::prompt::Input;
use crate::text::bound;

/// The most characters of a dependency's output file read into its input.
const DEPENDENCY_OUTPUT_CHARS: usize = 4000;
/// The most characters of each produced file read into an input (llm subtasks only).
const FILE_CHARS: usize = 6000;

/// The results of a subtask's dependencies, as inputs: summary, end of the output, and the files they made
/// (their text too when `read_files`).
pub(crate) fn dependency_inputs(context: &SubtaskContext, read_files: bool) -> Vec<crate::prompt::Input> {
    let mut inputs = Vec::new();
    for result in &context.dependencies {
        let mut text = String::new();
        if !result.summary.trim().is_empty() {
            text.push_str(&format!("Summary: {}\n", result.summary.trim()));
        }
        if let Some(output) = result.output_file.as_ref().and_then(|p| std::fs::read_to_string(p).ok())
            && !output.trim().is_empty()
            && output.trim() != result.summary.trim()
        {
            text.push_str(&format!("Output:\n{}\n", bound(&output, DEPENDENCY_OUTPUT_CHARS).trim_end()));
        }
        if !result.files.is_empty() {
            let names: Vec<String> = result.files.iter().map(|f| f.display().to_string()).collect();
            text.push_str(&format!("Files: {}\n", names.join(", ")));
        }
        if !text.is_empty() {
            inputs.push(Input { from: result.id.clone(), text });
        }
        if read_files {
            for file in &result.files {
                if let Ok(content) = std::fs::read_to_string(file) {
                    inputs.push(Input { from: file.display().to_string(), text: bound(&content, FILE_CHARS) });
                }
            }
        }
    }
    inputs
}

/// The pane's current directory, as its shell sees it.
pub(crate) async fn pane_directory(pane: &Pane) -> Option<String> {
    let path = pane.info().await.ok()?.current_path;
    (!path.is_empty()).then_some(path)
}

/// Reports a runner's progress.
pub(crate) fn progress(request: &RunRequest, turn: u32, tokens: u64, note: impl Into<String>) {
    request.events.send(Event::Progress { id: request.subtask.id.clone(), turn, tokens, note: note.into() });
}

/// One model call of a runner, cut short by the run's cancellation or at `deadline`. `Err`: the subtask's outcome
/// when the call ends it instead (cancelled, timed out, the budget spent — `started`: work was done before —, or
/// the call failed).
pub(crate) async fn call_within(
    caller: &crate::model::Caller,
    prompt: &crate::prompt::Prompt,
    shape: crate::model::CallShape<'_>,
    request: &RunRequest,
    deadline: tokio::time::Instant,
    started: bool,
) -> Result<llm::ChatResponse, dag_sched::RunOutcome> {
    let reply = tokio::select! {
        reply = caller.call(prompt, shape) => reply,
        () = request.cancel.cancelled() => {
            return Err(dag_sched::RunOutcome::with_status(SubtaskStatus::Cancelled, "the run was cancelled"));
        }
        () = tokio::time::sleep_until(deadline) => return Err(script::timed_out(request)),
    };
    reply.map_err(|error| {
        if error.is_budget() {
            budget_outcome(started, &error.to_string())
        } else {
            dag_sched::RunOutcome::with_status(SubtaskStatus::Failed, format!("the model call failed: {error}"))
        }
    })
}

/// An outcome for a subtask that stopped because the token budget is spent: skipped when nothing was done yet,
/// failed otherwise.
pub(crate) fn budget_outcome(started: bool, detail: &str) -> dag_sched::RunOutcome {
    if started {
        dag_sched::RunOutcome::with_status(
            SubtaskStatus::Failed,
            format!("stopped: the token budget ran out ({detail})"),
        )
    } else {
        dag_sched::RunOutcome::with_status(SubtaskStatus::Skipped, format!("the token budget is spent ({detail})"))
    }
}
