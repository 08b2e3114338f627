//! The addon's one worker pool: every async call (`encodeJsonAsync`, `presentAsync`) and every
//! stream (`presentStream`) runs on one of at most [`THREADS`] threads, started when first
//! needed and kept for the life of the process. Jobs wait in a FIFO queue; a queued job holds
//! only what it owns (its copy of the input, its promise or stream callback).
//!
//! A stream pauses while its reader does not read (backpressure: at most a window of chunks
//! ahead of the reader), and a paused stream keeps its thread — but only while no job waits
//! for one. When a job is queued and no thread is free or being freed for it (the pool is
//! *starved*), one paused stream per such job stops waiting for its reader and finishes its
//! response into its stream's buffer (as much memory as `presentAsync` holds for the same
//! response), so its thread goes back to the pool; the other paused streams keep their
//! backpressure. Nothing in the pool ever waits on JavaScript for good: a pool full of unread
//! streams cannot block another call, and opening more streams than threads never starts
//! another thread (100 unread streams: 4 more threads, not 100).

use std::cell::Cell;
use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::{Condvar, Mutex, MutexGuard};

/// Worker threads at most (libuv's default pool size, which these jobs used before).
pub const THREADS: usize = 4;

/// A unit of work. It settles its own promise or stream, panics included; a panic that
/// escapes anyway is caught by the worker, which goes on with the next job.
pub type Job = Box<dyn FnOnce() + Send + 'static>;

/// The pool's state, behind its one lock (held only for queue and flow bookkeeping).
pub struct State {
    queue: VecDeque<Job>,
    /// Workers free to take a job: waiting for one, or started and not yet running one.
    free: usize,
    /// Threads started.
    started: usize,
    /// Jobs that gave their thread up for a queued job ([`State::give_up`]) and still run.
    yielding: usize,
}

thread_local! {
    /// The job running on this worker gave its thread up ([`State::give_up`]).
    static YIELDED: Cell<bool> = const { Cell::new(false) };
}

impl State {
    /// A queued job has no worker to take it, free or being freed: a paused stream must give
    /// its thread up.
    pub fn starved(&self) -> bool {
        self.queue.len() > self.free + self.yielding
    }

    /// The job running on this thread gives its thread up for a queued job: it stops waiting
    /// on JavaScript and finishes. Counted until it returns, so one job gives up per queued
    /// job, not every paused one.
    pub fn give_up(&mut self) {
        if !YIELDED.replace(true) {
            self.yielding += 1;
        }
    }
}

struct Pool {
    state: Mutex<State>,
    /// A job was queued (for free workers).
    work: Condvar,
    /// A stream's reader moved, or the pool is starved (for paused streams).
    flow: Condvar,
}

static POOL: Pool = Pool {
    state: Mutex::new(State {
        queue: VecDeque::new(),
        free: 0,
        started: 0,
        yielding: 0,
    }),
    work: Condvar::new(),
    flow: Condvar::new(),
};

/// Locks the pool. A poisoned lock only means a panic elsewhere: the state is still
/// consistent (every update is a single step).
pub fn lock() -> MutexGuard<'static, State> {
    POOL.state.lock().unwrap_or_else(|e| e.into_inner())
}

/// Waits on the flow signal (a stream's reader moved, or the pool became starved).
pub fn wait_flow(g: MutexGuard<'static, State>) -> MutexGuard<'static, State> {
    POOL.flow.wait(g).unwrap_or_else(|e| e.into_inner())
}

/// Wakes the paused streams to look at their flow again. Call with the pool locked, after
/// changing what they wait for.
pub fn notify_flow() {
    POOL.flow.notify_all();
}

/// Makes sure one worker thread at least runs, so a job queued by [`submit`] will run.
///
/// # Errors
///
/// The OS refused to start the first thread.
pub fn ready() -> std::io::Result<()> {
    let mut s = lock();
    if s.started == 0 {
        start(&mut s)?;
    }
    Ok(())
}

fn start(s: &mut State) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("toolwire-pool".into())
        .spawn(work_loop)?;
    s.started += 1;
    s.free += 1;
    Ok(())
}

/// Queues `job`. A thread is started when the job would otherwise have no free worker and
/// fewer than [`THREADS`] run; when none can be started, the job waits for a running one
/// (call [`ready`] first so there is one).
pub fn submit(job: Job) {
    let mut s = lock();
    s.queue.push_back(job);
    if s.starved() && s.started < THREADS {
        // A refused thread is not an error here: the running ones take the job (paused
        // streams give their threads up for it).
        let _ = start(&mut s);
    }
    POOL.work.notify_one();
    if s.starved() {
        POOL.flow.notify_all();
    }
}

fn work_loop() {
    let mut s = lock();
    loop {
        match s.queue.pop_front() {
            Some(job) => {
                s.free -= 1;
                drop(s);
                let _ = std::panic::catch_unwind(AssertUnwindSafe(job));
                s = lock();
                s.free += 1;
                if YIELDED.replace(false) {
                    s.yielding -= 1;
                }
            }
            None => s = POOL.work.wait(s).unwrap_or_else(|e| e.into_inner()),
        }
    }
}
