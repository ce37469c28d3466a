//! Rendering tests: each style's frame against the shapes seen in the shared captures.

use std::time::{Duration, Instant};

use super::render;
use crate::agent::{Agent, Config};
use crate::screen::{Frame, Look};
use crate::style::AgentStyle;

fn texts(frame: &Frame) -> Vec<String> {
    frame.lines.iter().map(|l| l.text()).collect()
}

fn agent(style: AgentStyle, draft: Option<&str>) -> Agent {
    Agent::new(Config::new(style), draft, Instant::now())
}

#[test]
fn every_style_fills_the_screen_exactly() {
    for style in [AgentStyle::Claude2, AgentStyle::Claude1, AgentStyle::Codex, AgentStyle::Gemini, AgentStyle::Grok] {
        for (w, h) in [(80, 24), (120, 40), (20, 5)] {
            let frame = render(&agent(style, Some("hello")), w, h);
            assert_eq!(frame.lines.len(), usize::from(h), "{style:?} {w}x{h}");
            let (col, row) = frame.cursor.unwrap();
            assert!(col < w && row < h, "{style:?} {w}x{h}");
        }
    }
}

#[test]
fn claude2_draws_rules_around_a_prompt_with_nbsp() {
    let frame = render(&agent(AgentStyle::Claude2, Some("lane-b: hi")), 80, 24);
    let rows = texts(&frame);
    let prompt = rows.iter().position(|r| r.starts_with('❯')).unwrap();
    assert_eq!(rows[prompt], "❯\u{a0}lane-b: hi");
    assert_eq!(rows[prompt - 1], "─".repeat(80));
    assert_eq!(rows[prompt + 1], "─".repeat(80));
    assert!(rows[prompt + 2].starts_with("  ⏵⏵ bypass permissions on"));
    assert_eq!(frame.cursor, Some((12, u16::try_from(prompt).unwrap())));
}

#[test]
fn claude2_placeholder_and_ghost_are_dim() {
    let mut config = Config::new(AgentStyle::Claude2);
    config.placeholder = true;
    let frame = render(&Agent::new(config, None, Instant::now()), 80, 24);
    let row = frame.lines.iter().find(|l| l.text().starts_with('❯')).unwrap();
    assert_eq!(row.text(), "❯\u{a0}Try \"refactor <filepath>\"");
    assert_eq!(row.spans[1].look, Look::dimmed());
}

#[test]
fn claude2_busy_and_queue_markers() {
    let t0 = Instant::now();
    let mut config = Config::new(AgentStyle::Claude2);
    config.busy_after_submit = Some(Duration::from_secs(10));
    let mut agent = Agent::new(config, Some("first"), t0);
    let enter = crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Enter);
    agent.key(enter, t0);
    agent.paste("lane-c: second", t0);
    agent.key(enter, t0 + Duration::from_secs(3));
    let rows = texts(&render(&agent, 80, 30));
    assert!(rows.iter().any(|r| r == "✶ Cogitating… (3s · ↓ 1.2k tokens)"));
    assert!(rows.iter().any(|r| r == "  ❯ lane-c: second"));
    assert!(rows.iter().any(|r| r == "❯\u{a0}Press up to edit queued messages"));
    assert!(rows.iter().any(|r| r.ends_with("· esc to interrupt")));
    assert!(rows.iter().any(|r| r == "❯ first"), "history echo");
}

#[test]
fn claude1_and_gemini_draw_full_width_rounded_boxes() {
    for (style, row) in [(AgentStyle::Claude1, "│ > lane-a: hi"), (AgentStyle::Gemini, "│ > lane-a: hi")] {
        let rows = texts(&render(&agent(style, Some("lane-a: hi")), 80, 40));
        let i = rows.iter().position(|r| r.starts_with(row)).unwrap();
        assert_eq!(rows[i - 1], format!("╭{}╮", "─".repeat(78)));
        assert_eq!(rows[i + 1], format!("╰{}╯", "─".repeat(78)));
        assert!(rows[i].ends_with('│') && rows[i].chars().count() == 80);
    }
}

#[test]
fn gemini_placeholder_matches_the_capture() {
    let mut config = Config::new(AgentStyle::Gemini);
    config.placeholder = true;
    let rows = texts(&render(&Agent::new(config, None, Instant::now()), 120, 30));
    assert!(rows.iter().any(|r| r.starts_with("│ >   Type your message or @path/to/file   ")));
}

#[test]
fn grok_box_sits_in_a_two_column_margin() {
    let rows = texts(&render(&agent(AgentStyle::Grok, Some("lane-b: fix")), 80, 30));
    let i = rows.iter().position(|r| r.starts_with("  │ ❯ lane-b: fix")).unwrap();
    assert_eq!(rows[i - 1], format!("  ╭{}╮", "─".repeat(74)));
    assert!(rows[i + 3].starts_with("  ⏸ auto-edit: off (shift + tab)  ≋ grok-code-fast-1"));
}

#[test]
fn codex_composer_is_tinted_without_box_glyphs() {
    let frame = render(&agent(AgentStyle::Codex, Some("lane-a: review")), 80, 30);
    let i = frame.lines.iter().position(|l| l.text() == "› lane-a: review").unwrap();
    assert!(frame.lines[i - 1].fill.is_some() && frame.lines[i + 1].fill.is_some());
    assert!(frame.lines[i].spans[0].look.bold);
    assert_eq!(frame.lines[i + 3].text(), "  100% context left");
}

#[test]
fn a_long_line_shows_its_tail_in_the_box() {
    let text = format!("{}END", "x".repeat(10_000));
    let frame = render(&agent(AgentStyle::Claude2, Some(&text)), 120, 40);
    let rows = texts(&frame);
    assert!(rows.iter().any(|r| r.ends_with("END")));
    assert!(rows.iter().all(|r| r.chars().count() <= 120));
    assert!(rows.iter().any(|r| r.starts_with("  ⏵⏵")), "footer still drawn");
    let box_rows = rows.iter().filter(|r| r.starts_with("  x")).count();
    assert_eq!(box_rows, 20, "the box is capped at half the screen");
}

/// The frame as text, each styled span preceded by its SGR (ESC shown as `⎋`), trailing
/// blank rows dropped: a readable snapshot of what tmux would capture with `-e`.
fn styled_text(frame: &Frame) -> String {
    let mut rows: Vec<String> = frame
        .lines
        .iter()
        .map(|line| {
            let mut row = String::new();
            for span in &line.spans {
                let sgr = span.look.sgr().replace('\x1b', "⎋");
                row.push_str(&sgr);
                row.push_str(&span.text.replace('\u{a0}', "⍽"));
                if !sgr.is_empty() {
                    row.push_str("⎋[0m");
                }
            }
            if let Some(bg) = line.fill {
                row.push_str(&format!(" [fill {bg:?}]"));
            }
            row
        })
        .collect();
    while rows.last().is_some_and(|r| r.is_empty()) {
        rows.pop();
    }
    rows.join("\n")
}

#[test]
fn snapshots_of_each_style_idle_with_placeholder() {
    for (style, name) in [
        (AgentStyle::Claude2, "claude2"),
        (AgentStyle::Claude1, "claude1"),
        (AgentStyle::Codex, "codex"),
        (AgentStyle::Gemini, "gemini"),
        (AgentStyle::Grok, "grok"),
    ] {
        let mut config = Config::new(style);
        config.placeholder = true;
        let frame = render(&Agent::new(config, None, Instant::now()), 80, 24);
        insta::assert_snapshot!(format!("{name}_idle_placeholder"), styled_text(&frame));
    }
}

#[test]
fn snapshots_of_each_style_busy_with_a_draft() {
    for (style, name) in [
        (AgentStyle::Claude2, "claude2"),
        (AgentStyle::Claude1, "claude1"),
        (AgentStyle::Codex, "codex"),
        (AgentStyle::Gemini, "gemini"),
        (AgentStyle::Grok, "grok"),
    ] {
        let t0 = Instant::now();
        let mut config = Config::new(style);
        config.busy_after_submit = Some(Duration::from_secs(60));
        let mut agent = Agent::new(config, Some("lane-b: rebase onto main"), t0);
        let enter = crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Enter);
        agent.key(enter, t0);
        agent.paste("lane-c: then tag v1.5.0", t0);
        agent.tick(t0 + Duration::from_secs(4));
        let frame = render(&agent, 80, 30);
        insta::assert_snapshot!(format!("{name}_busy_with_draft"), styled_text(&frame));
    }
}
