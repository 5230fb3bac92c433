//! Worker threads kept for the life of an environment, sharing each batch by chunks.
//!
//! A batch is cut into chunks that the calling thread and the workers claim one at a time,
//! so the caller never waits for a worker that has not started: on a busy machine, where a
//! woken thread may wait milliseconds for a core, the caller does the chunks itself, and it
//! waits only for chunks a worker has already claimed. (Starting threads for each call cost
//! more than a whole batch of 9x9 steps on a loaded 2-core machine.)

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

/// The work of one call: `run(chunk)` for each chunk number below `chunks`.
type Job = dyn Fn(usize) + Sync;

/// What the caller and the workers share.
struct Shared {
    slot: Mutex<Slot>,
    /// Wakes workers when a job is posted or the pool closes, and the caller when the last
    /// worker leaves a job.
    changed: Condvar,
    /// The next chunk to claim in the current job.
    next_chunk: AtomicUsize,
}

struct Slot {
    /// The current job and its number of chunks. The pointer is valid while the job is
    /// posted and while any worker that joined it is still in it (`active > 0`): the caller
    /// waits for both before it returns.
    job: Option<(*const Job, usize)>,
    /// Numbers each posted job, so that a worker joins each at most once.
    generation: u64,
    /// Workers in the current job.
    active: usize,
    closing: bool,
}

// Safety: the job pointer is only dereferenced under the rules on `Slot::job`, and the job
// itself is `Sync`.
unsafe impl Send for Slot {}

fn lock(slot: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    // A job that panicked in a worker is reported by the caller (see `run`); the slot's
    // counters stay consistent, since they are only changed outside of jobs.
    slot.lock().unwrap_or_else(PoisonError::into_inner)
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
                active: 0,
                closing: false,
            }),
            changed: Condvar::new(),
            next_chunk: AtomicUsize::new(0),
        });
        let workers = (0..workers)
            .map(|_| {
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || work(&shared))
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
            self.shared.next_chunk.store(0, Ordering::Relaxed);
            slot.job = Some((erased, chunks));
            slot.generation += 1;
        }
        self.shared.changed.notify_all();
        // A panic in one of this thread's chunks is raised only once no worker can touch the job.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            claim_chunks(&self.shared.next_chunk, chunks, job)
        }));
        let mut slot = lock(&self.shared.slot);
        slot.job = None;
        while slot.active > 0 {
            slot = self
                .shared
                .changed
                .wait(slot)
                .unwrap_or_else(PoisonError::into_inner);
        }
        drop(slot);
        if let Err(panic) = outcome {
            std::panic::resume_unwind(panic);
        }
        assert_eq!(finished.load(Ordering::Acquire), chunks, "a worker panicked");
    }
}

/// Claims and runs chunks until none is left.
fn claim_chunks(next_chunk: &AtomicUsize, chunks: usize, job: &(dyn Fn(usize) + Sync)) {
    loop {
        let chunk = next_chunk.fetch_add(1, Ordering::Relaxed);
        if chunk >= chunks {
            return;
        }
        job(chunk);
    }
}

/// A worker: joins each posted job once, claims chunks until none is left, and waits again.
fn work(shared: &Shared) {
    let mut seen = 0;
    let mut slot = lock(&shared.slot);
    loop {
        if slot.closing {
            return;
        }
        match slot.job {
            Some((job, chunks)) if slot.generation != seen => {
                seen = slot.generation;
                slot.active += 1;
                drop(slot);
                // Safety: joined while posted; the caller waits for `active` to drop to 0.
                let job = unsafe { &*job };
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    claim_chunks(&shared.next_chunk, chunks, job)
                }));
                slot = lock(&shared.slot);
                slot.active -= 1;
                if slot.active == 0 {
                    shared.changed.notify_all();
                }
                if outcome.is_err() {
                    // The caller sees the chunk unfinished and panics; this worker carries on.
                    continue;
                }
            }
            _ => slot = shared.changed.wait(slot).unwrap_or_else(PoisonError::into_inner),
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
