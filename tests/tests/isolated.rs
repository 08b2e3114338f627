//! The tests that need the process to themselves, in a test binary of their own: they
//! measure or use state of the whole process, which the tests of the `suite` binary would
//! disturb while running beside them.
//!
//! * `memory`: the peak of live heap bytes of all threads (the encoder's pool threads
//!   allocate for the call measured, so per-thread counts cannot stand in for it).
//! * `spare_tape`: the process's spare tapes, which any other parse of a large document takes
//!   and gives back.
//!
//! Each test holds [`alone`] for its whole run, so the two never overlap either.
//! `cargo test -p toolwire-tests --test isolated`.

use std::sync::{Mutex, MutexGuard, PoisonError};

#[global_allocator]
static GLOBAL: toolwire_oracles::alloc::Counting = toolwire_oracles::alloc::Counting;

/// The whole process for the caller until the guard drops (a test that failed holding it
/// does not stop the next).
fn alone() -> MutexGuard<'static, ()> {
    static PROCESS: Mutex<()> = Mutex::new(());
    PROCESS.lock().unwrap_or_else(PoisonError::into_inner)
}

mod memory;
mod spare_tape;
