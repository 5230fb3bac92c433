//! One thread's Monte-Carlo tree search: each simulation walks down a tree by RAVE urgency,
//! adds the children of the leaf it reaches once that leaf has been visited often enough,
//! plays out to the end, scores by area, and updates the visits along its path and the AMAF
//! statistics of the siblings of every node on it. The tree may be shared by several threads
//! (tree parallelism): it is locked while a simulation walks down and while it updates, not
//! while it plays out or works out a new node's priors, and every node on the way down counts
//! its visit at once, as a loss until the result comes (a virtual loss), so that the other
//! threads look elsewhere meanwhile. With one thread the search is the same as without a lock.

use std::sync::Mutex;

use super::playout::{play_out, Policy, PASS};
use super::priors;
use super::tree::Tree;
use crate::{area_score, default_max_moves, Board, Color, Point, Rng, MAX_SIDE};

/// Simulations a leaf needs before it gets children.
const EXPAND_VISITS: f32 = 2.0;
/// The visits at which a node's own win rate and its AMAF one weigh the same (michi's 3500).
const RAVE_EQUIVALENCE: f32 = 3500.0;
/// Nodes all trees together may hold (28 bytes each: 224 MB): past it, leaves stay leaves, so
/// that a long analysis does not take all the memory.
pub const MAX_NODES: usize = 8_000_000;
/// More than any padded point index.
const POINT_SLOTS: usize = 1024;
const _: () = assert!((MAX_SIDE + 2) * (MAX_SIDE + 1) < POINT_SLOTS);

/// The position a search starts from.
#[derive(Clone)]
pub struct Root {
    pub board: Board,
    pub to_move: Color,
    pub previous_was_pass: bool,
    /// The last move (`PASS` if none or a pass).
    pub last: Point,
    pub komi: f64,
}

/// What one thread needs to grow a tree, shared or not.
pub struct Searcher {
    /// The share of [`MAX_NODES`] of the tree this thread grows.
    max_nodes: usize,
    rng: Rng,
    scratch: Board,
    moves: Vec<(Point, Color)>,
    path: Vec<u32>,
    /// By point: the colour (as `u8`) that played there first in the moves looked at so far.
    first_play: Vec<u8>,
}

impl Searcher {
    pub fn new(seed: u64, board: &Board, max_nodes: usize) -> Searcher {
        Searcher {
            max_nodes,
            rng: Rng::new(seed),
            scratch: board.clone(),
            moves: Vec::new(),
            path: Vec::new(),
            first_play: vec![0; POINT_SLOTS],
        }
    }

    /// One simulation from `root` in `tree`.
    pub fn simulate(&mut self, tree: &Mutex<Tree>, root: &Root) {
        self.scratch.clone_from(&root.board);
        self.moves.clear();
        self.path.clear();
        self.path.push(0);
        let (mut color, mut previous_was_pass, mut last) = (root.to_move, root.previous_was_pass, root.last);
        let mut node = 0u32;
        let mut game_over = false;
        let mut guard = tree.lock().expect("a search thread panicked");
        guard.nodes[0].visits += 1.0;
        loop {
            if !guard.nodes[node as usize].is_expanded() {
                let full = guard.nodes.len() >= self.max_nodes;
                // This simulation's own visit is counted already.
                if node != 0 && (full || guard.nodes[node as usize].simulations() < EXPAND_VISITS + 1.0) {
                    break;
                }
                drop(guard);
                let children = priors::children(&mut self.scratch, color, last);
                guard = tree.lock().expect("a search thread panicked");
                // Another thread may have given it children meanwhile.
                if !guard.nodes[node as usize].is_expanded() {
                    guard.expand(node, children);
                }
            }
            node = guard.select(node, RAVE_EQUIVALENCE);
            guard.nodes[node as usize].visits += 1.0;
            let mv = guard.nodes[node as usize].mv;
            if mv == PASS {
                self.scratch.pass(color);
                game_over = previous_was_pass;
                previous_was_pass = true;
            } else {
                self.scratch.play_legal(mv, color);
                previous_was_pass = false;
            }
            self.moves.push((mv, color));
            self.path.push(node);
            last = mv;
            color = color.opponent();
            if game_over {
                break;
            }
        }
        drop(guard);
        let tree_moves = self.moves.len();
        if !game_over {
            let max_moves = default_max_moves(&self.scratch);
            play_out(
                Policy::Search,
                &mut self.scratch,
                color,
                previous_was_pass,
                last,
                max_moves,
                &mut self.rng,
                &mut self.moves,
            );
        }
        let winner = area_score(&self.scratch, root.komi).winner();
        let mut tree = tree.lock().expect("a search thread panicked");
        self.update(&mut tree, root.to_move, winner, tree_moves);
    }

    /// Counts the simulation's result along its path (whose visits are counted already), and
    /// in the AMAF statistics.
    fn update(&mut self, tree: &mut Tree, root_to_move: Color, winner: Option<Color>, tree_moves: usize) {
        let value = |color: Color| match winner {
            Some(w) if w == color => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        };
        for (depth, &index) in self.path.iter().enumerate() {
            let mover = match depth {
                0 => root_to_move.opponent(),
                _ => self.moves[depth - 1].1,
            };
            tree.nodes[index as usize].wins += value(mover);
        }
        // Backwards, so that each point keeps the colour that played there first from move
        // `i` on; the children of the node where move `i` was chosen then learn from it.
        for i in (0..self.moves.len()).rev() {
            let (p, color) = self.moves[i];
            if p != PASS {
                self.first_play[p as usize] = color as u8;
            }
            if i < tree_moves {
                let won = value(color);
                for c in tree.children(self.path[i]) {
                    let child = &mut tree.nodes[c as usize];
                    if child.mv != PASS && self.first_play[child.mv as usize] == color as u8 {
                        child.rave_visits += 1.0;
                        child.rave_wins += won;
                    }
                }
            }
        }
        for &(p, _) in &self.moves {
            self.first_play[p as usize] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_board;

    fn root(rows: &str, to_move: Color, komi: f64) -> Root {
        let rows: Vec<Vec<char>> = rows.lines().map(|line| line.chars().collect()).collect();
        Root {
            board: parse_board(&rows).expect("a valid board"),
            to_move,
            previous_was_pass: false,
            last: PASS,
            komi,
        }
    }

    #[test]
    fn visits_add_up_and_the_search_finds_the_capture_that_wins() {
        // Black to move takes the three white stones in atari at (2, 4).
        let root = root(".....\n.xxx.\nxooo.\n.xxx.\n.....", Color::Black, 0.5);
        let mut searcher = Searcher::new(3, &root.board, MAX_NODES);
        let tree = Mutex::new(Tree::new());
        for _ in 0..2000 {
            searcher.simulate(&tree, &root);
        }
        let tree = tree.into_inner().unwrap();
        assert_eq!(tree.root().visits, 2000.0);
        let simulations: f32 = tree
            .children(0)
            .map(|c| tree.nodes[c as usize].simulations())
            .sum();
        assert_eq!(simulations, 2000.0);
        let best = tree.most_visited(0).unwrap();
        assert_eq!(
            tree.nodes[best as usize].mv,
            root.board.point(2, 4),
            "the capture"
        );
    }

    #[test]
    fn a_full_tree_stops_growing_and_the_search_goes_on() {
        let root = root(&".........\n".repeat(9), Color::Black, 7.5);
        let mut searcher = Searcher::new(1, &root.board, 200);
        let tree = Mutex::new(Tree::new());
        for _ in 0..500 {
            searcher.simulate(&tree, &root);
        }
        let tree = tree.into_inner().unwrap();
        // The root's 81 children, then one more node's at most, past the cap.
        assert!(tree.nodes.len() <= 200 + 81, "{}", tree.nodes.len());
        assert_eq!(tree.nodes[0].visits, 500.0);
    }

    #[test]
    fn a_seed_gives_the_same_tree() {
        let root = root(&".........\n".repeat(9), Color::Black, 7.5);
        let grow = |seed| {
            let mut searcher = Searcher::new(seed, &root.board, MAX_NODES);
            let tree = Mutex::new(Tree::new());
            for _ in 0..300 {
                searcher.simulate(&tree, &root);
            }
            tree.into_inner()
                .unwrap()
                .nodes
                .iter()
                .map(|n| (n.mv, n.visits, n.rave_wins))
                .collect::<Vec<_>>()
        };
        assert_eq!(grow(5), grow(5));
        assert_ne!(grow(5), grow(6));
    }
}
