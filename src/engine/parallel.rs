//! Many playouts from one position, spread over threads. Playout number `i` draws from a
//! random stream of its own, derived from the seed and `i`, and the parts are summed exactly,
//! so a seed gives the same summary whatever the number of threads.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use super::game::Game;
use super::playout::PlayoutSummary;
use super::rng::{scramble, Rng, GOLDEN_GAMMA};

/// What to play out: how many playouts, their move cap and komi, the seed, and how many
/// threads share the work (at least one; more than the playouts are not started).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayoutPlan {
    pub count: u64,
    pub max_moves: u32,
    pub komi: f64,
    pub seed: u64,
    pub threads: usize,
}

/// The random stream of playout number `number`: the seed and the number, each scrambled
/// (SplitMix64's finaliser), so that neighbouring numbers start far apart.
pub fn playout_rng(seed: u64, number: u64) -> Rng {
    Rng::new(scramble(seed ^ scramble(number.wrapping_add(GOLDEN_GAMMA))))
}

/// The playouts the `part`th of `parts` threads plays: the count split into near-equal runs.
fn share(count: u64, part: usize, parts: usize) -> Range<u64> {
    let bound = |k: usize| (u128::from(count) * k as u128 / parts as u128) as u64;
    bound(part)..bound(part + 1)
}

impl Game {
    /// The playouts of `plan` from this position (the game is not changed).
    pub fn playouts(&self, plan: &PlayoutPlan) -> PlayoutSummary {
        self.playouts_until(plan, &mut || false, Duration::from_millis(10))
            .expect("never asked to stop")
    }

    /// [`Game::playouts`], asking `stop` whether to give up: on this thread, before each
    /// playout and every few hundred moves when one thread does the work; every `poll` while
    /// waiting for the threads otherwise, which then stop at the same points. `None` if it
    /// gave up.
    pub fn playouts_until(
        &self,
        plan: &PlayoutPlan,
        stop: &mut dyn FnMut() -> bool,
        poll: Duration,
    ) -> Option<PlayoutSummary> {
        let threads = plan
            .threads
            .clamp(1, usize::try_from(plan.count).unwrap_or(usize::MAX).max(1));
        if threads == 1 {
            return self.playout_run(plan, 0..plan.count, stop);
        }
        let give_up = AtomicBool::new(false);
        let mut parts: Vec<Option<PlayoutSummary>> = vec![None; threads];
        std::thread::scope(|scope| {
            let (done, finished) = mpsc::channel();
            for part in 0..threads {
                let (done, give_up) = (done.clone(), &give_up);
                scope.spawn(move || {
                    let numbers = share(plan.count, part, threads);
                    let summary = self.playout_run(plan, numbers, &mut || give_up.load(Ordering::Relaxed));
                    // The receiver outlives the scope's threads: sending cannot fail.
                    let _ = done.send((part, summary));
                });
            }
            drop(done);
            let mut waiting = threads;
            while waiting > 0 {
                match finished.recv_timeout(poll) {
                    Ok((part, summary)) => {
                        parts[part] = summary;
                        waiting -= 1;
                    }
                    // Once told to stop, it only waits for the threads to see it.
                    Err(RecvTimeoutError::Timeout) => {
                        if !give_up.load(Ordering::Relaxed) && stop() {
                            give_up.store(true, Ordering::Relaxed);
                        }
                    }
                    // A thread panicked; the scope raises its panic here.
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
        });
        let mut total = PlayoutSummary::default();
        for part in parts {
            total.merge(&part?);
        }
        Some(total)
    }

    /// Playouts number `numbers.start` to `numbers.end - 1` of `plan`, on one scratch board.
    fn playout_run(
        &self,
        plan: &PlayoutPlan,
        numbers: Range<u64>,
        stop: &mut dyn FnMut() -> bool,
    ) -> Option<PlayoutSummary> {
        let mut summary = PlayoutSummary::default();
        let mut scratch = self.board().clone();
        for number in numbers {
            let mut rng = playout_rng(plan.seed, number);
            summary.add(&self.playout_on(&mut scratch, plan.max_moves, plan.komi, &mut rng, stop)?);
        }
        Some(summary)
    }
}
