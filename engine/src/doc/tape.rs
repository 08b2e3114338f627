//! [`Tape`]: the node vector of a [`Doc`](super::Doc), and the one spare tape a process
//! keeps for its next document.
//!
//! A large tape is fresh memory: its pages are faulted in as the parser first writes them,
//! and on a virtual machine a first touch costs more than the parsing (measured on the 2-core
//! CI machines: 3.6 µs per 4 KiB page, 25 ms of the 37 ms a whole parse of 15 MB of flat
//! invoices took). The allocator gives a block that large back to the kernel when it is
//! freed, so a server or a binding that parses a large document per call paid those faults on
//! every call. Instead, a dropped tape of at least [`SPARE_MIN`] bytes and at most
//! [`SPARE_MAX`] is kept (one, the largest) and the next tape that fits in it
//! ([`Tape::with_capacity`]) reuses it, as a reused simdjson parser reuses its buffers
//! (docs/DECISIONS.md, "A 12-byte tape and a spare").

use std::sync::Mutex;

use super::Node;

/// Tapes smaller than this are left to the allocator, which reuses such blocks itself.
const SPARE_MIN: usize = 1 << 20;

/// The largest tape kept: what a process holds between calls at most.
const SPARE_MAX: usize = 32 << 20;

static SPARE: Mutex<Vec<Node>> = Mutex::new(Vec::new());

/// The nodes of a document: a `Vec<Node>` whose memory goes back to the spare when dropped.
#[derive(Debug, Default)]
pub(crate) struct Tape(Vec<Node>);

impl Tape {
    /// An empty tape with room for about `n` nodes: the spare when its room is from 7/8 of
    /// that to eight times more. `n` is the parser's estimate: the same input parsed again
    /// asks for a little more than the finished tape it left (shrunk to its length), and a
    /// dense document needs several times more (one node per 2 bytes of `[0,1,…]`, where
    /// the estimate is one per 10). A document much smaller leaves the spare for a larger
    /// one (finishing would give the slack back to the allocator).
    pub(crate) fn with_capacity(n: usize) -> Tape {
        if let Ok(mut spare) = SPARE.try_lock() {
            let room = spare.capacity();
            if room >= n - n / 8 && room / 8 <= n {
                return Tape(std::mem::take(&mut *spare));
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
    fn drop(&mut self) {
        let bytes = self.0.capacity().saturating_mul(size_of::<Node>());
        if !(SPARE_MIN..=SPARE_MAX).contains(&bytes) {
            return;
        }
        if let Ok(mut spare) = SPARE.try_lock() {
            if spare.capacity() < self.0.capacity() {
                self.0.clear();
                std::mem::swap(&mut *spare, &mut self.0);
            }
        }
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
