//! A served tmux server for tests: an isolated tmux server, a `clive_serve` in front of it, and clients that
//! speak to it the way the page does.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)] // test code: a panic is the failure report

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clive_serve::{AccessToken, Catalog, InputPolicy, ServeConfig, ServeHandle, TmuxCatalog};
use futures_util::StreamExt;
use serde_json::Value;
use tmux_habitat::{Backoff, Server};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub const TIMEOUT: Duration = Duration::from_secs(15);

/// The fake agent binary: cargo builds examples before integration tests, into `target/<profile>/examples/`.
pub fn fake_agent() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let path = exe.parent().unwrap().join("../examples/fake-agent");
    assert!(
        path.exists(),
        "fake agent not built at {}: run `cargo build -p lane-send --example fake-agent` (cargo test --workspace does)",
        path.display()
    );
    path
}

pub struct Served {
    pub tmux: Server,
    pub serve: ServeHandle,
    pub token: AccessToken,
    pub dir: tempfile::TempDir,
}

impl Served {
    pub async fn start(policy: InputPolicy) -> Served {
        let tmux = Server::isolated().await.unwrap();
        Served::on(tmux, policy).await
    }

    pub async fn on(tmux: Server, policy: InputPolicy) -> Served {
        Served::configured(tmux, policy, |_, _| {}).await
    }

    /// As [`Served::on`], with `configure` changing the settings (it gets the test's directory too).
    pub async fn configured(
        tmux: Server,
        policy: InputPolicy,
        configure: impl FnOnce(&mut ServeConfig, &std::path::Path),
    ) -> Served {
        let dir = tempfile::tempdir().unwrap();
        let token = AccessToken::generate();
        let mut config = ServeConfig::new(token.clone());
        config.addr = "127.0.0.1:0".parse().unwrap();
        config.policy = policy;
        config.recordings = Some(dir.path().join("recordings"));
        config.refresh = Duration::from_millis(200);
        configure(&mut config, dir.path());
        let catalog: Arc<dyn Catalog> = Arc::new(TmuxCatalog::new("test", tmux.clone(), ""));
        let serve = clive_serve::serve(config, vec![catalog]).await.unwrap();
        Served { tmux, serve, token, dir }
    }

    pub fn http(&self, path: &str) -> String {
        format!("http://{}{path}", self.serve.addr())
    }

    /// The listing, through the JSON endpoint.
    pub async fn listing(&self) -> Value {
        reqwest::Client::new()
            .get(self.http("/api/sessions"))
            .bearer_auth(self.token.expose())
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// Waits until the listing has a pane of `session` for which `test` holds, and returns that pane.
    pub async fn pane_where(&self, session: &str, test: impl Fn(&Value) -> bool) -> Value {
        let mut backoff = Backoff::new(TIMEOUT);
        loop {
            let listing = self.listing().await;
            let pane = listing["panes"].as_array().unwrap().iter().find(|p| p["session"] == session).cloned();
            if let Some(pane) = pane.filter(|p| test(p)) {
                return pane;
            }
            assert!(backoff.wait().await, "no pane of {session} as wanted in {listing:#}");
        }
    }

    /// Opens a pane socket as the page does (same Origin, cookie), resuming from `since` when given.
    pub async fn open_pane(&self, key: &str, since: Option<(&str, u64)>) -> PaneClient {
        let mut path = format!("/ws/pane/{key}");
        if let Some((epoch, offset)) = since {
            path.push_str(&format!("?epoch={epoch}&offset={offset}"));
        }
        let origin = format!("http://{}", self.serve.addr());
        let socket = self.ws(&path, Some(&origin)).await.unwrap();
        PaneClient { socket, epoch: None, offset: 0, shown: Vec::new(), snapshots: 0, statuses: Vec::new() }
    }

    /// Opens a WebSocket with the token in a cookie and the given Origin header.
    pub async fn ws(
        &self,
        path: &str,
        origin: Option<&str>,
    ) -> Result<WebSocketStream<MaybeTlsStream<TcpStream>>, tokio_tungstenite::tungstenite::Error> {
        let url = format!("ws://{}{path}", self.serve.addr());
        let mut request = url.into_client_request().unwrap();
        let cookie = format!("clive_serve_{}={}", self.serve.addr().port(), self.token.expose());
        request.headers_mut().insert("cookie", cookie.parse().unwrap());
        if let Some(origin) = origin {
            request.headers_mut().insert("origin", origin.parse().unwrap());
        }
        tokio_tungstenite::connect_async(request).await.map(|(socket, _)| socket)
    }
}

/// A pane socket and what it has shown so far.
pub struct PaneClient {
    pub socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub epoch: Option<String>,
    pub offset: u64,
    /// Output bytes received since the last snapshot.
    pub shown: Vec<u8>,
    pub snapshots: usize,
    pub statuses: Vec<Value>,
}

pub enum Received {
    Snapshot(Value),
    Output(u64, Vec<u8>),
    Text(Value),
    Closed(Option<u16>),
}

impl PaneClient {
    /// The next message, applied to what this client shows.
    pub async fn next(&mut self) -> Received {
        let message = tokio::time::timeout(TIMEOUT, self.socket.next()).await.expect("no message from the server");
        match message {
            Some(Ok(Message::Binary(bytes))) => {
                let offset = u64::from_be_bytes(bytes[..8].try_into().unwrap());
                assert_eq!(offset, self.offset, "output must continue exactly where the client is");
                self.shown.extend_from_slice(&bytes[8..]);
                self.offset += (bytes.len() - 8) as u64;
                Received::Output(offset, bytes[8..].to_vec())
            }
            Some(Ok(Message::Text(text))) => {
                let value: Value = serde_json::from_str(text.as_str()).unwrap();
                match value["type"].as_str() {
                    Some("snapshot") => {
                        self.snapshots += 1;
                        self.epoch = value["epoch"].as_str().map(str::to_owned);
                        self.offset = value["offset"].as_u64().unwrap();
                        self.shown.clear();
                        Received::Snapshot(value)
                    }
                    Some("status") => {
                        self.statuses.push(value.clone());
                        Received::Text(value)
                    }
                    _ => Received::Text(value),
                }
            }
            Some(Ok(Message::Close(frame))) => Received::Closed(frame.map(|f| u16::from(f.code))),
            None => Received::Closed(None),
            Some(Ok(_)) => Box::pin(self.next()).await,
            Some(Err(e)) => panic!("pane socket failed: {e}"),
        }
    }

    /// Reads until the output shown since the last snapshot contains `needle`.
    pub async fn until_output(&mut self, needle: &str) {
        while !String::from_utf8_lossy(&self.shown).contains(needle) {
            if let Received::Closed(code) = self.next().await {
                panic!("socket closed ({code:?}) before {needle:?} arrived");
            }
        }
    }

    /// Reads until a status message satisfies `test`, and returns it.
    pub async fn until_status(&mut self, test: impl Fn(&Value) -> bool) -> Value {
        if let Some(status) = self.statuses.iter().rev().find(|s| test(s)) {
            return status.clone();
        }
        loop {
            match self.next().await {
                Received::Text(value) if value["type"] == "status" && test(&value) => return value,
                Received::Closed(code) => panic!("socket closed ({code:?}) while waiting for a status"),
                _ => {}
            }
        }
    }

    /// Reads until a message of type `kind` arrives, and returns it.
    pub async fn until_message(&mut self, kind: &str) -> Value {
        loop {
            match self.next().await {
                Received::Text(value) if value["type"] == kind => return value,
                Received::Closed(code) => panic!("socket closed ({code:?}) while waiting for {kind}"),
                _ => {}
            }
        }
    }

    pub async fn send(&mut self, message: Value) {
        use futures_util::SinkExt;
        self.socket.send(Message::Text(message.to_string().into())).await.unwrap();
    }
}
