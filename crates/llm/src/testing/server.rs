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

    /// The text of the conversation: the system prompt and every message's text, one per line, in any
    /// provider's format (a string, or content blocks with `text`). What [`FakeServer::push_matching`] searches.
    pub fn text(&self) -> String {
        let mut out = Vec::new();
        for key in ["system", "messages", "input", "prompt"] {
            collect_text(&self.body[key], &mut out);
        }
        out.join("\n")
    }
}

/// Every string of a message tree that is text a model reads: strings, `text` and `content` fields, and the
/// items of arrays (not roles, types or cache markers).
fn collect_text<'a>(value: &'a serde_json::Value, out: &mut Vec<&'a str>) {
    match value {
        serde_json::Value::String(text) => out.push(text),
        serde_json::Value::Array(items) => items.iter().for_each(|item| collect_text(item, out)),
        serde_json::Value::Object(fields) => {
            for key in ["text", "content"] {
                if let Some(field) = fields.get(key) {
                    collect_text(field, out);
                }
            }
        }
        _ => {}
    }
}

/// Answers a request that no scripted reply is left for (see [`FakeServer::start_with`]).
type Responder = Box<dyn Fn(&RecordedRequest) -> Reply + Send + Sync>;

/// A queued reply, and the text a request must contain to get it (any request when `None`).
struct Queued {
    needle: Option<String>,
    reply: Reply,
}

#[derive(Default)]
struct Script {
    replies: VecDeque<Queued>,
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
        self.lock().replies.push_back(Queued { needle: None, reply });
        self
    }

    /// Queues a reply for a request whose [text](RecordedRequest::text) contains `needle`: for clients whose
    /// concurrent requests arrive in no fixed order (two subtasks running in parallel). Each request gets the
    /// first queued reply it qualifies for: a [`push`](Self::push)ed one always, a matching one when its text
    /// contains the needle. So a queue of only `push`ed replies is served strictly in order.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use clive_models::testing::{FakeServer, Reply, Tokens, wire};
    /// use clive_models::{ChatModel, ChatRequest, ProviderKind};
    ///
    /// let server = FakeServer::start().await?;
    /// let reply = |text| Reply::json(200, wire::anthropic::message(text, "end_turn", Tokens::new(5, 1)));
    /// server.push_matching("apples", reply("for apples")).push_matching("pears", reply("for pears"));
    /// let model = clive_models::connect(server.config(ProviderKind::Anthropic))?;
    /// let pears = model.chat(&ChatRequest::new("count the pears").max_tokens(10)).await?;
    /// assert_eq!(pears.text, "for pears");
    /// assert_eq!(server.unserved(), 1);
    /// # Ok(()) }
    /// ```
    pub fn push_matching(&self, needle: impl Into<String>, reply: Reply) -> &Self {
        self.lock().replies.push_back(Queued { needle: Some(needle.into()), reply });
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
        let text = recorded.text();
        let next = script.replies.iter().position(|q| q.needle.as_deref().is_none_or(|n| text.contains(n)));
        let reply = next.and_then(|i| script.replies.remove(i)).map(|q| q.reply);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Tokens, wire};
    use crate::{ChatRequest, Message};

    fn reply(text: &str) -> Reply {
        Reply::json(200, wire::anthropic::message(text, "end_turn", Tokens::new(5, 1)))
    }

    async fn ask(server: &FakeServer, prompt: &str) -> Result<String, crate::Error> {
        let model = crate::connect(server.config(ProviderKind::Anthropic))?;
        Ok(model.chat(&ChatRequest::new(prompt).max_tokens(10)).await?.text)
    }

    #[tokio::test]
    async fn matching_replies_go_by_content_and_plain_ones_by_order() {
        let server = FakeServer::start().await.unwrap();
        server
            .push(reply("first"))
            .push_matching("book-a", reply("for a"))
            .push_matching("book-b", reply("for b"))
            .push(reply("last"));
        assert_eq!(ask(&server, "plan both books").await.unwrap(), "first");
        // b's request comes first: it skips a's reply, which waits for its request.
        assert_eq!(ask(&server, "count book-b").await.unwrap(), "for b");
        assert_eq!(ask(&server, "count book-a").await.unwrap(), "for a");
        assert_eq!(ask(&server, "sum up").await.unwrap(), "last");
        assert_eq!(server.unserved(), 0);
    }

    #[tokio::test]
    async fn a_request_that_matches_nothing_left_gets_the_exhausted_error() {
        let server = FakeServer::start().await.unwrap();
        server.push_matching("pears", reply("for pears"));
        let error = ask(&server, "count the apples").await.unwrap_err().to_string();
        assert!(error.contains("fake_server_exhausted"), "{error}");
        assert_eq!(server.unserved(), 1);
        assert_eq!(ask(&server, "count the pears").await.unwrap(), "for pears");
    }

    #[tokio::test]
    async fn the_text_of_a_request_is_its_system_prompt_and_messages() {
        let server = FakeServer::start().await.unwrap();
        server.push(reply("ok"));
        let model = crate::connect(server.config(ProviderKind::Anthropic)).unwrap();
        let request = ChatRequest::from_messages(vec![
            Message::user("first question"),
            Message::assistant("first answer"),
            Message::user("second question"),
        ])
        .system("be brief");
        model.chat(&request.max_tokens(10)).await.unwrap();
        let text = server.requests()[0].text();
        for part in ["be brief", "first question", "first answer", "second question"] {
            assert!(text.contains(part), "{part} missing from {text:?}");
        }
        assert!(!text.contains("user"), "roles are not text: {text:?}");
    }
}
