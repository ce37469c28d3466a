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
                if marker_line_complete(&window, marker) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_counts_once_its_line_ends() {
        assert!(!marker_line_complete(b"xx__HAB_E_t:", b"__HAB_E_t:"));
        assert!(!marker_line_complete(b"xx__HAB_E_t:12", b"__HAB_E_t:"));
        assert!(marker_line_complete(b"xx__HAB_E_t:12\r\n", b"__HAB_E_t:"));
        assert!(!marker_line_complete(b"__HAB_E_ t:0\r\n", b"__HAB_E_t:"));
    }
}
