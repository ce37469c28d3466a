//! The runners without a command: `llm` (text work over the dependencies' results and files, written to a file in
//! the run directory) and `answer` (a direct reply to a question).

use async_trait::async_trait;
use dag_sched::{DagError, Mode, RunOutcome, RunRequest, Runner, SubtaskStatus};

use crate::agent::{Agent, Shared};
use crate::claims::resolve;
use crate::model::CallShape;
use crate::prompt::{Prompt, answer_request, llm_request};
use crate::runners::{budget_outcome, dependency_inputs, pane_directory, progress};

/// The file an `llm` subtask writes its text to, in its subtask directory.
pub const LLM_OUTPUT_FILE: &str = "result.md";

/// Runs `llm` subtasks: one model call over the goal and the dependencies' results and files; the reply is
/// written to `result.md` in the subtask directory.
#[derive(Debug, Clone)]
pub struct LlmRunner {
    agent: Agent,
}

impl LlmRunner {
    /// A runner over `agent`'s model.
    pub fn new(agent: Agent) -> LlmRunner {
        LlmRunner { agent }
    }
}

#[async_trait]
impl Runner for LlmRunner {
    async fn run(&self, request: RunRequest) -> Result<RunOutcome, DagError> {
        let prompt = llm_request(request.subtask.description.trim(), &dependency_inputs(&request.context, true));
        let mut outcome = one_call(&self.agent.shared, &request, Mode::Llm, &prompt).await?;
        if outcome.status == SubtaskStatus::Succeeded {
            let path = request.context.subtask_dir.join(LLM_OUTPUT_FILE);
            std::fs::write(&path, &outcome.output).map_err(|source| DagError::RunDirectory { path, source })?;
            if let Some(refused) = write_destinations(&self.agent.shared, &request, &mut outcome).await? {
                return Ok(RunOutcome::with_status(SubtaskStatus::Failed, refused));
            }
        }
        outcome.summary = None;
        Ok(outcome)
    }
}

/// Writes the text to the files the goal names ("write … to notes/summary.md"), in the directory of the subtask's
/// pane, parents made: what the user asked for is a file, not only a reply. Only a relative path that stays inside
/// that directory is written; a goal naming another place leaves the text in the run directory (its reason says so).
///
/// A text reply is a whole file: it never replaces a file that exists unless the goal asks for that file to be
/// written whole (`GoalSpec::writes`). A goal that changes a file in place ("In instrument.ini, set the integration
/// time to 250 ms"), or only guesses where a result goes, gets nothing written and the subtask fails with why:
/// Qwen2.5-Coder-1.5B's text for such a goal, its own words, replaced every line of the file. `Some(reason)` then.
async fn write_destinations(
    shared: &Shared,
    request: &RunRequest,
    outcome: &mut RunOutcome,
) -> Result<Option<String>, DagError> {
    let spec = crate::GoalSpec::parse(&request.subtask.description);
    let destinations = spec.destinations();
    if destinations.is_empty() {
        return Ok(None);
    }
    let pane = shared.gated_pane(&request.subtask.pane).await?;
    let Some(cwd) = pane_directory(pane.pane()).await else { return Ok(None) };
    let whole = |file: &String| spec.writes.iter().any(|w| crate::goal_spec::same_file(w, file));
    if let Some(file) =
        destinations.iter().find(|file| resolve(file, std::path::Path::new(&cwd)).exists() && !whole(file))
    {
        return Ok(Some(format!(
            "not written to {file}: it exists and the goal does not ask for it to be written whole, which is all a \
             text reply can do (nothing was written)"
        )));
    }
    for file in destinations {
        let inside = !file.starts_with(['/', '~']) && !file.split('/').any(|part| part == "..");
        if !inside {
            outcome.reason = Some(format!("not written to {file}: outside the working directory"));
            continue;
        }
        let path = resolve(&file, std::path::Path::new(&cwd));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| DagError::RunDirectory { path: parent.into(), source })?;
        }
        std::fs::write(&path, &outcome.output)
            .map_err(|source| DagError::RunDirectory { path: path.clone(), source })?;
        outcome.files.push(path);
    }
    Ok(None)
}

/// Runs `answer` subtasks: one model call answers the question in the subtask's description; no pane.
#[derive(Debug, Clone)]
pub struct AnswerRunner {
    agent: Agent,
}

impl AnswerRunner {
    /// A runner over `agent`'s model.
    pub fn new(agent: Agent) -> AnswerRunner {
        AnswerRunner { agent }
    }
}

#[async_trait]
impl Runner for AnswerRunner {
    async fn run(&self, request: RunRequest) -> Result<RunOutcome, DagError> {
        let prompt = answer_request(request.subtask.description.trim(), &dependency_inputs(&request.context, false));
        let mut outcome = one_call(&self.agent.shared, &request, Mode::Answer, &prompt).await?;
        if outcome.status == SubtaskStatus::Succeeded {
            outcome.summary = Some(outcome.output.trim().to_owned());
        }
        Ok(outcome)
    }
}

/// One call; its text is the output.
async fn one_call(shared: &Shared, request: &RunRequest, mode: Mode, prompt: &Prompt) -> Result<RunOutcome, DagError> {
    let id = &request.subtask.id;
    shared.ledger.update(id, |s| {
        s.mode = Some(mode);
        s.turns = 1;
    });
    if shared.budget_spent() {
        return Ok(budget_outcome(false, "before this subtask started"));
    }
    let caller = shared.caller(id, Some(&request.context));
    progress(request, 1, 0, "waiting for the model");
    let shape = CallShape {
        purpose: mode.as_str(),
        max_tokens: shared.config.text_tokens,
        schema: None,
        stop: &[],
        temperature: None,
    };
    let deadline = tokio::time::Instant::now() + request.timeout;
    let reply = match crate::runners::call_within(&caller, prompt, shape, request, deadline, false).await {
        Ok(reply) => reply,
        Err(outcome) => return Ok(outcome),
    };
    if reply.text.trim().is_empty() {
        return Ok(RunOutcome::with_status(SubtaskStatus::Failed, "the model replied with nothing"));
    }
    shared.ledger.update(id, |s| s.claimed_success = true);
    let text = strip_wrapping_fence(&reply.text);
    let mut outcome = RunOutcome::from_exit_code(0, format!("{}\n", text.trim_end()));
    outcome.exit_code = None;
    Ok(outcome)
}

/// A reply wrapped whole in one code fence, unwrapped (models like to fence text they were asked to write).
fn strip_wrapping_fence(text: &str) -> &str {
    let trimmed = text.trim();
    if let Some(rest) = trimmed.strip_prefix("```")
        && let Some(body) = rest.strip_suffix("```")
        && !body.contains("```")
    {
        return body.split_once('\n').map_or(body, |(_, b)| b);
    }
    trimmed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wholly_fenced_reply_is_unwrapped() {
        assert_eq!(strip_wrapping_fence("```markdown\n# Title\ntext\n```"), "# Title\ntext\n");
        assert_eq!(strip_wrapping_fence(" plain "), "plain");
        assert_eq!(strip_wrapping_fence("```a```b```"), "```a```b```");
    }
}
