//! A cancellation handle shared by the caller, the executor and the runners.

use std::sync::Arc;

use tokio::sync::watch;

/// Cancels a run: pending subtasks are not started and runners interrupt running ones.
///
/// Clones share one state; cancelling any clone cancels them all. The CLI maps Ctrl-C onto
/// [`CancelToken::cancel`].
#[derive(Debug, Clone)]
pub struct CancelToken {
    state: Arc<watch::Sender<bool>>,
}

impl Default for CancelToken {
    fn default() -> Self {
        CancelToken::new()
    }
}

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> CancelToken {
        CancelToken { state: Arc::new(watch::Sender::new(false)) }
    }

    /// Cancels; idempotent.
    pub fn cancel(&self) {
        self.state.send_replace(true);
    }

    /// Whether [`CancelToken::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        *self.state.borrow()
    }

    /// Resolves once the token is cancelled (at once if it already is).
    pub async fn cancelled(&self) {
        let mut receiver = self.state.subscribe();
        // The sender lives as long as `self`, so waiting cannot fail while we hold it.
        let _ = receiver.wait_for(|cancelled| *cancelled).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn clones_share_cancellation() {
        let token = CancelToken::new();
        let clone = token.clone();
        assert!(!clone.is_cancelled());
        let waiter = tokio::spawn(async move { clone.cancelled().await });
        token.cancel();
        tokio::time::timeout(std::time::Duration::from_secs(5), waiter).await.unwrap().unwrap();
        assert!(token.is_cancelled());
        token.cancelled().await;
    }
}
