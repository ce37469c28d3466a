//! A headless Chromium driven over the DevTools protocol, for tests and benchmarks of the page (feature
//! `testing`). One browser, one page; every wait has a deadline and ends on a signal from the page.
//!
//! Debian's `chromium` is found on `PATH` (or `$CLIVE_CHROMIUM`); run as root it needs `--no-sandbox`,
//! which is passed, with a fresh profile directory that is removed on drop.

use std::process::Stdio;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Why the browser could not do what was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BrowserError {
    /// No Chromium binary was found.
    #[error("no chromium found (tried {tried}); install Debian's `chromium` or set CLIVE_CHROMIUM")]
    NotFound {
        /// The names tried.
        tried: String,
    },
    /// Starting it or talking to it failed.
    #[error("chromium: {0}")]
    Protocol(String),
    /// A wait ran out.
    #[error("timed out after {timeout:?} waiting for {what}")]
    Timeout {
        /// What was awaited.
        what: String,
        /// The deadline.
        timeout: Duration,
    },
    /// Script on the page threw.
    #[error("page script failed: {0}")]
    Script(String),
}

type Result<T> = std::result::Result<T, BrowserError>;

/// A running headless Chromium with one page. Killed on drop.
#[derive(Debug)]
pub struct Browser {
    child: tokio::process::Child,
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// The page commands go to.
    page: Page,
    next_id: u64,
    profile: std::path::PathBuf,
}

/// One page (tab) of the browser. [`Browser::new_page`] opens more; [`Browser::switch_to`] chooses the one
/// commands go to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    target: String,
    session: String,
}

/// The command-line switches Chromium needs here: headless, as root, no network of its own.
const SWITCHES: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--remote-debugging-port=0",
];

/// Where to look for the browser.
pub fn chromium_path() -> Option<std::path::PathBuf> {
    if let Some(path) = std::env::var_os("CLIVE_CHROMIUM") {
        return Some(path.into());
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

impl Browser {
    /// Starts Chromium with a `width`×`height` window and opens a blank page.
    pub async fn launch(width: u32, height: u32) -> Result<Browser> {
        let program = chromium_path()
            .ok_or_else(|| BrowserError::NotFound { tried: "$CLIVE_CHROMIUM, chromium, chromium-browser".into() })?;
        let profile = std::env::temp_dir().join(format!("clive-chromium-{:016x}", rand::random::<u64>()));
        let mut child = tokio::process::Command::new(program)
            .args(SWITCHES)
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--window-size={width},{height}"))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| BrowserError::Protocol(format!("starting: {e}")))?;
        let stderr = child.stderr.take().ok_or_else(|| BrowserError::Protocol("no stderr".into()))?;
        let mut lines = BufReader::new(stderr).lines();
        let endpoint = tokio::time::timeout(Duration::from_secs(30), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(url) = line.strip_prefix("DevTools listening on ") {
                    return Some(url.trim().to_owned());
                }
            }
            None
        })
        .await
        .map_err(|_| BrowserError::Timeout { what: "chromium to start".into(), timeout: Duration::from_secs(30) })?
        .ok_or_else(|| BrowserError::Protocol("exited before it listened".into()))?;
        // Keep draining stderr so a chatty browser never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let (socket, _) = tokio_tungstenite::connect_async(&endpoint)
            .await
            .map_err(|e| BrowserError::Protocol(format!("connecting to {endpoint}: {e}")))?;
        let page = Page { target: String::new(), session: String::new() };
        let mut browser = Browser { child, socket, page, next_id: 0, profile };
        browser.page = browser.new_page().await?;
        Ok(browser)
    }

    /// Opens another blank page (a second tab, sharing cookies and storage with the first). Commands keep
    /// going to the current page until [`Browser::switch_to`].
    pub async fn new_page(&mut self) -> Result<Page> {
        let target = self.call(None, "Target.createTarget", json!({"url": "about:blank"})).await?;
        let target = target["targetId"].as_str().unwrap_or_default().to_owned();
        let attached = self.call(None, "Target.attachToTarget", json!({"targetId": target, "flatten": true})).await?;
        let page = Page { target, session: attached["sessionId"].as_str().unwrap_or_default().to_owned() };
        for method in ["Page.enable", "Runtime.enable"] {
            self.call(Some(&page.session), method, json!({})).await?;
        }
        Ok(page)
    }

    /// The page commands go to.
    pub fn page(&self) -> &Page {
        &self.page
    }

    /// Brings `page` to the front and sends the following commands to it. (A page behind another one is
    /// hidden: it stops drawing, as a background tab does.)
    pub async fn switch_to(&mut self, page: &Page) -> Result<()> {
        self.page = page.clone();
        self.command("Page.bringToFront", json!({})).await.map(drop)
    }

    /// Closes `page` (its sockets close as a closed tab's do).
    pub async fn close_page(&mut self, page: &Page) -> Result<()> {
        self.call(None, "Target.closeTarget", json!({"targetId": page.target})).await.map(drop)
    }

    /// Grants `permissions` (`"notifications"`, …) to pages from `origin` (`http://127.0.0.1:7878`), as a
    /// person clicking "Allow" would.
    pub async fn grant_permissions(&mut self, origin: &str, permissions: &[&str]) -> Result<()> {
        self.call(None, "Browser.grantPermissions", json!({"origin": origin, "permissions": permissions}))
            .await
            .map(drop)
    }

    /// Closes the browser, waits (at most 10 s) for it to exit, and removes its profile. Dropping a `Browser`
    /// kills it at once, and its helper processes may still be writing into the profile while it is removed.
    pub async fn close(mut self) {
        // The reply may never come: the browser closes the connection as it goes.
        let _ = tokio::time::timeout(Duration::from_secs(5), self.call(None, "Browser.close", json!({}))).await;
        let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
        let _ = std::fs::remove_dir_all(&self.profile);
    }

    async fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Result<Value> {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        self.socket
            .send(Message::Text(message.to_string().into()))
            .await
            .map_err(|e| BrowserError::Protocol(format!("{method}: {e}")))?;
        loop {
            let reply = match self.socket.next().await {
                Some(Ok(Message::Text(text))) => text,
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(BrowserError::Protocol(format!("{method}: {e}"))),
                None => return Err(BrowserError::Protocol(format!("{method}: the browser went away"))),
            };
            let reply: Value =
                serde_json::from_str(reply.as_str()).map_err(|e| BrowserError::Protocol(format!("{method}: {e}")))?;
            // Events and replies to nobody else are skipped: one call is in flight at a time.
            if reply["id"].as_u64() != Some(id) {
                continue;
            }
            if let Some(error) = reply.get("error") {
                return Err(BrowserError::Protocol(format!("{method}: {error}")));
            }
            return Ok(reply["result"].clone());
        }
    }

    /// Sends a DevTools command to the page and returns its result.
    pub async fn command(&mut self, method: &str, params: Value) -> Result<Value> {
        let session = self.page.session.clone();
        self.call(Some(&session), method, params).await
    }

    /// Sets the page's viewport (a phone is `390`×`844` with `mobile`).
    pub async fn viewport(&mut self, width: u32, height: u32, mobile: bool) -> Result<()> {
        let params = json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile});
        self.command("Emulation.setDeviceMetricsOverride", params).await.map(drop)
    }

    /// Opens `url` and waits until the page has loaded.
    pub async fn goto(&mut self, url: &str) -> Result<()> {
        let reply = self.command("Page.navigate", json!({"url": url})).await?;
        if let Some(error) = reply.get("errorText").and_then(Value::as_str) {
            return Err(BrowserError::Protocol(format!("opening {url}: {error}")));
        }
        self.wait_for("document.readyState === 'complete'", Duration::from_secs(20)).await.map(drop)
    }

    /// Evaluates `expression` on the page (promises are awaited) and returns its value.
    pub async fn eval(&mut self, expression: &str) -> Result<Value> {
        let params = json!({"expression": expression, "returnByValue": true, "awaitPromise": true});
        let reply = self.command("Runtime.evaluate", params).await?;
        if let Some(details) = reply.get("exceptionDetails") {
            let text = details["exception"]["description"].as_str().or_else(|| details["text"].as_str());
            return Err(BrowserError::Script(text.unwrap_or("unknown error").to_owned()));
        }
        Ok(reply["result"]["value"].clone())
    }

    /// Waits until `condition` (a JavaScript expression) is truthy on the page and returns its value. The
    /// page checks it on every change of the document, and otherwise with a backoff up to 100 ms.
    pub async fn wait_for(&mut self, condition: &str, timeout: Duration) -> Result<Value> {
        let script = format!(
            r#"new Promise((resolve, reject) => {{
                const test = () => {{ try {{ return ({condition}); }} catch (e) {{ return undefined; }} }};
                let done = false, delay = 5;
                const finish = (ok, value) => {{ if (done) return; done = true; observer.disconnect(); ok ? resolve(value) : reject(value); }};
                const check = () => {{ const v = test(); if (v) finish(true, v); }};
                const observer = new MutationObserver(check);
                observer.observe(document, {{ subtree: true, childList: true, characterData: true, attributes: true }});
                const tick = () => {{ if (done) return; check(); delay = Math.min(100, delay * 2); setTimeout(tick, delay); }};
                setTimeout(() => finish(false, new Error('timeout')), {ms});
                tick();
            }})"#,
            ms = timeout.as_millis()
        );
        match tokio::time::timeout(timeout + Duration::from_secs(5), self.eval(&script)).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(BrowserError::Script(text))) if text.contains("timeout") => {
                Err(BrowserError::Timeout { what: condition.to_owned(), timeout })
            }
            Ok(Err(e)) => Err(e),
            Err(_) => Err(BrowserError::Timeout { what: condition.to_owned(), timeout }),
        }
    }

    /// A PNG of the page as it is now.
    pub async fn screenshot(&mut self) -> Result<Vec<u8>> {
        let reply = self.command("Page.captureScreenshot", json!({"format": "png"})).await?;
        let data = reply["data"].as_str().ok_or_else(|| BrowserError::Protocol("no screenshot data".into()))?;
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| BrowserError::Protocol(format!("screenshot data is not base64: {e}")))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // The browser first: a live one still writes into its profile while it is being removed (which left
        // `clive-chromium-*` directories behind).
        let _ = self.child.start_kill();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}
