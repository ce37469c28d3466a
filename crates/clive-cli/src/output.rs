//! Writing to stdout without panicking when the reader went away: `clive logs x | head` ends quietly.

use std::io::Write as _;

/// Writes formatted text to stdout; a closed pipe (or any write error) is ignored, as there is no one left
/// to tell.
pub(crate) fn write_out(args: std::fmt::Arguments<'_>) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_fmt(args).and_then(|()| stdout.flush());
}

/// `print!` that ends quietly on a closed pipe.
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::write_out(format_args!($($arg)*)) };
}

/// `println!` that ends quietly on a closed pipe.
macro_rules! outln {
    ($($arg:tt)*) => { $crate::output::write_out(format_args!("{}\n", format_args!($($arg)*))) };
}
