//! The fake agent's state machine: input box, submissions, busy periods, queue, dialog.
//!
//! Pure: every event carries the time it happened, so tests drive it without a clock.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::paste_token::{self, CollapseRule};
use crate::style::{AgentStyle, BusyMode};

/// Behaviour switches, fixed at start.
#[derive(Clone, Debug)]
pub struct Config {
    pub style: AgentStyle,
    pub placeholder: bool,
    pub ghost: Option<String>,
    pub busy_after_submit: Option<Duration>,
    pub busy_mode: BusyMode,
    pub swallow_first_enter: bool,
    pub first_enter_newline: bool,
    pub paste_newline_window: Option<Duration>,
    pub collapse: Option<CollapseRule>,
    pub dialog: bool,
}

impl Config {
    /// A plain agent of `style` with every switch off.
    pub fn new(style: AgentStyle) -> Config {
        Config {
            style,
            placeholder: false,
            ghost: None,
            busy_after_submit: None,
            busy_mode: BusyMode::Queue,
            swallow_first_enter: false,
            first_enter_newline: false,
            paste_newline_window: None,
            collapse: None,
            dialog: false,
        }
    }
}

/// One editable unit of the input box: a character, or a collapsed paste that Backspace
/// removes whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unit {
    Char(char),
    Token { token: String, text: String },
}

/// A message that left the box: logged by the caller, exactly once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    pub text: String,
    pub queued: bool,
}

/// A message waiting for the busy period to end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Queued {
    pub text: String,
    pub display: String,
}

/// What the history area shows, oldest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HistoryItem {
    /// The user's message as it was shown in the box (paste tokens kept).
    User(String),
    /// The fake answer to a message.
    Reply,
    /// A busy period ended on its own after `secs` seconds.
    Finished { secs: u64 },
    /// Esc ended a busy period.
    Interrupted,
    /// The permission dialog was answered (`true`: approved with Enter).
    DialogAnswered(bool),
}

/// A busy period: started at `since`, ends at `until` unless interrupted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Busy {
    pub since: Instant,
    pub until: Instant,
}

/// The whole state of the fake agent.
#[derive(Clone, Debug)]
pub struct Agent {
    pub config: Config,
    pub input: Vec<Unit>,
    pub history: Vec<HistoryItem>,
    pub queue: Vec<Queued>,
    pub busy: Option<Busy>,
    pub dialog_open: bool,
    /// The time of the latest event; the render uses it for busy timers.
    pub now: Instant,
    pub exit_requested: bool,
    last_paste: Option<Instant>,
    enter_to_swallow: bool,
    enter_to_newline: bool,
    collapsed_pastes: Vec<String>,
}

impl Agent {
    /// A fresh agent with `draft` already typed in the box.
    pub fn new(config: Config, draft: Option<&str>, now: Instant) -> Agent {
        let input = draft.map(|d| d.chars().map(Unit::Char).collect()).unwrap_or_default();
        Agent {
            dialog_open: config.dialog,
            enter_to_swallow: config.swallow_first_enter,
            enter_to_newline: config.first_enter_newline,
            config,
            input,
            history: Vec::new(),
            queue: Vec::new(),
            busy: None,
            now,
            exit_requested: false,
            last_paste: None,
            collapsed_pastes: Vec::new(),
        }
    }

    /// The full text in the box, pastes expanded: exactly what Enter would submit.
    pub fn input_text(&self) -> String {
        let mut out = String::new();
        for unit in &self.input {
            match unit {
                Unit::Char(c) => out.push(*c),
                Unit::Token { text, .. } => out.push_str(text),
            }
        }
        out
    }

    /// The box as drawn: tokens instead of collapsed pastes, tabs as four spaces, other
    /// control characters in caret notation.
    pub fn input_display(&self) -> String {
        display_units(&self.input)
    }

    /// Whether the box holds nothing.
    pub fn input_is_empty(&self) -> bool {
        self.input.is_empty()
    }

    /// The ghost suggestion to draw in the empty box, if any.
    pub fn visible_ghost(&self) -> Option<&str> {
        if self.input.is_empty() && self.queue.is_empty() { self.config.ghost.as_deref() } else { None }
    }

    /// Seconds the current busy period has lasted.
    pub fn busy_secs(&self) -> Option<u64> {
        self.busy.map(|b| self.now.saturating_duration_since(b.since).as_secs())
    }

    /// When the caller must call [`Agent::tick`] next (busy end, or the next whole second of
    /// the busy timer so it redraws).
    pub fn next_wakeup(&self) -> Option<Instant> {
        let busy = self.busy?;
        let elapsed = self.now.saturating_duration_since(busy.since);
        let next_second = busy.since + Duration::from_secs(elapsed.as_secs() + 1);
        Some(next_second.min(busy.until))
    }

    /// Advances the clock; ends a busy period that is over.
    pub fn tick(&mut self, now: Instant) -> Vec<Submission> {
        self.now = now;
        match self.busy {
            Some(busy) if now >= busy.until => {
                let secs = busy.until.saturating_duration_since(busy.since).as_secs();
                self.end_busy(HistoryItem::Finished { secs })
            }
            _ => Vec::new(),
        }
    }

    /// Handles a bracketed paste.
    pub fn paste(&mut self, text: &str, now: Instant) -> Vec<Submission> {
        let out = self.tick(now);
        self.last_paste = Some(now);
        if self.dialog_open {
            return out;
        }
        // Agents read CR inside a paste as a line break (tmux's paste-buffer turns LF into CR
        // unless -r is given), so the box and the log see LF either way.
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let style = self.config.style;
        match self.config.collapse {
            Some(rule) if rule.collapses(style, &text) => {
                let label = paste_token::label(style, &text);
                let same = self.collapsed_pastes.iter().filter(|l| **l == label).count();
                self.collapsed_pastes.push(label);
                let token = paste_token::token(style, &text, self.collapsed_pastes.len(), same);
                self.input.push(Unit::Token { token, text });
            }
            _ => self.input.extend(text.chars().map(Unit::Char)),
        }
        out
    }

    /// Handles a key press.
    pub fn key(&mut self, key: KeyEvent, now: Instant) -> Vec<Submission> {
        let mut out = self.tick(now);
        if key.kind != KeyEventKind::Press {
            return out;
        }
        if self.dialog_open {
            self.dialog_key(key);
            return out;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        match key.code {
            KeyCode::Enter if alt || key.modifiers.contains(KeyModifiers::SHIFT) => {
                self.input.push(Unit::Char('\n'));
            }
            KeyCode::Enter => out.extend(self.enter(now)),
            KeyCode::Char('j') if ctrl => self.input.push(Unit::Char('\n')),
            KeyCode::Char('u') if ctrl => self.kill_to_line_start(),
            KeyCode::Char('h') if ctrl => {
                self.input.pop();
            }
            KeyCode::Char('c') if ctrl => {
                if self.input.is_empty() {
                    self.exit_requested = true;
                } else {
                    self.input.clear();
                }
            }
            KeyCode::Char('d') if ctrl && self.input.is_empty() => self.exit_requested = true,
            KeyCode::Char(_) if ctrl => {}
            KeyCode::Char(c) => self.input.push(Unit::Char(c)),
            KeyCode::Tab => self.input.push(Unit::Char('\t')),
            KeyCode::Backspace => {
                self.input.pop();
            }
            KeyCode::Right => {
                if let Some(ghost) = self.visible_ghost() {
                    self.input = ghost.chars().map(Unit::Char).collect();
                }
            }
            KeyCode::Up if self.input.is_empty() && !self.queue.is_empty() => {
                let texts: Vec<String> = self.queue.drain(..).map(|q| q.text).collect();
                self.input = texts.join("\n").chars().map(Unit::Char).collect();
            }
            KeyCode::Esc if self.busy.is_some() => {
                out.extend(self.end_busy(HistoryItem::Interrupted));
            }
            _ => {}
        }
        out
    }

    fn dialog_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Enter => {
                self.dialog_open = false;
                self.history.push(HistoryItem::DialogAnswered(true));
            }
            KeyCode::Esc => {
                self.dialog_open = false;
                self.history.push(HistoryItem::DialogAnswered(false));
            }
            _ => {}
        }
    }

    fn enter(&mut self, now: Instant) -> Vec<Submission> {
        if self.enter_to_swallow {
            self.enter_to_swallow = false;
            return Vec::new();
        }
        if self.enter_to_newline {
            self.enter_to_newline = false;
            self.input.push(Unit::Char('\n'));
            return Vec::new();
        }
        if let (Some(window), Some(pasted)) = (self.config.paste_newline_window, self.last_paste)
            && now.saturating_duration_since(pasted) < window
        {
            self.input.push(Unit::Char('\n'));
            return Vec::new();
        }
        if self.input_text().trim().is_empty() {
            return Vec::new();
        }
        if self.busy.is_some() {
            if self.config.busy_mode == BusyMode::Queue {
                let queued = Queued { text: self.input_text(), display: self.input_display() };
                self.input.clear();
                self.queue.push(queued);
            }
            return Vec::new();
        }
        let display = self.input_display();
        let text = self.input_text();
        self.input.clear();
        self.history.push(HistoryItem::User(display));
        self.start_turn(now);
        vec![Submission { text, queued: false }]
    }

    /// After a message arrives: go busy if configured, else answer at once.
    fn start_turn(&mut self, now: Instant) {
        match self.config.busy_after_submit {
            Some(length) => self.busy = Some(Busy { since: now, until: now + length }),
            None => self.history.push(HistoryItem::Reply),
        }
    }

    /// Ends the busy period and submits everything queued, as one turn.
    fn end_busy(&mut self, how: HistoryItem) -> Vec<Submission> {
        self.busy = None;
        self.history.push(HistoryItem::Reply);
        self.history.push(how);
        if self.queue.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        for queued in std::mem::take(&mut self.queue) {
            self.history.push(HistoryItem::User(queued.display));
            out.push(Submission { text: queued.text, queued: true });
        }
        self.start_turn(self.now);
        out
    }

    /// C-u: deletes back to the start of the current line (the newline itself stays).
    fn kill_to_line_start(&mut self) {
        while let Some(last) = self.input.last() {
            if *last == Unit::Char('\n') {
                break;
            }
            self.input.pop();
        }
    }
}

/// How units are drawn: tokens as their label, tabs as four spaces, controls as `^X`.
pub fn display_units(units: &[Unit]) -> String {
    let mut out = String::new();
    for unit in units {
        match unit {
            Unit::Char('\t') => out.push_str("    "),
            Unit::Char('\n') => out.push('\n'),
            Unit::Char(c) if (*c as u32) < 0x20 || *c == '\u{7f}' => {
                out.push('^');
                out.push(char::from((*c as u8) ^ 0x40));
            }
            Unit::Char(c) if c.is_control() => out.push('\u{fffd}'),
            Unit::Char(c) => out.push(*c),
            Unit::Token { token, .. } => out.push_str(token),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn type_text(agent: &mut Agent, text: &str, now: Instant) {
        for c in text.chars() {
            let code = if c == '\t' { KeyCode::Tab } else { KeyCode::Char(c) };
            assert!(agent.key(press(code), now).is_empty());
        }
    }

    fn submitted(text: &str, queued: bool) -> Vec<Submission> {
        vec![Submission { text: text.into(), queued }]
    }

    #[test]
    fn typed_text_submits_exactly_once_and_empties_the_box() {
        let t0 = Instant::now();
        let mut agent = Agent::new(Config::new(AgentStyle::Claude2), None, t0);
        type_text(&mut agent, "echo \"$(date)\"\t🚀", t0);
        assert_eq!(agent.input_display(), "echo \"$(date)\"    🚀");
        let out = agent.key(press(KeyCode::Enter), t0);
        assert_eq!(out, submitted("echo \"$(date)\"\t🚀", false));
        assert!(agent.input_is_empty());
        assert!(agent.key(press(KeyCode::Enter), t0).is_empty());
    }

    #[test]
    fn draft_backspace_and_kill_edit_the_box() {
        let t0 = Instant::now();
        let mut agent = Agent::new(Config::new(AgentStyle::Codex), Some("abc"), t0);
        agent.key(press(KeyCode::Backspace), t0);
        assert_eq!(agent.input_text(), "ab");
        agent.key(ctrl('j'), t0);
        type_text(&mut agent, "xyz", t0);
        agent.key(ctrl('u'), t0);
        assert_eq!(agent.input_text(), "ab\n");
        agent.key(ctrl('c'), t0);
        assert!(agent.input_is_empty());
        assert!(!agent.exit_requested);
        agent.key(ctrl('c'), t0);
        assert!(agent.exit_requested);
    }

    #[test]
    fn collapsed_paste_submits_the_full_text_and_backspace_removes_the_token() {
        let t0 = Instant::now();
        let mut config = Config::new(AgentStyle::Claude2);
        config.collapse = Some(CollapseRule { over_chars: 800 });
        let mut agent = Agent::new(config, None, t0);
        let pasted = (1..=13).map(|i| format!("l{i}")).collect::<Vec<_>>().join("\r");
        type_text(&mut agent, "see: ", t0);
        agent.paste(&pasted, t0);
        assert_eq!(agent.input_display(), "see: [Pasted text #1 +12 lines]");
        agent.key(press(KeyCode::Backspace), t0);
        assert_eq!(agent.input_display(), "see: ");
        agent.paste(&pasted, t0);
        assert_eq!(agent.input_display(), "see: [Pasted text #2 +12 lines]");
        let out = agent.key(press(KeyCode::Enter), t0);
        assert_eq!(out, submitted(&format!("see: {}", pasted.replace('\r', "\n")), false));
    }

    #[test]
    fn swallow_and_paste_window_turn_enter_into_nothing_or_newline() {
        let t0 = Instant::now();
        let mut config = Config::new(AgentStyle::Gemini);
        config.swallow_first_enter = true;
        config.paste_newline_window = Some(Duration::from_millis(40));
        let mut agent = Agent::new(config, Some("hi"), t0);
        assert!(agent.key(press(KeyCode::Enter), t0).is_empty());
        assert_eq!(agent.input_text(), "hi");
        agent.paste(" there", t0);
        assert!(agent.key(press(KeyCode::Enter), t0 + Duration::from_millis(10)).is_empty());
        assert_eq!(agent.input_text(), "hi there\n");
        let out = agent.key(press(KeyCode::Enter), t0 + Duration::from_millis(50));
        assert_eq!(out, submitted("hi there\n", false));
    }

    #[test]
    fn busy_queue_submits_queued_text_when_busy_ends() {
        let t0 = Instant::now();
        let mut config = Config::new(AgentStyle::Claude2);
        config.busy_after_submit = Some(Duration::from_millis(500));
        let mut agent = Agent::new(config, Some("first"), t0);
        assert_eq!(agent.key(press(KeyCode::Enter), t0), submitted("first", false));
        assert!(agent.busy.is_some());
        type_text(&mut agent, "second", t0);
        assert!(agent.key(press(KeyCode::Enter), t0).is_empty());
        assert!(agent.input_is_empty());
        assert_eq!(agent.queue.len(), 1);
        assert_eq!(agent.next_wakeup(), Some(t0 + Duration::from_millis(500)));
        let out = agent.tick(t0 + Duration::from_millis(500));
        assert_eq!(out, submitted("second", true));
        assert!(agent.queue.is_empty());
        assert!(agent.busy.is_some(), "the queued message starts a new turn");
        assert!(agent.tick(t0 + Duration::from_millis(1000)).is_empty());
        assert!(agent.busy.is_none());
    }

    #[test]
    fn busy_ignore_leaves_text_in_the_box() {
        let t0 = Instant::now();
        let mut config = Config::new(AgentStyle::Codex);
        config.busy_after_submit = Some(Duration::from_secs(5));
        config.busy_mode = BusyMode::Ignore;
        let mut agent = Agent::new(config, Some("first"), t0);
        agent.key(press(KeyCode::Enter), t0);
        type_text(&mut agent, "second", t0);
        assert!(agent.key(press(KeyCode::Enter), t0).is_empty());
        assert_eq!(agent.input_text(), "second");
        assert!(agent.queue.is_empty());
        agent.key(press(KeyCode::Esc), t0);
        assert!(agent.busy.is_none());
        assert_eq!(agent.key(press(KeyCode::Enter), t0), submitted("second", false));
    }

    #[test]
    fn dialog_drops_input_until_answered() {
        let t0 = Instant::now();
        let mut config = Config::new(AgentStyle::Claude2);
        config.dialog = true;
        let mut agent = Agent::new(config, None, t0);
        type_text(&mut agent, "lane-a: hi", t0);
        agent.paste("pasted", t0);
        assert!(agent.input_is_empty());
        assert!(agent.dialog_open);
        agent.key(press(KeyCode::Esc), t0);
        assert!(!agent.dialog_open);
        assert_eq!(agent.history, vec![HistoryItem::DialogAnswered(false)]);
    }

    #[test]
    fn ghost_is_not_input_but_right_arrow_accepts_it() {
        let t0 = Instant::now();
        let mut config = Config::new(AgentStyle::Claude2);
        config.ghost = Some("commit these changes".into());
        let mut agent = Agent::new(config, None, t0);
        assert_eq!(agent.visible_ghost(), Some("commit these changes"));
        assert!(agent.key(press(KeyCode::Enter), t0).is_empty());
        agent.key(press(KeyCode::Right), t0);
        assert_eq!(agent.visible_ghost(), None);
        assert_eq!(agent.key(press(KeyCode::Enter), t0), submitted("commit these changes", false));
    }

    proptest::proptest! {
        #[test]
        fn any_typed_text_is_submitted_once_and_exactly(text in "[ -~\t é🚀日本\"$()]{1,200}") {
            proptest::prop_assume!(!text.trim().is_empty());
            let t0 = Instant::now();
            let mut agent = Agent::new(Config::new(AgentStyle::Claude2), None, t0);
            type_text(&mut agent, &text, t0);
            proptest::prop_assert_eq!(agent.key(press(KeyCode::Enter), t0), submitted(&text, false));
            proptest::prop_assert!(agent.key(press(KeyCode::Enter), t0).is_empty());
        }

        #[test]
        fn any_paste_is_submitted_whole_collapsed_or_not(
            text in "[a-z \n\r\t]{1,400}",
            over in 0usize..500,
            style in proptest::sample::select(vec![
                AgentStyle::Claude2, AgentStyle::Claude1, AgentStyle::Codex,
                AgentStyle::Gemini, AgentStyle::Grok,
            ]),
        ) {
            let normalised = text.replace("\r\n", "\n").replace('\r', "\n");
            proptest::prop_assume!(!normalised.trim().is_empty());
            let t0 = Instant::now();
            let mut config = Config::new(style);
            config.collapse = Some(CollapseRule { over_chars: over });
            let mut agent = Agent::new(config, None, t0);
            agent.paste(&text, t0);
            proptest::prop_assert_eq!(agent.key(press(KeyCode::Enter), t0), submitted(&normalised, false));
        }
    }
}
