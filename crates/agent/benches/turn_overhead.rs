//! Placeholder: the benchmark comes with the turn-overhead measurement.
fn main() {}
