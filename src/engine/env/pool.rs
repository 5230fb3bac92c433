//! Worker threads kept for the life of an environment, sharing each batch by chunks.
//!
//! A batch is cut into chunks, and the chunks into one run for each thread. A thread claims
//! the chunks of its own run first, so a board is stepped by the same core from one call to
//! the next and its state stays in that core's cache; then it claims what is left of the
//! others' runs. So the caller never waits for a worker that has not started: on a busy
//! machine, where a woken thread may wait milliseconds for a core, the caller does the chunks
//! itself, and it waits only for chunks a worker has already claimed. Between calls a worker
//! spins for a few tens of microseconds before it sleeps, since the next call of a training
//! loop often comes sooner than a sleeping thread wakes; the caller spins the same way for the
//! last chunk a worker is finishing. (Starting threads for each call cost more than a whole
//! batch of 9x9 steps on a loaded 2-core machine.)

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The work of one call: `run(chunk)` for each chunk number below `chunks`.
type Job = dyn Fn(usize) + Sync;

/// How long a thread spins for the next job (a worker) or for the workers to finish (the
/// caller) before it sleeps: about what a 9x9 batch of a thousand boards takes.
const SPIN: Duration = Duration::from_micros(50);

/// The next chunk of one thread's run, alone on its cache line.
#[repr(align(64))]
struct NextChunk(AtomicUsize);

/// What the caller and the workers share.
struct Shared {
    slot: Mutex<Slot>,
    /// Wakes sleeping workers when a job is posted or the pool closes, and the waiting caller
    /// when the last worker leaves a job.
    changed: Condvar,
    /// The generation of the latest job posted, read without the lock by spinning workers.
    posted: AtomicU64,
    /// Workers in the current job: raised only under the lock while the job is posted, so
    /// once the caller has withdrawn the job it only falls.
    active: AtomicUsize,
    /// One counter for each thread's run of chunks (the caller's first).
    next_chunk: Vec<NextChunk>,
}

struct Slot {
    /// The current job and its number of chunks. The pointer is valid while the job is
    /// posted and while any worker that joined it is still in it (`active > 0`): the caller
    /// waits for both before it returns.
    job: Option<(*const Job, usize)>,
    /// Numbers each posted job, so that a worker joins each at most once.
    generation: u64,
    /// Workers asleep on `changed`.
    sleeping: usize,
    /// Whether the caller sleeps on `changed` until `active` is 0.
    caller_waiting: bool,
    closing: bool,
}

// Safety: the job pointer is only dereferenced under the rules on `Slot::job`, and the job
// itself is `Sync`.
unsafe impl Send for Slot {}

fn lock(slot: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    // A job that panicked in a worker is reported by the caller (see `run`); the slot's
    // fields stay consistent, since they are only changed outside of jobs.
    slot.lock().unwrap_or_else(PoisonError::into_inner)
}

fn wait<'a>(changed: &Condvar, slot: MutexGuard<'a, Slot>) -> MutexGuard<'a, Slot> {
    changed.wait(slot).unwrap_or_else(PoisonError::into_inner)
}

/// Spins until `done()` or for [`SPIN`]; whether `done()` came true.
fn spin_until(done: impl Fn() -> bool) -> bool {
    let give_up = Instant::now() + SPIN;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= give_up {
            return false;
        }
        std::hint::spin_loop();
    }
}

/// `workers` threads waiting for jobs.
pub struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl Pool {
    pub fn new(workers: usize) -> Pool {
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot {
                job: None,
                generation: 0,
                sleeping: 0,
                caller_waiting: false,
                closing: false,
            }),
            changed: Condvar::new(),
            posted: AtomicU64::new(0),
            active: AtomicUsize::new(0),
            next_chunk: (0..=workers).map(|_| NextChunk(AtomicUsize::new(0))).collect(),
        });
        let workers = (1..=workers)
            .map(|me| {
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || work(&shared, me))
            })
            .collect();
        Pool { shared, workers }
    }

    /// Threads that share a job: the workers and the caller.
    pub fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// Runs `run(chunk)` for every chunk number below `chunks`, on this thread and any
    /// worker that joins in; returns when all are done. A panic in a worker's chunk is
    /// raised here (as "a worker panicked").
    pub fn run(&self, chunks: usize, run: &(dyn Fn(usize) + Sync)) {
        if self.workers.is_empty() || chunks <= 1 {
            (0..chunks).for_each(run);
            return;
        }
        let finished = AtomicUsize::new(0);
        let counted = |chunk: usize| {
            run(chunk);
            finished.fetch_add(1, Ordering::Release);
        };
        let job: &(dyn Fn(usize) + Sync) = &counted;
        // Safety: the pointer's lifetime is erased for the workers; `run` does not return
        // before the job is withdrawn and no worker is left in it.
        let erased: *const Job = unsafe { std::mem::transmute(job as *const (dyn Fn(usize) + Sync + '_)) };
        {
            let mut slot = lock(&self.shared.slot);
            let threads = self.threads();
            for (run, next) in self.shared.next_chunk.iter().enumerate() {
                next.0.store(run_start(run, chunks, threads), Ordering::Relaxed);
            }
            slot.job = Some((erased, chunks));
            slot.generation += 1;
            self.shared.posted.store(slot.generation, Ordering::Release);
            if slot.sleeping > 0 {
                self.shared.changed.notify_all();
            }
        }
        // A panic in one of this thread's chunks is raised only once no worker can touch the job.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            claim_chunks(&self.shared.next_chunk, 0, chunks, job)
        }));
        lock(&self.shared.slot).job = None;
        self.wait_for_workers();
        if let Err(panic) = outcome {
            std::panic::resume_unwind(panic);
        }
        assert_eq!(finished.load(Ordering::Acquire), chunks, "a worker panicked");
    }

    /// Returns once no worker is in the (withdrawn) job.
    fn wait_for_workers(&self) {
        let shared = &*self.shared;
        if spin_until(|| shared.active.load(Ordering::Acquire) == 0) {
            return;
        }
        let mut slot = lock(&shared.slot);
        slot.caller_waiting = true;
        while shared.active.load(Ordering::Acquire) > 0 {
            slot = wait(&shared.changed, slot);
        }
        slot.caller_waiting = false;
    }
}

/// The first chunk of thread `run`'s run: the runs split the chunks as evenly as they can.
fn run_start(run: usize, chunks: usize, threads: usize) -> usize {
    chunks * run / threads
}

/// Claims and runs chunks until none is left: those of thread `me`'s run, then the others'.
fn claim_chunks(next_chunk: &[NextChunk], me: usize, chunks: usize, job: &(dyn Fn(usize) + Sync)) {
    let threads = next_chunk.len();
    for offset in 0..threads {
        let run = (me + offset) % threads;
        let end = run_start(run + 1, chunks, threads);
        loop {
            let chunk = next_chunk[run].0.fetch_add(1, Ordering::Relaxed);
            if chunk >= end {
                break;
            }
            job(chunk);
        }
    }
}

/// A worker (`me` from 1): joins each posted job once, claims chunks until none is left, and
/// waits for the next, spinning a little before it sleeps.
fn work(shared: &Shared, me: usize) {
    let mut seen = 0;
    loop {
        spin_until(|| shared.posted.load(Ordering::Acquire) != seen);
        let mut slot = lock(&shared.slot);
        let (job, chunks) = loop {
            if slot.closing {
                return;
            }
            match slot.job {
                Some(posted) if slot.generation != seen => break posted,
                Some(_) => {}
                // A job withdrawn before this worker came: nothing to spin for until the next.
                None => seen = slot.generation,
            }
            slot.sleeping += 1;
            slot = wait(&shared.changed, slot);
            slot.sleeping -= 1;
        };
        seen = slot.generation;
        shared.active.fetch_add(1, Ordering::Relaxed);
        drop(slot);
        // Safety: joined while posted; the caller waits for `active` to drop to 0. A panic
        // leaves its chunk unfinished, which the caller reports; this worker carries on.
        let job = unsafe { &*job };
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            claim_chunks(&shared.next_chunk, me, chunks, job)
        }));
        if shared.active.fetch_sub(1, Ordering::AcqRel) == 1 {
            // Under the lock, so that a caller about to sleep has either seen 0 or is asleep.
            let slot = lock(&shared.slot);
            if slot.caller_waiting {
                shared.changed.notify_all();
            }
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        lock(&self.shared.slot).closing = true;
        self.shared.changed.notify_all();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chunk_runs_once_whatever_the_threads() {
        for workers in [0, 1, 3] {
            let pool = Pool::new(workers);
            assert_eq!(pool.threads(), workers + 1);
            for chunks in [0, 1, 2, 7, 100] {
                let counts: Vec<AtomicUsize> = (0..chunks).map(|_| AtomicUsize::new(0)).collect();
                for _ in 0..50 {
                    pool.run(chunks, &|chunk| {
                        counts[chunk].fetch_add(1, Ordering::Relaxed);
                    });
                }
                assert!(counts.iter().all(|count| count.load(Ordering::Relaxed) == 50));
            }
        }
    }

    #[test]
    fn a_panicking_chunk_is_raised_by_the_caller_and_the_pool_goes_on() {
        let pool = Pool::new(2);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.run(64, &|chunk| assert!(chunk != 40, "chunk 40"));
        }));
        assert!(outcome.is_err());
        let total = AtomicUsize::new(0);
        pool.run(10, &|chunk| {
            total.fetch_add(chunk, Ordering::Relaxed);
        });
        assert_eq!(total.load(Ordering::Relaxed), 45);
    }
}
