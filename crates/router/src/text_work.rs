//! Whether a task is text work — summarising, translating, rewriting prose — or work on files that a script does,
//! for a small model's classifier answering `write` (see [`crate::RouterOptions::writes_need_text_work`]).

use dag_sched::Mode;

use crate::classifier::{self, Verdict};
use crate::context::RouteContext;
use crate::route::{PlanRoute, Route};

/// The starts of words that ask for prose to be written or reworked, which a text model does and a script does not.
const TEXT_WORK: &[&str] = &[
    "summar",
    "translat",
    "paraphras",
    "rephras",
    "reword",
    "rewrit",
    "proofread",
    "draft",
    "compose",
    "composing",
    "poem",
    "haiku",
    "essay",
    "story",
    "slogan",
    "tagline",
];

/// `route`, but a classifier's one text subtask (`llm`) on the default pane becomes one script subtask when `task`
/// is work on files: it names a file or a directory (`visits.csv`, `logs/`) and asks for no text work ([`TEXT_WORK`],
/// in words other than file names). A text subtask sees the goal and the text of the files it names, never a directory's
/// listing, and computes nothing: Qwen2.5-Coder-1.5B's classifier said `write` for "write the name of the most recent
/// report to a file" and for sums and averages of a table, and the text it wrote was a guess.
pub(crate) fn scripted_unless_text_work(route: Route, task: &str, context: &RouteContext) -> Route {
    let Route::Plan(PlanRoute { plan }) = &route else { return route };
    let [subtask] = plan.subtasks.as_slice() else { return route };
    if subtask.mode != Mode::Llm
        || subtask.pane != context.default_pane()
        || !crate::drive::names_files(task)
        || asks_text_work(task)
    {
        return route;
    }
    tracing::debug!("the task is work on files, not text work: one script subtask");
    match classifier::one_subtask(task, context, Mode::Script, None) {
        Verdict::Decided(scripted) => scripted,
        Verdict::Escalate(_) => route,
    }
}

/// Whether `task` asks for text work ([`TEXT_WORK`]), in its words other than file and directory names
/// (`summary.txt` is a name).
fn asks_text_work(task: &str) -> bool {
    task.split_whitespace()
        .map(|word| word.trim_matches(|c: char| ",;:!?()[]{}'\"`".contains(c)).trim_end_matches('.'))
        .filter(|word| !classifier::file_name(word) && !classifier::directory_name(word))
        .map(str::to_lowercase)
        .any(|word| TEXT_WORK.iter().any(|start| word.starts_with(start)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_route(task: &str, context: &RouteContext) -> Route {
        match classifier::one_subtask(task, context, Mode::Llm, None) {
            Verdict::Decided(route) => route,
            Verdict::Escalate(why) => panic!("{why}"),
        }
    }

    fn mode(route: &Route) -> Mode {
        match route {
            Route::Plan(PlanRoute { plan }) => plan.subtasks[0].mode,
            other => panic!("not a plan: {other:?}"),
        }
    }

    #[test]
    fn file_work_is_scripted_and_text_work_stays_text() {
        let context = RouteContext::new();
        let scripted = |task: &str| mode(&scripted_unless_text_work(text_route(task, &context), task, &context));
        assert_eq!(scripted("Write the name of the newest file in letters/ to newest.txt."), Mode::Script);
        assert_eq!(scripted("Put the average of the price column of stock.csv in avg.txt."), Mode::Script);
        assert_eq!(
            scripted("Write the lines of a.txt into summary.txt, sorted."),
            Mode::Script,
            "a name is not a verb"
        );
        assert_eq!(scripted("Summarise minutes.md in three lines into short.md."), Mode::Llm);
        assert_eq!(scripted("Translate greeting.txt into German, in greeting.de.txt."), Mode::Llm);
        assert_eq!(scripted("Write a haiku about autumn."), Mode::Llm, "no file: nothing for a script to work on");
    }

    #[test]
    fn only_one_text_subtask_on_the_default_pane_is_changed() {
        let context = RouteContext::new();
        let task = "Write the name of the newest file in letters/ to newest.txt.";
        let route = match classifier::one_subtask(task, &context, Mode::Interactive, None) {
            Verdict::Decided(route) => route,
            Verdict::Escalate(why) => panic!("{why}"),
        };
        assert_eq!(mode(&scripted_unless_text_work(route, task, &context)), Mode::Interactive);
    }
}
