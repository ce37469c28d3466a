//! The sans-IO control-mode parser: bytes from `tmux -C` in, [`Event`]s out.
//!
//! It knows nothing about sockets, processes or which commands were sent;
//! [`crate::ReplyMatcher`] pairs the blocks it yields with sent commands.

use std::fmt;
use std::str::FromStr;

use crate::octal::decode_output_into;

/// A tmux pane id, `%N` on the wire. Pane ids are immutable for the life of a
/// server, unlike indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PaneId(pub u32);

impl fmt::Display for PaneId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

impl FromStr for PaneId {
    type Err = crate::Error;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse_pane_id(text.as_bytes()).ok_or_else(|| crate::Error::BadPaneId { text: text.to_owned() })
    }
}

/// The three fields shared by a block's `%begin` line and its `%end`/`%error`
/// line: `<time> <number> <flags>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockGuard {
    /// Server time (seconds since the epoch) when the command ran.
    pub time: u64,
    /// The command number. Numbers are server-wide, so never predict them.
    pub number: u64,
    /// 1 when this client sent the command, 0 when the server did (for example
    /// the `attach-session` given on the `tmux -C` command line).
    pub flags: u32,
}

impl BlockGuard {
    /// Whether this client sent the command this block answers.
    pub fn is_from_this_client(&self) -> bool {
        self.flags & 1 == 1
    }
}

/// One command's reply: the lines between `%begin` and `%end` or `%error`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The fields of the `%begin` line.
    pub guard: BlockGuard,
    /// `true` for `%end`, `false` for `%error`.
    pub ok: bool,
    /// Output lines, raw (not escaped; they may start with `%`), without `\n`.
    pub lines: Vec<Vec<u8>>,
}

/// Something the tmux control client told us.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A complete reply block (from this client or not; see
    /// [`BlockGuard::is_from_this_client`]).
    Block(Block),
    /// Pane output (`%output`, or `%extended-output` once `pause-after` is set),
    /// already decoded to raw bytes.
    Output {
        /// The pane that printed.
        pane: PaneId,
        /// How far behind this output was, in milliseconds (`%extended-output` only).
        age_ms: Option<u64>,
        /// The raw bytes the pane wrote (CR LF for newlines, escape sequences intact).
        data: Vec<u8>,
    },
    /// `%pause %N`: tmux stopped sending this pane's output to this client
    /// because it fell `pause-after` seconds behind. Re-capture the pane, then
    /// continue it (`refresh-client -A '%N:continue'`).
    Pause {
        /// The paused pane.
        pane: PaneId,
    },
    /// `%continue %N`: output of a paused pane flows again.
    Continue {
        /// The pane.
        pane: PaneId,
    },
    /// `%exit [reason]`: the control client is leaving; nothing follows. Seen
    /// even inside a block, where it abandons the block.
    Exit {
        /// The reason tmux gave (for example `too far behind`), if any.
        reason: Option<String>,
    },
    /// Any other `%` line outside a block, such as `%window-add @1` or a
    /// notification newer than tmux 3.3a. Owners may ignore these.
    Notification {
        /// The name without `%`, for example `window-add`.
        name: String,
        /// Everything after the name and one space, raw.
        args: Vec<u8>,
    },
}

/// The DCS that `tmux -CC` puts before the first line; tolerated and dropped.
const DCS_PREFIX: &[u8] = b"\x1bP1000p";

/// The sans-IO parser. Push bytes in any chunking; pull events.
///
/// ```
/// use tmux_control::{Event, Parser, PaneId};
/// let mut parser = Parser::new();
/// parser.push(b"%output %3 hi\\015\\012\n%begin 1 7 1\nok\n%end 1 7 1\n");
/// assert_eq!(
///     parser.next_event(),
///     Some(Event::Output { pane: PaneId(3), age_ms: None, data: b"hi\r\n".to_vec() })
/// );
/// assert!(matches!(parser.next_event(), Some(Event::Block(block)) if block.lines == [b"ok"]));
/// assert_eq!(parser.next_event(), None);
/// ```
#[derive(Debug, Default)]
pub struct Parser {
    buffer: Vec<u8>,
    /// Start of the first unconsumed line in `buffer`.
    start: usize,
    /// Bytes from `start` already searched for `\n`, so a long line pushed in
    /// small chunks is scanned once, not quadratically.
    scanned: usize,
    open_block: Option<(BlockGuard, Vec<Vec<u8>>)>,
    exited: bool,
}

impl Parser {
    /// A parser at the start of a control-mode stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends bytes read from the control client. Ignored after `%exit`.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.exited {
            return;
        }
        if self.start > 0 && self.start >= self.buffer.len() / 2 {
            self.buffer.drain(..self.start);
            self.start = 0;
        }
        self.buffer.extend_from_slice(bytes);
    }

    /// The next complete event, or `None` until more bytes are pushed.
    pub fn next_event(&mut self) -> Option<Event> {
        while !self.exited {
            let line = self.next_line()?;
            if let Some(event) = self.handle_line(line) {
                return Some(event);
            }
        }
        None
    }

    /// Whether `%exit` was seen; the stream is over.
    pub fn has_exited(&self) -> bool {
        self.exited
    }

    /// Whether a block has begun and not yet ended.
    pub fn is_in_block(&self) -> bool {
        self.open_block.is_some()
    }

    /// Bytes buffered that do not yet form a complete line.
    pub fn pending_bytes(&self) -> usize {
        self.buffer.len() - self.start
    }

    /// Takes the next whole line (without `\n`) out of the buffer.
    fn next_line(&mut self) -> Option<Vec<u8>> {
        let unscanned = &self.buffer[self.start + self.scanned..];
        match unscanned.iter().position(|&b| b == b'\n') {
            Some(at) => {
                let end = self.start + self.scanned + at;
                let line = self.buffer[self.start..end].to_vec();
                self.start = end + 1;
                self.scanned = 0;
                if self.start == self.buffer.len() {
                    self.buffer.clear();
                    self.start = 0;
                }
                Some(line)
            }
            None => {
                self.scanned = self.buffer.len() - self.start;
                None
            }
        }
    }

    fn handle_line(&mut self, mut line: Vec<u8>) -> Option<Event> {
        if line.starts_with(DCS_PREFIX) {
            line.drain(..DCS_PREFIX.len());
        }
        if let Some(exit) = parse_exit(&line) {
            // tmux can write %exit while a block is open (seen with tmux 1.8 and
            // by iTerm2); the block will never end, so the connection is over.
            self.exited = true;
            self.open_block = None;
            self.buffer.clear();
            self.start = 0;
            self.scanned = 0;
            return Some(exit);
        }
        if let Some((guard, lines)) = &mut self.open_block {
            // Inside a block every line is raw command output, even one that
            // starts with `%`; only the exact guard line ends the block.
            let ok = match parse_guard_line(&line) {
                Some((name, closing)) if closing == *guard && name == b"end" => true,
                Some((name, closing)) if closing == *guard && name == b"error" => false,
                _ => {
                    // tmux 3.3a writes `%continue` inside the reply block of the
                    // `refresh-client -A` that caused it, and later versions have
                    // written other notifications inside blocks. Report such a
                    // line but keep it as content too: it may be captured text.
                    let event = notification_in_block(&line);
                    lines.push(line);
                    return event;
                }
            };
            let (guard, lines) = self.open_block.take()?;
            return Some(Event::Block(Block { guard, ok, lines }));
        }
        parse_notification(line, &mut self.open_block)
    }
}

/// `%exit` or `%exit <reason>`.
fn parse_exit(line: &[u8]) -> Option<Event> {
    let rest = line.strip_prefix(b"%exit")?;
    let reason = match rest {
        [] => None,
        [b' ', reason @ ..] => Some(String::from_utf8_lossy(reason).into_owned()),
        _ => return None,
    };
    Some(Event::Exit { reason })
}

/// `%<name> <time> <number> <flags>` for the guard names begin, end, error.
fn parse_guard_line(line: &[u8]) -> Option<(&[u8], BlockGuard)> {
    let rest = line.strip_prefix(b"%")?;
    let mut fields = rest.split(|&b| b == b' ');
    let name = fields.next()?;
    if !matches!(name, b"begin" | b"end" | b"error") {
        return None;
    }
    let time = parse_number(fields.next()?)?;
    let number = parse_number(fields.next()?)?;
    let flags = u32::try_from(parse_number(fields.next()?)?).ok()?;
    if fields.next().is_some() {
        return None;
    }
    Some((name, BlockGuard { time, number, flags }))
}

/// Handles a line outside any block.
fn parse_notification(line: Vec<u8>, open_block: &mut Option<(BlockGuard, Vec<Vec<u8>>)>) -> Option<Event> {
    if let Some((b"begin", guard)) = parse_guard_line(&line) {
        *open_block = Some((guard, Vec::new()));
        return None;
    }
    // A stray %end/%error outside a block has nothing to close: it falls
    // through and is reported as a notification.
    let body = line.strip_prefix(b"%")?; // text outside blocks and notifications: ignore
    let (name, args) = match body.iter().position(|&b| b == b' ') {
        Some(at) => (&body[..at], &body[at + 1..]),
        None => (body, &[][..]),
    };
    let parsed = match name {
        b"output" => parse_output(args),
        b"extended-output" => parse_extended_output(args),
        b"pause" => parse_pane_id(args).map(|pane| Event::Pause { pane }),
        b"continue" => parse_pane_id(args).map(|pane| Event::Continue { pane }),
        _ => None,
    };
    Some(parsed.unwrap_or_else(|| Event::Notification {
        name: String::from_utf8_lossy(name).into_owned(),
        args: args.to_vec(),
    }))
}

/// Notification names tmux 3.3a (and 3.4) sends, except pane output: a line
/// inside a block that starts with one of these is reported as well as kept.
const NOTIFICATION_NAMES: &[&[u8]] = &[
    b"client-detached",
    b"client-session-changed",
    b"config-error",
    b"continue",
    b"layout-change",
    b"message",
    b"pane-mode-changed",
    b"paste-buffer-changed",
    b"paste-buffer-deleted",
    b"pause",
    b"session-changed",
    b"session-renamed",
    b"session-window-changed",
    b"sessions-changed",
    b"subscription-changed",
    b"unlinked-window-add",
    b"unlinked-window-close",
    b"unlinked-window-renamed",
    b"window-add",
    b"window-close",
    b"window-pane-changed",
    b"window-renamed",
];

/// The event for a known notification line seen inside a block. Pane output
/// lines are never taken from blocks: a false match would inject bytes.
fn notification_in_block(line: &[u8]) -> Option<Event> {
    let body = line.strip_prefix(b"%")?;
    let name = body.split(|&b| b == b' ').next()?;
    if !NOTIFICATION_NAMES.contains(&name) {
        return None;
    }
    let mut no_block = None;
    parse_notification(line.to_vec(), &mut no_block)
}

/// `%<pane> <data>`.
fn parse_output(args: &[u8]) -> Option<Event> {
    let at = args.iter().position(|&b| b == b' ')?;
    let pane = parse_pane_id(&args[..at])?;
    let mut data = Vec::new();
    decode_output_into(&args[at + 1..], &mut data);
    Some(Event::Output { pane, age_ms: None, data })
}

/// `%<pane> <age-ms> <reserved>... : <data>`.
fn parse_extended_output(args: &[u8]) -> Option<Event> {
    let mut at = args.iter().position(|&b| b == b' ')?;
    let pane = parse_pane_id(&args[..at])?;
    let mut age_ms = None;
    // Fields up to a lone `:` are reserved for future use; the first is the age.
    loop {
        let rest = &args[at + 1..];
        let end = rest.iter().position(|&b| b == b' ').unwrap_or(rest.len());
        let field = &rest[..end];
        if field == b":" {
            let data_start = (at + 1 + end + 1).min(args.len());
            let mut data = Vec::new();
            decode_output_into(&args[data_start..], &mut data);
            return Some(Event::Output { pane, age_ms, data });
        }
        if end == rest.len() {
            return None;
        }
        if age_ms.is_none() {
            age_ms = parse_number(field);
        }
        at += 1 + end;
    }
}

fn parse_pane_id(text: &[u8]) -> Option<PaneId> {
    let digits = text.strip_prefix(b"%")?;
    u32::try_from(parse_number(digits)?).ok().map(PaneId)
}

fn parse_number(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    digits.iter().try_fold(0u64, |value, &digit| digit.is_ascii_digit().then(|| value * 10 + u64::from(digit - b'0')))
}

#[cfg(test)]
#[path = "parser_tests.rs"]
mod tests;
