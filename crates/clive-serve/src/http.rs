//! The HTTP side: the page and its assets, the JSON and file endpoints, the two WebSockets, and the checks
//! in front of all of them (the access token, and the Origin of WebSocket upgrades).

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use serde::Deserialize;

use crate::assets;
use crate::feed::{Feed, Next as FeedNext, Snapshot};
use crate::fit::ViewerId;
use crate::hub::Hub;
use crate::policy::Access;
use crate::protocol::{AnswerResult, CLOSE_GONE, FitOwner, FitResult, PageMessage, PaneMessage};
use crate::ring::Position;
use crate::token::AccessToken;

/// The most output sent in one WebSocket message.
const CHUNK: usize = 64 * 1024;

/// Why a page without input access may not fit the pane to its screen.
pub(crate) const FIT_READ_ONLY: &str = "read-only: fitting the pane to this screen resizes it, which changes what \
     the agent sees and redraws; start `clive serve` with --allow-input (or --allow-input-for SESSION)";

#[derive(Clone)]
pub(crate) struct App {
    pub(crate) hub: Arc<Hub>,
    pub(crate) token: AccessToken,
    /// Cookies are not kept apart by port: each server names its own.
    pub(crate) cookie: String,
}

pub(crate) fn router(app: App) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/assets/{name}", get(asset))
        .route("/api/sessions", get(sessions_json))
        .route("/api/recordings/{id}", get(recording))
        .route("/api/logs/{id}", get(log))
        .route("/ws/sessions", get(sessions_socket))
        .route("/ws/pane/{key}", get(pane_socket))
        .layer(middleware::from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

#[derive(Debug, Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

/// Every request needs the token: in the cookie the page gets, a bearer header, or `?token=`. WebSocket
/// upgrades must also come from this server's own page (a browser always sends the Origin of the page that
/// opens a socket; tools that send none are let through on the token alone).
async fn guard(State(app): State<App>, Query(query): Query<TokenQuery>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let presented = query.token.clone().or_else(|| bearer(headers)).or_else(|| cookie(headers, &app.cookie));
    if !presented.is_some_and(|t| app.token.matches(&t)) {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "401: missing or wrong access token. Open the URL `clive serve` printed (it ends in ?token=…).\n",
        )
            .into_response();
    }
    if headers.contains_key(header::UPGRADE) && !same_origin(headers) {
        return (StatusCode::FORBIDDEN, "403: WebSocket from another origin refused.\n").into_response();
    }
    let set_cookie = query.token.is_some() && request.uri().path() == "/";
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if set_cookie {
        let value = format!("{}={}; HttpOnly; SameSite=Strict; Path=/", app.cookie, app.token.expose());
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(header::SET_COOKIE, value);
        }
    }
    response
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    value.strip_prefix("Bearer ").map(str::to_owned)
}

fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get_all(header::COOKIE).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(';')).find_map(|pair| {
        let (key, value) = pair.trim().split_once('=')?;
        (key == name).then(|| value.to_owned())
    })
}

/// No Origin, or one naming the host the request was sent to.
fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else { return true };
    let (Ok(origin), Some(Ok(host))) = (origin.to_str(), headers.get(header::HOST).map(|h| h.to_str())) else {
        return false;
    };
    origin == format!("http://{host}") || origin == format!("https://{host}")
}

/// The page. With `?token=` it sets the cookie and sends the browser on to `/`, so the token leaves the
/// address bar and the history.
async fn index(Query(query): Query<TokenQuery>) -> Response {
    if query.token.is_some() {
        return Redirect::to("/").into_response();
    }
    assets::page()
}

async fn asset(Path(name): Path<String>) -> Response {
    assets::asset(&name)
}

async fn sessions_json(State(app): State<App>) -> Response {
    let listing = app.hub.listing().borrow().clone();
    axum::Json(listing.as_ref().clone()).into_response()
}

async fn recording(State(app): State<App>, Path(id): Path<String>) -> Response {
    archive_file(&app, &id, true).await
}

async fn log(State(app): State<App>, Path(id): Path<String>) -> Response {
    archive_file(&app, &id, false).await
}

async fn archive_file(app: &App, id: &str, recording: bool) -> Response {
    let Some(path) = app.hub.archive_file(id, recording) else {
        return (StatusCode::NOT_FOUND, format!("404: nothing archived under {id:?}\n")).into_response();
    };
    match tokio::fs::read(&path).await {
        Ok(bytes) => {
            let kind = if recording { "application/x-asciicast" } else { "text/plain; charset=utf-8" };
            ([(header::CONTENT_TYPE, kind)], Body::from(bytes)).into_response()
        }
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, format!("reading {}: {e}\n", path.display())).into_response(),
    }
}

async fn sessions_socket(State(app): State<App>, upgrade: WebSocketUpgrade) -> Response {
    upgrade.on_upgrade(move |socket| follow_sessions(app, socket))
}

async fn follow_sessions(app: App, mut socket: WebSocket) {
    let mut listing = app.hub.listing();
    let mut stopping = app.hub.stopping();
    loop {
        let text = match serde_json::to_string(listing.borrow_and_update().as_ref()) {
            Ok(text) => text,
            Err(_) => return,
        };
        if socket.send(Message::Text(text.into())).await.is_err() {
            return;
        }
        tokio::select! {
            () = crate::hub::stopped(&mut stopping) => return,
            changed = listing.changed() => if changed.is_err() { return },
            message = socket.recv() => match message {
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(_)) => {}
            },
        }
    }
}

#[derive(Debug, Deserialize)]
struct Resume {
    epoch: Option<String>,
    offset: Option<u64>,
}

async fn pane_socket(
    State(app): State<App>,
    Path(key): Path<String>,
    Query(resume): Query<Resume>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let since = match (resume.epoch.and_then(|e| e.parse().ok()), resume.offset) {
        (Some(epoch), Some(offset)) => Some(Position { epoch, offset }),
        _ => None,
    };
    upgrade.on_upgrade(move |socket| async move {
        match app.hub.feed(&key) {
            Some(feed) => {
                let id = app.hub.next_viewer();
                Viewer { app, key, feed: Arc::clone(&feed), socket, id }.run(since).await;
                // The page left: its fit request (if any) goes, and the pane takes back the size before it.
                if let Err(e) = feed.unfit(id).await {
                    tracing::debug!(pane = %feed.pane().id(), error = %e, "withdrawing a fit request failed");
                }
            }
            None => close_gone(socket).await,
        }
    })
}

async fn close_gone(mut socket: WebSocket) {
    let frame = CloseFrame { code: CLOSE_GONE, reason: "no such pane".into() };
    let _ = socket.send(Message::Close(Some(frame))).await;
}

/// One page watching one pane.
struct Viewer {
    app: App,
    key: String,
    feed: Arc<Feed>,
    socket: WebSocket,
    id: ViewerId,
}

impl Viewer {
    async fn run(mut self, since: Option<Position>) {
        let mut changes = self.feed.changes();
        let mut seen = self.feed.seen();
        let mut listing = self.app.hub.listing();
        let mut stopping = self.app.hub.stopping();
        let mut holder = self.feed.fit_holder();
        changes.borrow_and_update();
        let mut at = match self.feed.start_from(since) {
            Ok(at) => at,
            Err(snapshot) => match self.send_snapshot(snapshot).await {
                Some(at) => at,
                None => return,
            },
        };
        let mut last_status = None;
        loop {
            let mut status = self.app.hub.status(&self.key, &seen.borrow_and_update());
            if let Some(status) = status.as_mut() {
                status.fit = match *holder.borrow_and_update() {
                    Some(id) if id == self.id => Some(FitOwner::ThisPage),
                    Some(_) => Some(FitOwner::AnotherPage),
                    None => None,
                };
            }
            if let Some(status) = status.filter(|s| last_status.as_ref() != Some(s)) {
                if !self.send(&PaneMessage::Status(status.clone())).await {
                    return;
                }
                last_status = Some(status);
            }
            // Everything the pane printed since the last round, then wait for more.
            loop {
                match self.feed.next(at, CHUNK) {
                    FeedNext::Bytes(bytes) if bytes.is_empty() => break,
                    FeedNext::Bytes(bytes) => {
                        let mut frame = Vec::with_capacity(8 + bytes.len());
                        frame.extend_from_slice(&at.offset.to_be_bytes());
                        frame.extend_from_slice(&bytes);
                        if self.socket.send(Message::Binary(frame.into())).await.is_err() {
                            return;
                        }
                        at.offset += bytes.len() as u64;
                    }
                    FeedNext::Snapshot(snapshot) => match self.send_snapshot(snapshot).await {
                        Some(new) => at = new,
                        None => return,
                    },
                    FeedNext::Ended => return close_gone(self.socket).await,
                }
            }
            tokio::select! {
                () = crate::hub::stopped(&mut stopping) => return,
                changed = changes.changed() => {
                    if changed.is_err() { return }
                    changes.borrow_and_update();
                }
                changed = seen.changed() => if changed.is_err() { return },
                changed = holder.changed() => if changed.is_err() { return },
                changed = listing.changed() => {
                    if changed.is_err() { return }
                    listing.borrow_and_update();
                }
                message = self.socket.recv() => match message {
                    Some(Ok(Message::Text(text))) => {
                        if !self.handle(text.as_str()).await {
                            return;
                        }
                    }
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                    Some(Ok(_)) => {}
                },
            }
        }
    }

    async fn send(&mut self, message: &PaneMessage) -> bool {
        match serde_json::to_string(message) {
            Ok(text) => self.socket.send(Message::Text(text.into())).await.is_ok(),
            Err(_) => false,
        }
    }

    async fn send_snapshot(&mut self, snapshot: Snapshot) -> Option<Position> {
        let message = PaneMessage::Snapshot {
            epoch: snapshot.position.epoch.to_string(),
            offset: snapshot.position.offset,
            cols: snapshot.size.0,
            rows: snapshot.size.1,
            data: snapshot.data,
        };
        self.send(&message).await.then_some(snapshot.position)
    }

    /// A message from the page. Returns false when the socket is done.
    async fn handle(&mut self, text: &str) -> bool {
        let message = match serde_json::from_str::<PageMessage>(text) {
            Ok(message) => message,
            Err(e) => return self.send(&PaneMessage::Error { message: format!("unreadable message: {e}") }).await,
        };
        let access = self.app.hub.access(&self.key);
        match message {
            PageMessage::Input { data } => {
                if access < Access::Input {
                    let message = "read-only: start `clive serve` with --allow-input (or --allow-input-for SESSION)";
                    return self.send(&PaneMessage::Error { message: message.into() }).await;
                }
                let pane = self.feed.pane().clone();
                let result = async {
                    let _writer = pane.lock().await;
                    pane.send_text(&data).await
                }
                .await;
                if let Err(e) = result {
                    return self.send(&PaneMessage::Error { message: format!("typing failed: {e}") }).await;
                }
                true
            }
            PageMessage::Answer { dialog, choice } => {
                let (result, reason) = if access < Access::Approvals {
                    (AnswerResult::Refused, Some("read-only: start `clive serve` with --allow-approvals".to_owned()))
                } else {
                    match self.feed.answer(&dialog, choice).await {
                        Ok(outcome) => outcome,
                        Err(e) => (AnswerResult::Stale, Some(format!("the pane could not be read: {e}"))),
                    }
                };
                self.send(&PaneMessage::Answer { result, reason }).await
            }
            PageMessage::Fit { cols, rows } => {
                let (result, reason) = if access < Access::Input {
                    (FitResult::Refused, Some(FIT_READ_ONLY.to_owned()))
                } else {
                    match self.feed.fit(self.id, cols, rows).await {
                        Ok(()) => (FitResult::Applied, None),
                        Err(e) => (FitResult::Refused, Some(e.to_string())),
                    }
                };
                self.send(&PaneMessage::Fit { result, reason }).await
            }
            PageMessage::Unfit => match self.feed.unfit(self.id).await {
                Ok(()) => true,
                Err(e) => {
                    self.send(&PaneMessage::Error { message: format!("putting the size back failed: {e}") }).await
                }
            },
        }
    }
}
