//! Counting global allocators for memory tests: every call goes to the system allocator
//! unchanged, and the sizes are counted. A test binary installs one of them with
//!
//! ```
//! #[global_allocator]
//! static GLOBAL: toolwire_oracles::alloc::Counting = toolwire_oracles::alloc::Counting;
//!
//! fn main() {
//!     let (v, bytes, _allocations) = toolwire_oracles::alloc::allocated(|| vec![0u8; 4096]);
//!     assert!(bytes >= v.len());
//! }
//! ```
//!
//! and then measures with [`allocated`] (bytes and allocations made on this thread),
//! [`largest`] (the largest single allocation on this thread) or, with [`Counting`] only,
//! [`peak_above`] (process-wide peak of live bytes).
//!
//! * [`PerThread`] counts per thread only: the other tests of a binary may run meanwhile
//!   without disturbing a measurement, and it costs the binary's other tests less (no
//!   counter shared between threads).
//! * [`Counting`] also keeps the live bytes of the whole process and their peak, which only
//!   mean something when nothing else runs in the process meanwhile.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts per thread and the live bytes of the whole process (see the module docs).
pub struct Counting;

/// Counts per thread only (see the module docs).
pub struct PerThread;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static BYTES: Cell<usize> = const { Cell::new(0) };
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

/// Counts an allocation of `size` bytes on this thread.
fn note(size: usize) {
    // `try_with`: the slots may be gone while the thread exits.
    let _ = BYTES.try_with(|b| b.set(b.get().saturating_add(size)));
    let _ = ALLOCS.try_with(|a| a.set(a.get() + 1));
    let _ = LARGEST.try_with(|m| m.set(m.get().max(size)));
}

fn grow(by: usize) {
    let now = CURRENT.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so the
// `GlobalAlloc` contract is `System`'s; the bookkeeping touches atomics and const-initialised
// thread-local `Cell<usize>`s, which neither allocate nor register destructors.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded verbatim; the caller upholds `alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            note(layout.size());
            grow(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` through this allocator with this `layout`.
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded verbatim; the caller upholds `realloc`'s contract.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            note(new_size);
            if new_size > layout.size() {
                grow(new_size - layout.size());
            } else {
                CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

// SAFETY: as for `Counting`: every method forwards to `System` with the caller's arguments
// unchanged; the bookkeeping touches const-initialised thread-local `Cell<usize>`s only.
unsafe impl GlobalAlloc for PerThread {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded verbatim; the caller upholds `alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            note(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` through this allocator with this `layout`.
        unsafe { System.dealloc(ptr, layout) };
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded verbatim; the caller upholds `realloc`'s contract.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            note(new_size);
        }
        p
    }
}

/// `f`'s result and the peak of live heap bytes (all threads) above the level when it
/// started. Only meaningful when nothing else allocates meanwhile (one test per binary, or
/// the measurements in one test function).
///
/// # Panics
///
/// When [`Counting`] is not the global allocator (nothing counts the process's bytes).
pub fn peak_above<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let base = CURRENT.load(Ordering::Relaxed);
    // Under `Counting` the process holds live allocations (at least the test harness's) by
    // the time anything measures; without it nothing is ever counted.
    assert!(
        base > 0,
        "peak_above needs toolwire_oracles::alloc::Counting as the global allocator"
    );
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (PEAK.load(Ordering::Relaxed).saturating_sub(base), out)
}

/// `f`'s result with the bytes and the number of allocations (reallocations included) it
/// made on this thread.
pub fn allocated<T>(f: impl FnOnce() -> T) -> (T, usize, usize) {
    let (b0, a0) = (BYTES.with(Cell::get), ALLOCS.with(Cell::get));
    let out = f();
    let (b1, a1) = (BYTES.with(Cell::get), ALLOCS.with(Cell::get));
    (out, b1 - b0, a1 - a0)
}

/// `f`'s result with the largest single allocation it made on this thread.
pub fn largest<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|m| m.set(0));
    let out = f();
    (out, LARGEST.with(Cell::get))
}
