//! A plain HTTP listener on loopback, shared by toolbox's and clive-cli's network tests (`#[path]`).

#![allow(dead_code, clippy::unwrap_used)]

use std::time::Duration;

/// A plain HTTP listener on a loopback address (`127.0.0.2`, `127.0.0.3`, …): it answers `200 got it` and
/// keeps what each request sent (head and body), so a test can tell whether anything reached it.
pub struct Listener {
    pub addr: std::net::SocketAddr,
    received: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Listener {
    pub fn on(ip: &str) -> Listener {
        use std::io::{Read as _, Write as _};
        let listener = std::net::TcpListener::bind((ip, 0)).unwrap();
        let addr = listener.local_addr().unwrap();
        let received = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let keep = received.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut request = Vec::new();
                let mut chunk = [0u8; 4096];
                // The head, then as many body bytes as Content-Length says.
                let complete = |r: &[u8]| {
                    let text = String::from_utf8_lossy(r);
                    let Some((head, body)) = text.split_once("\r\n\r\n") else { return false };
                    let length = head
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_owned())
                        })
                        .and_then(|v| v.parse::<usize>().ok())
                        .unwrap_or(0);
                    body.len() >= length
                };
                stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                while !complete(&request) {
                    match stream.read(&mut chunk) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => request.extend_from_slice(&chunk[..n]),
                    }
                }
                keep.lock().unwrap().push(String::from_utf8_lossy(&request).into_owned());
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\ngot it\n");
            }
        });
        Listener { addr, received }
    }

    pub fn url(&self) -> String {
        format!("http://{}/upload", self.addr)
    }

    pub fn received(&self) -> Vec<String> {
        self.received.lock().unwrap().clone()
    }
}
