//! The page and its assets, built into the binary: nothing is read from disk or fetched at run time.
//! xterm.js is vendored unchanged from npm (`assets/xterm/README.md` names the version and checksums).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

const INDEX: &str = include_str!("../assets/index.html");

/// Name, content type, bytes.
const ASSETS: &[(&str, &str, &[u8])] = &[
    ("app.js", "text/javascript; charset=utf-8", include_bytes!("../assets/app.js")),
    ("app.css", "text/css; charset=utf-8", include_bytes!("../assets/app.css")),
    ("xterm.mjs", "text/javascript; charset=utf-8", include_bytes!("../assets/xterm/xterm.mjs")),
    ("xterm.css", "text/css; charset=utf-8", include_bytes!("../assets/xterm/xterm.css")),
    ("xterm-LICENSE.txt", "text/plain; charset=utf-8", include_bytes!("../assets/xterm/LICENSE")),
];

/// Scripts and styles come from this server only; xterm.js sets styles on its elements. Sockets go back to
/// the same host.
const CSP: &str = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
                   connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

pub(crate) fn page() -> Response {
    let mut response = ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], INDEX).into_response();
    response.headers_mut().insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    response
}

pub(crate) fn asset(name: &str) -> Response {
    match ASSETS.iter().find(|(n, _, _)| *n == name) {
        Some((_, kind, bytes)) => ([(header::CONTENT_TYPE, *kind)], *bytes).into_response(),
        None => (StatusCode::NOT_FOUND, "404: no such asset\n").into_response(),
    }
}
