//! Progress on stderr: on a terminal, one live line per subtask (state, pane, turn, tokens, elapsed, what it
//! does); otherwise plain event lines.

use std::collections::HashMap;
use std::io::IsTerminal as _;
use std::time::Duration;

use dag_sched::{Event, ValidatedPlan};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Shows a run's events.
pub enum Progress {
    /// Nothing shown.
    Quiet,
    /// Plain lines (stderr is not a terminal).
    Lines(Lines),
    /// Live lines (stderr is a terminal).
    Live(Live),
}

/// Plain-line progress: one line per start, turn and end.
pub struct Lines {
    panes: HashMap<String, String>,
}

/// Live progress: one bar per subtask.
pub struct Live {
    multi: MultiProgress,
    bars: HashMap<String, ProgressBar>,
}

impl Progress {
    /// Progress for `plan`: live on a terminal, lines otherwise, nothing when `quiet`.
    pub fn new(plan: &ValidatedPlan, quiet: bool) -> Progress {
        let panes: HashMap<String, String> = plan.subtasks().iter().map(|s| (s.id.clone(), s.pane.clone())).collect();
        if quiet {
            return Progress::Quiet;
        }
        if !std::io::stderr().is_terminal() {
            return Progress::Lines(Lines { panes });
        }
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template("{spinner} {prefix:.bold} [{elapsed}] {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        let bars = plan
            .subtasks()
            .iter()
            .map(|subtask| {
                let bar = multi.add(ProgressBar::new_spinner());
                bar.set_style(style.clone());
                bar.set_prefix(format!("{} ({})", subtask.id, subtask.pane));
                bar.set_message("waiting");
                (subtask.id.clone(), bar)
            })
            .collect();
        Progress::Live(Live { multi, bars })
    }

    /// Shows one event.
    pub fn show(&mut self, event: &Event) {
        match self {
            Progress::Quiet => {}
            Progress::Lines(lines) => {
                if let Some(line) = lines.line(event) {
                    eprintln!("{line}");
                }
            }
            Progress::Live(live) => live.show(event),
        }
    }

    /// Prints a note above the live lines.
    pub fn note(&self, text: &str) {
        match self {
            Progress::Quiet => {}
            Progress::Lines(_) => eprintln!("{text}"),
            Progress::Live(live) => live.multi.suspend(|| eprintln!("{text}")),
        }
    }

    /// Ends the display.
    pub fn finish(&mut self) {
        if let Progress::Live(live) = self {
            for bar in live.bars.values() {
                if !bar.is_finished() {
                    bar.finish();
                }
            }
        }
    }
}

impl Lines {
    fn line(&self, event: &Event) -> Option<String> {
        let pane = |id: &str| self.panes.get(id).cloned().unwrap_or_default();
        Some(match event {
            Event::Started { id, at_ms, .. } => format!("clive: {id} started in pane {} at {}", pane(id), secs(*at_ms)),
            Event::Progress { id, turn, tokens, note } => format!("clive: {id} turn {turn}, {tokens} tokens: {note}"),
            Event::Finished { id, status, duration_ms, .. } => {
                format!("clive: {id} {status} in {}", secs(*duration_ms))
            }
            Event::Skipped { id, reason } => format!("clive: {id} skipped: {reason}"),
            Event::Cancelled { id, reason } => format!("clive: {id} cancelled: {reason}"),
            _ => return None,
        })
    }
}

impl Live {
    fn show(&mut self, event: &Event) {
        let bar = |id: &str| self.bars.get(id);
        match event {
            Event::Started { id, .. } => {
                if let Some(bar) = bar(id) {
                    bar.reset_elapsed();
                    bar.enable_steady_tick(Duration::from_millis(120));
                    bar.set_message("started");
                }
            }
            Event::Progress { id, turn, tokens, note } => {
                if let Some(bar) = bar(id) {
                    bar.set_message(format!("turn {turn} · {tokens} tokens · {note}"));
                }
            }
            Event::Finished { id, status, summary, .. } => {
                if let Some(bar) = bar(id) {
                    bar.finish_with_message(format!("{status} · {}", agent::text::one_line(summary, 80)));
                }
            }
            Event::Skipped { id, reason } | Event::Cancelled { id, reason } => {
                if let Some(bar) = bar(id) {
                    bar.finish_with_message(agent::text::one_line(reason, 100));
                }
            }
            _ => {}
        }
    }
}

fn secs(ms: u64) -> String {
    format!("{:.2}s", ms as f64 / 1000.0)
}
