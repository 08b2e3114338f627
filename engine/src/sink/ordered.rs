//! Parts made in parallel, handed to a sink in order: the streaming behind the TOON
//! encoder's parallel tables and the framer's escaping of a large text block.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use super::Sink;

/// Buffers in flight per pool thread in [`write_ordered`]: enough that a worker rarely waits
/// for the writer, few enough that the memory stays a few parts per thread.
const IN_FLIGHT_PER_THREAD: usize = 4;

/// Makes `parts` parts on the current rayon pool's threads and hands each, in order, to `w`
/// through `hand`, on the calling thread, as soon as it and those before it are made.
///
/// The calling thread keeps at most `IN_FLIGHT_PER_THREAD × threads` parts spawned and not yet
/// handed over: each a pool job that fills a buffer (`make(i, buf)`, cleared first) and never
/// waits for anything, so a job run nested inside another (a pool thread steals work while it
/// waits for a join inside `make`) always finishes. The writer spawns part `i + in flight`
/// when it has handed over part `i`: the memory is bounded by the parts made and not yet
/// handed over, and the sink's work (a write to a pipe or socket, a copy into a V8 string)
/// overlaps the making. A cancelled sink stops the spawning and the jobs not yet started; a
/// job's panic stops the writer and reaches the caller.
///
/// The calling thread waits for the pool's jobs, so it must not be one of the pool's threads
/// (`rayon::current_thread_index()` is `None`).
pub(crate) fn write_ordered<W, M, H>(w: &mut W, parts: usize, make: M, mut hand: H)
where
    W: Sink + ?Sized,
    M: Fn(usize, &mut Vec<u8>) + Sync,
    H: FnMut(&mut W, &mut Vec<u8>),
{
    debug_assert!(rayon::current_thread_index().is_none());
    if parts == 0 {
        return;
    }
    /// What the jobs and the writer share: the parts made and not yet handed over (part `i`
    /// in slot `i % in_flight`), the free buffers, and whether to stop.
    struct Flow {
        done: Vec<Option<Vec<u8>>>,
        free: Vec<Vec<u8>>,
        stop: bool,
    }
    let threads = rayon::current_num_threads().max(1);
    let in_flight = (IN_FLIGHT_PER_THREAD * threads).min(parts);
    let flow = Mutex::new(Flow {
        done: vec![None; in_flight],
        free: Vec::new(),
        stop: false,
    });
    let changed = Condvar::new();
    let lock = || -> MutexGuard<'_, Flow> { flow.lock().unwrap_or_else(PoisonError::into_inner) };
    let job = |i: usize| {
        let mut buf = {
            let mut f = lock();
            if f.stop {
                return;
            }
            f.free.pop().unwrap_or_default()
        };
        // A panic (a bug) must not leave the writer waiting for this part: stop it, then
        // let the scope carry the panic to the caller.
        let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            buf.clear();
            make(i, &mut buf)
        }));
        let mut f = lock();
        match made {
            Ok(()) => f.done[i % in_flight] = Some(buf),
            Err(panic) => {
                f.stop = true;
                drop(f);
                changed.notify_all();
                std::panic::resume_unwind(panic);
            }
        }
        drop(f);
        changed.notify_all();
    };
    let job = &job;
    rayon::in_place_scope(|s| {
        for i in 0..in_flight {
            s.spawn(move |_| job(i));
        }
        for i in 0..parts {
            let mut buf = {
                let mut f = lock();
                loop {
                    if let Some(buf) = f.done[i % in_flight].take() {
                        break buf;
                    }
                    if f.stop {
                        return;
                    }
                    f = changed.wait(f).unwrap_or_else(PoisonError::into_inner);
                }
            };
            if w.cancelled() {
                lock().stop = true;
                return;
            }
            hand(w, &mut buf);
            lock().free.push(buf);
            if i + in_flight < parts {
                s.spawn(move |_| job(i + in_flight));
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::time::Duration;

    use rayon::prelude::*;

    use super::*;
    use crate::sink::CountingSink;

    /// Runs `f` on a thread outside the pool (as every caller does) and fails if it has not
    /// finished within a minute: a deadlock fails the test instead of hanging the run.
    fn outside_the_pool<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
        });
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(Ok(v)) => v,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(_) => panic!("write_ordered did not finish: a deadlock"),
        }
    }

    /// Each part is its number, made with a nested parallel loop: the pool's threads steal
    /// the pending part jobs while they wait inside a part, which must never deadlock.
    fn part(i: usize, buf: &mut Vec<u8>) {
        let sum: usize = (0..256usize).into_par_iter().map(|x| x % 3).sum();
        assert_eq!(sum, 255);
        buf.extend_from_slice(format!("{i},").as_bytes());
    }

    #[test]
    fn parts_made_with_nested_parallel_work_arrive_whole_and_in_order() {
        for parts in [0, 1, 2, 7, 300] {
            let (out, made) = outside_the_pool(move || {
                let made = AtomicUsize::new(0);
                let mut out = Vec::new();
                write_ordered(
                    &mut out,
                    parts,
                    |i, buf| {
                        made.fetch_add(1, Ordering::Relaxed);
                        part(i, buf);
                    },
                    |w, b| w.extend_from_slice(b),
                );
                (out, made.into_inner())
            });
            let want: String = (0..parts).map(|i| format!("{i},")).collect();
            assert_eq!(String::from_utf8(out).unwrap(), want, "{parts} parts");
            assert_eq!(made, parts, "each part made once");
        }
    }

    /// The case that once hung a test run: a pool thread waiting inside part 0 (for the half
    /// of a nested loop another thread stole) runs a pending job of the same call on top of
    /// it. Here one pool thread sleeps while the jobs are spawned, so the other takes the
    /// first part; the sleeper wakes up, steals half of part 0's nested loop, and the first
    /// thread, out of work, takes the next pending job. A job that waited for the writer
    /// there would wait for part 0 beneath it forever.
    #[test]
    fn a_part_job_run_nested_inside_another_finishes() {
        let out = outside_the_pool(|| {
            rayon::spawn(|| std::thread::sleep(Duration::from_millis(50)));
            std::thread::sleep(Duration::from_millis(10));
            let mut out = Vec::new();
            write_ordered(
                &mut out,
                64,
                |i, buf| {
                    if i == 0 {
                        (0..32)
                            .into_par_iter()
                            .for_each(|_| std::thread::sleep(Duration::from_millis(4)));
                    }
                    buf.extend_from_slice(format!("{i},").as_bytes());
                },
                |w, b| w.extend_from_slice(b),
            );
            out
        });
        let want: String = (0..64).map(|i| format!("{i},")).collect();
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }

    #[test]
    fn a_panic_in_a_part_reaches_the_caller() {
        let caught = outside_the_pool(|| {
            std::panic::catch_unwind(|| {
                let mut out = Vec::new();
                write_ordered(
                    &mut out,
                    100,
                    |i, buf| {
                        assert!(i != 37, "part 37 fails");
                        part(i, buf);
                    },
                    |w, b| w.extend_from_slice(b),
                );
            })
        });
        let panic = caught.expect_err("the panic reaches the caller");
        let msg = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("");
        assert!(msg.contains("part 37 fails"), "{msg}");
    }

    #[test]
    fn a_cancelled_sink_stops_the_parts() {
        let (handed, made) = outside_the_pool(|| {
            let made = AtomicUsize::new(0);
            let mut handed = 0;
            let mut sink = CountingSink::up_to(10);
            write_ordered(
                &mut sink,
                10_000,
                |i, buf| {
                    made.fetch_add(1, Ordering::Relaxed);
                    part(i, buf);
                },
                |w, b| {
                    handed += 1;
                    w.write(b);
                },
            );
            (handed, made.into_inner())
        });
        // Past 10 bytes the sink is cancelled: parts 0..=4 ("0,1,2,3,4,5," is 12 bytes).
        assert!(handed <= 6, "{handed} parts handed over");
        let threads = rayon::current_num_threads();
        assert!(
            made <= handed + IN_FLIGHT_PER_THREAD * threads,
            "{made} parts made"
        );
    }
}
