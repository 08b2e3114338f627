//! [`Tape`]: the node vector of a [`Doc`](super::Doc), and the spare tapes a process keeps
//! for its next documents.
//!
//! A large tape is fresh memory: its pages are faulted in as the parser first writes them,
//! and on a virtual machine a first touch costs more than the parsing (measured on the 2-core
//! CI machines: 3.6 µs per 4 KiB page, 25 ms of the 37 ms a whole parse of 15 MB of flat
//! invoices took). The allocator gives a block that large back to the kernel when it is
//! freed, so a server or a binding that parses a large document per call paid those faults on
//! every call. Instead, a dropped tape of at least [`SPARE_MIN`] bytes is kept while all the
//! kept ones stay within [`SPARE_MAX`] bytes, and the next tape that fits in one
//! ([`Tape::with_capacity`]) reuses it, as a reused simdjson parser reuses its buffers
//! (docs/DECISIONS.md, "A 12-byte tape and a spare"). Several are kept, not one: the windowed
//! reader holds one tape per window of a large input it reads once (about 1.4 MB each, up to
//! 27 MiB in all), and inside Node every one of them was fresh memory on every call (6,200
//! page faults a call on 15 MB of rows).

use std::sync::Mutex;

use super::Node;

/// Tapes smaller than this are left to the allocator, which reuses such blocks itself.
const SPARE_MIN: usize = 1 << 20;

/// The bytes of all the tapes kept: what a process holds between calls at most.
const SPARE_MAX: usize = 32 << 20;

/// The kept tapes (empty, with their room), in the order they were dropped.
static SPARES: Mutex<Vec<Vec<Node>>> = Mutex::new(Vec::new());

fn bytes(v: &Vec<Node>) -> usize {
    v.capacity().saturating_mul(size_of::<Node>())
}

/// The bytes of all the kept tapes now.
pub(crate) fn spare_tape_bytes() -> usize {
    SPARES.lock().map_or(0, |s| s.iter().map(bytes).sum())
}

/// Gives every kept tape back to the allocator.
pub(crate) fn drop_spare_tapes() {
    if let Ok(mut s) = SPARES.lock() {
        s.clear();
    }
}

/// The nodes of a document: a `Vec<Node>` whose memory goes back to the spares when dropped.
#[derive(Debug, Default)]
pub(crate) struct Tape(Vec<Node>);

impl Tape {
    /// An empty tape with room for about `n` nodes: of the kept tapes whose room is from 7/8
    /// of that to eight times more, the one with the most (of equal ones, the last dropped).
    /// `n` is the parser's estimate: the same input parsed again asks for a little more than
    /// the finished tape it left (shrunk to its length), and a dense document needs several
    /// times more (one node per 2 bytes of `[0,1,…]`, where the estimate is one per 10), so
    /// the larger tape is the one likely to hold it without growing. A document much smaller
    /// leaves a kept tape for a larger one (finishing would give the slack back to the
    /// allocator).
    pub(crate) fn with_capacity(n: usize) -> Tape {
        if let Ok(mut spares) = SPARES.try_lock() {
            let fits = |v: &Vec<Node>| v.capacity() >= n - n / 8 && v.capacity() / 8 <= n;
            // `max_by_key` keeps the last of equal keys: the last dropped.
            let best = spares
                .iter()
                .enumerate()
                .filter(|(_, v)| fits(v))
                .max_by_key(|(_, v)| v.capacity())
                .map(|(i, _)| i);
            if let Some(i) = best {
                return Tape(spares.remove(i));
            }
        }
        Tape(Vec::with_capacity(n))
    }
}

impl Clone for Tape {
    fn clone(&self) -> Tape {
        let mut t = Tape::with_capacity(self.0.len());
        t.0.extend_from_slice(&self.0);
        t
    }
}

impl Drop for Tape {
    /// Keeps this tape's memory when it is at least [`SPARE_MIN`] and fits within
    /// [`SPARE_MAX`] with the kept ones, after giving up kept tapes smaller than it (the
    /// smallest first) to make room: the larger tapes are the ones worth keeping.
    fn drop(&mut self) {
        let size = bytes(&self.0);
        if !(SPARE_MIN..=SPARE_MAX).contains(&size) {
            return;
        }
        let Ok(mut spares) = SPARES.try_lock() else {
            return;
        };
        let mut held: usize = spares.iter().map(bytes).sum();
        while held + size > SPARE_MAX {
            let Some((i, smallest)) = spares
                .iter()
                .enumerate()
                .min_by_key(|(_, v)| v.capacity())
                .map(|(i, v)| (i, bytes(v)))
            else {
                break;
            };
            if smallest >= size {
                return;
            }
            // `remove`, not `swap_remove`: the order of dropping is the tie-break of a take.
            drop(spares.remove(i));
            held -= smallest;
        }
        self.0.clear();
        spares.push(std::mem::take(&mut self.0));
    }
}

impl std::ops::Deref for Tape {
    type Target = Vec<Node>;
    #[inline(always)]
    fn deref(&self) -> &Vec<Node> {
        &self.0
    }
}

impl std::ops::DerefMut for Tape {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Vec<Node> {
        &mut self.0
    }
}
