//! The clive command: runs tasks in tmux panes, composing the clive crates.
//!
//! (Work in progress.)
