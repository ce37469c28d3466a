//! End to end: lane-send against fake agents running as real programs in real tmux panes.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is the failure report

mod common;

use std::time::Duration;

use common::Lab;
use lane_send::{Agent, Stage};

#[tokio::test]
async fn delivers_to_every_frame_style() {
    let lab = Lab::new().await;
    for (style, agent) in [
        ("claude2", Agent::Claude),
        ("claude1", Agent::Claude),
        ("codex", Agent::Codex),
        ("gemini", Agent::Gemini),
        ("grok", Agent::Grok),
    ] {
        let lane = lab.agent(style, &["--style", style, "--placeholder"]).await;
        let message = format!("ops: hello {style}");
        let outcome = lab.send(style, &message).await;
        assert!(outcome.is_delivered(), "{style}: {outcome:?}");
        assert_eq!(outcome.details().agent, Some(agent));
        assert!(!outcome.queued());
        assert_eq!(outcome.details().enters, 1, "{style}");
        let submissions = lane.wait_for_submissions(1, Duration::from_secs(5)).await;
        assert_eq!(submissions.iter().map(|s| s.text.as_str()).collect::<Vec<_>>(), vec![message.as_str()], "{style}");
    }
    let outcomes = lab.journal().into_iter().filter(|record| record["event"] == "outcome").count();
    assert_eq!(outcomes, 5);
}

#[tokio::test]
async fn ghost_suggestion_is_not_input() {
    let lab = Lab::new().await;
    let lane = lab.agent("api", &["--style", "claude2", "--ghost", "commit these changes"]).await;
    let outcome = lab.send("api", "ops: run the tests").await;
    assert!(outcome.is_delivered(), "{outcome:?}");
    assert_eq!(lane.wait_for_submissions(1, Duration::from_secs(5)).await[0].text, "ops: run the tests");
}

#[tokio::test]
async fn human_draft_is_kept_and_nothing_is_typed() {
    let lab = Lab::new().await;
    let lane = lab.agent("api", &["--style", "codex", "--draft", "half a thought"]).await;
    let outcome = lab.send("api", "ops: run the tests").await;
    assert_eq!(outcome.stage(), Some(Stage::NotPasted), "{outcome:?}");
    assert!(outcome.details().reason.contains("unsigned"), "{}", outcome.details().reason);
    assert!(lab.screen_text("api").await.contains("› half a thought"));
    assert!(lane.submissions().is_empty());
}

#[tokio::test]
async fn leftover_signed_by_a_live_lane_is_cleared_not_submitted() {
    let lab = Lab::new().await;
    lab.shell("web").await;
    let lane = lab.agent("api", &["--style", "claude2", "--draft", "web: stale leftover text"]).await;
    let outcome = lab.send("api", "ops: fresh message").await;
    assert!(outcome.is_delivered(), "{outcome:?}");
    assert_eq!(outcome.details().cleared_leftover.as_deref(), Some("web: stale leftover text"));
    let submissions = lane.wait_for_submissions(1, Duration::from_secs(5)).await;
    assert_eq!(submissions.len(), 1);
    assert_eq!(submissions[0].text, "ops: fresh message");
    let journal = lab.journal();
    assert!(
        journal
            .iter()
            .any(|record| record["event"] == "cleared_leftover" && record["leftover"] == "web: stale leftover text")
    );
}

#[tokio::test]
async fn leftover_signed_by_a_dead_lane_is_kept() {
    let lab = Lab::new().await;
    let lane = lab.agent("api", &["--style", "gemini", "--draft", "gone: text from a dead lane"]).await;
    let outcome = lab.send("api", "ops: fresh message").await;
    assert_eq!(outcome.stage(), Some(Stage::NotPasted), "{outcome:?}");
    assert!(outcome.details().reason.contains("\"gone\""), "{}", outcome.details().reason);
    assert!(lab.screen_text("api").await.contains("gone: text from a dead lane"));
    assert!(lane.submissions().is_empty());
}

#[tokio::test]
async fn busy_queue_is_delivered_queued() {
    let lab = Lab::new().await;
    let lane = lab.agent("api", &["--style", "claude2", "--busy-after-submit", "3000", "--busy-mode", "queue"]).await;
    let first = lab.send("api", "ops: first").await;
    assert!(first.is_delivered() && !first.queued(), "{first:?}");
    let second = lab.send("api", "ops: second, while busy").await;
    assert!(second.is_delivered(), "{second:?}");
    assert!(second.queued(), "{second:?}");
    let submissions = lane.wait_for_submissions(2, Duration::from_secs(8)).await;
    let texts: Vec<&str> = submissions.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts, vec!["ops: first", "ops: second, while busy"]);
    assert!(submissions[1].queued);
}

#[tokio::test]
async fn busy_ignore_is_held_entered_with_the_text_taken_back() {
    let lab = Lab::new().await;
    let lane = lab.agent("api", &["--style", "claude2", "--busy-after-submit", "60000", "--busy-mode", "ignore"]).await;
    assert!(lab.send("api", "ops: first").await.is_delivered());
    let options = lab.options(Duration::from_millis(2500));
    let held = lane_send::deliver(&lab.server, "api", "ops: ignored while busy", &options).await.unwrap();
    assert_eq!(held.stage(), Some(Stage::Entered), "{held:?}");
    assert!(held.details().enters >= 2, "Enter is pressed again while our text stays: {held:?}");
    assert_eq!(held.details().restored, Some(true), "{held:?}");
    assert!(!lab.screen_text("api").await.contains("ignored while busy"), "the box is empty again");
    let later = lane.submissions();
    assert_eq!(later.iter().filter(|s| s.text == "ops: ignored while busy").count(), 0);
    assert_eq!(later.len(), 1);
}

#[tokio::test]
async fn swallowed_enter_is_pressed_again_and_submits_once() {
    let lab = Lab::new().await;
    let lane = lab.agent("api", &["--style", "codex", "--swallow-first-enter"]).await;
    let outcome = lab.send("api", "ops: after a swallowed enter").await;
    assert!(outcome.is_delivered(), "{outcome:?}");
    assert_eq!(outcome.details().enters, 2);
    let submissions = lane.wait_for_submissions(1, Duration::from_secs(5)).await;
    assert_eq!(submissions.len(), 1);
    assert_eq!(submissions[0].text, "ops: after a swallowed enter");
}

#[tokio::test]
async fn an_enter_made_into_a_newline_is_taken_out_before_enter_again() {
    for style in ["claude2", "codex", "gemini", "grok"] {
        let lab = Lab::new().await;
        let lane = lab.agent("api", &["--style", style, "--first-enter-newline"]).await;
        let outcome = lab.send("api", "ops: no stray newline").await;
        assert!(outcome.is_delivered(), "{style}: {outcome:?}");
        assert_eq!(outcome.details().enters, 2, "{style}");
        let submissions = lane.wait_for_submissions(1, Duration::from_secs(5)).await;
        assert_eq!(submissions.len(), 1, "{style}");
        assert_eq!(submissions[0].text, "ops: no stray newline", "{style}: submitted without the newline");
    }
}

#[tokio::test]
async fn paste_newline_window_is_respected_by_the_settle_time() {
    let lab = Lab::new().await;
    let lane = lab.agent("api", &["--style", "gemini", "--paste-newline-window", "40"]).await;
    let outcome = lab.send("api", "ops: enter must not become a newline").await;
    assert!(outcome.is_delivered(), "{outcome:?}");
    assert_eq!(outcome.details().enters, 1);
    assert_eq!(
        lane.wait_for_submissions(1, Duration::from_secs(5)).await[0].text,
        "ops: enter must not become a newline"
    );
}

#[tokio::test]
async fn unknown_frame_and_dialog_are_held_with_nothing_typed() {
    let lab = Lab::new().await;
    lab.shell("sh").await;
    let before = lab.screen_text("sh").await;
    let outcome = lab.send("sh", "ops: not for a shell").await;
    assert_eq!(outcome.stage(), Some(Stage::NotPasted), "{outcome:?}");
    assert_eq!(outcome.details().agent, None);
    assert_eq!(lab.screen_text("sh").await, before);

    let lane = lab
        .agent_until("api", &["--style", "claude2", "--dialog"], |recognition| {
            matches!(recognition, lane_send::frame::Recognition::Dialog { .. })
        })
        .await;
    let before = lab.screen_text("api").await;
    let outcome = lab.send("api", "ops: would approve the dialog").await;
    assert_eq!(outcome.stage(), Some(Stage::NotPasted), "{outcome:?}");
    assert!(outcome.details().reason.contains("dialog"), "{}", outcome.details().reason);
    assert_eq!(lab.screen_text("api").await, before);
    assert!(lane.submissions().is_empty());
}

#[tokio::test]
async fn missing_lane_is_held_not_pasted() {
    let lab = Lab::new().await;
    let outcome = lab.send("nobody", "ops: hello").await;
    assert_eq!(outcome.stage(), Some(Stage::NotPasted));
    assert_eq!(outcome.details().pane, None);
}

#[tokio::test]
async fn awkward_messages_arrive_byte_identical() {
    let lab = Lab::new().await;
    let lane = lab.agent("api", &["--style", "claude2", "--collapse-paste-over", "800"]).await;
    let long_line = format!("ops: {}", "0123456789abcdefghij".repeat(500));
    let messages = [
        "ops: \"double\" and 'single' quotes".to_string(),
        "ops: $(rm -rf /) `backticks` ${HOME} \\ backslash".to_string(),
        "ops: trailing semicolon;".to_string(),
        "ops: tab\there\tand\tthere".to_string(),
        "ops: emoji 🚀 ✅ and wide 漢字".to_string(),
        "ops: first line\nsecond line\n\nfourth after a blank".to_string(),
        "ops: five\nlines\nthat\ncollapse\ninto a token".to_string(),
        long_line,
    ];
    for (index, message) in messages.iter().enumerate() {
        let outcome = lab.send("api", message).await;
        assert!(outcome.is_delivered(), "message {index}: {outcome:?}");
        let submissions = lane.wait_for_submissions(index + 1, Duration::from_secs(5)).await;
        assert_eq!(submissions.len(), index + 1, "message {index}");
        assert_eq!(&submissions[index].text, message, "message {index}");
    }
}

#[tokio::test]
async fn unsigned_message_is_a_usage_error_and_types_nothing() {
    let lab = Lab::new().await;
    let lane = lab.agent("api", &["--style", "claude2"]).await;
    let error =
        lane_send::deliver(&lab.server, "api", "no signature", &lab.options(Duration::from_secs(2))).await.unwrap_err();
    assert!(matches!(error, lane_send::Error::Unsigned { .. }));
    assert!(lane.submissions().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_senders_in_one_process_take_turns() {
    let lab = Lab::new().await;
    let lane = lab.agent("api", &["--style", "grok"]).await;
    let messages: Vec<String> = (0..4).map(|index| format!("ops: in-process sender {index}")).collect();
    let tasks: Vec<_> = messages
        .iter()
        .map(|message| {
            let (server, options, message) =
                (lab.server.clone(), lab.options(Duration::from_secs(30)), message.clone());
            tokio::spawn(async move { lane_send::deliver(&server, "api", &message, &options).await.unwrap() })
        })
        .collect();
    for task in tasks {
        let outcome = task.await.unwrap();
        assert!(outcome.is_delivered(), "{outcome:?}");
    }
    let mut texts: Vec<String> =
        lane.wait_for_submissions(4, Duration::from_secs(5)).await.into_iter().map(|s| s.text).collect();
    texts.sort();
    assert_eq!(texts, messages);
}

#[tokio::test]
async fn a_lane_locked_by_another_sender_is_held_not_pasted() {
    let lab = Lab::new().await;
    let lane = lab.agent("api", &["--style", "claude2"]).await;
    let pane = lab.server.pane("api").await.unwrap();
    let path = lane_send::lock::lock_file(
        &lab.dirs().runtime,
        &lab.server.socket_path().to_string_lossy(),
        pane.id().as_str(),
    );
    let _held = lane_send::lock::acquire(&path, "api", Duration::from_secs(1)).await.unwrap();
    let outcome =
        lane_send::deliver(&lab.server, "api", "ops: waits for the lock", &lab.options(Duration::from_millis(300)))
            .await
            .unwrap();
    assert_eq!(outcome.stage(), Some(Stage::NotPasted), "{outcome:?}");
    assert!(outcome.details().reason.contains("lock"), "{}", outcome.details().reason);
    assert!(lane.submissions().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busy_queue_marker_is_recognised_for_every_style() {
    let lab = Lab::new().await;
    let mut lanes = Vec::new();
    for style in ["claude2", "claude1", "codex", "gemini", "grok"] {
        lanes.push(lab.agent(style, &["--style", style, "--busy-after-submit", "3000", "--busy-mode", "queue"]).await);
    }
    let tasks: Vec<_> = ["claude2", "claude1", "codex", "gemini", "grok"]
        .into_iter()
        .map(|style| {
            let (server, options) = (lab.server.clone(), lab.options(Duration::from_secs(10)));
            tokio::spawn(async move {
                let first = lane_send::deliver(&server, style, "ops: start work", &options).await.unwrap();
                let second = lane_send::deliver(&server, style, "ops: queued follow-up", &options).await.unwrap();
                (style, first, second)
            })
        })
        .collect();
    for task in tasks {
        let (style, first, second) = task.await.unwrap();
        assert!(first.is_delivered() && !first.queued(), "{style}: {first:?}");
        assert!(second.is_delivered() && second.queued(), "{style}: {second:?}");
    }
    for lane in &lanes {
        let texts: Vec<String> =
            lane.wait_for_submissions(2, Duration::from_secs(10)).await.into_iter().map(|s| s.text).collect();
        assert_eq!(texts, vec!["ops: start work", "ops: queued follow-up"], "{}", lane.name);
    }
}
