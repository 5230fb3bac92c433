//! One thread's Monte-Carlo tree search: each simulation walks down the tree by RAVE urgency,
//! adds the children of the leaf it reaches once that leaf has been visited often enough,
//! plays out to the end, scores by area, and updates the visits along its path and the AMAF
//! statistics of the siblings of every node on it.

use super::playout::{play_out, PASS};
use super::priors;
use super::tree::Tree;
use crate::engine::{area_score, default_max_moves, Board, Color, Point, Rng, MAX_SIDE};

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

/// A search tree and what one thread needs to grow it.
pub struct Searcher {
    pub tree: Tree,
    /// This tree's share of [`MAX_NODES`].
    max_nodes: usize,
    rng: Rng,
    scratch: Board,
    moves: Vec<(Point, Color)>,
    path: Vec<u32>,
    /// By point: the colour (as `u8`) that played there first in the moves looked at so far.
    first_play: Vec<u8>,
}

impl Searcher {
    pub fn new(tree: Tree, seed: u64, board: &Board, max_nodes: usize) -> Searcher {
        Searcher {
            tree,
            max_nodes,
            rng: Rng::new(seed),
            scratch: board.clone(),
            moves: Vec::new(),
            path: Vec::new(),
            first_play: vec![0; POINT_SLOTS],
        }
    }

    /// One simulation from `root`.
    pub fn simulate(&mut self, root: &Root) {
        self.scratch.clone_from(&root.board);
        self.moves.clear();
        self.path.clear();
        self.path.push(0);
        let (mut color, mut previous_was_pass, mut last) = (root.to_move, root.previous_was_pass, root.last);
        let mut node = 0u32;
        let mut game_over = false;
        loop {
            if !self.tree.nodes[node as usize].is_expanded() {
                let full = self.tree.nodes.len() >= self.max_nodes;
                if node != 0 && (full || self.tree.nodes[node as usize].simulations() < EXPAND_VISITS) {
                    break;
                }
                let children = priors::children(&mut self.scratch, color, last);
                self.tree.expand(node, children);
            }
            node = self.tree.select(node, RAVE_EQUIVALENCE);
            let mv = self.tree.nodes[node as usize].mv;
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
        let tree_moves = self.moves.len();
        if !game_over {
            let max_moves = default_max_moves(&self.scratch);
            play_out(
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
        self.update(root.to_move, winner, tree_moves);
    }

    /// Counts the simulation's result along its path, and in the AMAF statistics.
    fn update(&mut self, root_to_move: Color, winner: Option<Color>, tree_moves: usize) {
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
            let node = &mut self.tree.nodes[index as usize];
            node.visits += 1.0;
            node.wins += value(mover);
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
                for c in self.tree.children(self.path[i]) {
                    let child = &mut self.tree.nodes[c as usize];
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
    use crate::engine::parse_board;

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
        let mut searcher = Searcher::new(Tree::new(), 3, &root.board, MAX_NODES);
        for _ in 0..2000 {
            searcher.simulate(&root);
        }
        let tree = &searcher.tree;
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
        let mut searcher = Searcher::new(Tree::new(), 1, &root.board, 200);
        for _ in 0..500 {
            searcher.simulate(&root);
        }
        // The root's 81 children, then one more node's at most, past the cap.
        assert!(
            searcher.tree.nodes.len() <= 200 + 81,
            "{}",
            searcher.tree.nodes.len()
        );
        assert_eq!(searcher.tree.nodes[0].visits, 500.0);
    }

    #[test]
    fn a_seed_gives_the_same_tree() {
        let root = root(&".........\n".repeat(9), Color::Black, 7.5);
        let grow = |seed| {
            let mut searcher = Searcher::new(Tree::new(), seed, &root.board, MAX_NODES);
            for _ in 0..300 {
                searcher.simulate(&root);
            }
            searcher
                .tree
                .nodes
                .iter()
                .map(|n| (n.mv, n.visits, n.rave_wins))
                .collect::<Vec<_>>()
        };
        assert_eq!(grow(5), grow(5));
        assert_ne!(grow(5), grow(6));
    }
}
