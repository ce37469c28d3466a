//! Links the binaries as position-dependent executables (`-no-pie`).
//!
//! A position-independent `clive` asks the loader to apply about 41,000 relative relocations at every start, and
//! each one writes to a page of the binary's data that must first be copied: about 0.4 ms of CPU in a start that
//! tmux's own floor measures in milliseconds (docs/performance.md, "clive, the front door"). Linked at a fixed
//! address it needs none. The code is still compiled position-independent, so only the executable's own load
//! address loses its randomisation; libraries, stack and heap keep theirs. Linux only: other linkers spell it
//! otherwise, and their loaders are not measured.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
