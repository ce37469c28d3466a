//! Pairing reply blocks with the commands this client sent (sans-IO).

use std::collections::VecDeque;

use crate::parser::Block;

/// A FIFO of commands this client sent, matched against reply blocks in order.
///
/// tmux answers each command with exactly one block, in order. Blocks with
/// flags 0 answer commands the server ran on its own (for example the
/// `attach-session` on the `tmux -C` command line) and are skipped: counting
/// them would put every later reply off by one. Command numbers are
/// server-wide, so they are never used for matching.
///
/// ```
/// use tmux_control::{Event, Parser, ReplyMatcher};
/// let mut parser = Parser::new();
/// let mut matcher = ReplyMatcher::new();
/// matcher.sent("list-panes");
/// parser.push(b"%begin 1 264 0\n%end 1 264 0\n%begin 1 270 1\n%1\n%end 1 270 1\n");
/// let mut replies = Vec::new();
/// while let Some(Event::Block(block)) = parser.next_event() {
///     replies.extend(matcher.on_block(block));
/// }
/// assert_eq!(replies.len(), 1);
/// assert_eq!(replies[0].0, "list-panes");
/// assert_eq!(replies[0].1.lines, [b"%1"]);
/// ```
#[derive(Debug)]
pub struct ReplyMatcher<T> {
    sent: VecDeque<T>,
}

impl<T> Default for ReplyMatcher<T> {
    fn default() -> Self {
        Self { sent: VecDeque::new() }
    }
}

impl<T> ReplyMatcher<T> {
    /// An empty matcher.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a command just written; call in the order of writing.
    pub fn sent(&mut self, token: T) {
        self.sent.push_back(token);
    }

    /// Matches a block: `Some((token, block))` for this client's oldest
    /// unanswered command, `None` for a flags-0 block or when nothing is
    /// waiting (a block nobody asked for).
    pub fn on_block(&mut self, block: Block) -> Option<(T, Block)> {
        if !block.guard.is_from_this_client() {
            return None;
        }
        self.sent.pop_front().map(|token| (token, block))
    }

    /// How many sent commands have no reply yet.
    pub fn waiting(&self) -> usize {
        self.sent.len()
    }

    /// Removes every unanswered command, oldest first (when the connection ends).
    pub fn drain(&mut self) -> impl Iterator<Item = T> + '_ {
        self.sent.drain(..)
    }
}
