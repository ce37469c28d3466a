//! What the pane tests share.

/// Every test runs once per transport: the pane API must behave the same over both.
macro_rules! on_both_transports {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[tokio::test]
                async fn control() {
                    super::$name(tmux_habitat::TransportKind::Control).await
                }
                #[tokio::test]
                async fn subprocess() {
                    super::$name(tmux_habitat::TransportKind::Subprocess).await
                }
            }
        )*
    };
}
