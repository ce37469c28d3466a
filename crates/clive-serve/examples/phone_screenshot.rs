//! The page on a phone (390 × 844), a pane fitted to it, as a PNG: how `docs/serve-phone.png` is made.
//! Serves the sessions of one tmux socket with input allowed, opens the pane of `SESSION` in headless
//! Chromium, presses *Fit to screen*, waits until the pane shows `TEXT` at the new size, and saves the page.
//!
//! ```text
//! cargo run -p lane-send --example real-agent -- claude        # prints `socket …`; then ask it to "run the tool"
//! cargo run -p clive-serve --example phone_screenshot -- SOCKET claude 'Do you want' docs/serve-phone.png
//! ```

#![allow(clippy::print_stdout)] // a development tool: it reports what it saved

use std::sync::Arc;
use std::time::Duration;

use clive_serve::testing::Browser;
use clive_serve::{Access, AccessToken, Catalog, InputPolicy, ServeConfig, TmuxCatalog};
use serde_json::json;
use tmux_habitat::SocketSpec;

const WAIT: Duration = Duration::from_secs(30);

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [socket, session, text, out] = &args[..] else {
        return Err("usage: phone_screenshot SOCKET SESSION TEXT OUT.png".into());
    };
    let catalog: Arc<dyn Catalog> = Arc::new(TmuxCatalog::socket(SocketSpec::Path(socket.into()), "").await?);
    let mut config = ServeConfig::new(AccessToken::generate());
    config.addr = "127.0.0.1:0".parse()?;
    config.policy = InputPolicy::everywhere(Access::Input);
    let server = clive_serve::serve(config, vec![catalog]).await?;

    let mut browser = Browser::launch(390, 844).await?;
    browser.viewport(390, 844, true).await?;
    browser.goto(&server.url()).await?;
    let card = format!(
        "[...document.querySelectorAll('#sessions .card')].find(c => c.dataset.key && c.textContent.includes({}))",
        json!(session)
    );
    browser.wait_for(&card, WAIT).await?;
    browser.eval(&format!("{card}.click()")).await?;
    browser.wait_for("window.clive.view && clive.view.snapshots > 0", WAIT).await?;
    browser.eval("document.getElementById('fit').click()").await?;
    let fitted = "clive.view.fit === 'this_page' && clive.view.size.cols === clive.view.asked.cols && \
                  clive.view.size.rows === clive.view.asked.rows && clive.view.size";
    let size = browser.wait_for(fitted, WAIT).await?;
    let shows = format!(
        "clive.view.term.cols === {} && document.querySelector('.xterm-rows').textContent.includes({})",
        size["cols"],
        json!(text)
    );
    browser.wait_for(&shows, WAIT).await?;
    // The agent may still be drawing; what it shows once the page has been quiet for a moment is kept.
    browser
        .eval("new Promise(done => { let t; const o = new MutationObserver(() => { clearTimeout(t); t = setTimeout(() => { o.disconnect(); done(); }, 500); }); o.observe(document.body, {subtree: true, childList: true, characterData: true}); t = setTimeout(() => { o.disconnect(); done(); }, 500); })")
        .await?;
    std::fs::write(out, browser.screenshot().await?)?;
    println!("{out}: {}x{} pane on a 390x844 page", size["cols"], size["rows"]);
    browser.close().await;
    server.stop().await;
    Ok(())
}
