//! What `clive --json` says about a run, read leniently: every figure is optional, several spellings are
//! accepted, and what the agent does not report yet stays unknown (`None`) rather than zero.
//!
//! Spellings looked for, first match wins (a dotted name is a nested field; "summed over subtasks" means the
//! field of each object in `subtasks`, when the top level has none):
//!
//! | figure | fields |
//! |---|---|
//! | route | `route` (a string, or an object's `decision`, `kind`, `mode`, `route` or `tier`) |
//! | modes | `modes`, else each subtask's `mode` |
//! | claimed success | `claimed_success`, `success`, `succeeded` (booleans), `status` (`succeeded`, `success`, `ok`, `done`, `completed` / anything else), else an `error` field means no, else every subtask's `claimed_success`, else exit code 0 |
//! | turns, model calls | `turns`; `model_calls`, `calls`; summed over subtasks |
//! | tokens | `tokens.in`/`out`/`cached`, `tokens.input`/`output`, `tokens_in`/`tokens_out`/`tokens_cached`, `usage.input_tokens`/`output_tokens`/`cached_tokens`; summed over subtasks |
//! | cost | `cost_usd`, `cost.usd`, `cost` (a number) |
//! | times | `model_ms`, `timing.model_ms`; `command_ms`, `timing.command_ms`; summed over subtasks |
//! | files | `files_written` (strings, or objects with `path`) |
//! | answer | `answer`, `result`, `output`, `text` (a string) |

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The figures an agent reports about one run (all optional: unknown is `None`, never 0).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// The route taken (`direct`, `answer`, `script`, `plan`, …).
    pub route: Option<String>,
    /// The modes used.
    pub modes: Option<Vec<String>>,
    /// Whether the agent said it succeeded.
    pub claimed_success: Option<bool>,
    /// Model turns.
    pub turns: Option<u64>,
    /// Model calls (routing included).
    pub model_calls: Option<u64>,
    /// Prompt tokens.
    pub tokens_in: Option<u64>,
    /// Completion tokens.
    pub tokens_out: Option<u64>,
    /// Prompt tokens served from a cache.
    pub tokens_cached: Option<u64>,
    /// Estimated cost in US dollars.
    pub cost_usd: Option<f64>,
    /// Time spent waiting for the model.
    pub model_ms: Option<u64>,
    /// Time spent running commands.
    pub command_ms: Option<u64>,
    /// Files the agent says it wrote.
    pub files_written: Option<Vec<String>>,
}

impl Figures {
    /// Tokens in + out, when both are known.
    pub fn tokens_total(&self) -> Option<u64> {
        Some(self.tokens_in? + self.tokens_out?)
    }
}

/// What one run of the agent printed, read (see the [module docs](self)).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentReport {
    /// Whether stdout was a JSON object at all.
    pub json: bool,
    /// The figures it reported.
    pub figures: Figures,
    /// The answer text (for questions), if the report carries one.
    pub answer: Option<String>,
}

impl AgentReport {
    /// Reads `stdout` of `clive --json` (the last line that parses as a JSON object, so stray lines before it
    /// do no harm) together with the process's exit code.
    pub fn parse(stdout: &str, exit_code: Option<i32>) -> AgentReport {
        let object = stdout
            .lines()
            .rev()
            .filter_map(|line| serde_json::from_str::<Value>(line.trim()).ok())
            .find(Value::is_object)
            .or_else(|| serde_json::from_str::<Value>(stdout.trim()).ok().filter(Value::is_object));
        let Some(v) = object else {
            let figures = Figures { claimed_success: exit_code.map(|code| code == 0), ..Figures::default() };
            return AgentReport { json: false, figures, answer: None };
        };
        let subtasks: Vec<&Value> =
            v.get("subtasks").and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default();
        let number = |paths: &[&str]| first_u64(&v, paths).or_else(|| sum_u64(&subtasks, paths));
        let figures = Figures {
            route: route(&v),
            modes: strings(v.get("modes")).or_else(|| {
                let modes: Vec<String> =
                    subtasks.iter().filter_map(|s| s.get("mode").and_then(Value::as_str)).map(str::to_owned).collect();
                Some(modes).filter(|m| !m.is_empty())
            }),
            claimed_success: claimed(&v, &subtasks, exit_code),
            turns: number(&["turns"]),
            model_calls: number(&["model_calls", "calls"]),
            tokens_in: number(&["tokens.in", "tokens.input", "tokens_in", "usage.input_tokens"]),
            tokens_out: number(&["tokens.out", "tokens.output", "tokens_out", "usage.output_tokens"]),
            tokens_cached: number(&["tokens.cached", "tokens_cached", "usage.cached_tokens"]),
            cost_usd: ["cost_usd", "cost.usd", "cost"].iter().find_map(|p| lookup(&v, p).and_then(Value::as_f64)),
            model_ms: number(&["model_ms", "timing.model_ms"]),
            command_ms: number(&["command_ms", "timing.command_ms"]),
            files_written: v.get("files_written").and_then(Value::as_array).map(|files| {
                files
                    .iter()
                    .filter_map(|f| f.as_str().or_else(|| f.get("path").and_then(Value::as_str)))
                    .map(str::to_owned)
                    .collect()
            }),
        };
        let answer = ["answer", "result", "output", "text"]
            .iter()
            .find_map(|k| v.get(*k).and_then(Value::as_str))
            .map(str::to_owned);
        AgentReport { json: true, figures, answer }
    }
}

/// `a.b.c` inside `v`.
fn lookup<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, key| v.get(key))
}

fn first_u64(v: &Value, paths: &[&str]) -> Option<u64> {
    paths.iter().find_map(|p| lookup(v, p).and_then(as_count))
}

/// Sum over subtasks, if at least one reports the figure.
fn sum_u64(subtasks: &[&Value], paths: &[&str]) -> Option<u64> {
    let values: Vec<u64> = subtasks.iter().filter_map(|s| first_u64(s, paths)).collect();
    (!values.is_empty()).then(|| values.iter().sum())
}

/// A count: a non-negative integer, or a float with no fraction (some encoders write `3.0`).
fn as_count(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| v.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0).map(|f| f as u64))
}

fn strings(v: Option<&Value>) -> Option<Vec<String>> {
    v?.as_array().map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
}

fn route(v: &Value) -> Option<String> {
    let route = v.get("route")?;
    if let Some(s) = route.as_str() {
        return Some(s.to_owned());
    }
    ["decision", "kind", "mode", "route", "tier"]
        .iter()
        .find_map(|k| route.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
}

fn claimed(v: &Value, subtasks: &[&Value], exit_code: Option<i32>) -> Option<bool> {
    if let Some(b) = ["claimed_success", "success", "succeeded"].iter().find_map(|k| v.get(*k).and_then(Value::as_bool))
    {
        return Some(b);
    }
    if let Some(status) = v.get("status").and_then(Value::as_str) {
        let status = status.to_ascii_lowercase();
        return Some(matches!(status.as_str(), "succeeded" | "success" | "ok" | "done" | "completed"));
    }
    if v.get("error").is_some() {
        return Some(false);
    }
    let claims: Option<Vec<bool>> =
        subtasks.iter().map(|s| s.get("claimed_success").and_then(Value::as_bool)).collect();
    if let Some(claims) = claims.filter(|c| !c.is_empty()) {
        return Some(claims.iter().all(|c| *c));
    }
    exit_code.map(|code| code == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn todays_tier0_report() {
        let out = r#"{"task":"mkdir -p a","route":{"tier":"direct","command":"mkdir -p a"},"command":"mkdir -p a","exit_code":0,"output":"","duration_ms":8}"#;
        let report = AgentReport::parse(out, Some(0));
        assert_eq!(report.figures.route.as_deref(), Some("direct"));
        assert_eq!(report.figures.claimed_success, Some(true));
        assert_eq!(report.answer.as_deref(), Some(""));
        assert_eq!((report.figures.turns, report.figures.tokens_in, report.figures.model_ms), (None, None, None));
    }

    #[test]
    fn an_error_object_is_no_claim_of_success_even_with_exit_0() {
        let report = AgentReport::parse(r#"{"task":"x","error":"needs a model","exit_code":2}"#, Some(0));
        assert_eq!(report.figures.claimed_success, Some(false));
    }

    #[test]
    fn not_json_falls_back_to_the_exit_code() {
        let report = AgentReport::parse("391\n", Some(0));
        assert!(!report.json);
        assert_eq!(report.figures.claimed_success, Some(true));
        assert_eq!(AgentReport::parse("", Some(3)).figures.claimed_success, Some(false));
        assert_eq!(AgentReport::parse("", None).figures.claimed_success, None);
    }

    #[test]
    fn figures_are_summed_over_subtasks_when_the_top_level_has_none() {
        let out = r#"noise before
{"route":{"tier":2,"decision":"plan"},"status":"succeeded","tokens":{"in":900,"out":120},
 "subtasks":[{"mode":"script","turns":1,"model_calls":1},{"mode":"interactive","turns":3,"model_calls":3}],
 "model_ms":1500,"command_ms":300,"cost_usd":0.0012,"files_written":["a.count",{"path":"b.count"}]}"#
            .replace('\n', "")
            .replacen("before", "before\n", 1);
        let report = AgentReport::parse(&out, Some(0));
        assert_eq!(report.figures.route.as_deref(), Some("plan"));
        assert_eq!(report.figures.modes, Some(vec!["script".to_owned(), "interactive".to_owned()]));
        assert_eq!((report.figures.turns, report.figures.model_calls), (Some(4), Some(4)));
        assert_eq!(
            (report.figures.tokens_in, report.figures.tokens_out, report.figures.tokens_total()),
            (Some(900), Some(120), Some(1020))
        );
        assert_eq!((report.figures.model_ms, report.figures.command_ms), (Some(1500), Some(300)));
        assert_eq!(report.figures.claimed_success, Some(true));
        assert_eq!(report.figures.cost_usd, Some(0.0012));
        assert_eq!(report.figures.files_written, Some(vec!["a.count".to_owned(), "b.count".to_owned()]));
    }

    #[test]
    fn the_agent_crates_subtask_stats_are_summed() {
        let out = r#"{"subtasks":[{"mode":"script","turns":1,"model_calls":1,"tokens":{"input":300,"output":40,"cached":0},"model_ms":20,"command_ms":5,"claimed_success":true},{"mode":"llm","turns":1,"model_calls":1,"tokens":{"input":200,"output":60,"cached":100},"model_ms":30,"command_ms":0,"claimed_success":false}]}"#;
        let figures = AgentReport::parse(out, Some(0)).figures;
        assert_eq!((figures.tokens_in, figures.tokens_out, figures.tokens_cached), (Some(500), Some(100), Some(100)));
        assert_eq!((figures.model_ms, figures.command_ms), (Some(50), Some(5)));
        assert_eq!(figures.claimed_success, Some(false));
    }

    #[test]
    fn other_spellings() {
        let report = AgentReport::parse(
            r#"{"route":"answer","succeeded":false,"tokens_in":10,"tokens_out":2.0,"usage":{"cached_tokens":4},"answer":"9","timing":{"model_ms":7}}"#,
            Some(0),
        );
        assert_eq!(report.figures.route.as_deref(), Some("answer"));
        assert_eq!(report.figures.claimed_success, Some(false));
        assert_eq!(
            (report.figures.tokens_in, report.figures.tokens_out, report.figures.tokens_cached),
            (Some(10), Some(2), Some(4))
        );
        assert_eq!((report.answer.as_deref(), report.figures.model_ms), (Some("9"), Some(7)));
        assert_eq!(AgentReport::parse(r#"{"status":"failed"}"#, Some(0)).figures.claimed_success, Some(false));
    }
}
