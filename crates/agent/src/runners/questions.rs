//! Answering a program that waits at a prompt, from the task: each question in turn, until the program ends.
//!
//! A `[y/N]` question is answered yes or no as the task calls for (one call constrained to `{"answer":
//! "yes"|"no"}`). Any other prompt — a line the program printed without ending it, ending like a question
//! (`Name:`, `Which port?`), after which it sat quiet — is answered with words the task gives for it: one call
//! constrained to `{"answer": "..."}`, and the answer is typed only when those words are in the task. A question the
//! task gives no answer for is not guessed: the program is stopped and the question reported, for the person to
//! answer in the task. Each question costs one call, bounded by the model's deadline, and a prompt is seen after
//! the program sat quiet at it for a moment, so a program waiting at a prompt is never left there until the
//! subtask's time limit.

use std::sync::LazyLock;

use dag_sched::CancelToken;
use regex::Regex;
use tmux_habitat::{CaptureOptions, InterventionKind, Key};
use tokio::time::Instant;

use crate::action::KeyInput;
use crate::answer::{answer_field, answer_schema};
use crate::gate::GatedPane;
use crate::model::{CallShape, Caller};
use crate::observe::{Command, Seen, Wakeups, Watch, command_view, is_shell_prompt, looks_like_prompt, watch_command};
use crate::prompt::{confirm_request, question_request};
use crate::runners::consent::{consent, covers, is_removing, shares_a_word, subject_words};

/// The most questions of one program answered; then it counts as stuck at a prompt.
pub(crate) const MAX_QUESTIONS: usize = 8;

/// The longest answer, in tokens.
const ANSWER_TOKENS: u32 = 40;

/// Who answers: the task, the model that reads it, and the limits.
pub(crate) struct Asker<'a> {
    /// The model.
    pub caller: &'a Caller,
    /// The task the answers come from.
    pub goal: &'a str,
    /// The run's cancellation.
    pub cancel: &'a CancelToken,
    /// The subtask's deadline.
    pub deadline: Instant,
}

/// What answering came to.
#[derive(Debug)]
pub(crate) enum Prompted {
    /// The program went on: what the watcher saw last (its end, or a wait that is not a question).
    Seen(Seen),
    /// The program asks something the task gives no answer for: the question, as shown.
    Unanswered(String),
}

/// Answers the questions `running` asks, starting from what the watcher saw (`seen`), watching with `watch` after
/// each answer; returns what the watcher saw once the program is not waiting at a question any more. With
/// [`crate::observe::Patience::Prompt`], a quiet prompt is seen as [`Seen::Settled`]: a question when the cursor
/// waits at the end of a prompt-like line, else the watch goes on.
pub(crate) async fn answer_questions(
    pane: &GatedPane,
    running: &mut Command,
    asker: &Asker<'_>,
    mut seen: Seen,
    watch: Watch<'_>,
) -> Prompted {
    let mut answered: Vec<(String, String)> = Vec::new();
    // Interactive shells ended with C-d so far.
    let mut ended_shells = 0;
    loop {
        let screen = command_view(pane, running).await.map(|v| v.text).unwrap_or_default();
        let (question, answer) = match &seen {
            Seen::NeedsInput(found) if found.kind == InterventionKind::Confirm => {
                if answered.len() >= MAX_QUESTIONS {
                    return Prompted::Seen(seen);
                }
                match confirm(asker, &answered, &found.prompt, &screen).await {
                    Some(yes) => (found.prompt.trim().to_owned(), if yes { "y" } else { "n" }.to_owned()),
                    None => return Prompted::Seen(ended_meanwhile(asker).unwrap_or(seen)),
                }
            }
            Seen::Settled => {
                let Some(question) = waiting_question(pane).await else {
                    // Quiet after a line that only looks like a prompt: the program is working; watch on.
                    let wakeups = Wakeups::new(pane, asker.deadline).await;
                    let watch = Watch { baseline: &screen, look_first: true, ..watch };
                    seen = watch_command(pane, running, wakeups, watch, asker.deadline).await;
                    continue;
                };
                // A shell (or Python) the script started with `bash` alone on a line, reading the terminal: no
                // question of the task's program, and an answer typed there would be a command line (Qwen2.5-Coder
                // 1.5B's script began with `bash`; the shell's prompt got the task's words as "answers"). Ended with
                // C-d, the end of its input, so the script goes on without it.
                if is_shell_prompt(&question) {
                    if ended_shells >= MAX_QUESTIONS {
                        return Prompted::Unanswered(question);
                    }
                    let wakeups = Wakeups::new(pane, asker.deadline).await;
                    // The script may have ended meanwhile: the prompt is then the pane's own shell's, which C-d
                    // would end; it is only watched.
                    if !running.is_finished() {
                        ended_shells += 1;
                        tracing::info!(prompt = %question, "an interactive shell the script started is ended with C-d");
                        if let Err(error) = pane.send(&[KeyInput::Key(Key::CTRL_D)]).await {
                            tracing::debug!(%error, "ending the shell failed");
                            return Prompted::Seen(seen);
                        }
                    }
                    let watch = Watch { baseline: &screen, look_first: true, ..watch };
                    seen = watch_command(pane, running, wakeups, watch, asker.deadline).await;
                    continue;
                }
                if answered.len() >= MAX_QUESTIONS {
                    return Prompted::Unanswered(question);
                }
                match ask(asker, &answered, &question, &screen).await {
                    Some(answer) => (question, answer),
                    // A call cut short by Ctrl-C or the deadline is not a question the task leaves open.
                    None => match ended_meanwhile(asker) {
                        Some(ended) => return Prompted::Seen(ended),
                        None => return Prompted::Unanswered(question),
                    },
                }
            }
            _ => return Prompted::Seen(seen),
        };
        let wakeups = Wakeups::new(pane, asker.deadline).await;
        // The program may have ended during the call: an answer typed then would be a command line for the shell.
        if running.is_finished() {
            let watch = Watch { baseline: &screen, look_first: true, ..watch };
            seen = watch_command(pane, running, wakeups, watch, asker.deadline).await;
            continue;
        }
        // An empty answer keeps the question's default: Enter alone.
        let keys = if answer.is_empty() {
            vec![KeyInput::Key(Key::Enter)]
        } else {
            vec![KeyInput::Text(answer.clone()), KeyInput::Key(Key::Enter)]
        };
        if let Err(error) = pane.send(&keys).await {
            tracing::debug!(%error, "answering the question failed");
            return Prompted::Seen(seen);
        }
        answered.push((question, answer));
        let watch = Watch { baseline: &screen, look_first: true, ..watch };
        seen = watch_command(pane, running, wakeups, watch, asker.deadline).await;
    }
}

/// How the run ended while a question's call was out, if it did: cancelled, or past its deadline.
fn ended_meanwhile(asker: &Asker<'_>) -> Option<Seen> {
    if asker.cancel.is_cancelled() {
        Some(Seen::Cancelled)
    } else if Instant::now() >= asker.deadline {
        Some(Seen::StillRunning)
    } else {
        None
    }
}

/// The question the pane waits at: the line the cursor waits at the end of, when it looks like a prompt (`Name:`,
/// `Port [8080]?`). A line the program ended (`Step 1:` and a newline) is output, not a question.
pub(crate) async fn waiting_question(pane: &GatedPane) -> Option<String> {
    let info = pane.pane().info().await.ok()?;
    let captured = pane.pane().capture(CaptureOptions::visible()).await.ok()?;
    let line = captured.lines().nth(usize::from(info.cursor_y))?;
    let column = usize::from(info.cursor_x);
    let before: String = line.chars().take(column).collect();
    let after: String = line.chars().skip(column).collect();
    (column > 0 && after.trim().is_empty() && looks_like_prompt(&before)).then(|| before.trim().to_owned())
}

/// Whether to answer yes to the `[y/N]` question (`question`, at the end of `screen`), as the task calls for: from
/// the task's words when they settle it ([`consent`]), else from the model. `None` when the call fails or the reply
/// says neither.
async fn confirm(asker: &Asker<'_>, answered: &[(String, String)], question: &str, screen: &str) -> Option<bool> {
    if let Some(yes) = consent(asker.goal, question) {
        tracing::info!(question, yes, "the task's words answer the yes/no question");
        return Some(yes);
    }
    if confirms_chosen_item(asker.goal, answered, question, screen) {
        tracing::info!(question, "the question confirms the menu item the task asked for");
        return Some(true);
    }
    let schema = answer_schema(&["yes", "no"]);
    let shape = CallShape {
        purpose: "confirm",
        max_tokens: 20,
        schema: Some(("confirm", &schema)),
        stop: &[],
        temperature: None,
    };
    let reply = call(asker, &confirm_request(asker.goal.trim(), screen), shape).await?;
    match answer_field(&reply)?.as_str() {
        "yes" => Some(true),
        "no" => Some(false),
        _ => None,
    }
}

/// Whether the yes/no `question` confirms the menu item just chosen for the task: the last answer picked an item the
/// task names (`2) Clear cache` for "use the menu to clear the cache"), and the question is about what that item
/// names (`This deletes 5 files in cache/. Are you sure? [y/N]`). The task asked for that action; a small model
/// answered "no" to it (Qwen2.5-Coder 0.5B), and nothing was done. Only where the task's own words settled nothing
/// ([`consent`]: a question about what the task protects is a no before this is asked).
fn confirms_chosen_item(task: &str, answered: &[(String, String)], question: &str, screen: &str) -> bool {
    let Some((asked, number)) = answered.last() else { return false };
    // The screen up to the line where the menu's question was answered, that line's answer left out.
    let lines: Vec<&str> = screen.lines().collect();
    let Some(at) = lines.iter().rposition(|line| line.trim_start().starts_with(asked.trim())) else { return false };
    let mut menu = lines[..at].join("\n");
    menu.push('\n');
    menu.push_str(asked);
    // What the question is about (verbs of removing and numbers aside) is all the item's or the task's: `This clears
    // the cache and deletes all backups` asks more than "clear the cache" did.
    let asked: Vec<String> = subject_words(question)
        .into_iter()
        .filter(|w| !is_removing(w) && !w.chars().all(|c| c.is_ascii_digit()))
        .collect();
    // A question that removes something must ask nothing the item or the task does not name.
    let removes = is_removing(question);
    menu_choices(task, &menu).iter().any(|(n, item)| {
        let mut about = subject_words(item);
        about.extend(subject_words(task));
        n == number && shares_a_word(&subject_words(item), &asked) && (!removes || covers(&about, &asked))
    })
}

/// The answer the task gives to the question at the end of `screen`, when it gives one: the reply is constrained to
/// the task's phrases ([`candidates`]) or nothing. Free text, Qwen2.5-Coder-0.5B answered `Reader's surname: Okafor`
/// (copied from the answers so far) to the next question, and the first answer again to a question the task does
/// not answer.
async fn ask(asker: &Asker<'_>, answered: &[(String, String)], question: &str, screen: &str) -> Option<String> {
    // A question that lists its answers (`Branch (east/west):`) is answered with the one the task names, with no
    // call; none named is the person's to decide.
    let listed = options(question);
    // A numbered menu above the prompt is answered with an item's number: the items the task names are offered as
    // `2) cache`, and the number is typed (Qwen2.5-Coder-1.5B answered a menu's `Choice [3]:` with the item's word).
    // A menu that came back after an item of it was chosen (a program that loops on its menu) offers what is left
    // of the task; with nothing left, its quit item is chosen without a call (the 1.5B chose the same item again
    // and again, until the question limit). A menu without a quit item and nothing left is offered as before.
    let chosen: Vec<&str> = answered.iter().filter(|(q, _)| q == question).map(|(_, a)| a.as_str()).collect();
    let left = if chosen.is_empty() { Vec::new() } else { menu_left(asker.goal, screen, &chosen) };
    let items = if left.is_empty() { menu_choices(asker.goal, screen) } else { left };
    let items = if chosen.is_empty() { work_first(items) } else { items };
    if !chosen.is_empty()
        && let [(number, item)] = items.as_slice()
        && is_quit(item)
        && QUITTING.is_match(asker.goal)
    {
        return Some(number.clone());
    }
    // "Keep whatever port it suggests" answers `Port [8080]:` with Enter: no call.
    if items.is_empty() && listed.is_empty() && shows_default(question) && keeps_its_default(asker.goal, question) {
        return Some(String::new());
    }
    // "Due on Friday the 14th of March 2025" answers `Due date (YYYY-MM-DD):` in its format: no call.
    if let Some(date) = told_date(asker.goal, question) {
        return Some(date);
    }
    // "The author is Priya Nair" answers `Author:` in so many words: no call.
    if items.is_empty()
        && listed.is_empty()
        && let Some(value) = told_value(asker.goal, question)
    {
        return Some(value);
    }
    let menu: Vec<(String, String)> =
        items.into_iter().map(|(number, item)| (format!("{number}) {item}"), number)).collect();
    let mut choices = if !menu.is_empty() && listed.is_empty() {
        menu.iter().map(|(label, _)| label.clone()).collect()
    } else if listed.is_empty() {
        numbers_for(question, candidates(asker.goal, answered, question))
    } else {
        named_options(asker.goal, listed)
    };
    if let [only] = choices.as_slice()
        && !options(question).is_empty()
    {
        return Some(only.clone());
    }
    if choices.is_empty() {
        return None;
    }
    choices.push(String::new());
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"answer": {"enum": choices}},
        "required": ["answer"],
        "additionalProperties": false
    });
    let shape = CallShape {
        purpose: "question",
        max_tokens: ANSWER_TOKENS,
        schema: Some(("answer", &schema)),
        stop: &[],
        temperature: None,
    };
    let reply = call(asker, &question_request(asker.goal.trim(), answered, screen), shape).await?;
    let answer = answer_field(&reply).unwrap_or_default();
    let answer = answer.trim().trim_matches(['"', '\'', '`']).trim();
    if answer.is_empty() || !choices.iter().any(|c| c.eq_ignore_ascii_case(answer)) {
        return None;
    }
    if let Some((_, number)) = menu.iter().find(|(label, _)| label == answer) {
        return Some(number.clone());
    }
    // "Keep the default" for `Port [8080]:` is Enter, not those words typed.
    Some(if keeps_default(answer) && shows_default(question) { String::new() } else { answer.to_owned() })
}

/// A prompt that asks for something typed to confirm or to destroy.
static CONFIRMING: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)\b(?:confirm|delet|remov|drop|destroy|overwrit|eras|wip|purg)"));

/// What the task says a question's subject is: `the author is Priya Nair` for `Author:`, `the project is called
/// weather-bot` for `Project name (lowercase):`, `save it in a folder called vault` for `Destination folder:`. The
/// question's label (before any bracket, `:` or `?`) gives the subject words, tried in order; the value runs to a
/// comma, a full stop, `and` or `but`, and is a few words at most.
/// A 0.5B model answered `Author:` with `project`, a phrase of the task.
fn told_value(task: &str, question: &str) -> Option<String> {
    let label = label(question);
    // A prompt that asks for a word typed to confirm (`Type the project name to confirm deletion:`) is no field.
    if CONFIRMING.is_match(question) {
        return None;
    }
    // The subject's words, then a kind of thing the label names (`Destination folder`), which names the value only
    // as "a folder called vault" ("the folder is empty" says nothing of its name).
    let lower = label.to_lowercase();
    let kinds = ["folder", "directory"].into_iter().filter(|kind| lower.split_whitespace().any(|w| w == *kind));
    let words = crate::runners::consent::subject_words(label).into_iter().map(|w| (w, false));
    for (word, called_only) in words.chain(kinds.map(|kind| (kind.to_owned(), true))) {
        let verb = if called_only { "" } else { r"(?:is|are|will\s+be|should\s+be|=)\s+(?:called\s+|named\s+)?|" };
        let pattern = format!(
            r"(?i)\b{}s?\s+(?:{verb}called\s+|named\s+)(?P<value>[^,.;\n]+?)(?:,|\.(?:\s|$)|;|\s+and\s|\s+but\s|\n|$)",
            regex::escape(&word)
        );
        let Ok(re) = Regex::new(&pattern) else { continue };
        // Two folders called so: which one is this?
        if called_only && re.captures_iter(task).count() > 1 {
            continue;
        }
        let Some(found) = re.captures(task) else { continue };
        let mut value = found["value"].trim().trim_matches(['"', '\'', '`']).trim();
        if called_only {
            // "a folder called photos to the NAS": the name is one word; and a label that says which way (`Destination
            // folder`, `Source folder`) takes the folder the task puts things in, or takes them from.
            value = value.split_whitespace().next().unwrap_or("").trim_matches(['"', '\'', '`']);
            let at = found.get(0).map_or(0, |m| m.start());
            if !goes_that_way(&lower, &crate::text::last_chars(&task[..at], 25).to_lowercase()) {
                continue;
            }
        }
        let words = value.split_whitespace().count();
        let lower = value.to_lowercase();
        // The first item of a list the task writes out ("the columns are id, name, city and joined") is not the
        // answer: the list is, which the model is offered whole.
        let listed = listed_in(task).iter().any(|items| items.iter().any(|item| item.eq_ignore_ascii_case(value)));
        if (1..=5).contains(&words) && !listed && !LITTLE.contains(&lower.as_str()) && !lower.starts_with("not ") {
            return Some(value.to_owned());
        }
    }
    None
}

/// Whether a folder named just after `before` (the task's words before "a folder called X") is the one a folder
/// question's `label` asks for: one it writes to (`Destination`, `Output`, `Save to`) after "in", "into", "to"; one
/// it reads from (`Source`, `Input`) after "from" or "of"; any, for a label that says neither.
fn goes_that_way(label: &str, before: &str) -> bool {
    let has = |text: &str, words: &[&str]| text.split(|c: char| !c.is_alphanumeric()).any(|w| words.contains(&w));
    let before_words: Vec<&str> = before.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    // The word before the folder's article and adjectives: "in a new folder", "into the folder".
    let skipped = ["a", "an", "the", "new", "empty", "separate", "its", "their", "my", "your", "own", "another"];
    let last = before_words.iter().rev().find(|w| !skipped.contains(w));
    let near = |words: &[&str]| last.is_some_and(|w| words.contains(w));
    if has(label, &["destination", "target", "output", "save", "backup", "to", "into"]) {
        near(&["in", "into", "to", "inside", "under"])
    } else if has(label, &["source", "input", "from", "read"]) {
        near(&["from", "of"])
    } else {
        true
    }
}

/// The one day the task writes in words, in the date format the question shows (`Date (YYYY-MM-DD):`,
/// `Start [dd/mm/yyyy]:`); `None` where the question shows no such format or the task writes no day, or two.
fn told_date(task: &str, question: &str) -> Option<String> {
    let mentions = crate::dates::days_in_words_at(task);
    let [(_, day), others @ ..] = mentions.as_slice() else { return None };
    if others.iter().any(|(_, other)| other != day) {
        return None;
    }
    let day = *day;
    // A label that says which date (`Start date`, `Due`) needs its word near the day in the task ("starts on …"): a
    // birthday is no start date. A bare `Date` takes the one day.
    let words: Vec<String> = label(question)
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| {
            w.len() >= 3 && !["date", "day", "yyyy", "the", "and", "for", "enter", "your"].contains(&w.as_str())
        })
        .collect();
    let near = mentions.iter().any(|(at, _)| {
        let before = crate::text::last_chars(&task[..*at], 40).to_lowercase();
        words.iter().any(|w| before.contains(w.get(..w.len().min(4)).unwrap_or(w)))
    });
    if !words.is_empty() && !near {
        return None;
    }
    [('(', ')'), ('[', ']')].into_iter().find_map(|(open, close)| {
        let start = question.rfind(open)?;
        let end = question[start..].find(close)?;
        let inner = question[start + 1..start + end].trim();
        let inner = inner.strip_prefix("format").map_or(inner, |rest| rest.trim_start_matches(':').trim());
        crate::dates::in_format(&day, inner)
    })
}

/// A question whose answer is a number: a number as its default (`Port [8000]:`, `Workers (default 4):`), or a word
/// that asks for one (`port`, `how many`, `timeout`).
static NUMBER_QUESTION: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?ix)\[\s*\d+(?:\.\d+)*\s*\]|\(\s*(?:default:?\s*)?\d+(?:\.\d+)*\s*\)|\bdefault:?\s+\d+(?:\.\d+)*\b
        |\b(?:port|number|how\s+many|count|amount|quantity|size|age|year|seconds|minutes|hours|days|retries|workers
           |threads|timeout|limit|copies|replicas|percent(?:age)?)\b",
    )
});

/// The answers offered for `question`: where it asks for a number (a version's `[3.11]` too), the numbers among
/// `choices` (and a phrase that keeps its default), when there are any: the bare numbers (`3.12`) when the task has
/// some, else the phrases with a digit. Offered every phrase of the task, Qwen2.5-Coder 0.5B answered a port's
/// question with `answer` and with `we don't want`, taken from the task's words; offered `Python 3.12` beside
/// `3.12`, a script of its typed the phrase, which the program refused.
fn numbers_for(question: &str, choices: Vec<String>) -> Vec<String> {
    if !NUMBER_QUESTION.is_match(question) {
        return choices;
    }
    fn has_digit(choice: &str) -> bool {
        choice.chars().any(|ch| ch.is_ascii_digit())
    }
    // A number alone: digits and what numbers are written with (`3.12`, `555-0142`), no word beside it.
    fn bare(choice: &str) -> bool {
        has_digit(choice) && !choice.chars().any(|ch| ch.is_alphabetic() || ch.is_whitespace())
    }
    for wanted in [bare as fn(&str) -> bool, has_digit] {
        let numbers: Vec<String> = choices.iter().filter(|c| wanted(c) || keeps_default(c)).cloned().collect();
        if numbers.iter().any(|c| wanted(c)) {
            return numbers;
        }
    }
    choices
}

/// Whether an answer keeps a question's default ("keep the default", "the default one", "default", "accept the
/// suggested one", "keep whatever it suggests"): the default named, or the whole answer a phrase that keeps.
fn keeps_default(answer: &str) -> bool {
    let lower = answer.to_lowercase();
    lower.split(|c: char| !c.is_alphanumeric()).any(|word| word == "default" || word == "defaults")
        || KEEPS.is_match(lower.trim())
}

/// An answer that is only a phrase keeping what the program offers: `keep whatever`, `accept the suggested one`,
/// `keep whatever it suggests`, `keep it`.
static KEEPS: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"^(?:keep|accept|use)(?:\s+(?:it|that|the|its))?(?:\s+(?:whatever|suggested|suggestion|proposed|offered|one|value|as\s+is))*(?:\s+(?:it|the\s+program)\s+(?:suggests|proposes|offers|says|shows))?$",
    )
});

/// Whether the task says to keep the default of what `question` asks for: `keep whatever port it suggests`, `keep the
/// default port`, `accept the suggested name`, `leave the port at its default`. The words named must be the question's
/// subject (every one of them); `and` or `but` ends them. Offered the task's phrases, Qwen2.5-Coder
/// 0.5B found none that keeps a default in "keep whatever port it suggests", and the question went unanswered.
fn keeps_its_default(task: &str, question: &str) -> bool {
    let asked = crate::runners::consent::subject_words(label(question));
    KEEPS_DEFAULT.captures_iter(task).any(|found| {
        let Some(named) = ["a", "b", "c"].iter().find_map(|g| found.name(g)) else { return false };
        // The words up to a clause's next part: "the default name and port 9090" keeps the name only.
        let named: Vec<&str> =
            named.as_str().split_whitespace().take_while(|word| !matches!(*word, "and" | "but")).collect();
        crate::runners::consent::covers(&crate::runners::consent::subject_words(&named.join(" ")), &asked)
    })
}

/// A question's label, what it asks for: the text before any bracket, `:` or `?` (`Port` of `Port [8080]:`).
fn label(question: &str) -> &str {
    question.split(['(', '[', ':', '?']).next().unwrap_or(question)
}

/// A default kept for something named: `keep whatever port it suggests`, `keep the default port`, `use the suggested
/// name`, `leave the port at its default`.
static KEEPS_DEFAULT: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?ix)\b(?:
            (?:keep|accept|use|take|leave)\s+(?:whatever|the|its)\s+(?P<a>(?:[\w-]+\s+){0,2}?[\w-]+)\s+(?:it|the\s+(?:program|script|tool))\s+(?:suggests|proposes|offers|shows|gives)
           |(?:keep|accept|use|take|leave)\s+(?:the\s+|its\s+)?(?:default|suggested|proposed|offered)\s+(?P<b>(?:[\w-]+\s*){1,3})
           |(?:leave|keep)\s+(?:the\s+)?(?P<c>(?:[\w-]+\s+){0,2}?[\w-]+)\s+(?:at|on|as)\s+(?:the|its)\s+default
        )",
    )
});

/// Whether `question` shows a default to keep with Enter: `Port [8080]:`, `Name (default: web):`.
fn shows_default(question: &str) -> bool {
    let lower = question.to_lowercase();
    // An example or a format in brackets is no default (`Date [DD/MM/YYYY]:`).
    let bracketed = lower.rfind('[').is_some_and(|start| {
        lower[start..].find(']').is_some_and(|end| {
            let inner = &lower[start + 1..start + end];
            !EXAMPLE.is_match(inner) && !FORMAT.is_match(inner)
        })
    }) && options(question).is_empty();
    bracketed || lower.contains("default")
}

/// The answers a question lists: `(east/west)`, `[json|csv]`, `(comma, semicolon or tab)`; not a yes/no pair, nor
/// an example or a format (`Time zone (e.g. Europe/Berlin):` offers no choice of `e.g. Europe` and `Berlin`, nor
/// `Date (DD/MM/YYYY):` one of `DD`, `MM` and `YYYY`).
fn options(question: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (open, close) in [('(', ')'), ('[', ']')] {
        let Some(start) = question.rfind(open) else { continue };
        let Some(end) = question[start..].find(close) else { continue };
        let inner = &question[start + 1..start + end];
        if EXAMPLE.is_match(inner) || FORMAT.is_match(inner) {
            continue;
        }
        let listed: Vec<String> = if inner.contains(['/', '|']) {
            inner.split(['/', '|', ',']).map(|o| o.trim().to_owned()).filter(|o| !o.is_empty()).collect()
        } else {
            words_or_list(inner)
        };
        if listed.is_empty() {
            continue;
        }
        let yes_no = listed.iter().all(|o| matches!(o.to_lowercase().as_str(), "y" | "n" | "yes" | "no"));
        if !yes_no {
            found.extend(listed);
        }
    }
    found
}

/// What shows an example rather than the answers to choose from: `e.g.` or `for example` anywhere (`Continent/City,
/// e.g. Europe/Berlin`), `such as`, or `like …`, `example:` at the start.
static EXAMPLE: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)(?:\be\.\s?g\.|\beg\s|\bfor\s+(?:example|instance)\b|\bsuch\s+as\b|^\s*(?:like\s|ex(?:ample)?s?\s*:))",
    )
});

/// A date or time format: `DD/MM/YYYY`, `YYYY-MM-DD`, `HH:MM`, `mm/dd/yy` (each part one letter written two to four
/// times: `(h/m/s)` and `(sms/dm)` are choices).
static FORMAT: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(
        r"(?i)^\s*(?:format:?\s*)?(?:y{2,4}|m{2}|d{2}|h{2}|s{2})(?:\s*[/:.-]\s*(?:y{2,4}|m{2}|d{2}|h{2}|s{2})){1,2}\s*$",
    )
});

/// The items of a list written out in words, `a, b or c` (`a or b`), or with commas alone, three one-word items or
/// more (`MIT, Apache-2.0, GPL-3.0, none`): short items, at least two; none when `inner` is not such a list
/// (`default 8080`, `leave empty to skip`, `lowercase, no spaces`).
fn words_or_list(inner: &str) -> Vec<String> {
    // A dot inside a word is part of a name (`Apache-2.0`, `v1.2`); one that ends a word ends a sentence or
    // an abbreviation (`etc.`).
    let dotted_name = |item: &str| {
        let chars: Vec<char> = item.chars().collect();
        chars.iter().enumerate().all(|(at, c)| {
            *c != '.'
                || (at > 0
                    && chars[at - 1].is_alphanumeric()
                    && chars.get(at + 1).is_some_and(|next| next.is_alphanumeric()))
        })
    };
    let short = |item: &String| {
        !item.is_empty()
            && item.len() <= 20
            && item.split_whitespace().count() <= 2
            && !item.contains(':')
            && dotted_name(item)
    };
    let items: Vec<String> = match inner.rsplit_once(" or ") {
        Some((head, last)) => head.split(',').chain([last]).map(|item| item.trim().to_owned()).collect(),
        None => {
            let items: Vec<String> = inner.split(',').map(|item| item.trim().to_owned()).collect();
            if items.len() < 3 || items.iter().any(|item| item.contains(char::is_whitespace)) {
                return Vec::new();
            }
            items
        }
    };
    if items.len() >= 2 && items.iter().all(short) { items } else { Vec::new() }
}

/// Whether `task` names `option`: as a word, or inflected (`semicolons` names `semicolon`, `tabs` names `tab`).
fn names_option(task: &str, option: &str) -> bool {
    in_task(task, option) || ["s", "es", "d", "ed"].iter().any(|ending| in_task(task, &format!("{option}{ending}")))
}

/// The listed answers `task` names ([`names_option`]); when it names none, the ones it names in a short form or in
/// full, where the full word is one that option lists shorten ([`SHORTENED`]): `(dev/prod)` for "this install is for
/// production", `(development/production)` for "deploy to prod". A short form is three letters or more. Only such
/// words: "all" is no short `allow`, nor "product" a long `prod`.
fn named_options(task: &str, listed: Vec<String>) -> Vec<String> {
    let named: Vec<String> = listed.iter().filter(|option| names_option(task, option)).cloned().collect();
    if !named.is_empty() {
        return named;
    }
    let words: Vec<String> =
        task.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() >= 3).map(str::to_lowercase).collect();
    // `short` is the first letters of `long`, a word option lists shorten.
    let shortens = |short: &str, long: &str| {
        short.len() >= 3 && short.len() < long.len() && long.starts_with(short) && SHORTENED.contains(&long)
    };
    listed
        .into_iter()
        .filter(|option| {
            let option = option.to_lowercase();
            words.iter().any(|w| shortens(&option, w) || shortens(w, &option))
        })
        .collect()
}

/// Words that option lists and people shorten to their first letters (`dev`, `prod`, `stg`…).
const SHORTENED: &[&str] = &[
    "development",
    "production",
    "staging",
    "testing",
    "integration",
    "configuration",
    "application",
    "documentation",
    "minimum",
    "maximum",
    "automatic",
    "interactive",
    "verbose",
    "optional",
    "required",
    "standard",
];

/// Little words that are never an answer on their own, nor begin or end one.
const LITTLE: &[&str] = &[
    "a", "an", "and", "any", "are", "as", "asks", "at", "be", "by", "for", "from", "give", "gives", "has", "have",
    "if", "in", "into", "is", "it", "its", "of", "on", "or", "please", "run", "so", "that", "the", "then", "this",
    "to", "what", "when", "which", "with",
];

/// The most phrases offered as answers.
const MAX_CANDIDATES: usize = 150;

/// The phrases of `task` an answer may be: its words and runs of two or three words, none beginning or ending with
/// a little word; a phrase sharing a word with an answer already given is left out, unless the task says that word
/// more than once (one value of the task answers one question).
fn candidates(task: &str, answered: &[(String, String)], question: &str) -> Vec<String> {
    let words: Vec<&str> = task
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| "()[]{}\"'`".contains(c)).trim_end_matches(|c: char| ",.;:!?".contains(c)))
        .filter(|w| !w.is_empty())
        .collect();
    let little = |w: &str| LITTLE.contains(&w.to_lowercase().as_str());
    let count = |w: &str| words.iter().filter(|x| x.eq_ignore_ascii_case(w)).count();
    // The words of the answers given and of the questions asked: a question's own words are not its answer.
    let asked = answered.iter().map(|(q, a)| format!("{q} {a}")).chain([question.to_owned()]).collect::<Vec<_>>();
    let used: Vec<String> = asked
        .iter()
        .flat_map(|text| text.split(|c: char| !(c.is_alphanumeric() || "'._-".contains(c))).map(str::to_lowercase))
        .filter(|w| !w.is_empty() && count(w) < 2)
        .collect();
    let mut phrases: Vec<String> = Vec::new();
    for length in 1..=3 {
        for run in words.windows(length) {
            let (Some(first), Some(last)) = (run.first(), run.last()) else { continue };
            if little(first) || little(last) || run.iter().any(|w| used.contains(&w.to_lowercase())) {
                continue;
            }
            let phrase = run.join(" ");
            if in_task(task, &phrase) && !phrases.iter().any(|p| p.eq_ignore_ascii_case(&phrase)) {
                phrases.push(phrase);
            }
        }
    }
    phrases.truncate(MAX_CANDIDATES);
    // "three copies" answers `Copies:` with `3`: a number the task writes in words is offered in digits too.
    for word in &words {
        if let Some(n) = number_word(word)
            && !phrases.iter().any(|p| *p == n.to_string())
        {
            phrases.push(n.to_string());
        }
    }
    // A list the task gives ("the columns are id, name, city and joined") is one answer to a question that asks
    // for a list: written with commas, as such a question asks.
    for items in listed_in(task) {
        for joined in [items.join(","), items.join(", ")] {
            if !phrases.iter().any(|p| p.eq_ignore_ascii_case(&joined)) {
                phrases.push(joined);
            }
        }
    }
    phrases
}

/// The value of a number written as a word: `zero` to `twenty`, the tens to `ninety` and between (`thirty-seven`),
/// `hundred`.
fn number_word(word: &str) -> Option<u32> {
    const SMALL: &str = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen \
                         fifteen sixteen seventeen eighteen nineteen twenty";
    const TENS: &str = "thirty forty fifty sixty seventy eighty ninety";
    let position =
        |list: &str, w: &str| list.split_whitespace().position(|s| s == w).and_then(|at| u32::try_from(at).ok());
    let small = |w: &str| position(SMALL, w);
    let tens = |w: &str| if w == "twenty" { Some(20) } else { position(TENS, w).map(|at| 30 + 10 * at) };
    let word = word.to_lowercase();
    // "thirty-seven", "twenty-one".
    if let Some((ten, unit)) = word.split_once('-') {
        return tens(ten)?.checked_add(small(unit).filter(|u| (1..10).contains(u))?);
    }
    if word == "hundred" {
        return Some(100);
    }
    small(&word).or_else(|| tens(&word))
}

/// A numbered menu line on a screen: `1) Add a user`, `[2] Archive reports`, `3. Quit`, `4 - Export`.
static MENU_LINE: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"^\s*[\[(]?(\d{1,2})\s*(?:[).:\]]|\s-)\s+([A-Za-z].{1,60}?)\s*$"));

/// The numbers of `screen`'s menu whose item the task names by a word of its own (three letters or more, not a
/// little word): `2` for `2) Water the beds` in a task to "water the garden". A menu answered by its number is
/// named by its words in a task; a number nobody named is not offered. Only a menu of two items or more. Where the
/// task names some items by their first word (what they do: `Compress rotated logs` for "compress the logs"), only
/// those: a word further in (`Show disk usage of logs/`) names what an item acts on, which several items share.
fn menu_choices(task: &str, screen: &str) -> Vec<(String, String)> {
    let items = menu_above_prompt(screen);
    if items.len() < 2 {
        return Vec::new();
    }
    let named =
        |item: &str| item_words(item).any(|w| names_option(task, w) || names_option(task, w.trim_end_matches('s')));
    let mut offered: Vec<(String, String)> = Vec::new();
    for (number, item) in &items {
        if named(item) && !offered.iter().any(|(n, _)| n == number) {
            offered.push((number.clone(), item.clone()));
        }
    }
    let leading: Vec<(String, String)> = offered.iter().filter(|(_, item)| first_named(task, item)).cloned().collect();
    if leading.is_empty() { offered } else { leading }
}

/// The words of a menu item that may name it: three letters or more, not little words.
fn item_words(item: &str) -> impl Iterator<Item = &str> {
    item.split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() >= 3 && !LITTLE.contains(&w.to_lowercase().as_str()))
}

/// Whether `task` names a menu item by its first word.
fn first_named(task: &str, item: &str) -> bool {
    item_words(item).next().is_some_and(|w| names_option(task, w) || names_option(task, w.trim_end_matches('s')))
}

/// The items of `screen`'s menu still to choose once `chosen` (numbers typed at this same prompt before) were: those
/// whose first word the task names (`3) Export the diary` for "export the diary, then quit"), not chosen before,
/// and the menu's quit item. Empty when the screen shows no menu of the numbers chosen (a question after it).
fn menu_left(task: &str, screen: &str, chosen: &[&str]) -> Vec<(String, String)> {
    let items = menu_above_prompt(screen);
    if items.len() < 2 || !chosen.iter().all(|number| items.iter().any(|(n, _)| n == number)) {
        return Vec::new();
    }
    items
        .into_iter()
        .filter(|(number, item)| is_quit(item) || (!chosen.contains(&number.as_str()) && first_named(task, item)))
        .collect()
}

/// Whether a menu item leaves the program: `Quit`, `Exit`, `q`; not one that throws work away (`Quit without
/// saving`, `Exit and discard changes`), nor `Close account` or `End session` (an action of their own).
fn is_quit(item: &str) -> bool {
    let first = item.split(|c: char| !c.is_alphanumeric()).find(|w| !w.is_empty()).unwrap_or_default();
    let lower = item.to_lowercase();
    ["quit", "exit", "q", "bye"].contains(&first.to_lowercase().as_str())
        && !["without saving", "discard", "don't save", "do not save"].iter().any(|w| lower.contains(w))
}

/// A menu's items offered at its first showing: the work the task names, not its quit item, which comes after
/// (offered both, Qwen2.5-Coder 0.5B chose `4) Quit` first, and the work was never done). Only a quit item: kept.
fn work_first(mut items: Vec<(String, String)>) -> Vec<(String, String)> {
    if items.iter().any(|(_, item)| !is_quit(item)) {
        items.retain(|(_, item)| !is_quit(item));
    }
    items
}

/// A task that says to leave the program when done: then its quit item is typed without a call once nothing else
/// is left; otherwise the model chooses among what is left and the quit item.
static QUITTING: LazyLock<Regex> = LazyLock::new(|| {
    crate::patterns::constant(r"(?i)\b(?:quit|exit|leave|close)\b|\bwhen\s+(?:you'?re|you\s+are)\s+done\b")
});

/// A prompt answered already, on a line of its own above the question now asked: `Choose [1-4]: 3`.
static ANSWERED_PROMPT: LazyLock<Regex> = LazyLock::new(|| crate::patterns::constant(r"[:?]\s*\S+\s*$"));

/// The numbered items (number, words) of the menu the question at the end of `screen` belongs to: the menu lines
/// right above it (a line or two of instructions between allowed). A menu further up, above a prompt answered
/// already (`Choose [1-4]: 3`), was for that prompt: `Username to disable:` after it is no menu question.
fn menu_above_prompt(screen: &str) -> Vec<(String, String)> {
    let mut lines = screen.lines().rev().filter(|line| !line.trim().is_empty());
    lines.next(); // the question itself
    let (mut items, mut between) = (Vec::new(), 0);
    for line in lines {
        if let Some(found) = MENU_LINE.captures(line)
            && let (Some(number), Some(item)) = (found.get(1), found.get(2))
        {
            items.push((number.as_str().to_owned(), item.as_str().to_owned()));
            continue;
        }
        if !items.is_empty() || ANSWERED_PROMPT.is_match(line) || between == 2 {
            break;
        }
        between += 1;
    }
    items.reverse();
    items
}

/// A list written out in `task`: `a, b, c and d` (or `or`), three items or more, each one word.
static WRITTEN_LIST: LazyLock<Regex> =
    LazyLock::new(|| crate::patterns::constant(r"(?i)\b[\w.+-]+(?:,\s*[\w.+-]+)+,?\s+(?:and|or)\s+[\w.+-]+"));

/// The items of each list [`WRITTEN_LIST`] finds in `task`.
fn listed_in(task: &str) -> Vec<Vec<String>> {
    WRITTEN_LIST
        .find_iter(task)
        .map(|found| {
            found
                .as_str()
                .split(',')
                .flat_map(|part| part.split_whitespace().filter(|w| !matches!(w.to_lowercase().as_str(), "and" | "or")))
                .map(|item| item.trim().trim_end_matches(['.', ':', ';', '!', '?']).to_owned())
                .filter(|item| !item.is_empty())
                .collect()
        })
        .collect()
}

/// One call, bounded by the subtask's deadline and the run's cancellation; the reply's text.
async fn call(asker: &Asker<'_>, prompt: &crate::prompt::Prompt, shape: CallShape<'_>) -> Option<String> {
    tokio::select! {
        reply = asker.caller.call(prompt, shape) => reply.ok().map(|r| r.text),
        () = asker.cancel.cancelled() => None,
        () = tokio::time::sleep_until(asker.deadline) => None,
    }
}

/// Whether `answer` is in `task` as whole words, case aside.
fn in_task(task: &str, answer: &str) -> bool {
    let (task, answer) = (task.to_lowercase(), answer.to_lowercase());
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    task.match_indices(&answer)
        .any(|(at, _)| !word(task[..at].chars().next_back()) && !word(task[at + answer.len()..].chars().next()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_words_of_the_task() {
        let task = "Run ./setup.sh; the team is Falcon, the region eu-west, port 8443.";
        assert!(in_task(task, "falcon"));
        assert!(in_task(task, "eu-west"));
        assert!(in_task(task, "8443"));
        assert!(!in_task(task, "844"), "part of a number");
        assert!(!in_task(task, "Hawk"));
    }

    #[test]
    fn answers_offered_are_phrases_of_the_task_not_used_before() {
        let task = "Run ./enrol.sh: the surname is Okafor and the branch is west.";
        let all = candidates(task, &[], "Surname:");
        for phrase in ["Okafor", "west", "./enrol.sh", "branch"] {
            assert!(all.contains(&phrase.to_owned()), "{phrase}: {all:?}");
        }
        assert!(!all.iter().any(|p| p == "the" || p == "is Okafor" || p == "Okafor and"), "{all:?}");
        assert!(!all.iter().any(|p| p.contains("surname")), "the question's own word: {all:?}");
        let later = candidates(task, &[("Surname:".into(), "Okafor".into())], "Branch:");
        assert!(later.contains(&"west".to_owned()) && !later.iter().any(|p| p.contains("Okafor")), "{later:?}");
        let twice = candidates("Answer yes, then yes again.", &[("Go on?".into(), "yes".into())], "Sure?");
        assert!(twice.contains(&"yes".to_owned()), "{twice:?}");
        assert_eq!(options("Home branch (east/west):"), ["east", "west"]);
        assert_eq!(options("Format [json|csv|text]?"), ["json", "csv", "text"]);
        assert!(options("Continue (y/n)?").is_empty() && options("Name:").is_empty());
        assert_eq!(options("Which separator? (comma, semicolon or tab):"), ["comma", "semicolon", "tab"]);
        assert_eq!(options("Size (small or large)?"), ["small", "large"]);
        assert!(options("Continue (yes or no)?").is_empty());
        // Commas alone: three one-word items or more, dotted names whole.
        assert_eq!(
            options("License (MIT, Apache-2.0, GPL-3.0, none) [MIT]:"),
            ["MIT", "Apache-2.0", "GPL-3.0", "none"]
        );
        assert!(options("Name (lowercase, no spaces):").is_empty());
        assert!(options("Tags (comma, separated):").is_empty());
        assert!(options("Shell (bash, zsh, etc.):").is_empty());
        assert!(options("Port (default 8080, or leave empty to skip):").is_empty());
        assert!(options("Name (first and last; or just first):").is_empty());
    }

    #[test]
    fn a_number_in_words_is_offered_in_digits() {
        let offered = candidates("Run ./print.sh and ask for three copies of the flyer.", &[], "Copies:");
        assert!(offered.contains(&"3".to_owned()) && offered.contains(&"three".to_owned()), "{offered:?}");
        assert_eq!(number_word("Twenty"), Some(20));
        assert_eq!(number_word("forty"), Some(40));
        assert_eq!(number_word("hundred"), Some(100));
        assert_eq!(number_word("thirty-seven"), Some(37));
        assert_eq!(number_word("Twenty-one"), Some(21));
        assert_eq!(number_word("hundred-two"), None);
        assert_eq!(number_word("well-known"), None);
        let offered = candidates("Book a table for Ada; she's sixty-two.", &[], "Age:");
        assert!(offered.contains(&"62".to_owned()), "{offered:?}");
        assert_eq!(number_word("tree"), None);
    }

    #[test]
    fn a_question_the_task_answers_as_the_subjects_value_is_answered_so() {
        let task = "Run ./init.sh to set up the project. It asks some questions: the shop is called owl-books, the                     owner is Dara Quinn, and we want the MIT license.";
        assert_eq!(told_value(task, "Owner:").as_deref(), Some("Dara Quinn"));
        assert_eq!(told_value(task, "Shop name (lowercase, dashes):").as_deref(), Some("owl-books"));
        assert_eq!(told_value("Start it; the port should be 8081.", "Port [8080]:").as_deref(), Some("8081"));
        assert_eq!(told_value(task, "Email:"), None, "the task says nothing of it");
        let named = "Use ./backup-tool to back up the documents, and have it save the backup in a folder called vault.";
        assert_eq!(told_value(named, "Destination folder [backups]:").as_deref(), Some("vault"));
        let two = "Copy the folder called notes into a folder called vault with ./copy.sh.";
        assert_eq!(told_value(two, "Destination folder:"), None, "two folders");
        let source = "Use ./sync.sh to copy the folder called photos to the NAS.";
        assert_eq!(told_value(source, "Destination folder:"), None, "the folder copied from");
        assert_eq!(told_value(source, "Folder:").as_deref(), Some("photos"), "one word");
        assert_eq!(told_value("Run it; the name is, well, up to you.", "Name:"), None);
        assert_eq!(told_value("Run it; the name is not important.", "Name:"), None);
        let list = "Import it: the file has no header line, and the columns are id, name, city and joined.";
        assert_eq!(told_value(list, "Column names, separated by commas:"), None, "a list's first item");
        assert_eq!(told_value(task, "Type the shop name to confirm deletion:"), None, "a confirmation");
        // A default kept for the question's subject.
        let keep = "Run ./serve.py: keep whatever port it suggests, the hostname should be web.internal.";
        assert!(keeps_its_default(keep, "Port [8080]:"));
        assert!(!keeps_its_default(keep, "Hostname [localhost]:"), "another subject");
        assert!(keeps_its_default("Run it and keep the default port, and turn TLS on.", "Port [8080]:"));
        assert!(keeps_its_default("Run it; leave the port at its default.", "Port [8080]:"));
        assert!(!keeps_its_default("Keep the default name and port 9090.", "Port [8080]:"), "the clause ends");
    }

    #[test]
    fn a_date_question_is_answered_in_its_format_from_the_day_the_task_writes() {
        let task = "Book the hall with ./book.sh for Friday the 14th of March 2025, for 40 guests.";
        assert_eq!(told_date(task, "Date (YYYY-MM-DD):").as_deref(), Some("2025-03-14"));
        assert_eq!(told_date(task, "Day [dd/mm/yyyy]:").as_deref(), Some("14/03/2025"));
        assert_eq!(told_date(task, "Booking date (YYYY-MM-DD):").as_deref(), Some("2025-03-14"), "book…");
        let hire = "Register the new hire born on 3 May 1990 with ./hire.sh; she starts next Monday.";
        assert_eq!(told_date(hire, "Start date (YYYY-MM-DD):"), None, "a birthday is no start date");
        assert_eq!(told_date(task, "Guests:"), None);
        assert_eq!(told_date("Book it from 1 May 2025 to 3 May 2025.", "Start (YYYY-MM-DD):"), None, "two days");
        assert_eq!(told_date("Book it soon.", "Date (YYYY-MM-DD):"), None, "no day");
    }

    #[test]
    fn a_question_that_confirms_the_item_chosen_for_the_task_is_a_yes() {
        let screen = "Greenhouse\n  1) Show humidity\n  2) Water the plants\n  3) Vent the roof\n  4) Quit\nPick: 2\nThis \
                      runs the pump for 4 plants. Water them now? [y/N]";
        let question = "This runs the pump for 4 plants. Water them now? [y/N]";
        let chosen = [("Pick:".to_owned(), "2".to_owned())];
        let task = "Use the ./house.sh menu to water the plants. Leave the roof alone.";
        assert!(confirms_chosen_item(task, &chosen, question, screen));
        // Another item chosen, a question about something else, or nothing chosen: not settled here.
        let other = [("Pick:".to_owned(), "1".to_owned())];
        assert!(!confirms_chosen_item(task, &other, question, screen));
        assert!(!confirms_chosen_item(task, &chosen, "Format the disk too? [y/N]", screen));
        let more = "This waters the plants and deletes the seed trays. Go on? [y/N]";
        let clear =
            "Greenhouse\n  1) Show humidity\n  2) Clear weeds\n  3) Quit\nPick: 2\nThis removes 6 weeds. Sure? [y/N]";
        let weeds = "Use the ./house.sh menu to clear the weeds.";
        assert!(confirms_chosen_item(weeds, &chosen, "This removes 6 weeds. Sure? [y/N]", clear));
        assert!(!confirms_chosen_item(task, &chosen, more, screen), "it asks more than the item");
        assert!(!confirms_chosen_item(task, &[], question, screen));
        let unnamed = "Use the ./house.sh menu to check the humidity.";
        assert!(!confirms_chosen_item(unnamed, &chosen, question, screen));
    }

    #[test]
    fn a_menu_item_the_task_names_is_offered_by_its_number() {
        let screen = "Garden log\n 1) Add a plant\n 2) Water the beds\n 3) Export the diary\n 4) Quit\nChoice: ";
        let numbers = |task: &str, screen: &str| -> Vec<String> {
            menu_choices(task, screen).into_iter().map(|(number, _)| number).collect()
        };
        assert_eq!(numbers("Use ./garden to export the diary, then quit.", screen), ["3", "4"]);
        assert_eq!(menu_choices("Use ./garden to water everything.", screen), [("2".into(), "Water the beds".into())]);
        assert!(numbers("Use ./garden to prune the roses.", screen).is_empty(), "nothing named, nothing offered");
        assert!(numbers("Export the diary.", "1) Export the diary\nChoice: ").is_empty(), "one item is no menu");
        assert_eq!(numbers("Back up the notes.", "[1] Back up notes\n[2] Restore\nPick: "), ["1"]);
        // Items named by what they do come before an item that only shares what they act on.
        let maint = "1) Show disk usage of logs/\n2) Compress rotated logs\n3) Delete temp files\n4) Quit\nChoose: ";
        assert_eq!(
            numbers("Use ./maint to compress the rotated logs, delete the temp files, then quit.", maint),
            ["2", "3", "4"]
        );
        assert_eq!(numbers("Use ./maint to tidy the logs.", maint), ["1", "2"]);
        // A question after the menu's own prompt was answered is no menu question.
        let asked = format!("{screen}2\nWhich bed?\n");
        assert!(numbers("Use ./garden to water the beds.", &asked).is_empty(), "{asked}");
        let asked = "1) Add a plant\n2) Water the beds\nType the number of your choice\n> ";
        assert_eq!(numbers("Use ./garden to water the beds.", asked), ["2"]);
    }

    #[test]
    fn a_menu_that_comes_back_offers_what_is_left_and_then_quits() {
        let screen = "Garden log\n 1) Add a plant\n 2) Water the beds\n 3) Export the diary\n 4) Quit\nChoice: ";
        let left = |task: &str, chosen: &[&str]| -> Vec<String> {
            menu_left(task, screen, chosen).into_iter().map(|(number, _)| number).collect()
        };
        // One thing asked, done: only the quit item is left (typed without a call).
        assert_eq!(left("Water the beds of the garden log.", &["2"]), ["4"]);
        // Two asked, one done: the other and the quit item.
        assert_eq!(left("Add a plant and export the diary.", &["1"]), ["3", "4"]);
        assert_eq!(left("Add a plant and export the diary.", &["1", "3"]), ["4"]);
        // An item named only by a word after its first (`the diary`) is not what is left to do.
        assert_eq!(left("Water the beds, then check the diary.", &["2"]), ["4"]);
        // A number not of this menu: the screen is another question.
        assert!(left("Water the beds.", &["7"]).is_empty());
        assert!(is_quit("Quit") && is_quit("Exit the tool") && is_quit("q") && !is_quit("Query the log"));
        assert!(!is_quit("Quit without saving") && !is_quit("Close account") && !is_quit("Save and quit"));
        assert!(QUITTING.is_match("Water the beds, then quit.") && !QUITTING.is_match("Water the beds."));
        // At its first showing, the work before the quit item.
        let offered = menu_choices("Water the beds, then quit.", screen);
        assert_eq!(offered.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["2", "4"]);
        assert_eq!(work_first(offered), [("2".to_owned(), "Water the beds".to_owned())]);
        assert_eq!(work_first(menu_choices("Just quit it.", screen)).len(), 1, "only the quit item");
    }

    #[test]
    fn a_question_for_a_number_is_offered_the_numbers_of_the_task() {
        let task = "Run ./init-service: the service is called ledger-api, it listens on port 9090, and we don't want \
                    debug logging.";
        let offered = |question: &str| numbers_for(question, candidates(task, &[], question));
        assert_eq!(offered("Port to listen on [8000]:"), ["9090"]);
        assert_eq!(offered("Which port?"), ["9090"]);
        // A question for words is offered the task's phrases as before.
        assert!(offered("Service name:").contains(&"ledger-api".to_owned()));
        // A task without a number offers its phrases still (nothing is forced).
        let words = numbers_for("Port [8000]:", vec!["keep the default".into(), "web".into()]);
        assert_eq!(words, ["keep the default", "web"]);
        let kept = numbers_for("Port [8000]:", vec!["keep the default".into(), "8080".into(), "web".into()]);
        assert_eq!(kept, ["keep the default", "8080"]);
        // A number written with other characters is a number's answer too.
        let phone = numbers_for("Phone number:", vec!["Ann Lee".into(), "34".into(), "555-0142".into()]);
        assert_eq!(phone, ["34", "555-0142"]);
        // A version's default asks for a number too, and the number alone is offered, not the phrase around it.
        let task = "Run ./new.sh: the package is called kite and it targets Node 20.11.";
        assert_eq!(numbers_for("Node version [18.2]:", candidates(task, &[], "Node version [18.2]:")), ["20.11"]);
    }

    #[test]
    fn a_list_the_task_gives_is_one_answer() {
        let task = "Run ./load.py: the fields are id, title, year and rating, and the region is eu.";
        assert_eq!(listed_in(task), [vec!["id", "title", "year", "rating"]]);
        let offered = candidates(task, &[], "Field names, comma-separated:");
        assert!(offered.contains(&"id,title,year,rating".to_owned()), "{offered:?}");
        assert!(offered.contains(&"id, title, year, rating".to_owned()), "{offered:?}");
        assert!(listed_in("Run ./a.sh and answer yes.").is_empty(), "two clauses are no list");
        let task = "Use ./import.py to import members.txt into members.json. When it asks: the file is separated by \
                    semicolons, it has no header line, and the columns are id, name, city and joined.";
        let answered = [("Is the first line a header? [Y/n]:".to_owned(), "n".to_owned())];
        let offered = candidates(task, &answered, "Column names, separated by commas:");
        assert!(offered.contains(&"id,name,city,joined".to_owned()), "{offered:?}");
    }

    #[test]
    fn keeping_a_shown_default_is_enter() {
        for answer in
            ["keep the default", "default", "the Default one", "Keep whatever", "accept the suggested", "keep it"]
        {
            assert!(keeps_default(answer), "{answer}");
        }
        for answer in [
            "Billing API v2",
            "defaulted-loans",
            "keep 9000",
            "Keeper Hall",
            "whatevs",
            "keep it private",
            "accept the licence",
            "the proposed budget of 500",
            "whatever Wen likes: blue",
            "Keep its name as Kim",
        ] {
            assert!(!keeps_default(answer), "{answer}");
        }
        for question in ["Port [8080]:", "Name (default: web):", "Region [eu-west]?"] {
            assert!(shows_default(question), "{question}");
        }
        for question in ["Port:", "Format [json|csv]?", "Name:"] {
            assert!(!shows_default(question), "{question}");
        }
    }

    #[test]
    fn an_example_is_no_list_of_answers() {
        for question in [
            "Time zone (e.g. Europe/Berlin):",
            "Date (for example 2024/05/01):",
            "Shell [eg bash|zsh]:",
            "Start date (DD/MM/YYYY):",
            "Time [HH:MM]:",
            "Time zone (Continent/City, e.g. Europe/Berlin):",
            "Time zone (Europe/Berlin, for example):",
        ] {
            assert!(options(question).is_empty(), "{question}: {:?}", options(question));
        }
        assert_eq!(options("Region (east/west):"), ["east", "west"]);
        assert_eq!(options("Unit (h/m/s):"), ["h", "m", "s"]);
        assert_eq!(options("Rate it (like/dislike):"), ["like", "dislike"]);
        assert!(!shows_default("Date [DD/MM/YYYY]:") && !shows_default("Shell [e.g. bash]:"));
        let task = "Use ./add_user.sh to add the user mlopez with the time zone America/Lima.";
        let offered = candidates(task, &[("Username:".into(), "mlopez".into())], "Time zone (e.g. Europe/Berlin):");
        assert!(offered.contains(&"America/Lima".to_owned()), "{offered:?}");
    }

    #[test]
    fn a_listed_answer_is_named_by_the_task_in_any_inflection() {
        let task = "Run ./load.py on rows.txt: it is separated by semicolons and the dates are quoted.";
        assert!(names_option(task, "semicolon"));
        assert!(names_option(task, "quote"));
        assert!(!names_option(task, "comma"));
        assert!(!names_option(task, "tab"), "`tab` is not in `table`-like words here");
    }

    #[test]
    fn a_listed_answer_in_a_short_form_or_in_full_is_named_when_none_is_named_as_it_stands() {
        let list = |options: &[&str]| options.iter().map(|o| (*o).to_owned()).collect::<Vec<_>>();
        let task = "Run ./install.sh: this install is for production, and the port is 5050.";
        assert_eq!(named_options(task, list(&["dev", "prod"])), ["prod"]);
        assert_eq!(
            named_options("Deploy it to prod with ./ship.sh", list(&["development", "production"])),
            ["production"]
        );
        // A listed answer named as it stands wins over a short form of another.
        assert_eq!(named_options("Use the staging server, not production", list(&["prod", "staging"])), ["staging"]);
        // Only words option lists shorten; two letters are too few.
        assert!(named_options("Run it for me", list(&["format", "plain"])).is_empty());
        assert!(named_options("Pick the uk mirror", list(&["ukraine", "usa"])).is_empty());
        assert!(named_options("Run ./fw.sh and block all traffic", list(&["allow", "deny"])).is_empty());
        assert!(named_options("Run it to try the new product page", list(&["dev", "prod"])).is_empty());
    }
}
