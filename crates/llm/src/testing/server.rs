//! The fake server itself: an axum app on 127.0.0.1 serving scripted replies in order.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use serde_json::json;
use tokio::task::JoinHandle;

use super::reply::Reply;
use crate::config::{ProviderConfig, ProviderKind};
use crate::retry::{RetryPolicy, Timeouts};

/// One request the fake server received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// The HTTP method.
    pub method: String,
    /// The path, e.g. `/v1/messages`.
    pub path: String,
    /// Headers, names lowercased.
    pub headers: BTreeMap<String, String>,
    /// The body parsed as JSON (`Null` if it was not JSON).
    pub body: serde_json::Value,
}

impl RecordedRequest {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(&name.to_ascii_lowercase()).map(String::as_str)
    }
}

/// Answers a request that no scripted reply is left for (see [`FakeServer::start_with`]).
type Responder = Box<dyn Fn(&RecordedRequest) -> Reply + Send + Sync>;

#[derive(Default)]
struct Script {
    replies: VecDeque<Reply>,
    requests: Vec<RecordedRequest>,
    responder: Option<Responder>,
}

type Shared = Arc<Mutex<Script>>;

/// A scripted server on `127.0.0.1`; see the [module docs](super). Shut down when dropped.
pub struct FakeServer {
    url: String,
    script: Shared,
    task: JoinHandle<()>,
}

impl FakeServer {
    /// Binds a free port and starts serving (it is ready when this returns).
    pub async fn start() -> std::io::Result<FakeServer> {
        Self::serve(Script::default()).await
    }

    /// Like [`start`](Self::start), but a request with no scripted reply left is answered by `responder`
    /// instead of an error (for clients that make requests no test can predict, such as real agent CLIs; see
    /// [`AgentBackend`](super::AgentBackend)).
    pub async fn start_with(
        responder: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    ) -> std::io::Result<FakeServer> {
        Self::serve(Script { responder: Some(Box::new(responder)), ..Script::default() }).await
    }

    async fn serve(script: Script) -> std::io::Result<FakeServer> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}", listener.local_addr()?);
        let script = Arc::new(Mutex::new(script));
        let app = axum::Router::new().fallback(answer).with_state(script.clone());
        let task = tokio::spawn(async move {
            if let Err(error) = axum::serve(listener, app).await {
                tracing::error!(%error, "fake LLM server stopped");
            }
        });
        Ok(FakeServer { url, script, task })
    }

    /// The server's root URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The base URL a provider of `kind` is configured with: the root for Anthropic and Ollama, `/v1` for
    /// OpenAI-style providers, `/api/v1` for OpenRouter (as on openrouter.ai).
    pub fn base_url(&self, kind: ProviderKind) -> String {
        match kind {
            ProviderKind::Anthropic | ProviderKind::Ollama | ProviderKind::OllamaNative => self.url.clone(),
            ProviderKind::OpenRouter => format!("{}/api/v1", self.url),
            ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => format!("{}/v1", self.url),
        }
    }

    /// A configuration pointing `kind` at this server, with API key `test-key`, millisecond retry backoffs and
    /// short deadlines (2 s).
    pub fn config(&self, kind: ProviderKind) -> ProviderConfig {
        let mut config = ProviderConfig::new(kind)
            .retry(RetryPolicy::fast_for_tests())
            .timeouts(Timeouts {
                connect: std::time::Duration::from_secs(2),
                request: std::time::Duration::from_secs(2),
                stream_idle: std::time::Duration::from_secs(2),
            })
            .api_key("test-key");
        config.base_url = Some(self.base_url(kind));
        config
    }

    /// Queues the reply to the next unanswered request.
    pub fn push(&self, reply: Reply) -> &Self {
        self.lock().replies.push_back(reply);
        self
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    /// Scripted replies not yet served.
    pub fn unserved(&self) -> usize {
        self.lock().replies.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Script> {
        self.script.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl std::fmt::Debug for FakeServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeServer").field("url", &self.url).finish_non_exhaustive()
    }
}

async fn answer(State(script): State<Shared>, method: Method, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let recorded = RecordedRequest {
        method: method.to_string(),
        path: uri.path().to_owned(),
        headers: headers
            .iter()
            .map(|(name, value)| (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
            .collect(),
        body: serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null),
    };
    let reply = {
        let mut script = script.lock().unwrap_or_else(PoisonError::into_inner);
        let reply = script.replies.pop_front();
        let reply = reply.or_else(|| script.responder.as_ref().map(|responder| responder(&recorded)));
        script.requests.push(recorded);
        reply
    };
    let reply = reply.unwrap_or_else(|| {
        let message = format!("fake server: no scripted reply left for {method} {}", uri.path());
        Reply::json(500, json!({"error": {"type": "fake_server_exhausted", "message": message}}))
    });
    if !reply.headers_delay.is_zero() {
        tokio::time::sleep(reply.headers_delay).await;
    }
    let body = if reply.streamed {
        let Reply { chunks, chunk_delay, cut, .. } = reply.clone();
        let mut items: VecDeque<Option<Vec<u8>>> = chunks.into_iter().map(Some).collect();
        if cut {
            items.push_back(None);
        }
        Body::from_stream(futures_util::stream::unfold(items, move |mut items| async move {
            let item = items.pop_front()?;
            if !chunk_delay.is_zero() {
                tokio::time::sleep(chunk_delay).await;
            }
            // An error ends the chunked body without its terminator: the client sees a broken connection.
            let item = item.ok_or_else(|| std::io::Error::new(std::io::ErrorKind::ConnectionReset, "scripted cut"));
            Some((item, items))
        }))
    } else {
        Body::from(reply.chunks.concat())
    };
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    for (name, value) in &reply.headers {
        if let (Ok(name), Ok(value)) =
            (axum::http::HeaderName::try_from(name.as_str()), axum::http::HeaderValue::try_from(value.as_str()))
        {
            response.headers_mut().append(name, value);
        }
    }
    response
}
