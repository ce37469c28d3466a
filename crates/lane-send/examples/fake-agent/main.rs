//! `fake-agent`: a stand-in for an AI agent's TUI, for lane-send's end-to-end tests.
//!
//! It runs as a real program in a real tmux pane, draws a screen modelled on captures of
//! Claude Code 2.x/1.x, Codex, Gemini CLI or Grok CLI (see `/work/shared/frames/`), reads
//! typed keys and bracketed pastes, and appends every submitted message to a JSON-lines log,
//! so a test can assert that a message arrived exactly once and byte-identical.
//!
//! ```text
//! tmux -S /tmp/fa/sock -f /dev/null new-session -d -x 120 -y 40 \
//!     'fake-agent --style claude2 --log /tmp/fa/log --ready-file /tmp/fa/ready'
//! ```
//!
//! Run `fake-agent --help` for the switches, keys, log format and exit codes.

mod agent;
mod cli;
mod paste_token;
mod render;
mod screen;
mod style;
mod submission_log;
mod terminal;
mod wrap;

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use crossterm::event::{self, Event};

use agent::{Agent, Submission};
use cli::Args;
use submission_log::SubmissionLog;

/// How long to wait for input when nothing is scheduled.
const IDLE_WAIT: Duration = Duration::from_secs(3600);
/// Most events handled before a redraw, so a burst of typed keys costs one frame, not one
/// frame per key.
const EVENTS_PER_FRAME: usize = 4096;
/// How long to look for more input before drawing. Not zero: crossterm's `/dev/tty` source
/// does not look at already-parsed input when polled with a zero timeout.
const BATCH_WAIT: Duration = Duration::from_millis(1);

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("fake-agent: {message}");
            ExitCode::from(1)
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let mut log = SubmissionLog::open(&args.log).map_err(|e| {
        format!("cannot open the submission log {}: {e}; pass a writable --log path", args.log.display())
    })?;
    let mut agent = Agent::new(args.config(), args.draft.as_deref(), Instant::now());
    let _session = terminal::TuiSession::start().map_err(|e| format!("cannot set up the terminal: {e}"))?;
    let (mut width, mut height) =
        crossterm::terminal::size().map_err(|e| format!("cannot read the terminal size: {e}"))?;
    redraw(&agent, width, height)?;
    if let Some(path) = &args.ready_file {
        write_ready_file(path)?;
    }
    loop {
        let wait = agent.next_wakeup().map(|t| t.saturating_duration_since(Instant::now())).unwrap_or(IDLE_WAIT);
        let mut submissions: Vec<Submission> = Vec::new();
        let mut pending = poll(wait)?;
        let mut handled = 0;
        while pending && handled < EVENTS_PER_FRAME {
            let now = Instant::now();
            match event::read().map_err(|e| format!("cannot read terminal input: {e}"))? {
                Event::Key(key) => submissions.extend(agent.key(key, now)),
                Event::Paste(text) => submissions.extend(agent.paste(&text, now)),
                Event::Resize(..) => {
                    (width, height) =
                        crossterm::terminal::size().map_err(|e| format!("cannot read the terminal size: {e}"))?;
                }
                _ => {}
            }
            handled += 1;
            pending = poll(BATCH_WAIT)?;
        }
        submissions.extend(agent.tick(Instant::now()));
        // Log before drawing: once the screen shows a message as sent, the log has it.
        for submission in &submissions {
            log.append(submission)
                .map_err(|e| format!("cannot write the submission log {}: {e}", args.log.display()))?;
        }
        if agent.exit_requested {
            return Ok(());
        }
        redraw(&agent, width, height)?;
    }
}

fn poll(wait: Duration) -> Result<bool, String> {
    event::poll(wait).map_err(|e| format!("cannot wait for terminal input: {e}"))
}

fn redraw(agent: &Agent, width: u16, height: u16) -> Result<(), String> {
    let frame = render::render(agent, width, height);
    terminal::draw(&terminal::frame_bytes(&frame, width)).map_err(|e| format!("cannot draw to the terminal: {e}"))
}

/// Writes the process id to a temporary sibling, then renames it, so a waiting test never
/// sees an empty file.
fn write_ready_file(path: &Path) -> Result<(), String> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    std::fs::write(&tmp, format!("{}\n", std::process::id()))
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| format!("cannot write the ready file {}: {e}; pass a writable --ready-file path", path.display()))
}
