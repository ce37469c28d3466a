//! `clive serve` in a real headless Chromium (Debian's `chromium`, driven over the DevTools protocol): the
//! page lists clive's sessions, shows a pane's output as it is printed, types into a pane where input is
//! allowed, turns an agent's approval dialog into buttons, catches up without gaps or repeats after the
//! server is killed and restarted, refuses a wrong token and a foreign origin, and fits a phone's width. On a
//! phone (390 × 844): a pane fitted to the screen (tmux resizes it, the program redraws, two pages, the size
//! restored, a read-only page refused), the history searched 1,500 lines up, and a waiting agent calling
//! once (title, list, one notification across a second page and a reload, `--on-waiting` once).
//! One browser serves every step; screenshots are kept in `target/tmp/serve-*.png`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is the failure report

mod support;

use std::process::Stdio;
use std::time::Duration;

use clive_serve::testing::{Browser, chromium_path};
use serde_json::{Value, json};
use support::World;
use tmux_habitat::{Pane, Server, SessionOptions};
use tokio::io::{AsyncBufReadExt, BufReader};

const WAIT: Duration = Duration::from_secs(20);

/// A running `clive serve`.
struct Serve {
    child: tokio::process::Child,
    url: String,
    addr: String,
}

impl Serve {
    async fn start(world: &World, args: &[&str]) -> Serve {
        let mut all = vec!["serve"];
        all.extend_from_slice(args);
        let mut command = tokio::process::Command::from(world.command(&all));
        command.stdout(Stdio::piped()).stderr(Stdio::inherit()).kill_on_drop(true);
        let mut child = command.spawn().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let url = tokio::time::timeout(WAIT, lines.next_line()).await.expect("clive serve printed no URL").unwrap();
        let url = url.expect("clive serve exited before it printed its URL");
        let addr = url.trim_start_matches("http://").split('/').next().unwrap().to_owned();
        Serve { child, url, addr }
    }

    fn port(&self) -> String {
        self.addr.rsplit(':').next().unwrap().to_owned()
    }

    fn token(&self) -> &str {
        self.url.split("token=").nth(1).unwrap()
    }

    /// The pane key of `session`, once the server lists it.
    async fn key(&self, session: &str) -> String {
        let mut backoff = tmux_habitat::Backoff::new(WAIT);
        loop {
            let listing: Value = reqwest::Client::new()
                .get(format!("http://{}/api/sessions", self.addr))
                .bearer_auth(self.token())
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            if let Some(pane) = listing["panes"].as_array().unwrap().iter().find(|p| p["session"] == session) {
                return pane["key"].as_str().unwrap().to_owned();
            }
            assert!(backoff.wait().await, "{session} is not listed: {listing:#}");
        }
    }

    async fn kill(mut self) {
        self.child.kill().await.unwrap();
    }
}

/// A session on clive's server that clive's catalog lists (it carries a task record).
async fn clive_session(server: &Server, name: &str, task: &str, command: Option<String>) -> Pane {
    let mut options = SessionOptions::new(name).size(90, 24);
    if let Some(command) = command {
        options = options.command(command);
    }
    let session = server.new_session(options).await.unwrap();
    clive_core::session_record::record_start(server, name, task, Duration::from_secs(3600)).await.unwrap();
    session.first_pane().clone()
}

fn fake_agent() -> std::path::PathBuf {
    let path = std::path::Path::new(env!("CARGO_BIN_EXE_clive")).parent().unwrap().join("examples/fake-agent");
    assert!(
        path.exists(),
        "fake agent not built: run `cargo build -p lane-send --example fake-agent` (cargo test --workspace does)"
    );
    path
}

async fn screenshot(browser: &mut Browser, name: &str) {
    let png = browser.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("serve-{name}.png"));
    std::fs::write(&path, png).unwrap();
    eprintln!("screenshot: {}", path.display());
}

const TERMINAL_TEXT: &str = "((document.querySelector('.xterm-rows') || {}).textContent || '')";

/// Every line the page's terminal holds, history included.
const BUFFER_LINES: &str = "(() => { const b = clive.view.term.buffer.active; const out = []; \
     for (let i = 0; i < b.length; i++) out.push(b.getLine(i).translateToString(true)); return out; })()";

async fn shows(browser: &mut Browser, text: &str) {
    let condition = format!("{TERMINAL_TEXT}.includes({})", json!(text));
    if let Err(e) = browser.wait_for(&condition, WAIT).await {
        let page = browser.eval(&format!("({{ terminal: {TERMINAL_TEXT}, note: document.getElementById('pane-note').textContent, view: window.clive && clive.view && {{ key: clive.view.key, snapshots: clive.view.snapshots, size: clive.view.size }} }})")).await;
        panic!("the page never showed {text:?}: {e}\npage: {page:?}");
    }
}

async fn open_pane(browser: &mut Browser, key: &str) {
    browser.eval(&format!("location.hash = '#/pane/{key}'")).await.unwrap();
    let condition = format!("window.clive.view && clive.view.key === '{key}' && clive.view.snapshots > 0");
    browser.wait_for(&condition, WAIT).await.unwrap_or_else(|e| panic!("pane {key} never opened: {e}"));
}

/// A fresh world and a runtime to drive the browser from, or `None` when there is no chromium: `.ci/run`
/// installs Debian's; only a machine without it skips (and fails under CLIVE_REQUIRE_TOOLS=1).
fn with_chromium() -> Option<(World, tokio::runtime::Runtime)> {
    let chromium = chromium_path().map(drop).ok_or_else(|| "no chromium on PATH: apt-get install chromium".to_owned());
    if !test_support::require_or_skip_when("chromium", chromium) {
        return None;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    Some((World::new(), runtime))
}

#[test]
fn the_page_in_headless_chromium() {
    let Some((world, runtime)) = with_chromium() else { return };
    let kept = task_that_changed_files(&world);
    runtime.block_on(scenario(&world, &kept));
}

/// Runs a task with the scripted fake model that sorts a file and writes another, keeping its session for a
/// look (`--keep`); returns the session's name.
fn task_that_changed_files(world: &World) -> String {
    let work = world.dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("notes.txt"), "b\na\n").unwrap();
    let model = support::FakeModel::start();
    let script = "```bash\nsort -o notes.txt notes.txt\nwc -l < notes.txt > count.txt\n```";
    model.replies(&[r#"{"kind":"program","text":""}"#, script, &support::look_yes()]);
    let goal = "Sort notes.txt in place and write its line count to count.txt.";
    let out = world.run_hosted(&model, &work, &["--json", "--keep", goal]);
    assert_eq!(out.status.code(), Some(0), "{}", support::text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    report["session"].as_str().unwrap().to_owned()
}

async fn scenario(world: &World, kept: &str) {
    let tmux = world.control_server().await;
    let live = clive_session(&tmux, "clive-live0001", "watch me print", None).await;
    let typed = clive_session(&tmux, "clive-typed001", "type here", None).await;
    let agent_log = world.dir.path().join("agent.jsonl");
    let agent_command = format!("{} --style claude2 --dialog --log {}", fake_agent().display(), agent_log.display());
    clive_session(&tmux, "clive-agent001", "ask first", Some(agent_command)).await;
    live.wait_ready(WAIT).await.unwrap();
    typed.wait_ready(WAIT).await.unwrap();

    let serve = Serve::start(world, &["--port", "0", "--allow-approvals", "--allow-input-for", "clive-typed001"]).await;
    let mut browser = Browser::launch(1280, 800).await.unwrap();

    // The URL with the token opens the list: sessions, their agent, state and task.
    browser.goto(&serve.url).await.unwrap();
    browser
        .wait_for("document.querySelectorAll('#sessions .card').length === 4", WAIT)
        .await
        .expect("four sessions listed");
    browser.wait_for("document.body.textContent.includes('waiting for approval')", WAIT).await.unwrap();
    let cards =
        browser.eval("[...document.querySelectorAll('#sessions .card')].map(c => c.textContent)").await.unwrap();
    let cards: Vec<String> = serde_json::from_value(cards).unwrap();
    let agent_card = cards.iter().find(|c| c.contains("clive-agent001")).unwrap();
    assert!(agent_card.contains("claude") && agent_card.contains("ask first"), "{agent_card}");
    assert!(cards.iter().any(|c| c.contains("clive-live0001") && c.contains("watch me print")), "{cards:?}");
    screenshot(&mut browser, "list").await;

    // Text printed in a pane appears in the page.
    let live_key = serve.key("clive-live0001").await;
    open_pane(&mut browser, &live_key).await;
    live.run("echo from-the-pane-$((40+2))", WAIT).await.unwrap();
    shows(&mut browser, "from-the-pane-42").await;
    assert_eq!(browser.eval("document.getElementById('pane-changes').hidden").await.unwrap(), true, "no changes");

    // The pane of a task that changed files lists its change set, as the task applied it.
    let kept_key = serve.key(kept).await;
    open_pane(&mut browser, &kept_key).await;
    let changes = "(() => { const box = document.getElementById('pane-changes'); \
                   return !box.hidden && box.textContent.includes('2 files changed') && \
                   [...box.querySelectorAll('li')].map(li => li.textContent); })()";
    let lines = browser.wait_for(changes, WAIT).await.expect("the change set is shown");
    assert_eq!(lines, json!(["created count.txt (2 bytes)", "modified notes.txt (4 → 4 bytes)"]));
    browser.eval("document.getElementById('pane-changes').open = true").await.unwrap();
    screenshot(&mut browser, "changes").await;

    // Typing into a pane where input is allowed: the shell echoes and runs it.
    let typed_key = serve.key("clive-typed001").await;
    open_pane(&mut browser, &typed_key).await;
    browser.wait_for("clive.view.access === 'input'", WAIT).await.unwrap();
    browser.eval("document.querySelector('.xterm-helper-textarea').focus()").await.unwrap();
    browser.command("Input.insertText", json!({"text": "echo typed-$((6*7))"})).await.unwrap();
    for kind in ["keyDown", "keyUp"] {
        let key = json!({"type": kind, "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"});
        browser.command("Input.dispatchKeyEvent", key).await.unwrap();
    }
    shows(&mut browser, "typed-42").await;
    let pane_text = typed.capture_text().await.unwrap();
    assert!(pane_text.contains("echo typed-$((6*7))") && pane_text.contains("\ntyped-42"), "{pane_text}");

    // An approval dialog becomes buttons; a click sends its keys and the agent goes on.
    let agent_key = serve.key("clive-agent001").await;
    open_pane(&mut browser, &agent_key).await;
    browser.wait_for("document.querySelectorAll('#approval-choices button').length === 3", WAIT).await.unwrap();
    let labels =
        browser.eval("[...document.querySelectorAll('#approval-choices button')].map(b => b.textContent)").await;
    assert_eq!(labels.unwrap()[0], "Yes");
    screenshot(&mut browser, "approval").await;
    browser.eval("document.querySelector('#approval-choices button').click()").await.unwrap();
    shows(&mut browser, "Approved").await;
    browser.wait_for("document.getElementById('approval').hidden", WAIT).await.unwrap();

    // Kill the server mid-stream and start it again: the page reconnects and shows every line once.
    open_pane(&mut browser, &live_key).await;
    let port = serve.port();
    live.send_line("for i in $(seq 1 300); do echo n-$i; sleep 0.01; done").await.unwrap();
    shows(&mut browser, "n-50").await;
    let snapshots_before = browser.eval("clive.view.snapshots").await.unwrap().as_u64().unwrap();
    serve.kill().await;
    let serve =
        Serve::start(world, &["--port", &port, "--allow-approvals", "--allow-input-for", "clive-typed001"]).await;
    shows(&mut browser, "n-300").await;
    browser.wait_for("window.clive.link === 'up'", WAIT).await.unwrap();
    let view = browser.eval("({snapshots: clive.view.snapshots, gaps: clive.view.gaps})").await.unwrap();
    assert!(view["snapshots"].as_u64().unwrap() > snapshots_before, "the restarted server sent a snapshot: {view}");
    assert_eq!(view["gaps"], 0, "no output chunk ever skipped ahead");
    let lines: Vec<String> = serde_json::from_value(browser.eval(BUFFER_LINES).await.unwrap()).unwrap();
    let numbers: Vec<u32> = lines.iter().filter_map(|l| l.trim().strip_prefix("n-")?.parse().ok()).collect();
    assert_eq!(numbers, (1..=300).collect::<Vec<u32>>(), "every line once, in order, across the restart");
    screenshot(&mut browser, "pane").await;

    // A phone: the list stacks and the terminal fits the width.
    browser.viewport(390, 844, true).await.unwrap();
    browser.wait_for("document.documentElement.scrollWidth <= 390", WAIT).await.unwrap();
    screenshot(&mut browser, "phone").await;
    browser.viewport(1280, 800, false).await.unwrap();

    // A recording of a session that is gone is listed under Archived and plays in the page.
    let recordings = world.home.join("state/recordings");
    std::fs::create_dir_all(&recordings).unwrap();
    let cast = "{\"version\":2,\"width\":60,\"height\":8,\"title\":\"clive-0ldrec01: an old task\"}\n\
                [0.05, \"o\", \"$ make\\r\\n\"]\n[0.15, \"o\", \"\\u001b[32mreplayed-text\\u001b[0m\\r\\n\"]\n";
    std::fs::write(recordings.join("clive-0ldrec01.cast"), cast).unwrap();
    browser.eval("location.hash = '#/'").await.unwrap();
    browser.wait_for("document.querySelector('#archived').textContent.includes('an old task')", WAIT).await.unwrap();
    browser.eval("document.querySelector('#archived .card').click()").await.unwrap();
    browser.wait_for("window.clive.replay && clive.replay.done", WAIT).await.unwrap();
    shows(&mut browser, "replayed-text").await;

    // A wrong token gets 401; a socket opened from another origin is refused even with the token.
    browser.goto(&format!("http://{}/?token=wrong", serve.addr)).await.unwrap();
    let body = browser.eval("document.body.textContent").await.unwrap();
    assert!(body.as_str().unwrap().starts_with("401"), "{body}");
    browser.goto("data:text/html,<title>elsewhere</title>").await.unwrap();
    let foreign = format!(
        "new Promise(done => {{ const ws = new WebSocket('ws://{}/ws/sessions?token={}'); \
         ws.onopen = () => done('open'); ws.onclose = () => done('refused'); }})",
        serve.addr,
        serve.token()
    );
    assert_eq!(browser.eval(&foreign).await.unwrap(), "refused");

    browser.close().await;
    serve.kill().await;
    tmux.kill().await.unwrap();
}

/// `#{window_width}x#{window_height}` and the window's own `window-size` option, as tmux reports them.
async fn tmux_size(pane: &Pane) -> (String, Option<String>) {
    let size = pane.window_size().await.unwrap();
    (format!("{}x{}", size.width, size.height), size.option)
}

/// Waits until tmux reports `expected` for the pane's window.
async fn tmux_reports(pane: &Pane, expected: &str) {
    let mut backoff = tmux_habitat::Backoff::new(WAIT);
    loop {
        let (size, _) = tmux_size(pane).await;
        if size == expected {
            return;
        }
        assert!(backoff.wait().await, "tmux reports {size} for {}, not {expected}", pane.id());
    }
}

/// The size in force as the page shows it, once it is `fit` (`this_page`, `another_page` or null) and, when
/// this page set it, the size this page asked for.
async fn page_size(browser: &mut Browser, fit: &str) -> (u64, u64) {
    let condition = format!(
        "clive.view.fit === {fit} && (clive.view.fit !== 'this_page' || (clive.view.size.cols === \
         clive.view.asked.cols && clive.view.size.rows === clive.view.asked.rows)) && clive.view.size"
    );
    let size = browser.wait_for(&condition, WAIT).await.unwrap_or_else(|e| panic!("fit never became {fit}: {e}"));
    (size["cols"].as_u64().unwrap(), size["rows"].as_u64().unwrap())
}

#[test]
fn on_a_phone_the_pane_fits_history_is_searched_and_a_waiting_agent_calls() {
    let Some((world, runtime)) = with_chromium() else { return };
    runtime.block_on(phone_scenario(&world));
}

async fn phone_scenario(world: &World) {
    let tmux = world.control_server().await;
    // A program that prints its width whenever the terminal changes size (SIGWINCH interrupts `wait`).
    let winch = "bash --norc --noprofile -c 'trap \"echo cols=\\$(tput cols)\" WINCH; echo cols=$(tput cols); \
                 while :; do sleep 5 & wait $!; done'";
    let fitted = clive_session(&tmux, "clive-winch001", "fit me", Some(winch.to_owned())).await;
    let history = clive_session(&tmux, "clive-hist0001", "search me", None).await;
    let agent_log = world.dir.path().join("agent.jsonl");
    let agent_command = format!("{} --style claude2 --dialog --log {}", fake_agent().display(), agent_log.display());
    let agent = clive_session(&tmux, "clive-agent001", "ask first", Some(agent_command)).await;
    history.wait_ready(WAIT).await.unwrap();
    fitted.wait_until("the width printed", WAIT, |screen| screen.contains("cols=90")).await.unwrap();
    // A line printed 1,500 lines before the page opens: only the server's history has it.
    history.run("printf 'Needle-%s\\n' In-History; seq 1 1500", WAIT).await.unwrap();

    let alerts = world.dir.path().join("alerts.txt");
    let on_waiting = format!(
        "printf '%s|%s|%s|%s\\n' \"$CLIVE_SESSION\" \"$CLIVE_PANE\" \"$CLIVE_AGENT\" \"$CLIVE_QUESTION\" >> '{}'",
        alerts.display()
    );
    let serve = Serve::start(
        world,
        &[
            "--port",
            "0",
            "--allow-input-for",
            "clive-winch001",
            "--allow-input-for",
            "clive-agent001",
            "--on-waiting",
            &on_waiting,
        ],
    )
    .await;
    let origin = format!("http://{}", serve.addr);
    let mut browser = Browser::launch(390, 844).await.unwrap();
    browser.grant_permissions(&origin, &["notifications"]).await.unwrap();
    browser.viewport(390, 844, true).await.unwrap();
    let first_page = browser.page().clone();

    // Attention: the title and the list mark the waiting pane, one notification is raised and the command
    // runs once.
    browser.goto(&serve.url).await.unwrap();
    browser.wait_for("Notification.permission === 'granted'", WAIT).await.unwrap();
    browser.wait_for("document.querySelectorAll('#sessions .card.attention').length === 1", WAIT).await.unwrap();
    browser.wait_for("document.title.startsWith('⏳ 1 waiting')", WAIT).await.unwrap();
    let raised = browser.wait_for("clive.notifications.length === 1 && clive.notifications", WAIT).await.unwrap();
    assert!(raised[0]["title"].as_str().unwrap().contains("clive-agent001"), "{raised}");
    assert!(!raised[0]["body"].as_str().unwrap().is_empty(), "the question is the body: {raised}");
    browser.wait_for("clive.notifications[0].shown || clive.notifications[0].error", WAIT).await.unwrap();
    assert_eq!(browser.eval("clive.notifications[0].error").await.unwrap(), Value::Null);
    let card = browser.eval("document.querySelector('#sessions .card.attention').textContent").await.unwrap();
    assert!(card.as_str().unwrap().contains("clive-agent001"), "{card}");
    let mut backoff = tmux_habitat::Backoff::new(WAIT);
    while std::fs::read_to_string(&alerts).map_or(true, |a| a.is_empty()) {
        assert!(backoff.wait().await, "--on-waiting never ran");
    }
    screenshot(&mut browser, "phone-attention").await;

    // A second page and a reload see the same dialog and raise nothing.
    let second_page = browser.new_page().await.unwrap();
    browser.switch_to(&second_page).await.unwrap();
    browser.goto(&format!("{origin}/")).await.unwrap();
    browser.wait_for("clive.dialogsSeen.length === 1", WAIT).await.unwrap();
    assert_eq!(browser.eval("clive.notifications.length").await.unwrap(), 0, "a second page raised it again");
    browser.switch_to(&first_page).await.unwrap();
    browser.goto(&format!("{origin}/")).await.unwrap();
    browser.wait_for("clive.dialogsSeen.length === 1", WAIT).await.unwrap();
    assert_eq!(browser.eval("clive.notifications.length").await.unwrap(), 0, "a reload raised it again");

    // Fit: the page asks for its screen's size; tmux resizes the window and the program redraws for it.
    let fitted_key = serve.key("clive-winch001").await;
    open_pane(&mut browser, &fitted_key).await;
    shows(&mut browser, "cols=90").await;
    assert_eq!(tmux_size(&fitted).await, ("90x24".to_owned(), None));
    browser.eval("document.getElementById('fit').click()").await.unwrap();
    let (cols, rows) = page_size(&mut browser, "'this_page'").await;
    assert!((30..90).contains(&cols) && rows > 24, "a phone's screen: {cols}x{rows}");
    tmux_reports(&fitted, &format!("{cols}x{rows}")).await;
    shows(&mut browser, &format!("cols={cols}")).await;
    let term = browser.eval("[clive.view.term.cols, clive.view.term.rows]").await.unwrap();
    assert_eq!(term, json!([cols, rows]), "the page's terminal has the pane's size");

    // Two pages: the last request wins, both show it; when it leaves, the first page's size comes back.
    browser.switch_to(&second_page).await.unwrap();
    browser.viewport(600, 500, false).await.unwrap();
    open_pane(&mut browser, &fitted_key).await;
    browser.eval("document.getElementById('fit').click()").await.unwrap();
    let (wide_cols, wide_rows) = page_size(&mut browser, "'this_page'").await;
    assert_ne!((wide_cols, wide_rows), (cols, rows));
    tmux_reports(&fitted, &format!("{wide_cols}x{wide_rows}")).await;
    browser.switch_to(&first_page).await.unwrap();
    browser
        .wait_for(&format!("clive.view.size.cols === {wide_cols} && clive.view.size.rows === {wide_rows}"), WAIT)
        .await
        .unwrap();
    assert_eq!(page_size(&mut browser, "'another_page'").await, (wide_cols, wide_rows));
    browser
        .wait_for("document.getElementById('pane-size').textContent.includes('fitted by another page')", WAIT)
        .await
        .unwrap();
    browser.close_page(&second_page).await.unwrap();
    assert_eq!(page_size(&mut browser, "'this_page'").await, (cols, rows));
    tmux_reports(&fitted, &format!("{cols}x{rows}")).await;

    // Leaving a pane gives it back its size (and its window's own option: none).
    browser.eval("location.hash = '#/'").await.unwrap();
    tmux_reports(&fitted, "90x24").await;
    assert_eq!(tmux_size(&fitted).await, ("90x24".to_owned(), None));

    // A read-only page is refused, with the reason; the pane keeps its size.
    let history_key = serve.key("clive-hist0001").await;
    open_pane(&mut browser, &history_key).await;
    browser.wait_for("clive.view.access === 'read_only'", WAIT).await.unwrap();
    browser.eval("document.getElementById('fit').click()").await.unwrap();
    let reply = browser.wait_for("clive.view.fitReplies[0]", WAIT).await.unwrap();
    assert_eq!(reply["result"], "refused", "{reply}");
    assert!(reply["reason"].as_str().unwrap().contains("read-only"), "{reply}");
    browser.wait_for("document.getElementById('pane-note').textContent.includes('read-only')", WAIT).await.unwrap();
    assert_eq!(tmux_size(&history).await, ("90x24".to_owned(), None));

    // Search: the needle printed 1,500 lines ago is found (case-insensitive), scrolled to and selected.
    browser.eval("document.getElementById('search-input').focus()").await.unwrap();
    browser.command("Input.insertText", json!({"text": "needle-in-history"})).await.unwrap();
    let found = browser.wait_for("clive.view.search.matches.length > 0 && clive.view.search", WAIT).await.unwrap();
    assert_eq!(found["matches"].as_array().unwrap().len(), 1, "{found}");
    let at = browser
        .eval(
            "(() => { const t = clive.view.term, b = t.buffer.active, m = clive.view.search.matches[0]; \
             return { selection: t.getSelection(), row: m.row, top: b.viewportY, rows: t.rows, length: b.length, \
             count: document.getElementById('search-count').textContent }; })()",
        )
        .await
        .unwrap();
    assert_eq!(at["selection"], "Needle-In-History", "{at}");
    let (row, top, rows) = (at["row"].as_u64().unwrap(), at["top"].as_u64().unwrap(), at["rows"].as_u64().unwrap());
    assert!(top <= row && row < top + rows, "the match is on screen: {at}");
    assert!(at["length"].as_u64().unwrap() - row > 1500, "the match is 1,500 lines up: {at}");
    assert_eq!(at["count"], "1 of 1");
    screenshot(&mut browser, "phone-search").await;
    browser.eval("document.getElementById('search-case').click()").await.unwrap();
    browser.wait_for("clive.view.search.caseSensitive && clive.view.search.matches.length === 0", WAIT).await.unwrap();

    // The command ran once for the one dialog, with the session, pane, agent and question.
    let alerts = std::fs::read_to_string(&alerts).unwrap();
    let lines: Vec<&str> = alerts.lines().collect();
    assert_eq!(lines.len(), 1, "{alerts}");
    let fields: Vec<&str> = lines[0].split('|').collect();
    assert_eq!(fields[..3], ["clive-agent001", "0.0", "claude"], "{alerts}");
    assert!(!fields[3].is_empty(), "{alerts}");

    // A fitted Claude-Code-like agent on a phone, for the docs; closing the page gives it back its size.
    let agent_key = serve.key("clive-agent001").await;
    open_pane(&mut browser, &agent_key).await;
    browser.eval("document.getElementById('fit').click()").await.unwrap();
    let (agent_cols, agent_rows) = page_size(&mut browser, "'this_page'").await;
    tmux_reports(&agent, &format!("{agent_cols}x{agent_rows}")).await;
    browser.wait_for("document.querySelectorAll('#approval-choices button').length === 3", WAIT).await.unwrap();
    screenshot(&mut browser, "phone-fitted").await;
    browser.goto("about:blank").await.unwrap();
    tmux_reports(&agent, "90x24").await;
    assert_eq!(tmux_size(&agent).await, ("90x24".to_owned(), None));

    browser.close().await;
    serve.kill().await;
    tmux.kill().await.unwrap();
}
