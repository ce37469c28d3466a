//! Following an agent pane with no model: wake on its output (tmux-habitat's pane subscription), read the
//! inner clive's turn-protocol lines, and say what the outer must do. While the inner thinks nothing comes out
//! of here, so nobody calls a model; a silent pane costs one query a second (is it dead?), never a capture.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use tmux_habitat::{Backoff, CaptureOptions, Key, OutputEvent, Pane, PaneOutput, Session, WindowOptions};
use turn_protocol::{Context, Conversation, Event, Message, Nonce, ScreenParser, Status, TurnState};

use crate::ssh::SshCommand;

/// What the pane's wrapper prints when ssh has ended (followed by `:<exit status>`). A remote program printing it
/// too changes nothing: the pane must also be dead.
pub const EXIT_MARKER: &str = "__CLIVE_SSH_EXIT__";

/// Runs ssh, then prints [`EXIT_MARKER`] and its status, so the end of ssh is seen on the output stream. `\r`:
/// a killed ssh leaves the terminal raw (no newline translation), and the marker must start its line.
const WRAPPER: &str = r#""$@"; status=$?; printf '\r\n%s:%s\r\n' __CLIVE_SSH_EXIT__ "$status"; exit "$status""#;

/// The agent pane's size: wide, so the inner's protocol lines (a CONTEXT chunk is about 230 characters) rarely
/// wrap, and tall, so a burst of lines stays on screen until it is read.
pub const PANE_WIDTH: u16 = 250;
/// See [`PANE_WIDTH`].
pub const PANE_HEIGHT: u16 = 50;

/// Lines of scrollback read with each capture.
const SCROLLBACK: usize = 2000;

/// How long the pane may be silent before the driver looks whether it died. tmux 3.3a can lose the last
/// output of a program that exits at once (it closes the pane's terminal when the program's exit is reported,
/// before reading what is left in it), so a dead ssh's marker, even all it printed, may never come as output:
/// a death is seen by looking at the pane (one query, not a capture) after a silence this long.
const LOOK_AFTER_SILENCE: Duration = Duration::from_secs(1);

/// Opens a window named `name` in `session` running `ssh` (argv, no shell line), with `env` in the pane's
/// environment only: the nonce and the provider keys reach ssh (which sends them with `SendEnv`) and appear on
/// no command line. Needs the control-mode transport (refused otherwise).
pub async fn open_agent_pane(
    session: &Session,
    name: &str,
    ssh: &SshCommand,
    env: &[(String, String)],
) -> tmux_habitat::Result<Pane> {
    // Over control mode the window's command travels on the client's input; with one tmux process per
    // command, the nonce and the keys would be on that process's command line, and the pane could not be
    // followed by its output stream anyway.
    if session.server().transport_kind() != tmux_habitat::TransportKind::Control {
        return Err(tmux_habitat::Error::Unsupported {
            what: "an agent pane (its nonce and keys must stay off command lines)",
        });
    }
    let mut argv = vec!["sh".to_owned(), "-c".to_owned(), WRAPPER.to_owned(), "clive-ssh".to_owned()];
    argv.extend(ssh.argv());
    let mut window = WindowOptions::new(name).program(argv);
    for (key, value) in env {
        window = window.env(key.clone(), value.clone());
    }
    let pane = session.open_window(window).await?;
    pane.resize(PANE_WIDTH, PANE_HEIGHT).await?;
    Ok(pane)
}

/// What the outer must do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// The inner reported progress (shown to the user, never to a model).
    Progress(String),
    /// The inner waits for input: the task (first time) or an answer to `question`.
    NeedsAnswer {
        /// The question, if it asked one.
        question: Option<String>,
    },
    /// The inner finished.
    Done {
        /// Its last CONTEXT.
        context: Option<Context>,
    },
    /// The inner gave up.
    Failed {
        /// Its last CONTEXT.
        context: Option<Context>,
    },
    /// The inner said nothing for longer than the stall limit.
    Stalled {
        /// How long.
        silent_for: Duration,
    },
    /// ssh ended.
    Disconnected {
        /// Its exit status, if known.
        status: Option<i32>,
        /// The pane's last screen (what ssh printed).
        screen: String,
    },
}

/// Why following the pane stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DriveError {
    /// A tmux call failed.
    #[error(transparent)]
    Tmux(#[from] tmux_habitat::Error),
    /// The deadline passed.
    #[error("the agent pane's deadline passed")]
    Deadline,
    /// The connection to tmux ended.
    #[error("the tmux connection following the agent pane ended")]
    Gone,
}

/// What following the pane cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DriveStats {
    /// Times the pane's output woke the driver.
    pub wakes: u64,
    /// Captures read.
    pub captures: u64,
    /// Protocol-looking lines rejected (no valid tag: spoofed, or the echo of what was typed).
    pub rejected: u64,
}

/// One conversation with an inner clive through its agent pane; survives a reconnect ([`AgentSession::reattach`]).
pub struct AgentSession {
    pane: Pane,
    output: PaneOutput,
    parser: ScreenParser,
    conversation: Conversation,
    pending: VecDeque<Update>,
    screen: String,
    markers_seen: usize,
    markers_checked: usize,
    stats: DriveStats,
    /// The last message accepted was a QUESTION without its `TURN: waiting` yet.
    question_open: bool,
    /// An answer went out before the question's `TURN: waiting` arrived: that line is not a new wait.
    swallow_waiting: bool,
    /// The last wake was a silence (no output): time to look whether the pane died.
    silent: bool,
    /// Output was lost (tmux paused the pane for a reader that fell behind): what the pane printed before the
    /// stream resumed never comes as output (the last lines of a dying ssh among it), so the screen is read
    /// again shortly after.
    recapture: bool,
}

impl std::fmt::Debug for AgentSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentSession").field("pane", self.pane.id()).field("stats", &self.stats).finish_non_exhaustive()
    }
}

impl AgentSession {
    /// Follows `pane` (an [`open_agent_pane`]) for the conversation keyed by `nonce`; lines without its tag
    /// are ignored. Needs the control-mode transport.
    pub async fn follow(pane: Pane, nonce: Nonce, stall_after: Duration) -> Result<AgentSession, DriveError> {
        let output = pane.subscribe().await?;
        let parser = ScreenParser::new(Some(nonce)).wrap_width(usize::from(PANE_WIDTH));
        let mut session = AgentSession {
            pane,
            output,
            parser,
            conversation: Conversation::new(Instant::now()).stall_after(stall_after),
            pending: VecDeque::new(),
            screen: String::new(),
            markers_seen: 0,
            markers_checked: 0,
            stats: DriveStats::default(),
            question_open: false,
            swallow_waiting: false,
            silent: true,
            recapture: false,
        };
        session.refresh().await?;
        Ok(session)
    }

    /// Follows a new pane of the same conversation after a reconnect: what was read stays read (lines are
    /// numbered, so nothing is taken twice).
    pub async fn reattach(&mut self, pane: Pane) -> Result<(), DriveError> {
        self.output = pane.subscribe().await?;
        self.pane = pane;
        self.markers_seen = 0;
        self.markers_checked = 0;
        self.silent = true;
        self.screen.clear();
        self.refresh().await
    }

    /// The pane being followed.
    pub fn pane(&self) -> &Pane {
        &self.pane
    }

    /// Whether the inner has said anything authentic yet (before that, ssh ending is a connect failure).
    pub fn heard_from_inner(&self) -> bool {
        self.parser.last_seq() > 0
    }

    /// What following cost so far.
    pub fn stats(&self) -> DriveStats {
        self.stats
    }

    /// The last screen read.
    pub fn screen(&self) -> &str {
        &self.screen
    }

    /// Waits (no model, no polling: woken by the pane's output) until the outer has something to do, or
    /// `deadline` passes.
    pub async fn next(&mut self, deadline: tokio::time::Instant) -> Result<Update, DriveError> {
        loop {
            if let Some(update) = self.pending.pop_front() {
                return Ok(update);
            }
            let check_again_in = match self.conversation.status(Instant::now()) {
                Status::NeedsAnswer { question } => return Ok(Update::NeedsAnswer { question }),
                Status::Done { context } => return Ok(Update::Done { context }),
                Status::Failed { context } => return Ok(Update::Failed { context }),
                Status::Stalled { silent_for } => return Ok(Update::Stalled { silent_for }),
                Status::Working { check_again_in, .. } => check_again_in,
            };
            if let Some(status) = self.look_for_death().await? {
                return Ok(Update::Disconnected { status, screen: self.screen.clone() });
            }
            let wake_at = tokio::time::Instant::now() + check_again_in.min(LOOK_AFTER_SILENCE);
            self.wake(deadline.min(wake_at), deadline).await?;
        }
    }

    /// Waits until ssh has ended (the pane is dead) or `deadline` passes, whatever the inner's turn: what it
    /// prints meanwhile is read (numbered lines stay read) but ends nothing. Returns ssh's exit status, if known.
    pub async fn wait_ended(&mut self, deadline: tokio::time::Instant) -> Result<Option<i32>, DriveError> {
        loop {
            if let Some(status) = self.look_for_death().await? {
                return Ok(status);
            }
            self.wake(deadline.min(tokio::time::Instant::now() + LOOK_AFTER_SILENCE), deadline).await?;
        }
    }

    /// Whether ssh has ended, looked at when there is a reason: a new exit marker (the pane is given a moment
    /// to die), or a silence (see [`LOOK_AFTER_SILENCE`]). A marker whose pane did not die in that moment (one
    /// printed by a remote program, or tmux slow to report the death under load) is looked at again after the
    /// next silence: a dead pane prints nothing more that would wake us.
    async fn look_for_death(&mut self) -> Result<Option<Option<i32>>, DriveError> {
        let fresh_marker = self.markers_seen > self.markers_checked;
        self.markers_checked = self.markers_seen;
        if fresh_marker || std::mem::take(&mut self.silent) { self.ended(fresh_marker).await } else { Ok(None) }
    }

    /// Sleeps until the pane prints (then reads it) or `wake_at`; fails once `deadline` has passed.
    async fn wake(&mut self, wake_at: tokio::time::Instant, deadline: tokio::time::Instant) -> Result<(), DriveError> {
        tokio::select! {
            event = self.output.recv() => match event {
                None => Err(DriveError::Gone),
                Some(event) => {
                    self.stats.wakes += 1;
                    self.recapture = event == OutputEvent::Lost;
                    self.refresh().await
                }
            },
            () = tokio::time::sleep_until(wake_at) => {
                if tokio::time::Instant::now() >= deadline {
                    return Err(DriveError::Deadline);
                }
                self.silent = true;
                // After lost output, once: the stream has resumed (the next read resumes it) and the screen
                // holds what the pause kept back.
                if std::mem::take(&mut self.recapture) {
                    self.refresh().await?;
                }
                Ok(())
            }
        }
    }

    /// Types one line for the inner (the task or an answer) and presses Enter; the inner has the turn again.
    /// Newlines become spaces: the inner reads one line.
    pub async fn send_line(&mut self, text: &str) -> Result<(), DriveError> {
        let line: String =
            text.split(['\n', '\r']).map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
        self.parser.expect_echo(&line);
        self.swallow_waiting = std::mem::take(&mut self.question_open);
        self.pane.send_text(&line).await?;
        self.pane.send_keys(&[Key::Enter]).await?;
        self.conversation.answered(Instant::now());
        Ok(())
    }

    /// Tells the inner that its result was read (end of input): it leaves, and its session with it.
    pub async fn release(&self) -> Result<(), DriveError> {
        self.pane.send_keys(&[Key::CTRL_D]).await?;
        Ok(())
    }

    async fn refresh(&mut self) -> Result<(), DriveError> {
        let capture = self.output.capture(CaptureOptions::visible().scrollback(SCROLLBACK)).await?;
        self.stats.captures += 1;
        let now = Instant::now();
        for event in self.parser.feed(&capture.text) {
            if let Event::Message(message) = &event {
                // A question's `TURN: waiting` seen only after the answer went out belongs to that question.
                if matches!(message, Message::Turn(TurnState::Waiting)) && std::mem::take(&mut self.swallow_waiting) {
                    continue;
                }
                self.swallow_waiting = false;
                self.question_open = matches!(message, Message::Question(_));
            }
            match &event {
                Event::Message(Message::Progress(text)) => self.pending.push_back(Update::Progress(text.clone())),
                Event::Rejected { line, why } => {
                    self.stats.rejected += 1;
                    tracing::debug!(line, why, "agent pane: line rejected");
                }
                _ => {}
            }
            self.conversation.observe(&event, now);
        }
        self.markers_seen = capture.text.lines().filter(|line| line.trim_start().starts_with(EXIT_MARKER)).count();
        self.screen = capture.text;
        Ok(())
    }

    /// Whether ssh has ended (the pane is dead), and its status. The wrapper prints the marker just before it
    /// exits, so a `patient` look gives the pane a moment to die; a marker printed by a remote program leaves
    /// it alive.
    async fn ended(&self, patient: bool) -> Result<Option<Option<i32>>, DriveError> {
        let mut backoff = Backoff::with(Duration::from_millis(2), Duration::from_millis(100), Duration::from_secs(2));
        loop {
            let info = self.pane.info().await?;
            if info.dead {
                return Ok(Some(self.dead_status(info.dead_status).await?));
            }
            if !patient || !backoff.wait().await {
                return Ok(None);
            }
        }
    }

    /// A dead pane's exit status: tmux's (which 3.3a can report a moment after the death, or never:
    /// [`Pane::exit_status`] waits that moment), else the one the wrapper's marker printed.
    async fn dead_status(&self, status: Option<i32>) -> Result<Option<i32>, DriveError> {
        let status = match status {
            Some(status) => Some(status),
            None => self.pane.exit_status().await?,
        };
        Ok(status.or_else(|| self.printed_status()))
    }

    fn printed_status(&self) -> Option<i32> {
        let line = self.screen.lines().rev().map(str::trim_start).find(|l| l.starts_with(EXIT_MARKER))?;
        line.get(EXIT_MARKER.len() + 1..)?.trim().parse().ok()
    }
}
