//! Frame recogniser over the captured screens in `tests/frames/` (copied from the shared
//! research captures). One insta snapshot per capture; `.txt` files carry no styles, `.ansi`
//! files carry `capture-pane -e` styles, so ghost text shows up only in the latter.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is the failure report

use std::path::Path;

use lane_send::frame::{self, Recognition};
use lane_send::{Agent, Screen};

fn frames_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/frames")
}

fn load(name: &str) -> Screen {
    let text = std::fs::read_to_string(frames_dir().join(name)).unwrap();
    if name.ends_with(".ansi") {
        let plain = regex::Regex::new("\x1b\\[[0-9;]*m").unwrap().replace_all(&text, "");
        let widest = plain.lines().map(|line| line.chars().count()).max().unwrap_or(80);
        Screen::from_ansi(&text, if widest > 80 { 120 } else { 80 })
    } else {
        Screen::from_plain(&text)
    }
}

fn recognise(name: &str) -> Recognition {
    frame::recognise(&load(name)).unwrap()
}

#[test]
fn every_capture_matches_its_snapshot() {
    let mut names: Vec<String> = std::fs::read_dir(frames_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".txt") || name.ends_with(".ansi"))
        .collect();
    names.sort();
    assert!(names.len() > 50, "fixtures missing: {names:?}");
    for name in names {
        let recognition = recognise(&name);
        insta::with_settings!({ snapshot_suffix => name.replace('.', "_"), prepend_module_to_snapshot => false }, {
            insta::assert_json_snapshot!("frame", recognition);
        });
    }
}

fn input(name: &str) -> lane_send::frame::InputBox {
    match recognise(name) {
        Recognition::Input(input) => input,
        other => panic!("{name}: expected an input box, got {other:?}"),
    }
}

#[test]
fn every_agent_idle_box_is_recognised_and_empty_with_styles() {
    for (name, agent) in [
        ("claude-idle-placeholder.ansi", Agent::Claude),
        ("claude-idle-empty.ansi", Agent::Claude),
        ("claude-v1-boxed-idle-placeholder.ansi", Agent::Claude),
        ("codex-idle.ansi", Agent::Codex),
        ("gemini-legacy-idle.ansi", Agent::Gemini),
        ("grok-ink-idle.ansi", Agent::Grok),
        ("grok-tui-idle.ansi", Agent::Grok),
        ("gemini-idle.txt", Agent::Gemini),
        ("gemini-idle-nocolor.txt", Agent::Gemini),
    ] {
        let input = input(name);
        assert_eq!(input.agent, agent, "{name}");
        assert!(input.is_empty(), "{name}: {input:?}");
    }
}

#[test]
fn dim_ghost_is_not_input_but_a_typed_draft_is() {
    let ghost = input("claude-ghost-suggestion.ansi");
    assert!(ghost.is_empty());
    assert_eq!(ghost.ghost, "commit these changes");
    // Without styles the same screen cannot tell ghost from draft: the text counts as input.
    assert_eq!(input("claude-ghost-suggestion.txt").text, "commit these changes");
    assert_eq!(input("claude-draft-typed.ansi").text, "lane-b: hold on, use the staging database not prod");
}

#[test]
fn multiline_drafts_keep_their_rows() {
    assert_eq!(
        input("claude-draft-multiline.txt").text,
        "lane-b: two things before you push:\n1. rebase onto main\n2. rerun the integration suite with --runInBand"
    );
    assert_eq!(
        input("codex-draft-multiline.txt").text,
        "lane-b: two things before you push:\n1. rebase onto main\n2. rerun the integration suite"
    );
}

#[test]
fn paste_tokens_are_real_input() {
    for (name, token) in [
        ("claude-pasted-collapsed.ansi", "[Pasted text #1 +12 lines]"),
        ("claude-v1-boxed-pasted.txt", "[Pasted text #1 +12 lines]"),
        ("codex-pasted-collapsed.txt", "[Pasted Content 1482 chars]"),
        ("gemini-pasted-collapsed.txt", "[Pasted Text: 13 lines]"),
        ("grok-tui-pasted.txt", "[Pasted #1 13+ lines]"),
    ] {
        let input = input(name);
        assert!(!input.is_empty(), "{name}");
        assert_eq!(input.paste_tokens, vec![token.to_string()], "{name}");
    }
}

#[test]
fn queue_and_busy_markers_are_seen() {
    let queued = input("claude-queued.ansi");
    assert!(queued.queue_marker && queued.busy && queued.is_empty());
    assert!(input("claude-busy.ansi").busy);
    assert!(!input("claude-busy.ansi").queue_marker);
    assert!(input("codex-queued.txt").queue_marker);
    assert!(input("gemini-legacy-queued.txt").queue_marker);
    assert!(!input("claude-idle-empty.ansi").busy);
}

#[test]
fn dialogs_are_not_boxes() {
    for name in ["claude-permission-dialog.txt", "codex-approval-dialog.txt"] {
        assert!(matches!(recognise(name), Recognition::Dialog { .. }), "{name}: {:?}", recognise(name));
    }
}

#[test]
fn unknown_screens_and_other_tools_are_unknown() {
    for name in [
        "unknown-pager.txt",
        "unknown-shell-prompt.txt",
        "aider-idle.txt",
        "aider-draft-architect.txt",
        "opencode-idle.txt",
    ] {
        assert!(matches!(recognise(name), Recognition::Unknown { .. }), "{name}: {:?}", recognise(name));
    }
}

#[test]
fn shell_mode_is_refused() {
    assert!(matches!(recognise("gemini-shell-mode.txt"), Recognition::Refused { agent: Agent::Gemini, .. }));
}

#[test]
fn unknown_footer_text_refuses_the_frame() {
    let text = std::fs::read_to_string(frames_dir().join("claude-idle-empty.txt")).unwrap();
    let changed = text.replace("  ⏵⏵ bypass permissions on (shift+tab to cycle)", "  something nobody has seen");
    assert!(matches!(frame::recognise(&Screen::from_plain(&changed)).unwrap(), Recognition::Unknown { .. }));
    // Known footer start with unknown trailing text is fine.
    let trailing = text.replace("(shift+tab to cycle)", "(shift+tab to cycle) · a brand new hint");
    assert!(frame::recognise(&Screen::from_plain(&trailing)).unwrap().input().is_some());
}

#[test]
fn labelled_top_rule_is_accepted() {
    let text = std::fs::read_to_string(frames_dir().join("claude-idle-empty.txt")).unwrap();
    let rule = "─".repeat(80);
    let labelled = format!("{} ultracode ─", "─".repeat(67));
    let changed = text.replacen(&rule, &labelled, 1);
    assert_ne!(changed, text);
    assert_eq!(frame::recognise(&Screen::from_plain(&changed)).unwrap().input().unwrap().variant, "claude-2");
}

#[test]
fn wide_characters_inside_a_box_keep_the_borders_aligned() {
    // A Grok Ink box 78 cells wide: the emoji takes two cells but is one character.
    let inner = " ❯ ops: 🚀 wide";
    let padding = " ".repeat(74 - 15);
    let capture = format!(
        "  ╭{rule}╮\n  │{inner}{padding}│\n  ╰{rule}╯\n\n  ⏸ auto-edit: off (shift + tab)  ≋ grok-code-fast-1\n",
        rule = "─".repeat(74)
    );
    let screen = Screen::from_ansi(&capture, 80);
    let input = frame::recognise(&screen).unwrap().input().cloned().unwrap();
    assert_eq!(input.variant, "grok-ink");
    assert_eq!(input.text, "ops: 🚀 wide");
}
