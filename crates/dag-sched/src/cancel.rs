//! A cancellation handle shared by the caller, the executor and the runners.

/// Cancels a run: pending subtasks are not started and runners interrupt running ones.
///
/// It is tokio-util's [`CancellationToken`](tokio_util::sync::CancellationToken): clones share one state,
/// cancelling any clone cancels them all, and [`child_token`](tokio_util::sync::CancellationToken::child_token)
/// gives a runner a token of its own that the run's cancellation still reaches. The CLI maps Ctrl-C onto
/// `cancel()`.
pub type CancelToken = tokio_util::sync::CancellationToken;

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
