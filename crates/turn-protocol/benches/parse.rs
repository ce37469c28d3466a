//! How much a capture costs the outer side: `ScreenParser::feed` on screens of
//! typical and large size, against the unavoidable baseline of splitting the
//! capture into trimmed lines, measured in the same run. Prints medians.
//!
//! `cargo bench -p turn-protocol --bench parse`

use std::hint::black_box;
use std::time::{Duration, Instant};

use turn_protocol::{Emitter, LineFormat, Message, Nonce, ScreenParser, TurnState};

/// A conversation's output: tagged protocol lines among tool output, `total` lines.
fn output_lines(total: usize, nonce: &Nonce) -> Vec<String> {
    let mut emitter = Emitter::with_format(Vec::new(), LineFormat::Tagged(nonce.clone()));
    let mut lines = Vec::with_capacity(total);
    let mut step = 0;
    while lines.len() < total {
        step += 1;
        if step % 4 == 0 {
            let message = match step % 3 {
                0 => Message::Turn(TurnState::Thinking),
                _ => Message::Progress(format!("step {step}: crunching numbers")),
            };
            lines.extend(emitter.render(&message).unwrap_or_default());
        } else {
            lines.push(format!("tool output line {step}: {}", "data ".repeat(step % 12)));
        }
    }
    lines.truncate(total);
    lines
}

/// Captures of a `window`-line window scrolling by one line each time.
fn scrolling_captures(lines: &[String], window: usize, count: usize) -> Vec<String> {
    (0..count).map(|shift| lines[shift..shift + window].join("\n")).collect()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Median time per capture of `work` over all captures, repeated `rounds` times.
fn measure(captures: &[String], rounds: usize, mut work: impl FnMut(&str)) -> Duration {
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        for capture in captures {
            work(capture);
        }
        samples.push(start.elapsed() / captures.len() as u32);
    }
    median(samples)
}

fn baseline(capture: &str) {
    let lines: Vec<&str> = capture.split('\n').map(str::trim_end).collect();
    black_box(lines);
}

fn scenario(name: &str, window: usize, redraw: bool) {
    let nonce = Nonce::generate();
    let count = 200;
    let lines = output_lines(window + count, &nonce);
    let mut captures = scrolling_captures(&lines, window, count);
    if redraw {
        // Every capture shows a different screen: nothing lines up.
        for (index, capture) in captures.iter_mut().enumerate() {
            *capture = format!("redraw {index}\n{capture}").replace("tool output", &format!("frame {index}"));
        }
    }
    let rounds = 15;
    let base = measure(&captures, rounds, baseline);
    // One parser per round: the steady state of an outer capturing in a loop.
    let mut parser_samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let mut parser = ScreenParser::new(Some(nonce.clone()));
        let start = Instant::now();
        for capture in &captures {
            black_box(parser.feed(capture));
        }
        parser_samples.push(start.elapsed() / captures.len() as u32);
    }
    let feed = median(parser_samples);
    println!(
        "{name:<44} feed {:>9.1} µs/capture   baseline (split lines) {:>7.1} µs   ratio {:>5.1}x",
        feed.as_secs_f64() * 1e6,
        base.as_secs_f64() * 1e6,
        feed.as_secs_f64() / base.as_secs_f64()
    );
}

fn main() {
    scenario("50-line screen, scrolling", 50, false);
    scenario("2000 lines with scrollback, scrolling", 2000, false);
    scenario("2000 lines, redrawn every capture", 2000, true);
}
