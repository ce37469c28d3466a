//! Waiting on a pane's screen: for text to appear, or for the pane to fall quiet. Over control mode both
//! follow the pane's output stream (a look at the screen only when bytes arrive); without it they look at the
//! screen with backoff.

use std::time::Duration;

use tmux_habitat::{Backoff, OutputEvent, Pane};
use tokio::time::Instant;

/// What a wait on the screen saw.
#[derive(Debug)]
pub(crate) struct Watched {
    /// It happened before the deadline.
    pub happened: bool,
    /// The visible screen at the end.
    pub screen: String,
}

/// Waits until `text` is on the pane's visible screen, or `deadline`.
pub(crate) async fn until_text(pane: &Pane, text: &str, deadline: Instant) -> tmux_habitat::Result<Watched> {
    let Ok(mut output) = pane.subscribe().await else {
        return poll(pane, deadline, |screen| screen.contains(text)).await;
    };
    loop {
        // A look after subscribing: what was printed before is on the screen, what comes after is announced.
        let screen = visible(pane).await?;
        if screen.contains(text) {
            return Ok(Watched { happened: true, screen });
        }
        match tokio::time::timeout_at(deadline, output.recv()).await {
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => return Ok(Watched { happened: false, screen: visible(pane).await? }),
        }
    }
}

/// Waits until the pane has printed nothing for `quiet`, or `deadline`.
pub(crate) async fn until_quiet(pane: &Pane, quiet: Duration, deadline: Instant) -> tmux_habitat::Result<Watched> {
    let Ok(mut output) = pane.subscribe().await else {
        let mut last = None;
        let mut since = Instant::now();
        return poll(pane, deadline, move |screen| {
            if last.as_deref() != Some(screen) {
                last = Some(screen.to_owned());
                since = Instant::now();
            }
            since.elapsed() >= quiet
        })
        .await;
    };
    loop {
        let quiet_until = Instant::now() + quiet;
        if quiet_until > deadline {
            // Not enough time left for a whole quiet spell: wait out the deadline, then say how it was.
            let _ = tokio::time::timeout_at(deadline, drain(&mut output)).await;
            return Ok(Watched { happened: false, screen: visible(pane).await? });
        }
        match tokio::time::timeout_at(quiet_until, output.recv()).await {
            Err(_) => return Ok(Watched { happened: true, screen: visible(pane).await? }),
            Ok(Some(OutputEvent::Bytes(_) | OutputEvent::Lost)) => {}
            Ok(None) => return Ok(Watched { happened: false, screen: visible(pane).await? }),
        }
    }
}

async fn drain(output: &mut tmux_habitat::PaneOutput) {
    while output.recv().await.is_some() {}
}

/// The visible screen as text, without the blank rows below the last one written and without the concealed
/// markers around commands the habitat ran.
pub(crate) async fn visible(pane: &Pane) -> tmux_habitat::Result<String> {
    Ok(trim_screen(&tmux_habitat::without_markers(&pane.capture_text().await?)))
}

fn trim_screen(screen: &str) -> String {
    let mut text = screen.trim_end().to_owned();
    if !text.is_empty() {
        text.push('\n');
    }
    text
}

/// Looks at the screen with backoff until `done` accepts it or `deadline` (the subprocess transport's way).
async fn poll(pane: &Pane, deadline: Instant, mut done: impl FnMut(&str) -> bool) -> tmux_habitat::Result<Watched> {
    let mut backoff = Backoff::new(deadline.saturating_duration_since(Instant::now()));
    loop {
        let screen = visible(pane).await?;
        if done(&screen) {
            return Ok(Watched { happened: true, screen });
        }
        if !backoff.wait().await {
            return Ok(Watched { happened: false, screen });
        }
    }
}
