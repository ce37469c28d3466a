//! A pane's recent output, addressed by byte offset in the pane's stream, so a client that reconnects gets
//! exactly the bytes it missed.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

/// A place in one pane's output stream: which stream (`epoch`, new whenever the server starts following the
/// pane afresh) and how many bytes of it came before (`offset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Position {
    /// Names one unbroken run of the stream; offsets of different epochs are unrelated.
    pub epoch: u64,
    /// Bytes of the stream before this position.
    pub offset: u64,
}

/// The last `capacity` bytes of one run of a stream. Offsets count from the start of the run, not of the
/// buffer.
///
/// ```
/// use clive_serve::{Position, Ring};
///
/// let mut ring = Ring::new(7, 8);
/// ring.push(b"hello ");
/// ring.push(b"world");
/// assert_eq!(ring.head(), 11);
/// assert_eq!(ring.read(6, 100).as_deref(), Some(&b"world"[..]));
/// // A client that saw the first 6 bytes resumes there; one that saw only 2 needs a snapshot.
/// assert_eq!(ring.resume(Some(Position { epoch: 7, offset: 6 })), Some(6));
/// assert_eq!(ring.resume(Some(Position { epoch: 7, offset: 2 })), None);
/// ```
#[derive(Debug, Clone)]
pub struct Ring {
    epoch: u64,
    bytes: VecDeque<u8>,
    /// Offset of `bytes[0]`.
    start: u64,
    capacity: usize,
}

impl Ring {
    /// An empty run named `epoch`, keeping at most `capacity` bytes (at least one).
    pub fn new(epoch: u64, capacity: usize) -> Ring {
        let capacity = capacity.max(1);
        Ring { epoch, bytes: VecDeque::with_capacity(capacity.min(1 << 16)), start: 0, capacity }
    }

    /// Starts a new run: everything held is forgotten and offsets count from zero again.
    pub fn restart(&mut self, epoch: u64) {
        *self = Ring::new(epoch, self.capacity);
    }

    /// Appends a chunk, forgetting the oldest bytes beyond the capacity.
    pub fn push(&mut self, chunk: &[u8]) {
        let keep = &chunk[chunk.len().saturating_sub(self.capacity)..];
        let overflow = (self.bytes.len() + keep.len()).saturating_sub(self.capacity);
        self.bytes.drain(..overflow);
        self.start += (overflow + chunk.len() - keep.len()) as u64;
        self.bytes.extend(keep);
    }

    /// The run this ring holds.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The offset just after the newest byte: how many bytes the run has had.
    pub fn head(&self) -> u64 {
        self.start + self.bytes.len() as u64
    }

    /// The position just after the newest byte.
    pub fn position(&self) -> Position {
        Position { epoch: self.epoch, offset: self.head() }
    }

    /// The oldest offset still held.
    pub fn tail(&self) -> u64 {
        self.start
    }

    /// Where a client that has everything before `since` continues: `Some(offset)` when this run still holds
    /// that place, `None` when it needs a fresh snapshot (no position, another run, or too far behind).
    pub fn resume(&self, since: Option<Position>) -> Option<u64> {
        let since = since?;
        (since.epoch == self.epoch && (self.tail()..=self.head()).contains(&since.offset)).then_some(since.offset)
    }

    /// Up to `max` bytes from `offset` on; `None` when `offset` is no longer (or not yet) held.
    pub fn read(&self, offset: u64, max: usize) -> Option<Vec<u8>> {
        if !(self.tail()..=self.head()).contains(&offset) {
            return None;
        }
        let from = (offset - self.start) as usize;
        let to = self.bytes.len().min(from.saturating_add(max));
        let (front, back) = self.bytes.as_slices();
        let mut out = Vec::with_capacity(to - from);
        if from < front.len() {
            out.extend_from_slice(&front[from..to.min(front.len())]);
        }
        if to > front.len() {
            out.extend_from_slice(&back[from.saturating_sub(front.len())..to - front.len()]);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_chunk_larger_than_the_ring_keeps_its_end() {
        let mut ring = Ring::new(1, 4);
        ring.push(b"abcdefgh");
        assert_eq!((ring.tail(), ring.head()), (4, 8));
        assert_eq!(ring.read(4, 10).as_deref(), Some(&b"efgh"[..]));
        assert_eq!(ring.read(3, 10), None);
        assert_eq!(ring.read(9, 10), None, "an offset the stream has not reached is not held");
        assert_eq!(ring.read(8, 10).as_deref(), Some(&b""[..]));
    }

    #[test]
    fn reads_across_the_wrap_point_are_contiguous() {
        let mut ring = Ring::new(1, 5);
        ring.push(b"abc");
        ring.push(b"def"); // wraps inside the deque
        assert_eq!(ring.read(1, 100).as_deref(), Some(&b"bcdef"[..]));
        assert_eq!(ring.read(2, 2).as_deref(), Some(&b"cd"[..]));
    }

    #[test]
    fn another_run_or_no_position_means_a_snapshot() {
        let mut ring = Ring::new(1, 5);
        ring.push(b"abc");
        assert_eq!(ring.resume(None), None);
        assert_eq!(ring.resume(Some(Position { epoch: 2, offset: 3 })), None);
        assert_eq!(ring.resume(Some(Position { epoch: 1, offset: 4 })), None, "a place the run never reached");
        ring.restart(2);
        assert_eq!((ring.head(), ring.epoch()), (0, 2));
        assert_eq!(ring.resume(Some(Position { epoch: 1, offset: 0 })), None);
        assert_eq!(ring.resume(Some(Position { epoch: 2, offset: 0 })), Some(0));
    }

    /// What may happen between a pane and one of its viewers.
    #[derive(Debug, Clone)]
    enum Step {
        /// The pane prints a chunk.
        Print(Vec<u8>),
        /// A viewer reads at most `max` bytes.
        Read { viewer: usize, max: usize },
        /// A viewer loses its connection; it asks for everything since what it has when it reads again.
        Reconnect { viewer: usize },
        /// The server restarts: a new run of the stream begins.
        Restart,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            6 => proptest::collection::vec(any::<u8>(), 0..40).prop_map(Step::Print),
            6 => (0..3usize, 1..50usize).prop_map(|(viewer, max)| Step::Read { viewer, max }),
            2 => (0..3usize).prop_map(|viewer| Step::Reconnect { viewer }),
            1 => Just(Step::Restart),
        ]
    }

    /// A viewer as the page keeps it: what its terminal shows and where it is in the stream.
    #[derive(Debug, Default, Clone)]
    struct Viewer {
        shown: Vec<u8>,
        at: Option<Position>,
        connected: bool,
        snapshots: usize,
    }

    impl Viewer {
        /// Connects the way the server answers "since N": nothing to add when the run still holds N, else a
        /// snapshot of the pane, modelled as the whole stream so far (which is what the snapshot renders).
        fn connect(&mut self, ring: &Ring, stream: &[u8]) {
            if ring.resume(self.at).is_none() {
                self.shown = stream.to_vec();
                self.at = Some(ring.position());
                self.snapshots += 1;
            }
            self.connected = true;
        }

        fn read(&mut self, ring: &Ring, stream: &[u8], max: usize) {
            if !self.connected {
                self.connect(ring, stream);
            }
            let Some(at) = self.at else { return };
            match ring.read(at.offset, max) {
                Some(bytes) if at.epoch == ring.epoch() => {
                    self.shown.extend_from_slice(&bytes);
                    self.at = Some(Position { epoch: at.epoch, offset: at.offset + bytes.len() as u64 });
                }
                // Fell too far behind while connected, or the run changed: the server sends a fresh snapshot.
                _ => {
                    self.connected = false;
                    self.connect(ring, stream);
                }
            }
        }
    }

    proptest! {
        #[test]
        fn any_chunks_and_reconnects_yield_exactly_the_stream(
            capacity in 1..64usize,
            steps in proptest::collection::vec(step(), 0..80),
        ) {
            let mut ring = Ring::new(0, capacity);
            let mut stream = Vec::new();
            let mut viewers = vec![Viewer::default(); 3];
            for step in steps {
                match step {
                    Step::Print(chunk) => {
                        ring.push(&chunk);
                        stream.extend_from_slice(&chunk);
                    }
                    Step::Read { viewer, max } => {
                        let v = &mut viewers[viewer];
                        v.read(&ring, &stream, max);
                        prop_assert!(stream.starts_with(&v.shown), "a viewer shows bytes the pane never printed");
                    }
                    Step::Reconnect { viewer } => viewers[viewer].connected = false,
                    Step::Restart => ring.restart(ring.epoch() + 1),
                }
            }
            for v in &mut viewers {
                v.read(&ring, &stream, usize::MAX);
                prop_assert_eq!(&v.shown, &stream);
                prop_assert_eq!(v.at, Some(ring.position()));
            }
        }

        #[test]
        fn a_viewer_within_the_capacity_never_needs_a_second_snapshot(
            chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..16), 0..40),
            drops in proptest::collection::vec(any::<bool>(), 40),
        ) {
            let mut ring = Ring::new(0, 16);
            let mut stream = Vec::new();
            let mut viewer = Viewer::default();
            for (chunk, drop) in chunks.into_iter().zip(drops) {
                ring.push(&chunk);
                stream.extend_from_slice(&chunk);
                viewer.read(&ring, &stream, usize::MAX);
                if drop {
                    viewer.connected = false;
                }
            }
            prop_assert!(viewer.snapshots <= 1, "only the first connection starts from a snapshot");
            prop_assert_eq!(viewer.shown, stream);
        }
    }
}
