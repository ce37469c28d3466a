//! The fake model backend: a task's `replies.toml` is the script of what the model answers, one entry per
//! model call in the order the calls arrive (routing, planning, each turn). The runner starts one
//! [`llm::testing::FakeServer`] per run, queues the script, and points `clive` at it as an Anthropic provider
//! (`ANTHROPIC_API_KEY=test-key`, `ANTHROPIC_BASE_URL=<server>`; every other provider variable removed), so the
//! whole path — routing, runners, panes, checks — runs deterministically, with no real model.
//!
//! ```toml
//! [[reply]]                                   # the 1st call (e.g. the tier-1 classifier)
//! text = '{"route":"answer","answer":"391"}'  # the model's text (JSON when the agent asked for a schema)
//! tokens = { input = 180, output = 12 }       # usage reported on the wire (default: 0 in, ~chars/4 out)
//!
//! [[reply]]                                   # the 2nd call
//! text = "..."
//! stream = true                               # answer as an SSE stream (for a streaming call)
//! delay_ms = 200                              # think this long first (the run's model time)
//! stop = "max_tokens"                         # stop reason (default end_turn)
//!
//! [[reply]]                                   # the 3rd call fails
//! status = 529
//! error = "overloaded_error"
//!
//! [[reply]]                                   # for the call whose prompt contains this text, whenever it comes
//! when = "book-b.txt"                         # (parallel subtasks call the model in no fixed order)
//! text = "..."
//! ```
//!
//! A call gets the first reply with `when` left in the script whose text its own text (system prompt and messages)
//! contains, wherever that reply stands; else the next reply without `when`. A script without `when` is served
//! strictly in order. (The final look at a result is scripted this way: `when = "You check whether a finished
//! task"`.)
//!
//! A call beyond the script gets HTTP 500 `fake_server_exhausted`; replies left over are reported as
//! `unserved`. Both mean the script and the agent disagree.

use std::path::Path;
use std::time::Duration;

use llm::testing::{FakeServer, RecordedRequest, Reply, Tokens, wire};
use serde::{Deserialize, Serialize};

use crate::error::Error;

/// A task's reply script.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplyScript {
    /// The replies, in call order.
    #[serde(default, rename = "reply")]
    pub replies: Vec<ScriptedReply>,
}

/// One scripted answer to one model call.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedReply {
    /// The model's text.
    pub text: Option<String>,
    /// Usage reported with it.
    pub tokens: Option<TokenCounts>,
    /// Send it as a stream of server-sent events rather than one JSON body.
    #[serde(default)]
    pub stream: bool,
    /// The stop reason (`end_turn`, `max_tokens`, `stop_sequence`).
    pub stop: Option<String>,
    /// An HTTP error status instead of a reply (with `error`).
    pub status: Option<u16>,
    /// The provider's error type for an error reply, e.g. `overloaded_error`.
    pub error: Option<String>,
    /// Wait this long before answering.
    pub delay_ms: Option<u64>,
    /// Serve this reply only to a call whose text (system prompt and messages) contains this.
    pub when: Option<String>,
}

/// Token usage of a scripted reply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TokenCounts {
    /// Prompt tokens.
    #[serde(default)]
    pub input: u64,
    /// Completion tokens.
    #[serde(default)]
    pub output: u64,
    /// Prompt tokens read from a cache.
    #[serde(default)]
    pub cached: u64,
}

impl ReplyScript {
    /// Reads and validates a `replies.toml`.
    pub fn load(path: &Path) -> Result<ReplyScript, Error> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_owned(), source })?;
        let invalid = |problem: String| Error::InvalidReplies { path: path.to_owned(), problem };
        let script: ReplyScript = toml::from_str(&text).map_err(|e| invalid(e.message().to_owned()))?;
        for (i, reply) in script.replies.iter().enumerate() {
            let n = i + 1;
            match (&reply.text, &reply.error) {
                (Some(_), Some(_)) => return Err(invalid(format!("reply {n} has both `text` and `error`"))),
                (None, None) => return Err(invalid(format!("reply {n} needs `text` (or `status` and `error`)"))),
                (None, Some(_)) if reply.status.is_some_and(|s| s < 400) => {
                    return Err(invalid(format!("reply {n}: an error needs a status of 400 or more")));
                }
                (Some(_), None) if reply.status.is_some() => {
                    return Err(invalid(format!("reply {n}: `status` goes with `error`, not with `text`")));
                }
                _ => {}
            }
            if reply.when.as_deref().is_some_and(str::is_empty) {
                return Err(invalid(format!("reply {n}: `when` is empty (leave it out to match any call)")));
            }
        }
        Ok(script)
    }

    /// The wire replies, in order (Anthropic Messages format), each with the text its call must contain.
    pub fn to_wire(&self) -> Vec<(Option<String>, Reply)> {
        self.replies.iter().map(|reply| (reply.when.clone(), reply.to_wire())).collect()
    }
}

impl ScriptedReply {
    fn to_wire(&self) -> Reply {
        let reply = match (&self.text, &self.error) {
            (Some(text), _) => {
                let counts = self.tokens.unwrap_or(TokenCounts {
                    output: (text.chars().count() as u64).div_ceil(4),
                    ..TokenCounts::default()
                });
                let tokens = Tokens::new(counts.input, counts.output).cached(counts.cached);
                let stop = self.stop.as_deref().unwrap_or("end_turn");
                if self.stream {
                    Reply::sse(wire::anthropic::stream(&[text], stop, tokens))
                } else {
                    Reply::json(200, wire::anthropic::message(text, stop, tokens))
                }
            }
            (None, error) => {
                let kind = error.as_deref().unwrap_or("api_error");
                Reply::json(self.status.unwrap_or(500), wire::anthropic::error_body(kind, "scripted error"))
            }
        };
        match self.delay_ms {
            Some(ms) => reply.headers_delay(Duration::from_millis(ms)),
            None => reply,
        }
    }
}

/// How a run used its fake model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FakeUsage {
    /// Requests the server received.
    pub requests: u64,
    /// Scripted replies left over.
    pub unserved: u64,
}

/// A fake model server loaded with one run's script.
#[derive(Debug)]
pub struct FakeModel {
    server: FakeServer,
}

/// Provider variables removed from the agent's environment when a backend sets its own.
pub const PROVIDER_VARIABLES: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_MODEL",
    "OPENROUTER_API_KEY",
    "OPENROUTER_BASE_URL",
    "OLLAMA_HOST",
];

impl FakeModel {
    /// Starts a server with `script` queued.
    pub async fn start(script: &ReplyScript) -> Result<FakeModel, Error> {
        let server = FakeServer::start()
            .await
            .map_err(|source| Error::Io { path: "fake model server (127.0.0.1)".into(), source })?;
        // Replies with `when` first: a call that qualifies for one gets it whenever it comes, before the replies
        // served in order (which every call qualifies for).
        let (matching, ordered): (Vec<_>, Vec<_>) = script.to_wire().into_iter().partition(|(when, _)| when.is_some());
        for (when, reply) in matching.into_iter().chain(ordered) {
            match when {
                Some(needle) => server.push_matching(needle, reply),
                None => server.push(reply),
            };
        }
        Ok(FakeModel { server })
    }

    /// The variables that point an agent at this server.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("ANTHROPIC_API_KEY".to_owned(), "test-key".to_owned()),
            ("ANTHROPIC_BASE_URL".to_owned(), self.server.base_url(llm::ProviderKind::Anthropic)),
        ]
    }

    /// Requests received and replies left over so far.
    pub fn usage(&self) -> FakeUsage {
        FakeUsage { requests: self.server.requests().len() as u64, unserved: self.server.unserved() as u64 }
    }

    /// Every request received, for the run's artifacts.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.server.requests()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ReplyScript, Error> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("replies.toml");
        std::fs::write(&path, text).unwrap();
        ReplyScript::load(&path)
    }

    #[test]
    fn a_script_reads_in_order() {
        let script = parse("[[reply]]\ntext = 'a'\n[[reply]]\ntext = 'b'\nstream = true\n[[reply]]\nstatus = 529\nerror = 'overloaded_error'\n").unwrap();
        assert_eq!(script.replies.len(), 3);
        assert_eq!(script.replies[1].text.as_deref(), Some("b"));
        assert!(script.replies[1].stream);
        assert_eq!(script.to_wire().len(), 3);
    }

    #[test]
    fn malformed_replies_are_refused_with_their_number() {
        for (text, says) in [
            ("[[reply]]\nstream = true\n", "reply 1 needs `text`"),
            ("[[reply]]\ntext = 'a'\n[[reply]]\ntext = 'b'\nerror = 'x'\n", "reply 2 has both"),
            ("[[reply]]\nstatus = 200\nerror = 'x'\n", "status of 400"),
            ("[[reply]]\ntext = 'a'\nstatus = 500\n", "goes with `error`"),
            ("[[reply]]\ntxt = 'a'\n", "txt"),
            ("[[reply]]\ntext = 'a'\nwhen = ''\n", "reply 1: `when` is empty"),
        ] {
            let error = parse(text).unwrap_err().to_string();
            assert!(error.contains(says), "{text:?}: {error}");
        }
    }

    /// A fake loaded with `script`, and a real client configured from its variables, as clive would be.
    async fn connect(script: &ReplyScript) -> (FakeModel, std::sync::Arc<dyn llm::ChatModel>) {
        let fake = FakeModel::start(script).await.unwrap();
        let env: std::collections::HashMap<_, _> = fake.env().into_iter().collect();
        let config = llm::ProviderConfig::from_lookup(llm::ProviderKind::Anthropic, |k| env.get(k).cloned()).unwrap();
        (fake, llm::connect(config).unwrap())
    }

    #[tokio::test]
    async fn the_fake_answers_a_real_client_in_script_order() {
        let script = parse("[[reply]]\ntext = 'first'\ntokens = { input = 30, output = 2 }\n[[reply]]\ntext = 'second'\nstream = true\n[[reply]]\ntext = 'unused'\n").unwrap();
        let (fake, model) = connect(&script).await;
        let reply = model.chat(&llm::ChatRequest::new("hi").max_tokens(10)).await.unwrap();
        assert_eq!((reply.text.as_str(), reply.usage.input_tokens, reply.usage.output_tokens), ("first", 30, 2));
        assert_eq!(fake.usage(), FakeUsage { requests: 1, unserved: 2 });
        assert_eq!(fake.requests()[0].path, "/v1/messages");
    }

    #[tokio::test]
    async fn a_reply_with_when_waits_for_its_call() {
        let script = parse("[[reply]]\nwhen = 'book-a'\ntext = 'a'\n[[reply]]\nwhen = 'book-b'\ntext = 'b'\n").unwrap();
        let (fake, model) = connect(&script).await;
        let b = model.chat(&llm::ChatRequest::new("count book-b").max_tokens(10)).await.unwrap();
        let a = model.chat(&llm::ChatRequest::new("count book-a").max_tokens(10)).await.unwrap();
        assert_eq!((a.text.as_str(), b.text.as_str()), ("a", "b"));
        assert_eq!(fake.usage(), FakeUsage { requests: 2, unserved: 0 });
    }
}
