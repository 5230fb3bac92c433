//! The search's threads and their trees, kept between searches and carried down the moves
//! played since, when the game is the same game. Either all threads grow one tree (tree
//! parallelism with virtual loss, the default), or each thread grows a tree of its own from
//! the same position and their root statistics are summed (root parallelism). Each thread has
//! its own random stream.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::playout::PASS;
use super::search::{Root, Searcher, MAX_NODES};
use super::tree::Tree;
use super::Budget;
use crate::{Color, Game, GameRecord, Point, Rng};

/// How often the calling thread asks its `stop` function while the workers search.
const POLL: Duration = Duration::from_millis(2);
/// Simulations between two looks at the clock.
const CLOCK_EVERY: u64 = 16;
/// Moves shown in a candidate's principal variation.
const PV_LENGTH: usize = 10;

/// Reports of a search in progress: every `every`, `send` gets the candidates so far.
pub struct Report<'a> {
    pub every: Duration,
    pub send: &'a mut dyn FnMut(&[Candidate]),
}

/// A move the search considered, with the statistics of every thread summed.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// `PASS` for a pass.
    pub mv: Point,
    /// Simulations through the move (priors left out).
    pub visits: u64,
    /// For the side to move, priors included (0.5 before any simulation).
    pub win_rate: f64,
    /// The win rate the priors alone gave it.
    pub prior: f64,
    /// The expected line of play from this move on.
    pub pv: Vec<Point>,
}

pub struct Forest {
    /// One shared tree, or one a thread.
    trees: Vec<Tree>,
    threads: usize,
    /// The game, side to move and komi the trees' roots stand for.
    position: Option<(GameRecord, Color, f64)>,
    seed: u64,
    searches: u64,
}

impl Forest {
    /// `threads` threads sharing one tree (`shared`), or each with its own.
    pub fn new(threads: usize, shared: bool, seed: u64) -> Forest {
        let threads = threads.max(1);
        Forest {
            trees: vec![Tree::new(); if shared { 1 } else { threads }],
            threads,
            position: None,
            seed,
            searches: 0,
        }
    }

    /// Searches from `game`'s position for `budget` more, and returns the root's moves, most
    /// visited first.
    pub fn search(
        &mut self,
        game: &Game,
        komi: f64,
        budget: Budget,
        stop: &mut dyn FnMut() -> bool,
        mut report: Option<Report<'_>>,
    ) -> Vec<Candidate> {
        self.follow(game, komi);
        let root = Root {
            board: game.board().clone(),
            to_move: game.to_move(),
            previous_was_pass: game.last_turn_was_pass(),
            last: last_move(game),
            komi,
        };
        let threads = self.threads as u64;
        let limit = match (budget.playouts, budget.time) {
            (Some(count), _) => count.max(1),
            (None, Some(_)) => u64::MAX,
            (None, None) => 1,
        };
        let deadline = budget.time.map(|time| Instant::now() + time);
        let cancelled = AtomicBool::new(false);
        let started = AtomicU64::new(0);
        self.searches += 1;
        let seeds: Vec<u64> = (0..threads)
            .map(|t| Rng::new(self.seed ^ self.searches.rotate_left(32) ^ t).next_u64())
            .collect();
        let max_nodes = MAX_NODES / self.trees.len();
        let trees: Vec<Mutex<Tree>> = std::mem::take(&mut self.trees)
            .into_iter()
            .map(Mutex::new)
            .collect();
        std::thread::scope(|scope| {
            let workers: Vec<_> = seeds
                .into_iter()
                .enumerate()
                .map(|(t, seed)| {
                    let (root, cancelled, started) = (&root, &cancelled, &started);
                    let tree = &trees[t % trees.len()];
                    scope.spawn(move || {
                        let mut searcher = Searcher::new(seed, &root.board, max_nodes);
                        let mut done = 0u64;
                        while !cancelled.load(Ordering::Relaxed)
                            && started.fetch_add(1, Ordering::Relaxed) < limit
                        {
                            searcher.simulate(tree, root);
                            done += 1;
                            if done % CLOCK_EVERY == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                                break;
                            }
                        }
                    })
                })
                .collect();
            let mut last_report = Instant::now();
            while !workers.iter().all(|w| w.is_finished()) {
                if stop() {
                    cancelled.store(true, Ordering::Relaxed);
                }
                if let Some(report) = report.as_mut().filter(|r| last_report.elapsed() >= r.every) {
                    let guards: Vec<_> = trees
                        .iter()
                        .map(|tree| tree.lock().expect("a search thread panicked"))
                        .collect();
                    let so_far = candidates(&guards.iter().map(|g| &**g).collect::<Vec<&Tree>>());
                    drop(guards);
                    (report.send)(&so_far);
                    last_report = Instant::now();
                }
                std::thread::sleep(POLL);
            }
            for worker in workers {
                worker.join().expect("a search thread panicked");
            }
        });
        self.trees = trees
            .into_iter()
            .map(|tree| tree.into_inner().expect("a search thread panicked"))
            .collect();
        candidates(&self.trees.iter().collect::<Vec<&Tree>>())
    }

    /// Makes the trees' roots `game`'s position: the subtrees of the moves played since the
    /// last search if it was the same game, else new trees.
    fn follow(&mut self, game: &Game, komi: f64) {
        let record = game.record();
        let to_move = game.to_move();
        let played = self.position.as_ref().and_then(|(old, old_to_move, old_komi)| {
            let same_start = *old_komi == komi
                && old.start == record.start
                && old.start_to_move == record.start_to_move
                && old.start_ko == record.start_ko
                && record.turns.len() >= old.turns.len()
                && record.turns[..old.turns.len()] == old.turns[..];
            let since = &record.turns[old.turns.len().min(record.turns.len())..];
            // The moves since alternate from the side the trees were searched for.
            let mut expected = *old_to_move;
            let in_turn = since.iter().all(|turn| {
                let ok = turn.color == expected && !turn.forced;
                expected = expected.opponent();
                ok
            });
            (same_start && in_turn && expected == to_move).then_some(since)
        });
        let board = game.board();
        match played {
            Some(turns) => {
                for tree in &mut self.trees {
                    let mut node = Some(0);
                    for turn in turns {
                        let mv = turn.point.map_or(PASS, |(row, col)| board.point(row, col));
                        node = node.and_then(|n| tree.child_by_move(n, mv));
                    }
                    *tree = match node {
                        Some(0) => continue,
                        Some(n) => tree.subtree(n),
                        None => Tree::new(),
                    };
                }
            }
            None => self.trees = vec![Tree::new(); self.trees.len()],
        }
        self.position = Some((record, to_move, komi));
    }
}

/// The root's moves with every tree's statistics summed, most visited first.
fn candidates(trees: &[&Tree]) -> Vec<Candidate> {
    let mut merged: Vec<(Point, f64, f64, f64, f64)> = Vec::new();
    for tree in trees {
        for c in tree.children(0) {
            let node = &tree.nodes[c as usize];
            let entry = match merged.iter().position(|m| m.0 == node.mv) {
                Some(i) => &mut merged[i],
                None => {
                    merged.push((node.mv, 0.0, 0.0, 0.0, f64::from(node.prior_rate)));
                    merged.last_mut().expect("just pushed")
                }
            };
            entry.1 += f64::from(node.simulations());
            entry.2 += f64::from(node.visits);
            entry.3 += f64::from(node.wins);
        }
    }
    let mut candidates: Vec<Candidate> = merged
        .into_iter()
        .map(|(mv, simulations, visits, wins, prior)| Candidate {
            mv,
            visits: simulations.round() as u64,
            win_rate: if visits > 0.0 { wins / visits } else { 0.5 },
            prior,
            pv: principal_variation(trees, mv),
        })
        .collect();
    // Stable: equals stay in the first tree's order.
    candidates.sort_by_key(|c| std::cmp::Reverse(c.visits));
    candidates
}

/// `mv` and the most visited line after it, in the tree that visited `mv` most.
fn principal_variation(trees: &[&Tree], mv: Point) -> Vec<Point> {
    let best = trees
        .iter()
        .filter_map(|tree| tree.child_by_move(0, mv).map(|c| (tree, c)))
        .max_by(|a, b| {
            a.0.nodes[a.1 as usize]
                .visits
                .total_cmp(&b.0.nodes[b.1 as usize].visits)
        });
    let Some((tree, mut node)) = best else {
        return vec![mv];
    };
    let mut line = vec![mv];
    while line.len() < PV_LENGTH {
        match tree.most_visited(node) {
            Some(next) if tree.nodes[next as usize].simulations() > 0.0 => {
                line.push(tree.nodes[next as usize].mv);
                node = next;
            }
            _ => break,
        }
    }
    line
}

/// The last move of `game` (`PASS` if none or a pass).
fn last_move(game: &Game) -> Point {
    let record = game.record();
    match record.turns.last().and_then(|t| t.point) {
        Some((row, col)) => game.board().point(row, col),
        None => PASS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root_visits(forest: &Forest) -> f32 {
        forest.trees.iter().map(|tree| tree.nodes[0].visits).sum()
    }

    #[test]
    fn trees_are_carried_down_the_moves_played_and_dropped_for_another_game() {
        let mut game = Game::new(9, 9).unwrap();
        let mut forest = Forest::new(1, true, 5);
        let first = forest.search(&game, 7.5, Budget::playouts(3000), &mut || false, None);
        assert_eq!(root_visits(&forest), 3000.0);
        // The most visited move and the most visited answer to it: their subtree is kept.
        let (mv, answer) = (first[0].mv, first[0].pv[1]);
        game.play(mv).unwrap();
        game.play(answer).unwrap();
        let kept = forest.trees[0]
            .child_by_move(0, mv)
            .and_then(|n| forest.trees[0].child_by_move(n, answer))
            .map(|n| forest.trees[0].nodes[n as usize].visits)
            .unwrap();
        forest.search(&game, 7.5, Budget::playouts(10), &mut || false, None);
        assert_eq!(root_visits(&forest), kept + 10.0);
        // Another komi, or the side to move changed without a turn: new trees.
        forest.search(&game, 6.5, Budget::playouts(10), &mut || false, None);
        assert_eq!(root_visits(&forest), 10.0);
        game.set_to_move(Color::White);
        forest.search(&game, 6.5, Budget::playouts(10), &mut || false, None);
        assert_eq!(root_visits(&forest), 10.0);
    }

    #[test]
    fn threads_share_the_playouts_and_a_stop_cuts_the_search_short() {
        let game = Game::new(9, 9).unwrap();
        for shared in [true, false] {
            let mut forest = Forest::new(2, shared, 1);
            assert_eq!(forest.trees.len(), if shared { 1 } else { 2 });
            let candidates = forest.search(&game, 7.5, Budget::playouts(1001), &mut || false, None);
            assert_eq!(root_visits(&forest), 1001.0);
            assert_eq!(candidates.iter().map(|c| c.visits).sum::<u64>(), 1001);
            // Every node's visits are its children's plus its own simulations that ended
            // there: no virtual loss is left over.
            for tree in &forest.trees {
                for (i, node) in tree.nodes.iter().enumerate() {
                    if node.is_expanded() && node.simulations() > 0.0 {
                        let below: f32 = tree
                            .children(i as u32)
                            .map(|c| tree.nodes[c as usize].simulations())
                            .sum();
                        assert!(below <= node.simulations(), "{below} {node:?}");
                        assert!(node.wins <= node.visits, "{node:?}");
                    }
                }
            }
            let mut forest = Forest::new(2, shared, 1);
            forest.search(&game, 7.5, Budget::playouts(u64::MAX), &mut || true, None);
            assert!(root_visits(&forest) < 1e6);
        }
    }

    #[test]
    fn one_thread_with_a_seed_searches_the_same_way_each_time() {
        let game = Game::new(9, 9).unwrap();
        let run = |seed| {
            let mut forest = Forest::new(1, true, seed);
            forest.search(&game, 7.5, Budget::playouts(2000), &mut || false, None)
        };
        assert_eq!(run(4), run(4));
        assert_ne!(run(4), run(5));
    }
}
