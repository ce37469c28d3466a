//! The bridge inside a sandbox whose network is off: it listens on the sandbox's own loopback
//! (`127.0.0.1:`[`BRIDGE_PORT`], what `HTTP_PROXY` names) and carries each connection to the proxy's unix
//! socket, outside. It then runs the pane's shell as its child and exits with the shell's status, so the port
//! is open before the shell's first command. When the proxy refuses a request, the bridge also prints the
//! reason on the pane's terminal, where the model and the user read it beside the program's own error.
//!
//! It is a mode of an existing binary (`clive` and `clive-net-bridge` call [`run_if_requested`] first thing), so
//! nothing else needs installing: `<binary> --clive-network-bridge <socket> <port> -- <shell> <args…>`.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;

use crate::proxy::REFUSED_HEADER;

/// The first argument that selects the bridge.
pub const BRIDGE_FLAG: &str = "--clive-network-bridge";
/// The loopback port the bridge listens on inside the sandbox.
pub const BRIDGE_PORT: u16 = 3128;

/// When this process was started as a bridge (`argv[1]` is [`BRIDGE_FLAG`]), runs it and returns the exit code;
/// otherwise `None` at once. Call it before anything else in `main`.
pub fn run_if_requested() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(BRIDGE_FLAG.as_ref()) {
        return None;
    }
    Some(run(args.collect()))
}

fn run(args: Vec<OsString>) -> i32 {
    let (socket, port, command) = match args.as_slice() {
        [socket, port, dashes, program, rest @ ..] if dashes == "--" => {
            let port: Option<u16> = port.to_str().and_then(|p| p.parse().ok());
            (PathBuf::from(socket), port, (program, rest))
        }
        _ => {
            eprintln!("usage: {BRIDGE_FLAG} <proxy socket> <port> -- <program> [args…]");
            return 2;
        }
    };
    match port.map(|port| TcpListener::bind(("127.0.0.1", port))) {
        Some(Ok(listener)) => {
            std::thread::spawn(move || {
                for client in listener.incoming().flatten() {
                    let socket = socket.clone();
                    std::thread::spawn(move || carry(client, &socket));
                }
            });
        }
        Some(Err(e)) => eprintln!("clive: the network bridge cannot listen ({e}); this pane has no network"),
        None => eprintln!("clive: the network bridge got a bad port; this pane has no network"),
    }
    let status = std::process::Command::new(command.0).args(command.1).status();
    match status {
        Ok(status) => status.code().unwrap_or_else(|| {
            use std::os::unix::process::ExitStatusExt as _;
            128 + status.signal().unwrap_or(0)
        }),
        Err(e) => {
            eprintln!("clive: cannot start {}: {e}", command.0.to_string_lossy());
            127
        }
    }
}

/// Carries one connection to the proxy and back.
fn carry(client: TcpStream, socket: &std::path::Path) {
    let _ = client.set_nodelay(true);
    let Ok(proxy) = UnixStream::connect(socket) else {
        eprintln!("\r\nclive: the network proxy is gone; this pane has no network\r");
        return;
    };
    let (Ok(mut client_in), Ok(mut proxy_out)) = (client.try_clone(), proxy.try_clone()) else { return };
    let upstream = std::thread::spawn(move || {
        let _ = std::io::copy(&mut client_in, &mut proxy_out);
        let _ = proxy_out.shutdown(Shutdown::Write);
    });
    let (mut proxy_in, mut client_out) = (proxy, client);
    let mut buffer = [0u8; 16 * 1024];
    let mut first = true;
    loop {
        let n = match proxy_in.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if std::mem::take(&mut first) {
            say_if_refused(&buffer[..n]);
        }
        if client_out.write_all(&buffer[..n]).is_err() {
            break;
        }
    }
    let _ = client_out.shutdown(Shutdown::Write);
    let _ = upstream.join();
}

/// Prints the proxy's refusal on the pane's terminal (the bridge's stderr).
fn say_if_refused(response: &[u8]) {
    let text = String::from_utf8_lossy(response);
    let marker = format!("\r\n{REFUSED_HEADER}: ");
    if text.starts_with("HTTP/1.1 403") && text.contains(&marker) {
        let body = text.split_once("\r\n\r\n").map_or("", |(_, body)| body).trim();
        // The terminal may be in raw mode under a full-screen program: end the line by hand.
        let _ = std::io::stderr().write_all(format!("\r\n{body}\r\n").as_bytes());
    }
}
