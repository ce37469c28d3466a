//! A pane's output as it happens, and a screen kept current from it (control mode).

use std::num::NonZeroU16;

use tmux_control::{Command, OutputSubscription, PaneEvent};

use crate::capture::CaptureOptions;
use crate::error::{Error, Result};
use crate::pane::{Pane, PaneInfo};
use crate::screen::Screen;

/// What a pane's output stream yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputEvent {
    /// Bytes the program wrote, raw (a UTF-8 character may be split across two events).
    Bytes(Vec<u8>),
    /// Output was dropped on the way (this reader was slow, or tmux paused the pane): re-capture the pane
    /// to resync. The stream goes on.
    Lost,
}

/// Follows one pane's output, from [`Pane::subscribe`]. Memory stays bounded: a reader that falls behind
/// loses output and is told so with [`OutputEvent::Lost`].
#[derive(Debug)]
pub struct PaneOutput {
    pane: Pane,
    subscription: OutputSubscription,
    /// Bytes of the stream taken from the subscription so far (yielded, skipped or lost).
    taken: u64,
    /// Bytes before this place are shown by the last [`PaneOutput::capture`]: they are not yielded.
    skip_to: u64,
    /// tmux paused the pane; it is resumed at the next read (after the reader had its chance to capture).
    resume: bool,
}

/// The pane as tmux held it at one place of its output stream, from [`PaneOutput::capture`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneCapture {
    /// Size, cursor and modes at that place.
    pub info: PaneInfo,
    /// What `capture-pane` returned, with the options asked for.
    pub text: String,
}

impl PaneOutput {
    /// The next event; `None` when the connection to tmux has ended. Cancel-safe: dropping the future (in a
    /// `select!`) loses nothing.
    pub async fn recv(&mut self) -> Option<OutputEvent> {
        if self.resume {
            self.pane.server().continue_pane(self.pane.id()).await;
            self.resume = false;
        }
        loop {
            return match self.subscription.recv().await? {
                PaneEvent::Output(bytes) => {
                    let start = self.taken;
                    self.taken += bytes.len() as u64;
                    if self.taken <= self.skip_to {
                        continue;
                    }
                    // The part a capture already showed is left out.
                    let from = usize::try_from(self.skip_to.saturating_sub(start)).unwrap_or(usize::MAX);
                    Some(OutputEvent::Bytes(bytes.get(from..).unwrap_or_default().to_vec()))
                }
                PaneEvent::Lagged { missed_bytes } => {
                    self.taken += missed_bytes;
                    // Bytes lost before the place of the last capture are in that capture.
                    if self.taken <= self.skip_to {
                        continue;
                    }
                    Some(OutputEvent::Lost)
                }
                PaneEvent::Paused => {
                    self.resume = true;
                    Some(OutputEvent::Lost)
                }
                PaneEvent::Continued => continue,
            };
        }
    }

    /// Captures the pane at the current place of this stream: the capture (and its cursor and size) shows
    /// everything printed before the next bytes [`PaneOutput::recv`] yields, and nothing after. Output
    /// already queued that the capture shows is dropped from the stream. So a copy of the screen seeded
    /// with the capture and fed the stream from here on stays exact, from the start or after
    /// [`OutputEvent::Lost`].
    ///
    /// The place may fall anywhere in the program's output, even between the `\r` and `\n` of a line end:
    /// then the cursor is at the start of a row that still shows the line just printed, and the stream goes
    /// on with `\n`. Seed a terminal emulator with the whole screen and put the cursor where
    /// [`PaneCapture::info`] says (the text after the cursor is not necessarily blank).
    ///
    /// Fails with [`Error::CaptureUnplaced`] when the pane printed between the capture and the query of its
    /// cursor every time it was asked: the two are never returned from different places.
    pub async fn capture(&mut self, options: CaptureOptions) -> Result<PaneCapture> {
        let id = self.pane.id().clone();
        let server = self.pane.server().clone();
        for _ in 0..CAPTURE_TRIES {
            let info = Command::new("display-message").args(["-p", "-t", id.as_str(), crate::pane::INFO_FORMAT]);
            // Written together, so tmux runs both in one pass with no pane output between; if some slipped in
            // all the same (a group read in parts), ask again.
            let answers = server.commands_at_output(&id, vec![info, options.command(id.as_str())], &self.subscription);
            let [(info_text, info_place), (text, place)]: [(String, u64); 2] =
                answers.await?.try_into().map_err(|answers: Vec<_>| Error::Protocol {
                    command: "display-message, capture-pane".into(),
                    detail: format!("{} replies to two commands", answers.len()),
                })?;
            if info_text.trim().is_empty() {
                return Err(Error::NotFound {
                    kind: "pane",
                    name: id.to_string(),
                    socket: server.socket_path().into(),
                });
            }
            if info_place != place {
                tracing::debug!(pane = %id, info_place, place, "pane output between a capture and its cursor; again");
                continue;
            }
            let capture = PaneCapture { info: PaneInfo::parse(info_text.trim_end())?, text };
            // Only a capture the caller gets moves the stream on: bytes it does not show must still be yielded.
            self.skip_to = self.skip_to.max(place);
            return Ok(capture);
        }
        Err(Error::CaptureUnplaced { pane: id.to_string(), tries: CAPTURE_TRIES })
    }
}

impl PaneOutput {
    /// Reads this stream until the shell has drawn `prompt` just before the cursor (`"$ "`, the prompt of the
    /// shell [`Server`](crate::Server) starts): from here on, what the stream yields is what the shell prints
    /// after it went idle at its prompt. [`Pane::wait_ready`] returns once its handshake line is printed, and
    /// the prompt after it may come later; two readers that compare what they saw (a recording and a reference,
    /// a screen before and after) start here, at the same place. A capture placed in the stream shows what
    /// came before; the stream, the rest. Fails with [`Error::Timeout`] when the prompt is not drawn in time.
    pub async fn wait_for_prompt(&mut self, prompt: &str, timeout: std::time::Duration) -> Result<()> {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut shown = self.before_cursor().await?;
        while !shown.ends_with(prompt.as_bytes()) {
            match tokio::time::timeout_at(deadline, self.recv()).await {
                Ok(Some(OutputEvent::Bytes(bytes))) => shown.extend_from_slice(&bytes),
                // What was lost is on the screen: look again.
                Ok(Some(OutputEvent::Lost)) => shown = self.before_cursor().await?,
                Ok(None) | Err(_) => {
                    return Err(Error::Timeout {
                        pane: self.pane.id().to_string(),
                        what: format!("the prompt `{}`", prompt.escape_debug()),
                        waited: timeout,
                        screen: self.pane.capture_text().await.unwrap_or_default(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The cursor's row up to the cursor, from a capture placed in the stream.
    async fn before_cursor(&mut self) -> Result<Vec<u8>> {
        let capture = self.capture(CaptureOptions::visible()).await?;
        let row = capture.text.lines().nth(usize::from(capture.info.cursor_y)).unwrap_or_default();
        // capture-pane drops trailing blanks: the cells before the cursor are padded back.
        let width = usize::from(capture.info.cursor_x);
        Ok(format!("{row:width$}").chars().take(width).collect::<String>().into_bytes())
    }
}

/// How many times [`PaneOutput::capture`] asks before giving up.
const CAPTURE_TRIES: u32 = 8;

impl Pane {
    /// Follows the pane's output as tmux reads it: no polling, idle panes cost nothing. Needs the
    /// control-mode transport. [`PaneOutput::capture`] gives the screen the stream continues from.
    pub async fn subscribe(&self) -> Result<PaneOutput> {
        match self.server().subscribe_output(self.id()).await? {
            Some(subscription) => {
                Ok(PaneOutput { pane: self.clone(), subscription, taken: 0, skip_to: 0, resume: false })
            }
            None => Err(Error::Unsupported { what: "following a pane's output" }),
        }
    }
}

/// A pane's screen kept current from its output stream by a terminal emulator: read it at any moment
/// without asking tmux.
pub struct LiveScreen {
    pane: Pane,
    output: PaneOutput,
    parser: vt100::Parser,
}

impl LiveScreen {
    /// Subscribes, then seeds the emulator with a capture placed in the stream: nothing printed around it is
    /// missed or applied twice.
    pub async fn new(pane: &Pane) -> Result<LiveScreen> {
        let mut output = pane.subscribe().await?;
        let parser = seeded_parser(&mut output).await?;
        Ok(LiveScreen { pane: pane.clone(), output, parser })
    }

    /// Waits for the pane's next output and applies it. Returns `false` when the connection has ended.
    pub async fn update(&mut self) -> Result<bool> {
        match self.output.recv().await {
            None => Ok(false),
            Some(OutputEvent::Bytes(bytes)) => {
                self.parser.process(&bytes);
                Ok(true)
            }
            Some(OutputEvent::Lost) => {
                self.parser = seeded_parser(&mut self.output).await?;
                Ok(true)
            }
        }
    }

    /// The screen as it is now.
    pub fn screen(&self) -> Screen {
        Screen::from_vt100(self.parser.screen())
    }
}

impl std::fmt::Debug for LiveScreen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveScreen").field("pane", self.pane.id()).finish_non_exhaustive()
    }
}

async fn seeded_parser(output: &mut PaneOutput) -> Result<vt100::Parser> {
    let PaneCapture { info, text: captured } = output.capture(CaptureOptions::visible().with_escapes()).await?;
    let rows = NonZeroU16::new(info.height).unwrap_or(NonZeroU16::MIN);
    let cols = NonZeroU16::new(info.width).unwrap_or(NonZeroU16::MIN);
    let mut parser = vt100::Parser::new(rows, cols, 0);
    let text = captured.strip_suffix('\n').unwrap_or(&captured);
    crate::screen::feed_capture(&mut parser, &text.split('\n').collect::<Vec<_>>());
    parser.process(format!("\x1b[0m\x1b[{};{}H", info.cursor_y + 1, info.cursor_x + 1).as_bytes());
    Ok(parser)
}
