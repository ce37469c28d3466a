//! Progress on stderr: on a terminal, one live line per subtask (state, pane, turn, tokens, elapsed, what it
//! does); otherwise plain event lines. [`drive`] runs the engine's work while it renders the events and turns
//! Ctrl-C into the work's cancel token.

use std::collections::HashMap;
use std::io::IsTerminal as _;
use std::time::Duration;

use clive_core::CancelToken;
use dag_sched::{Event, Plan};
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
    pub fn new(plan: &Plan, quiet: bool) -> Progress {
        let panes: HashMap<String, String> = plan.subtasks.iter().map(|s| (s.id.clone(), s.pane.clone())).collect();
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
            .subtasks
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

/// Runs `work` while it shows the events that arrive on `events`: a plan's progress (none for a plan `quiet`
/// says to keep quiet about), and what the network proxy refused. The first Ctrl-C cancels `cancel` (with a
/// note when a plan's progress shows); the work then ends as the engine ends a cancelled run.
pub async fn drive<T>(
    work: impl std::future::Future<Output = T>,
    mut events: tokio::sync::mpsc::UnboundedReceiver<clive_core::Event>,
    cancel: &CancelToken,
    quiet: impl Fn(&Plan) -> bool,
) -> T {
    let mut display = Display { progress: None, quiet: true };
    tokio::pin!(work);
    let mut interrupted = false;
    let result = loop {
        tokio::select! {
            result = &mut work => break result,
            Some(event) = events.recv() => display.show(event, &quiet),
            _ = tokio::signal::ctrl_c(), if !interrupted => {
                interrupted = true;
                if let Some(progress) = &display.progress {
                    progress.note("clive: cancelling (Ctrl-C)…");
                }
                cancel.cancel();
            }
        }
    };
    while let Ok(event) = events.try_recv() {
        display.show(event, &quiet);
    }
    if let Some(progress) = &mut display.progress {
        progress.finish();
    }
    result
}

/// What [`drive`] shows.
struct Display {
    /// The running plan's progress.
    progress: Option<Progress>,
    /// Whether the running plan is one to keep quiet about.
    quiet: bool,
}

impl Display {
    fn show(&mut self, event: clive_core::Event, quiet: &impl Fn(&Plan) -> bool) {
        match event {
            clive_core::Event::PlanStarted { plan, .. } => {
                if let Some(progress) = &mut self.progress {
                    progress.finish();
                }
                self.quiet = quiet(&plan);
                self.progress = Some(Progress::new(&plan, self.quiet));
            }
            clive_core::Event::Subtask(event) => {
                if let Some(progress) = &mut self.progress {
                    progress.show(&event);
                }
            }
            clive_core::Event::NetworkRefused { refused, log } if !self.quiet => {
                let hosts: Vec<String> = refused.iter().map(|(pane, host)| format!("{host} (pane {pane})")).collect();
                let first = refused.first().map(|(_, host)| host.as_str()).unwrap_or_default();
                eprintln!(
                    "clive: the network is off for commands a model writes; refused: {}. To allow a host, name it in \
                     the task (for example https://{first}/), or run with --network (log: {})",
                    hosts.join(", "),
                    log.display()
                );
            }
            _ => {}
        }
    }
}

fn secs(ms: u64) -> String {
    format!("{:.2}s", ms as f64 / 1000.0)
}
