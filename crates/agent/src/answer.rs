//! The result people read: one subtask's result as it is, or one summary call over several; and the yes/no
//! judgement behind `clive --bool`.

use dag_sched::{Mode, RunSummary, SubtaskResult, SubtaskStatus};
use serde_json::json;

use crate::agent::Agent;
use crate::model::CallShape;
use crate::prompt::{Input, judge_request, summary_request};
use crate::stats::SubtaskStats;
use crate::text::bound;

/// The ledger id under which the calls after the run (summary, judgement) are recorded.
pub const FINAL_ANSWER_ID: &str = "(final answer)";

/// The most characters of an output file read as an answer.
const ANSWER_OUTPUT_CHARS: usize = 20_000;

/// Where the final answer came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "subtask")]
pub enum AnswerSource {
    /// The result of the one subtask.
    Subtask(String),
    /// One summary call over the results of several subtasks.
    Summary,
    /// Nothing usable: the run failed before producing a result; the text says why.
    Failure,
}

/// The answer printed on stdout.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FinalAnswer {
    /// The text.
    pub text: String,
    /// Where it came from.
    pub source: AnswerSource,
}

/// Adds the yes/no instruction to a task's goal (`clive --bool`), so the model ends with YES or NO.
pub fn bool_goal(task: &str) -> String {
    format!("{}\nWhen you say done, start the summary with YES or NO.", task.trim())
}

/// The text of one subtask's result: what the model said it achieved (interactive, answer), or what it produced
/// (script output, llm text, a direct command's output).
fn result_text(result: &SubtaskResult, stats: Option<&SubtaskStats>) -> String {
    let from_output = matches!(stats.and_then(|s| s.mode), None | Some(Mode::Script | Mode::Llm | Mode::Direct));
    let output = || result.output_file.as_deref().and_then(|p| std::fs::read_to_string(p).ok());
    match (from_output, result.status) {
        (true, SubtaskStatus::Succeeded) => {
            output().map(|o| bound(&o, ANSWER_OUTPUT_CHARS)).unwrap_or_else(|| result.summary.clone())
        }
        (false, SubtaskStatus::Succeeded) => result.summary.clone(),
        _ => format!(
            "{} {}: {}",
            result.id,
            result.status,
            result.reason.clone().unwrap_or_else(|| result.summary.clone())
        ),
    }
}

impl Agent {
    /// The final answer of a run of `task`: the one subtask's result, or one summary call over several results.
    /// A failed summary call falls back to the results listed one per line.
    pub async fn final_answer(&self, task: &str, summary: &RunSummary) -> FinalAnswer {
        let ledger = self.ledger();
        if let [only] = summary.results.as_slice() {
            let source = if only.status == SubtaskStatus::Succeeded {
                AnswerSource::Subtask(only.id.clone())
            } else {
                AnswerSource::Failure
            };
            return FinalAnswer { text: result_text(only, ledger.get(&only.id).as_ref()), source };
        }
        let results: Vec<Input> = summary
            .results
            .iter()
            .map(|r| Input {
                from: format!("{} ({})", r.id, r.status),
                text: result_text(r, ledger.get(&r.id).as_ref()),
            })
            .collect();
        let listed = || results.iter().map(|r| format!("{}: {}", r.from, r.text.trim())).collect::<Vec<_>>().join("\n");
        if summary.results.iter().all(|r| r.status != SubtaskStatus::Succeeded) {
            return FinalAnswer { text: listed(), source: AnswerSource::Failure };
        }
        let caller = self.shared.caller(FINAL_ANSWER_ID, None);
        let shape = CallShape {
            purpose: "summary",
            max_tokens: self.shared.config.text_tokens,
            schema: None,
            stop: &[],
            temperature: None,
        };
        match caller.call(&summary_request(task, &results), shape).await {
            Ok(reply) if !reply.text.trim().is_empty() => {
                FinalAnswer { text: reply.text.trim().to_owned(), source: AnswerSource::Summary }
            }
            Ok(_) | Err(_) => FinalAnswer { text: listed(), source: AnswerSource::Summary },
        }
    }

    /// Whether `answer` says yes or no to `question`: read from its first word when it is one, else judged by one
    /// small schema-constrained call. `None` when it cannot be told.
    pub async fn judge_yes_no(&self, question: &str, answer: &str) -> Option<bool> {
        if let Some(verdict) = leading_yes_no(answer) {
            return Some(verdict);
        }
        if answer.trim().is_empty() {
            return None;
        }
        let schema = answer_schema(&["yes", "no", "unknown"]);
        let caller = self.shared.caller(FINAL_ANSWER_ID, None);
        let shape = CallShape {
            purpose: "judge",
            max_tokens: 20,
            schema: Some(("verdict", &schema)),
            stop: &[],
            temperature: None,
        };
        let reply = caller.call(&judge_request(question, answer), shape).await.ok()?;
        let verdict = answer_field(&reply.text).unwrap_or_else(|| reply.text.clone());
        leading_yes_no(&verdict)
    }
}

/// The JSON schema of a one-word reply `{"answer": …}`, the word one of `choices`.
pub(crate) fn answer_schema(choices: &[&str]) -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {"answer": {"enum": choices}},
        "required": ["answer"],
        "additionalProperties": false
    })
}

/// The word of a reply shaped by [`answer_schema`]; `None` when the reply is not such an object.
pub(crate) fn answer_field(reply: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(reply.trim()).ok()?;
    value.get("answer")?.as_str().map(str::to_owned)
}

/// YES or NO as the answer's first word (`Yes.`, `no,`, `**YES**`, `true`).
pub fn leading_yes_no(text: &str) -> Option<bool> {
    let first = text.split_whitespace().next()?;
    let word: String = first.chars().filter(|c| c.is_ascii_alphabetic()).collect::<String>().to_ascii_lowercase();
    match word.as_str() {
        "yes" | "true" => Some(true),
        "no" | "false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yes_and_no_lead_the_answer() {
        assert_eq!(leading_yes_no("YES, the file exists"), Some(true));
        assert_eq!(leading_yes_no("**No.** It is missing"), Some(false));
        assert_eq!(leading_yes_no("  true"), Some(true));
        assert_eq!(leading_yes_no("The file exists"), None);
        assert_eq!(leading_yes_no("Nothing"), None);
        assert_eq!(leading_yes_no(""), None);
    }
}
