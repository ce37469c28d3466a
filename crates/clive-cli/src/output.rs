//! Writing to stdout: a closed pipe ends quietly (`clive logs x | head`), any other failure to write (a full
//! disk, `> /dev/full`) is remembered and reported when clive exits ([`write_failure`]): output is never lost
//! without a word.

use std::io::Write as _;
use std::sync::OnceLock;

/// The first failure to write to stdout other than a closed pipe.
static WRITE_FAILURE: OnceLock<String> = OnceLock::new();

/// Writes formatted text to stdout and flushes it; a closed pipe is ignored, as there is no one left to tell,
/// any other error is remembered for [`write_failure`].
pub(crate) fn write_out(args: std::fmt::Arguments<'_>) {
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        remember(&error);
    }
}

/// Flushes stdout, remembering a failure as [`write_out`] does.
pub(crate) fn flush() {
    if let Err(error) = std::io::stdout().flush() {
        remember(&error);
    }
}

fn remember(error: &std::io::Error) {
    if error.kind() != std::io::ErrorKind::BrokenPipe {
        let _ = WRITE_FAILURE.set(error.to_string());
    }
}

/// Why writing to stdout failed, if it did (a closed pipe is not a failure).
pub(crate) fn write_failure() -> Option<&'static str> {
    WRITE_FAILURE.get().map(String::as_str)
}

/// `print!` that ends quietly on a closed pipe.
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::write_out(format_args!($($arg)*)) };
}

/// `println!` that ends quietly on a closed pipe.
macro_rules! outln {
    ($($arg:tt)*) => { $crate::output::write_out(format_args!("{}\n", format_args!($($arg)*))) };
}
