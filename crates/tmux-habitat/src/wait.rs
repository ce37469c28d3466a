//! Waiting without sleeping blindly: exponential backoff under a deadline.

use std::time::Duration;

use tokio::time::Instant;

/// Delays that start small and double up to a cap, for the few waits that must look again (a screen that
/// changes without telling us). Signals (a `wait-for` channel) are preferred wherever the pane can send one.
#[derive(Debug, Clone)]
pub struct Backoff {
    next: Duration,
    cap: Duration,
    deadline: Instant,
}

impl Backoff {
    /// 10 ms doubling to a 500 ms cap, ending at `timeout` from now.
    pub fn new(timeout: Duration) -> Self {
        Backoff::with(Duration::from_millis(10), Duration::from_millis(500), timeout)
    }

    /// Custom first delay and cap.
    pub fn with(first: Duration, cap: Duration, timeout: Duration) -> Self {
        Backoff { next: first, cap, deadline: Instant::now() + timeout }
    }

    /// Waits for the next delay (never past the deadline). Returns `false` once the deadline has passed.
    pub async fn wait(&mut self) -> bool {
        let now = Instant::now();
        if now >= self.deadline {
            return false;
        }
        let delay = self.next.min(self.deadline - now);
        tokio::time::sleep(delay).await;
        self.next = (self.next * 2).min(self.cap);
        true
    }

    /// Time left before the deadline.
    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn doubles_to_the_cap_and_stops_at_the_deadline() {
        let start = Instant::now();
        let mut backoff =
            Backoff::with(Duration::from_millis(10), Duration::from_millis(40), Duration::from_millis(200));
        let mut marks = Vec::new();
        while backoff.wait().await {
            marks.push((Instant::now() - start).as_millis());
        }
        assert_eq!(marks, vec![10, 30, 70, 110, 150, 190, 200]);
    }
}
