//! The server against real tmux panes, spoken to the way the page speaks to it: the token and the Origin
//! check, snapshots and exact catch-up, input, approvals from the fake agent TUI, and panes that go away.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is the failure report

mod support;

use std::time::Duration;

use clive_serve::{Access, InputPolicy, OnWaiting};
use serde_json::json;
use support::{Received, Served, TIMEOUT, fake_agent};
use tmux_habitat::{OutputEvent, SessionOptions};

#[tokio::test]
async fn every_request_needs_the_token() {
    let served = Served::start(InputPolicy::read_only()).await;
    let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    for path in ["/", "/?token=wrong", "/api/sessions", "/assets/app.js", "/ws/sessions"] {
        let status = client.get(served.http(path)).send().await.unwrap().status();
        assert_eq!(status, 401, "{path} without the right token");
    }
    let almost = format!("/?token={}x", served.token.expose());
    assert_eq!(client.get(served.http(&almost)).send().await.unwrap().status(), 401);

    // The URL printed at start: the token becomes a cookie and leaves the address bar.
    let opened = client.get(served.serve.url()).send().await.unwrap();
    assert_eq!(opened.status(), 303);
    assert_eq!(opened.headers()["location"], "/");
    let cookie = opened.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "{cookie}");
    let pair = cookie.split(';').next().unwrap().to_owned();
    let page = client.get(served.http("/")).header("cookie", &pair).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.headers()["content-security-policy"].to_str().unwrap().contains("default-src 'self'"));
    assert!(page.text().await.unwrap().contains("/assets/app.js"));
    let xterm = client.get(served.http("/assets/xterm.mjs")).header("cookie", &pair).send().await.unwrap();
    assert_eq!(xterm.status(), 200);
    assert!(xterm.text().await.unwrap().contains("export{"), "the vendored xterm.js module is served");
    let api = client.get(served.http("/api/sessions")).bearer_auth(served.token.expose()).send().await.unwrap();
    assert_eq!(api.status(), 200);
}

#[tokio::test]
async fn a_websocket_from_another_origin_is_refused() {
    let served = Served::start(InputPolicy::read_only()).await;
    match served.ws("/ws/sessions", Some("http://evil.example")).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => assert_eq!(response.status(), 403),
        other => panic!("a foreign origin must be refused, got {:?}", other.map(|_| "a socket")),
    }
    let own = format!("http://{}", served.serve.addr());
    assert!(served.ws("/ws/sessions", Some(&own)).await.is_ok(), "the page's own origin is accepted");
    assert!(served.ws("/ws/sessions", None).await.is_ok(), "a tool that sends no Origin needs only the token");
}

#[tokio::test]
async fn a_client_resumes_with_exactly_the_missing_bytes() {
    let tmux = tmux_habitat::Server::isolated().await.unwrap();
    let session = tmux.new_session(SessionOptions::new("work").size(80, 24)).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(TIMEOUT).await.unwrap();
    // What the pane really prints, from before the server starts.
    let mut truth = pane.subscribe().await.unwrap();
    let served = Served::on(tmux, InputPolicy::read_only()).await;
    let key = served.pane_where("work", |_| true).await["key"].as_str().unwrap().to_owned();

    let mut client = served.open_pane(&key, None).await;
    assert!(matches!(client.next().await, Received::Snapshot(_)), "a new client starts from a snapshot");
    pane.run("printf 'one\\n'", TIMEOUT).await.unwrap();
    client.until_output("one\r\n").await;
    let (epoch, offset) = (client.epoch.clone().unwrap(), client.offset);
    let mut received = client.shown.clone();
    drop(client);

    pane.run("printf 'two\\nthree\\n'", TIMEOUT).await.unwrap();
    let mut client = served.open_pane(&key, Some((&epoch, offset))).await;
    client.offset = offset;
    client.until_output("two\r\nthree\r\n").await;
    assert_eq!(client.snapshots, 0, "a client the ring still holds gets no snapshot");
    received.extend_from_slice(&client.shown);

    // What the client got across the reconnect is one unbroken run of the pane's bytes: no gap, no repeat.
    let mut printed = Vec::new();
    while !printed.windows(received.len()).any(|w| w == received.as_slice()) {
        match tokio::time::timeout(TIMEOUT, truth.recv()).await {
            Ok(Some(OutputEvent::Bytes(bytes))) => printed.extend_from_slice(&bytes),
            other => panic!(
                "{other:?}: the client's bytes are not a run of the pane's:\n{:?}\nvs\n{:?}",
                String::from_utf8_lossy(&received),
                String::from_utf8_lossy(&printed)
            ),
        }
    }
}

#[tokio::test]
async fn a_client_from_another_run_or_too_far_behind_gets_a_snapshot() {
    let served = Served::start(InputPolicy::read_only()).await;
    let session = served.tmux.new_session(SessionOptions::new("busy").size(80, 24)).await.unwrap();
    let pane = session.first_pane().clone();
    pane.wait_ready(TIMEOUT).await.unwrap();
    let key = served.pane_where("busy", |_| true).await["key"].as_str().unwrap().to_owned();

    let mut client = served.open_pane(&key, Some(("12345", 0))).await;
    assert!(matches!(client.next().await, Received::Snapshot(_)), "an unknown run means a snapshot");
    let (epoch, offset) = (client.epoch.clone().unwrap(), client.offset);
    drop(client);
    // Far more than the ring keeps (1 MiB) while the client is away.
    pane.run("head -c 1500000 /dev/zero | tr '\\0' x; echo; echo done-printing", Duration::from_secs(30))
        .await
        .unwrap();
    let mut client = served.open_pane(&key, Some((&epoch, offset))).await;
    match client.next().await {
        Received::Snapshot(snapshot) => {
            assert_eq!(snapshot["epoch"].as_str(), Some(epoch.as_str()), "same run, new place");
            assert!(snapshot["offset"].as_u64().unwrap() > offset + 1_000_000);
            assert!(snapshot["data"].as_str().unwrap().contains("done-printing"));
        }
        _ => panic!("a client the ring no longer holds must get a snapshot first"),
    }
}

#[tokio::test]
async fn typing_needs_input_access() {
    let policy = InputPolicy::read_only().allow_session("typed", Access::Input);
    let served = Served::start(policy).await;
    for name in ["typed", "watched"] {
        let session = served.tmux.new_session(SessionOptions::new(name).size(80, 24)).await.unwrap();
        session.first_pane().wait_ready(TIMEOUT).await.unwrap();
    }
    let watched = served.pane_where("watched", |p| p["access"] == "read_only").await;
    let typed = served.pane_where("typed", |p| p["access"] == "input").await;

    let mut client = served.open_pane(watched["key"].as_str().unwrap(), None).await;
    client.send(json!({"type": "input", "data": "echo nope\r"})).await;
    let error = client.until_message("error").await;
    assert!(error["message"].as_str().unwrap().contains("--allow-input"), "{error}");

    let mut client = served.open_pane(typed["key"].as_str().unwrap(), None).await;
    client.until_status(|s| s["access"] == "input").await;
    client.send(json!({"type": "input", "data": "echo typed-$((6*7))\r"})).await;
    client.until_output("typed-42").await;
}

#[tokio::test]
async fn an_approval_dialog_becomes_buttons_and_one_click_sends_its_keys_once() {
    let policy = InputPolicy::read_only().allow_session("lane", Access::Approvals);
    let served = Served::start(policy).await;
    let log = served.dir.path().join("agent.jsonl");
    let command = format!("{} --style claude2 --dialog --draft hello --log {}", fake_agent().display(), log.display());
    served.tmux.new_session(SessionOptions::new("lane").size(100, 30).command(command)).await.unwrap();

    let listed = served.pane_where("lane", |p| p["state"] == "waiting").await;
    assert_eq!(listed["agent"], "claude", "the fake agent's frame is recognised: {listed}");
    let mut client = served.open_pane(listed["key"].as_str().unwrap(), None).await;
    let status = client.until_status(|s| !s["dialog"].is_null()).await;
    let dialog = &status["dialog"];
    assert_eq!(dialog["prompt"], "Do you want to proceed?");
    let labels: Vec<&str> =
        dialog["choices"].as_array().unwrap().iter().map(|c| c["label"].as_str().unwrap()).collect();
    assert_eq!(labels[0], "Yes");
    assert_eq!(labels.len(), 3, "{labels:?}");

    // Two clicks on "Yes" before the agent redraws: the first sends Enter, the second nothing.
    let id = dialog["id"].as_str().unwrap().to_owned();
    client.send(json!({"type": "answer", "dialog": id, "choice": 0})).await;
    client.send(json!({"type": "answer", "dialog": id, "choice": 0})).await;
    let first = client.until_message("answer").await;
    let second = client.until_message("answer").await;
    assert_eq!(first["result"], "sent", "{first}");
    assert_eq!(second["result"], "stale", "{second}");
    client.until_output("Approved").await;
    client.until_status(|s| s["dialog"].is_null() && s["state"] == "running").await;

    // A second Enter would have submitted the draft on its own. Finish it and submit: exactly one message.
    let pane = served.tmux.pane("lane").await.unwrap();
    pane.send_text(" world").await.unwrap();
    pane.send_keys(&[tmux_habitat::Key::Enter]).await.unwrap();
    let mut backoff = tmux_habitat::Backoff::new(TIMEOUT);
    let submitted = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if !text.is_empty() || !backoff.wait().await {
            break text;
        }
    };
    let texts: Vec<String> = submitted
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(texts, vec!["hello world"], "the dialog's Enter was sent once and nothing else reached the box");
}

#[tokio::test]
async fn a_choice_marked_esc_is_answered_with_escape() {
    let policy = InputPolicy::everywhere(Access::Approvals);
    let served = Served::start(policy).await;
    let log = served.dir.path().join("agent.jsonl");
    let command = format!("{} --style codex --dialog --log {}", fake_agent().display(), log.display());
    served.tmux.new_session(SessionOptions::new("deny").size(100, 30).command(command)).await.unwrap();
    let listed = served.pane_where("deny", |p| p["state"] == "waiting").await;
    assert_eq!(listed["agent"], "codex");
    let mut client = served.open_pane(listed["key"].as_str().unwrap(), None).await;
    let status = client.until_status(|s| !s["dialog"].is_null()).await;
    let last = status["dialog"]["choices"].as_array().unwrap().len() - 1;
    assert!(status["dialog"]["choices"][last]["label"].as_str().unwrap().ends_with("(esc)"), "{status}");
    client.send(json!({"type": "answer", "dialog": status["dialog"]["id"], "choice": last})).await;
    assert_eq!(client.until_message("answer").await["result"], "sent");
    client.until_output("You canceled the request").await;
}

#[tokio::test]
async fn a_read_only_page_cannot_answer() {
    let served = Served::start(InputPolicy::read_only()).await;
    let log = served.dir.path().join("agent.jsonl");
    let command = format!("{} --style codex --dialog --log {}", fake_agent().display(), log.display());
    served.tmux.new_session(SessionOptions::new("codex").size(100, 30).command(command)).await.unwrap();
    let listed = served.pane_where("codex", |p| p["state"] == "waiting").await;
    let mut client = served.open_pane(listed["key"].as_str().unwrap(), None).await;
    let status = client.until_status(|s| !s["dialog"].is_null()).await;
    assert_eq!(status["access"], "read_only");
    client.send(json!({"type": "answer", "dialog": status["dialog"]["id"], "choice": 0})).await;
    let answer = client.until_message("answer").await;
    assert_eq!(answer["result"], "refused", "{answer}");
    assert_eq!(served.pane_where("codex", |_| true).await["state"], "waiting", "the dialog is still up");
}

#[tokio::test]
async fn a_pane_that_goes_away_closes_its_socket_and_leaves_the_list() {
    let served = Served::start(InputPolicy::read_only()).await;
    let session = served.tmux.new_session(SessionOptions::new("short").size(80, 24)).await.unwrap();
    session.first_pane().wait_ready(TIMEOUT).await.unwrap();
    let dead = served.tmux.new_session(SessionOptions::new("exited").command("true")).await.unwrap();
    let listed = served.pane_where("short", |_| true).await;
    assert_eq!(served.pane_where("exited", |p| p["state"] == "dead").await["state"], "dead");

    let mut client = served.open_pane(listed["key"].as_str().unwrap(), None).await;
    assert!(matches!(client.next().await, Received::Snapshot(_)));
    session.kill().await.unwrap();
    loop {
        match client.next().await {
            Received::Closed(code) => {
                assert_eq!(code, Some(4404), "the page stops reconnecting to a pane that is gone");
                break;
            }
            _ => continue,
        }
    }
    let mut backoff = tmux_habitat::Backoff::new(TIMEOUT);
    while served.listing().await["panes"].as_array().unwrap().iter().any(|p| p["session"] == "short") {
        assert!(backoff.wait().await, "the killed session is still listed");
    }
    drop(dead);
}

#[tokio::test]
async fn archived_recordings_are_listed_and_served() {
    let served = Served::start(InputPolicy::read_only()).await;
    let dir = served.dir.path().join("recordings");
    std::fs::create_dir_all(&dir).unwrap();
    let cast =
        "{\"version\":2,\"width\":40,\"height\":5,\"title\":\"clive-0ld: tests\"}\n[0.5, \"o\", \"done\\r\\n\"]\n";
    std::fs::write(dir.join("clive-0ld.cast"), cast).unwrap();
    let mut backoff = tmux_habitat::Backoff::new(TIMEOUT);
    let archived = loop {
        let listing = served.listing().await;
        if let Some(item) = listing["archived"].as_array().unwrap().iter().find(|a| a["id"] == "clive-0ld") {
            break item.clone();
        }
        assert!(backoff.wait().await, "the recording is not listed: {listing:#}");
    };
    assert_eq!(archived["title"], "clive-0ld: tests");
    assert_eq!((archived["recording"].as_bool(), archived["log"].as_bool()), (Some(true), Some(false)));

    let client = reqwest::Client::new();
    let get = |path: &str| client.get(served.http(path)).bearer_auth(served.token.expose()).send();
    let response = get("/api/recordings/clive-0ld").await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/x-asciicast");
    assert_eq!(response.text().await.unwrap(), cast);
    for path in ["/api/recordings/clive-none", "/api/recordings/..%2Fetc", "/api/logs/clive-0ld"] {
        assert_eq!(get(path).await.unwrap().status(), 404, "{path}");
    }
}

/// `WxH` of the pane's window as tmux reports it, and the window's own `window-size` option.
async fn window(pane: &tmux_habitat::Pane) -> (String, Option<String>) {
    let size = match pane.window_size().await {
        Ok(size) => size,
        Err(e) => {
            // Whether the server itself is gone (a tmux crash) or only the pane, for the failure report.
            let sessions = pane.server().tmux(tmux_habitat::Command::new("list-sessions")).await;
            panic!("{e}; the server's sessions: {sessions:?}")
        }
    };
    (format!("{}x{}", size.width, size.height), size.option)
}

#[tokio::test]
async fn a_page_fits_the_pane_to_its_screen_the_last_request_wins_and_the_size_comes_back() {
    let policy = InputPolicy::read_only().allow_session("fit", Access::Input);
    let served = Served::start(policy).await;
    let mut panes = Vec::new();
    for name in ["fit", "watched", "split"] {
        let session = served.tmux.new_session(SessionOptions::new(name).size(80, 24)).await.unwrap();
        panes.push(session.first_pane().clone());
    }
    let (pane, watched) = (panes[0].clone(), panes[1].clone());
    let key = served.pane_where("fit", |p| p["access"] == "input").await["key"].as_str().unwrap().to_owned();
    let size_is = |cols: u64, rows: u64, fit: &'static str| {
        move |s: &serde_json::Value| s["cols"] == cols && s["rows"] == rows && s["fit"] == fit
    };

    let mut first = served.open_pane(&key, None).await;
    first.until_status(|s| s["cols"] == 80 && s["fit"].is_null()).await;
    first.send(json!({"type": "fit", "cols": 50, "rows": 20})).await;
    assert_eq!(first.until_message("fit").await["result"], "applied");
    first.until_status(size_is(50, 20, "this_page")).await;
    assert_eq!(window(&pane).await, ("50x20".to_owned(), Some("manual".to_owned())));

    // A second page asks: its size is in force, and the first page shows that another page set it.
    let mut second = served.open_pane(&key, None).await;
    second.send(json!({"type": "fit", "cols": 60, "rows": 15})).await;
    assert_eq!(second.until_message("fit").await["result"], "applied");
    second.until_status(size_is(60, 15, "this_page")).await;
    first.until_status(size_is(60, 15, "another_page")).await;
    assert_eq!(window(&pane).await.0, "60x15");

    // The second page leaves: the first page's request is in force again.
    drop(second);
    first.statuses.clear();
    first.until_status(size_is(50, 20, "this_page")).await;
    assert_eq!(window(&pane).await.0, "50x20");
    // It withdraws its request: the pane's own size and option come back.
    first.send(json!({"type": "unfit"})).await;
    first.statuses.clear();
    first.until_status(|s| s["cols"] == 80 && s["rows"] == 24 && s["fit"].is_null()).await;
    assert_eq!(window(&pane).await, ("80x24".to_owned(), None));

    // Refused, with the reason: a read-only page, a size out of range, a pane that shares its window.
    let watched_key = served.pane_where("watched", |_| true).await["key"].as_str().unwrap().to_owned();
    let mut reader = served.open_pane(&watched_key, None).await;
    reader.send(json!({"type": "fit", "cols": 50, "rows": 20})).await;
    let refused = reader.until_message("fit").await;
    assert_eq!(refused["result"], "refused", "{refused}");
    assert!(
        refused["reason"].as_str().unwrap().starts_with("read-only")
            && refused["reason"].as_str().unwrap().contains("--allow-input"),
        "{refused}"
    );
    assert_eq!(window(&watched).await, ("80x24".to_owned(), None));
    first.send(json!({"type": "fit", "cols": 5, "rows": 20})).await;
    let refused = first.until_message("fit").await;
    assert!(refused["result"] == "refused" && refused["reason"].as_str().unwrap().contains("20–1000"), "{refused}");
    served.tmux.tmux(tmux_habitat::Command::new("split-window").args(["-d", "-t", pane.id().as_str()])).await.unwrap();
    first.send(json!({"type": "fit", "cols": 50, "rows": 20})).await;
    let refused = first.until_message("fit").await;
    assert!(
        refused["result"] == "refused" && refused["reason"].as_str().unwrap().contains("shares its window"),
        "{refused}"
    );
    assert_eq!(window(&pane).await, ("80x24".to_owned(), None));

    // A server that stops puts a fitted pane back first.
    let split_key = served.pane_where("split", |_| true).await["key"].as_str().unwrap().to_owned();
    let mut client = served.open_pane(&split_key, None).await;
    client.send(json!({"type": "fit", "cols": 40, "rows": 12})).await;
    assert_eq!(client.until_message("fit").await["result"], "refused", "no input access to the session `split`");
    drop((client, first, reader));
    // One server at a time, as `clive serve` runs: the first stops (its pane is unfitted already).
    let Served { tmux, serve, .. } = served;
    serve.stop().await;
    let policy = InputPolicy::everywhere(Access::Input);
    let served_again = Served::on(tmux, policy).await;
    let mut client = served_again.open_pane(&split_key, None).await;
    client.send(json!({"type": "fit", "cols": 40, "rows": 12})).await;
    assert_eq!(client.until_message("fit").await["result"], "applied");
    assert_eq!(window(&panes[2]).await.0, "40x12");
    served_again.serve.stop().await;
    assert_eq!(window(&panes[2]).await, ("80x24".to_owned(), None));
}

#[tokio::test]
async fn a_new_dialog_runs_on_waiting_once_and_a_resize_keeps_it_the_same_dialog() {
    let tmux = tmux_habitat::Server::isolated().await.unwrap();
    let policy = InputPolicy::everywhere(Access::Input);
    let served = Served::configured(tmux, policy, |config, dir| {
        let out = dir.join("alerts");
        let command = format!(
            "echo \"$CLIVE_SESSION $CLIVE_PANE $CLIVE_AGENT $CLIVE_DIALOG $CLIVE_QUESTION\" >> '{}'",
            out.display()
        );
        config.on_waiting = Some(OnWaiting::new(command).unwrap());
    })
    .await;
    let alerts = served.dir.path().join("alerts");
    let log = served.dir.path().join("agent.jsonl");
    let command = format!("{} --style claude2 --dialog --log {}", fake_agent().display(), log.display());
    served.tmux.new_session(SessionOptions::new("lane").size(100, 30).command(command)).await.unwrap();
    let listed = served.pane_where("lane", |p| p["state"] == "waiting").await;
    let dialog = listed["dialog"].as_str().unwrap().to_owned();
    assert_eq!(listed["question"], "Do you want to proceed?", "{listed}");
    let mut backoff = tmux_habitat::Backoff::new(TIMEOUT);
    while std::fs::read_to_string(&alerts).unwrap_or_default().is_empty() {
        assert!(backoff.wait().await, "--on-waiting never ran");
    }
    assert_eq!(
        std::fs::read_to_string(&alerts).unwrap(),
        format!("lane 0.0 claude {dialog} Do you want to proceed?\n")
    );

    // Fitted to a phone's width, the agent redraws its dialog: still the same dialog.
    let key = listed["key"].as_str().unwrap();
    let mut client = served.open_pane(key, None).await;
    client.send(json!({"type": "fit", "cols": 46, "rows": 40})).await;
    assert_eq!(client.until_message("fit").await["result"], "applied");
    let status = client.until_status(|s| s["cols"] == 46 && !s["dialog"].is_null()).await;
    assert_eq!(status["dialog"]["id"], dialog.as_str(), "{status}");
    drop(client);
    served.pane_where("lane", |p| p["cols"] == 100 && p["state"] == "waiting").await;
    let again = served.pane_where("lane", |p| !p["dialog"].is_null()).await;
    assert_eq!(again["dialog"], dialog.as_str(), "{again}");
    assert_eq!(std::fs::read_to_string(&alerts).unwrap().lines().count(), 1);
}
