//! Frame recogniser over the captured screens in `tests/frames/`: `real-*` are saved frames of the pinned real
//! agents (`.ansi` plus a `.json` with size and cursor, as `lane-send frames capture` writes them); the others
//! are rebuilt from the shared research captures. One insta snapshot per capture; `.txt` files carry no
//! styles, `.ansi` files carry `capture-pane -e` styles, so ghost text shows up only in the latter.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is the failure report

use std::path::Path;

use lane_send::frame::{self, Recognition, SavedFrame};
use lane_send::{Agent, Screen};

fn frames_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/frames")
}

fn load(name: &str) -> Screen {
    let path = frames_dir().join(name);
    if path.with_extension("json").exists() {
        return SavedFrame::load(&path).unwrap().screen();
    }
    let text = std::fs::read_to_string(path).unwrap();
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
fn unknown_rows_below_a_box_are_notices_but_a_menu_is_an_overlay() {
    let text = std::fs::read_to_string(frames_dir().join("claude-idle-empty.txt")).unwrap();
    let changed = text.replace("  ⏵⏵ bypass permissions on (shift+tab to cycle)", "  something nobody has seen");
    let input = frame::recognise(&Screen::from_plain(&changed)).unwrap().input().cloned().unwrap();
    assert_eq!(input.notices, ["something nobody has seen"]);
    let menu = text.replace("  ⏵⏵ bypass permissions on (shift+tab to cycle)", "/compact    Free up context");
    let recognition = frame::recognise(&Screen::from_plain(&menu)).unwrap();
    assert!(
        matches!(&recognition, Recognition::Overlay { name, .. } if name == "slash-command menu"),
        "{recognition:?}"
    );
    assert!(recognition.describe().contains("/compact"), "{}", recognition.describe());
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

// The real agents' own screens (tests/frames/real-*), saved while building the real-agent suite.

#[test]
fn real_idle_boxes_are_empty_and_name_their_agent() {
    for (name, agent) in [
        ("real-claude-idle.ansi", Agent::Claude),
        ("real-codex-idle.ansi", Agent::Codex),
        ("real-gemini-idle.ansi", Agent::Gemini),
        ("real-grok-idle.ansi", Agent::Grok),
        ("real-qwen-idle.ansi", Agent::Qwen),
        ("real-qwen-after-turn.ansi", Agent::Qwen),
    ] {
        let input = input(name);
        assert_eq!(input.agent, agent, "{name}");
        assert!(input.is_empty() && !input.busy, "{name}: {input:?}");
    }
}

#[test]
fn claude_notices_below_the_box_do_not_hide_it() {
    for (name, text, notice) in [
        ("real-claude-typed-effort.ansi", "hello there", "● high · /effort"),
        ("real-claude-typed-focus-notice.ansi", "hello there", "tmux focus-events off"),
        ("real-claude-pasted-long.ansi", "[Pasted text #1 +39 lines]", "paste again to expand"),
        ("real-claude-pasted-tab.ansi", "ops: tab    here", "Ctrl+Y to paste deleted text"),
    ] {
        let input = input(name);
        assert_eq!(input.text, text, "{name}");
        assert!(input.notices.iter().any(|row| row.contains(notice)), "{name}: {:?}", input.notices);
        assert_eq!(input.cursor.map(|(row, _)| row), Some(input.rows.1), "{name}: the cursor is in the box");
    }
}

#[test]
fn qwen_is_not_claude_and_its_grey_placeholder_is_not_a_draft() {
    let idle = input("real-qwen-idle.ansi");
    assert_eq!((idle.agent, idle.text.as_str()), (Agent::Qwen, ""));
    assert_eq!(idle.ghost, "Type your message or @path/to/file");
    // Its cursor is a reverse-video cell and a zero-width space after the text.
    assert_eq!(input("real-qwen-typed.ansi").text, "ops: hello typed");
}

#[test]
fn grok_pastes_that_break_its_box_are_still_read() {
    assert_eq!(input("real-grok-pasted-tab.ansi").text, "ops: tab  here");
    assert_eq!(input("real-grok-pasted-multiline.ansi").text, "ops: first line\nsecond line\nthird line");
}

#[test]
fn codex_holding_a_submit_until_it_has_started_is_pending() {
    let held = input("real-codex-waiting-for-startup.ansi");
    assert_eq!((held.agent, held.text.as_str()), (Agent::Codex, "ops: please run the tests"));
    assert!(held.submit_pending && !held.busy, "{held:?}");
    for name in ["real-codex-typed.ansi", "real-codex-idle.ansi", "real-codex-busy.ansi"] {
        assert!(!input(name).submit_pending, "{name}");
    }
}

#[test]
fn busy_and_queued_real_agents() {
    for name in ["real-claude-busy.ansi", "real-codex-busy.ansi", "real-gemini-busy.ansi", "real-qwen-busy.ansi"] {
        assert!(input(name).busy, "{name}");
    }
    for name in
        ["real-claude-queued.ansi", "real-codex-busy-steered.ansi", "real-gemini-queued.ansi", "real-qwen-queued.ansi"]
    {
        let input = input(name);
        assert!(input.queue_marker && input.is_empty(), "{name}: {input:?}");
    }
}

#[test]
fn real_menus_and_help_screens_are_overlays() {
    for (name, agent, what) in [
        ("real-claude-slash-menu.ansi", Agent::Claude, "slash-command menu"),
        ("real-claude-help.ansi", Agent::Claude, "help screen"),
        ("real-codex-slash-menu.ansi", Agent::Codex, "slash-command menu"),
        ("real-codex-shortcuts.ansi", Agent::Codex, "shortcuts help"),
        ("real-gemini-slash-menu.ansi", Agent::Gemini, "slash-command menu"),
        ("real-gemini-shortcuts.ansi", Agent::Gemini, "shortcuts help"),
        ("real-grok-slash-menu.ansi", Agent::Grok, "command menu"),
        ("real-qwen-slash-menu.ansi", Agent::Qwen, "slash-command menu"),
        ("real-qwen-shortcuts.ansi", Agent::Qwen, "shortcuts help"),
        ("real-qwen-help.ansi", Agent::Qwen, "help screen"),
    ] {
        match recognise(name) {
            Recognition::Overlay { agent: found, name: overlay, .. } => {
                assert_eq!((found, overlay.as_str()), (agent, what), "{name}");
            }
            other => panic!("{name}: expected an overlay, got {other:?}"),
        }
    }
    // Gemini and Grok print /help into the history: the box below stays live.
    assert!(input("real-gemini-help.ansi").is_empty());
    assert!(input("real-grok-help.ansi").is_empty());
}

#[test]
fn real_permission_dialogs_carry_their_choices() {
    for (name, agent, count, last) in [
        ("real-claude-permission.ansi", Some(Agent::Claude), 3, "No"),
        ("real-codex-approval.ansi", Some(Agent::Codex), 3, "No, and tell Codex what to do differently (esc)"),
        ("real-gemini-approval.ansi", Some(Agent::Gemini), 3, "No, suggest changes (esc)"),
        ("real-grok-approval.ansi", Some(Agent::Grok), 4, "No, with feedback"),
        ("real-qwen-approval.ansi", Some(Agent::Qwen), 4, "No, suggest changes (esc)"),
    ] {
        let recognition = recognise(name);
        let dialog = recognition.dialog().unwrap_or_else(|| panic!("{name}: {recognition:?}"));
        assert_eq!(dialog.agent, agent, "{name}");
        let menu = dialog.menu.as_ref().unwrap_or_else(|| panic!("{name}: no menu in {dialog:?}"));
        assert_eq!(menu.choices.len(), count, "{name}: {:?}", menu.choices);
        assert_eq!(menu.choices.last().unwrap().label, last, "{name}");
        assert_eq!(menu.selected, 0, "{name}");
        assert!(dialog.above.iter().any(|row| row.contains("touch lane-send-was-here")), "{name}: {:?}", dialog.above);
    }
}

#[test]
fn a_selection_moved_down_is_seen_and_arrows_go_up() {
    let dialog = recognise("real-codex-approval-no-selected.ansi").dialog().cloned().unwrap();
    let menu = dialog.menu.unwrap();
    assert_eq!(menu.selected, 2);
    assert_eq!(menu.keys(1), Some(vec![tmux_habitat::Key::Up, tmux_habitat::Key::Enter]));
}
