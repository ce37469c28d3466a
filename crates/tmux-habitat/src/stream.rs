//! Waiting on a pane's output stream (control mode): no polling, the wait ends when the bytes arrive.

use tmux_control::{OutputSubscription, PaneEvent};
use tokio::time::Instant;

/// How a wait on the stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamWait {
    /// The marker arrived, followed by the end of its line.
    Found,
    /// Output was lost on the way (the subscriber lagged, tmux paused the pane, or the connection closed):
    /// the caller must look at the screen instead.
    Lost,
    /// The deadline passed.
    TimedOut,
}

/// Bytes kept from earlier chunks, so a marker split across two `%output` lines is still found.
const KEEP: usize = 4096;

/// Waits until `marker` followed by a line end appears in the pane's output.
pub(crate) async fn wait_for_marker(sub: &mut OutputSubscription, marker: &[u8], deadline: Instant) -> StreamWait {
    wait_until(sub, deadline, |window| marker_line_complete(window, marker)).await
}

/// Waits until the default shell names a prompt in the pane title (`ESC ] 2 ; hab-prompt-… BEL`, see
/// [`crate::shell_prompt`]).
pub(crate) async fn wait_for_prompt_title(sub: &mut OutputSubscription, deadline: Instant) -> StreamWait {
    wait_until(sub, deadline, prompt_title_complete).await
}

/// Waits until `seen` accepts the pane's recent output (the last few KiB, so a sign split across two
/// `%output` lines is still found).
async fn wait_until(sub: &mut OutputSubscription, deadline: Instant, seen: impl Fn(&[u8]) -> bool) -> StreamWait {
    let mut window: Vec<u8> = Vec::new();
    loop {
        let event = match tokio::time::timeout_at(deadline, sub.recv()).await {
            Err(_) => return StreamWait::TimedOut,
            Ok(None) => return StreamWait::Lost,
            Ok(Some(event)) => event,
        };
        match event {
            PaneEvent::Output(bytes) => {
                window.extend_from_slice(&bytes);
                if seen(&window) {
                    return StreamWait::Found;
                }
                if window.len() > KEEP {
                    window.drain(..window.len() - KEEP);
                }
            }
            PaneEvent::Lagged { .. } | PaneEvent::Paused => return StreamWait::Lost,
            PaneEvent::Continued => {}
        }
    }
}

/// Waits until the pane prints anything (or output is lost, or the deadline passes).
pub(crate) async fn wait_for_any_output(sub: &mut OutputSubscription, deadline: Instant) -> StreamWait {
    match tokio::time::timeout_at(deadline, sub.recv()).await {
        Err(_) => StreamWait::TimedOut,
        Ok(Some(PaneEvent::Output(_) | PaneEvent::Continued)) => StreamWait::Found,
        Ok(_) => StreamWait::Lost,
    }
}

fn marker_line_complete(window: &[u8], marker: &[u8]) -> bool {
    window
        .windows(marker.len())
        .position(|w| w == marker)
        .is_some_and(|at| window[at + marker.len()..].iter().any(|&b| b == b'\n' || b == b'\r'))
}

/// Whether `window` holds a whole prompt title of the default shell.
fn prompt_title_complete(window: &[u8]) -> bool {
    const START: &[u8] = b"\x1b]2;hab-prompt-";
    window.windows(START.len()).enumerate().any(|(at, w)| {
        w == START
            && window[at + START.len()..]
                .iter()
                .position(|&b| b == b'\x07')
                // The title is what follows `ESC ] 2 ;`, up to the BEL.
                .and_then(|end| std::str::from_utf8(&window[at + 4..at + START.len() + end]).ok())
                .is_some_and(|title| crate::shell_prompt(title).is_some())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_title_counts_once_it_is_whole() {
        assert!(prompt_title_complete(b"\x1b]2;hab-prompt-1-0\x07\x1b[?2004h$ "));
        assert!(prompt_title_complete(b"abc\x1b]2;hab-prompt-12-130\x07"));
        assert!(!prompt_title_complete(b"\x1b]2;hab-prompt-1-"), "not ended yet");
        assert!(!prompt_title_complete(b"\x1b]2;hab-prompt-x-0\x07"));
        assert!(!prompt_title_complete(b"\x1b]2;vim\x07"));
        assert!(!prompt_title_complete(b"printf hab-prompt-1-0\x07"), "only as a title");
    }

    #[test]
    fn a_marker_counts_once_its_line_ends() {
        assert!(!marker_line_complete(b"xx__HAB_E_t:", b"__HAB_E_t:"));
        assert!(!marker_line_complete(b"xx__HAB_E_t:12", b"__HAB_E_t:"));
        assert!(marker_line_complete(b"xx__HAB_E_t:12\r\n", b"__HAB_E_t:"));
        assert!(!marker_line_complete(b"__HAB_E_ t:0\r\n", b"__HAB_E_t:"));
    }
}
