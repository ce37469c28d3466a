//! A pane's output as it happens, and a screen kept current from it (control mode).

use std::num::NonZeroU16;

use tmux_control::{OutputSubscription, PaneEvent};

use crate::error::{Error, Result};
use crate::pane::Pane;
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
}

impl PaneOutput {
    /// The next event; `None` when the connection to tmux has ended.
    pub async fn recv(&mut self) -> Option<OutputEvent> {
        loop {
            return match self.subscription.recv().await? {
                PaneEvent::Output(bytes) => Some(OutputEvent::Bytes(bytes.to_vec())),
                PaneEvent::Lagged { .. } => Some(OutputEvent::Lost),
                PaneEvent::Paused => {
                    self.pane.server().continue_pane(self.pane.id()).await;
                    Some(OutputEvent::Lost)
                }
                PaneEvent::Continued => continue,
            };
        }
    }
}

impl Pane {
    /// Follows the pane's output as tmux reads it: no polling, idle panes cost nothing. Needs the
    /// control-mode transport.
    pub async fn subscribe(&self) -> Result<PaneOutput> {
        match self.server().subscribe_output(self.id()).await? {
            Some(subscription) => Ok(PaneOutput { pane: self.clone(), subscription }),
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
    /// Subscribes, then seeds the emulator with a capture, so nothing printed in between is missed.
    pub async fn new(pane: &Pane) -> Result<LiveScreen> {
        let output = pane.subscribe().await?;
        let parser = seeded_parser(pane).await?;
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
                self.parser = seeded_parser(&self.pane).await?;
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

async fn seeded_parser(pane: &Pane) -> Result<vt100::Parser> {
    let info = pane.info().await?;
    let captured = pane.capture(crate::CaptureOptions::visible().with_escapes()).await?;
    let rows = NonZeroU16::new(info.height).unwrap_or(NonZeroU16::MIN);
    let cols = NonZeroU16::new(info.width).unwrap_or(NonZeroU16::MIN);
    let mut parser = vt100::Parser::new(rows, cols, 0);
    let text = captured.strip_suffix('\n').unwrap_or(&captured);
    crate::screen::feed_capture(&mut parser, &text.split('\n').collect::<Vec<_>>());
    parser.process(format!("\x1b[0m\x1b[{};{}H", info.cursor_y + 1, info.cursor_x + 1).as_bytes());
    Ok(parser)
}
