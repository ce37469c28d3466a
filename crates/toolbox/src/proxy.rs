//! The HTTP proxy clive runs outside the sandbox: the only way out of a pane whose network is off or limited
//! to some hosts. Plain HTTP is forwarded, HTTPS goes through `CONNECT`; anything else is refused. Each pane
//! gets its own unix socket (bound into its sandbox, where [`crate::bridge`] offers it on a loopback port) with
//! its own list of hosts, and every request is logged, one JSON line each, in `network.log` of the run
//! directory; a refused one names its host.

use std::io::Write as _;
use std::os::unix::fs::DirBuilderExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpStream, UnixListener, UnixStream};

use crate::network::Network;

/// The largest request head the proxy reads.
const MAX_HEAD: usize = 64 * 1024;
/// How long a client may take to send its request head, and the proxy to connect to the host.
const DEADLINE: Duration = Duration::from_secs(15);
/// The header a refusal carries, naming the host (the bridge looks for it).
pub const REFUSED_HEADER: &str = "X-Clive-Refused";

/// One line of `network.log`.
#[derive(Debug, Clone, Serialize)]
pub struct RequestRecord {
    /// Milliseconds since the Unix epoch.
    pub time_ms: u64,
    /// The pane it came from.
    pub pane: String,
    /// `CONNECT` (HTTPS), `GET`, `POST`, ….
    pub method: String,
    /// The host asked for.
    pub host: String,
    /// Its port.
    pub port: u16,
    /// Whether it was let through.
    pub allowed: bool,
    /// Why not, or what went wrong connecting.
    pub error: Option<String>,
}

/// The proxy: a private directory of sockets, one per pane, and the log. Dropping it stops every listener and
/// removes the sockets.
#[derive(Debug)]
pub struct NetworkProxy {
    dir: PathBuf,
    log: Option<Arc<Mutex<std::fs::File>>>,
    tasks: Mutex<Vec<tokio::task::AbortHandle>>,
    count: AtomicUsize,
}

impl NetworkProxy {
    /// A proxy logging to `log` (appended; `None`: tracing only). Its sockets live in a private directory
    /// under `/tmp`, which every sandbox hides.
    pub fn start(log: Option<&Path>) -> std::io::Result<NetworkProxy> {
        static SERIAL: AtomicUsize = AtomicUsize::new(0);
        let dir =
            PathBuf::from(format!("/tmp/clive-net-{}-{}", std::process::id(), SERIAL.fetch_add(1, Ordering::Relaxed)));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        let log = match log {
            Some(path) => Some(Arc::new(Mutex::new(std::fs::OpenOptions::new().create(true).append(true).open(path)?))),
            None => None,
        };
        Ok(NetworkProxy { dir, log, tasks: Mutex::new(Vec::new()), count: AtomicUsize::new(0) })
    }

    /// A new socket for pane `pane`, letting through what `network` allows. Must be called inside a tokio
    /// runtime (it serves from a task of its own).
    pub fn listen(&self, pane: &str, network: Network) -> std::io::Result<PathBuf> {
        let path = self.dir.join(format!("{}.sock", self.count.fetch_add(1, Ordering::Relaxed)));
        let listener = UnixListener::bind(&path)?;
        let pane = pane.to_owned();
        let network = Arc::new(network);
        let log = self.log.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, pane.clone(), network.clone(), log.clone()));
            }
        });
        self.tasks.lock().unwrap_or_else(|e| e.into_inner()).push(task.abort_handle());
        Ok(path)
    }
}

impl Drop for NetworkProxy {
    fn drop(&mut self) {
        for task in self.tasks.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
            task.abort();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A request as the proxy reads it.
#[derive(Debug, PartialEq, Eq)]
struct Request {
    method: String,
    host: String,
    port: u16,
    /// For plain HTTP: the head to send the host (origin-form, `Connection: close`).
    forward: Option<Vec<u8>>,
}

/// Reads a request head: `CONNECT host:port HTTP/1.1`, or `GET http://host[:port]/path HTTP/1.1` (absolute
/// form, as clients send proxies).
fn parse_head(head: &str) -> Result<Request, String> {
    let mut lines = head.split("\r\n");
    let first = lines.next().unwrap_or("");
    let mut words = first.split(' ');
    let (Some(method), Some(target), Some(version)) = (words.next(), words.next(), words.next()) else {
        return Err(format!("not an HTTP request: `{first}`"));
    };
    if method == "CONNECT" {
        let (host, port) = split_host_port(target, 443)?;
        return Ok(Request { method: method.into(), host, port, forward: None });
    }
    let Some(rest) = target.strip_prefix("http://") else {
        return Err(format!("only http:// URLs and CONNECT go through this proxy, not `{target}`"));
    };
    let (authority, path) = match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "/"),
    };
    let (host, port) = split_host_port(authority, 80)?;
    let mut forward = format!("{method} {path} {version}\r\n");
    for line in lines.filter(|l| !l.is_empty()) {
        let name = line.split(':').next().unwrap_or("").trim().to_ascii_lowercase();
        if !matches!(name.as_str(), "proxy-connection" | "proxy-authorization" | "connection" | "keep-alive") {
            forward.push_str(line);
            forward.push_str("\r\n");
        }
    }
    // One request per connection: a client cannot send a second one, to another host, down this one.
    forward.push_str("Connection: close\r\n\r\n");
    Ok(Request { method: method.into(), host, port, forward: Some(forward.into_bytes()) })
}

fn split_host_port(authority: &str, default: u16) -> Result<(String, u16), String> {
    let authority = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => {
            let (host, rest) = v6.split_once(']').ok_or_else(|| format!("bad address `{authority}`"))?;
            (host, rest.strip_prefix(':'))
        }
        None => match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        },
    };
    let port = match port {
        Some(port) => port.parse().map_err(|_| format!("bad port in `{authority}`"))?,
        None => default,
    };
    if host.is_empty() {
        return Err(format!("no host in `{authority}`"));
    }
    Ok((host.trim_end_matches('.').to_ascii_lowercase(), port))
}

/// What a pane is told when its request is refused (the bridge prints it in the pane too).
pub fn refusal_message(host: &str, network: &Network) -> String {
    let allowed = match network.allowed() {
        [] => "none".to_owned(),
        hosts => hosts.join(", "),
    };
    format!(
        "clive refused the connection to {host}: the network is off for commands a model writes, except the \
         hosts the task names (here: {allowed}). To allow {host}, name it in the task (for example \
         https://{host}/), or run clive with --network."
    )
}

async fn serve(mut client: UnixStream, pane: String, network: Arc<Network>, log: Option<Arc<Mutex<std::fs::File>>>) {
    let mut buffer = Vec::with_capacity(4096);
    let head_end = tokio::time::timeout(DEADLINE, async {
        loop {
            if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                return Some(at + 4);
            }
            if buffer.len() > MAX_HEAD {
                return None;
            }
            let mut chunk = [0u8; 4096];
            match client.read(&mut chunk).await {
                Ok(0) | Err(_) => return None,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        }
    })
    .await;
    let Ok(Some(head_end)) = head_end else { return };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let request = match parse_head(&head) {
        Ok(request) => request,
        Err(reason) => {
            let _ = respond(&mut client, "400 Bad Request", None, &format!("clive's proxy: {reason}")).await;
            return;
        }
    };
    let mut record = RequestRecord {
        time_ms: SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64),
        pane,
        method: request.method.clone(),
        host: request.host.clone(),
        port: request.port,
        allowed: network.allows(&request.host),
        error: None,
    };
    if !record.allowed {
        let message = refusal_message(&request.host, &network);
        record.error = Some("not among the hosts the task names".into());
        write_log(log.as_deref(), &record);
        let _ = respond(&mut client, "403 Forbidden", Some(&request.host), &message).await;
        return;
    }
    let upstream = tokio::time::timeout(DEADLINE, TcpStream::connect((request.host.as_str(), request.port))).await;
    let mut upstream = match upstream {
        Ok(Ok(stream)) => stream,
        Ok(Err(e)) => {
            record.error = Some(e.to_string());
            write_log(log.as_deref(), &record);
            let message = format!("clive's proxy could not connect to {}:{}: {e}", request.host, request.port);
            let _ = respond(&mut client, "502 Bad Gateway", None, &message).await;
            return;
        }
        Err(_) => {
            record.error = Some(format!("no connection within {}s", DEADLINE.as_secs()));
            write_log(log.as_deref(), &record);
            let _ = respond(&mut client, "504 Gateway Timeout", None, "clive's proxy: the host did not answer").await;
            return;
        }
    };
    write_log(log.as_deref(), &record);
    let _ = upstream.set_nodelay(true);
    let sent = match &request.forward {
        None => client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n").await,
        Some(forward) => upstream.write_all(forward).await,
    };
    // What the client sent after the head (a body, or the TLS hello) goes on as it came.
    if sent.is_err() || upstream.write_all(&buffer[head_end..]).await.is_err() {
        return;
    }
    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
}

async fn respond(client: &mut UnixStream, status: &str, refused: Option<&str>, message: &str) -> std::io::Result<()> {
    let refused = refused.map(|host| format!("{REFUSED_HEADER}: {host}\r\n")).unwrap_or_default();
    let body = format!("{message}\n");
    let response = format!(
        "HTTP/1.1 {status}\r\n{refused}Content-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    client.write_all(response.as_bytes()).await?;
    client.shutdown().await
}

fn write_log(log: Option<&Mutex<std::fs::File>>, record: &RequestRecord) {
    if record.allowed {
        tracing::debug!(pane = %record.pane, host = %record.host, port = record.port, "proxied");
    } else {
        tracing::info!(pane = %record.pane, host = %record.host, port = record.port, "network request refused");
    }
    if let (Some(log), Ok(mut line)) = (log, serde_json::to_string(record)) {
        line.push('\n');
        let _ = log.lock().unwrap_or_else(|e| e.into_inner()).write_all(line.as_bytes());
    }
}

/// The refused requests in a `network.log`: (pane, host) pairs, each once, in order.
pub fn refused_in_log(log: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let mut refused: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        if value["allowed"] == false {
            let pair = (
                value["pane"].as_str().unwrap_or_default().to_owned(),
                value["host"].as_str().unwrap_or_default().to_owned(),
            );
            if !refused.contains(&pair) {
                refused.push(pair);
            }
        }
    }
    refused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_are_read_in_both_forms() {
        let connect = parse_head("CONNECT Example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n").unwrap();
        assert_eq!((connect.host.as_str(), connect.port, connect.forward), ("example.org", 443, None));
        let get = parse_head(
            "POST http://127.0.0.2:8080/up?x=1 HTTP/1.1\r\nHost: 127.0.0.2:8080\r\nProxy-Connection: keep-alive\r\n\
             Content-Length: 3\r\n\r\n",
        )
        .unwrap();
        assert_eq!((get.host.as_str(), get.port), ("127.0.0.2", 8080));
        let forward = String::from_utf8(get.forward.unwrap()).unwrap();
        assert_eq!(
            forward,
            "POST /up?x=1 HTTP/1.1\r\nHost: 127.0.0.2:8080\r\nContent-Length: 3\r\nConnection: close\r\n\r\n"
        );
        assert_eq!(
            parse_head("GET http://h HTTP/1.0\r\n\r\n").unwrap().forward.unwrap(),
            b"GET / HTTP/1.0\r\nConnection: close\r\n\r\n"
        );
        assert!(parse_head("GET /relative HTTP/1.1\r\n\r\n").unwrap_err().contains("only http://"));
        assert!(parse_head("nonsense\r\n\r\n").is_err());
        assert_eq!(split_host_port("[::1]:8080", 80).unwrap(), ("::1".to_owned(), 8080));
    }

    #[test]
    fn a_refusal_names_the_host_and_the_way_to_allow_it() {
        let message = refusal_message("evil.example.com", &Network::Hosts(vec!["127.0.0.2".into()]));
        for expected in ["evil.example.com", "network is off", "127.0.0.2", "--network", "name it in the task"] {
            assert!(message.contains(expected), "{message}");
        }
    }
}
