//! The search tree: nodes in one arena, the children of a node side by side. Each node holds
//! the statistics of the move that leads to it, from the view of the player who made it:
//! visits and wins (priors included), and the AMAF (all-moves-as-first) visits and wins that
//! RAVE blends in while the node's own visits are few.

use crate::Point;

#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// The move that leads here (`PASS` for a pass; meaningless at the root).
    pub mv: Point,
    pub child_count: u16,
    pub first_child: u32,
    pub visits: f32,
    pub wins: f32,
    pub rave_visits: f32,
    pub rave_wins: f32,
    /// The part of `visits` that is prior knowledge, not simulations.
    pub prior_visits: f32,
    /// The prior's win rate, shown to analysis tools.
    pub prior_rate: f32,
}

impl Node {
    pub fn new(mv: Point) -> Node {
        Node {
            mv,
            child_count: 0,
            first_child: 0,
            visits: 0.0,
            wins: 0.0,
            rave_visits: 0.0,
            rave_wins: 0.0,
            prior_visits: 0.0,
            prior_rate: 0.5,
        }
    }

    /// Simulations through this node (priors left out).
    pub fn simulations(&self) -> f32 {
        self.visits - self.prior_visits
    }

    pub fn win_rate(&self) -> f32 {
        if self.visits > 0.0 {
            self.wins / self.visits
        } else {
            0.5
        }
    }

    pub fn is_expanded(&self) -> bool {
        self.child_count > 0
    }

    /// The urgency RAVE selects by: the node's win rate blended with its AMAF win rate, the
    /// AMAF one weighing less as real visits grow (michi's schedule, `equivalence` the number
    /// of visits at which both weigh the same).
    pub fn urgency(&self, equivalence: f32) -> f32 {
        let (n, rn) = (self.visits, self.rave_visits);
        if rn <= 0.0 {
            return self.win_rate();
        }
        let beta = rn / (rn + n + n * rn / equivalence);
        let rave_rate = self.rave_wins / rn;
        (1.0 - beta) * self.win_rate() + beta * rave_rate
    }
}

/// The arena; node 0 is the root.
#[derive(Clone, Debug)]
pub struct Tree {
    pub nodes: Vec<Node>,
}

impl Tree {
    pub fn new() -> Tree {
        Tree {
            nodes: vec![Node::new(0)],
        }
    }

    #[cfg(test)]
    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    /// The indices of the children of node `index`.
    pub fn children(&self, index: u32) -> std::ops::Range<u32> {
        let node = &self.nodes[index as usize];
        node.first_child..node.first_child + u32::from(node.child_count)
    }

    /// Adds children to a leaf, one per node given.
    pub fn expand(&mut self, index: u32, children: impl IntoIterator<Item = Node>) {
        let first = self.nodes.len();
        self.nodes.extend(children);
        let count = self.nodes.len() - first;
        let node = &mut self.nodes[index as usize];
        node.first_child = first as u32;
        node.child_count = count as u16;
    }

    /// The child of `index` reached by `mv`, if the tree has it.
    pub fn child_by_move(&self, index: u32, mv: Point) -> Option<u32> {
        self.children(index).find(|&c| self.nodes[c as usize].mv == mv)
    }

    /// The child of `index` with the highest urgency (the first of equals).
    pub fn select(&self, index: u32, equivalence: f32) -> u32 {
        let mut best = (f32::NEG_INFINITY, index);
        for c in self.children(index) {
            let urgency = self.nodes[c as usize].urgency(equivalence);
            if urgency > best.0 {
                best = (urgency, c);
            }
        }
        best.1
    }

    /// The child of `index` with the most visits (the first of equals).
    pub fn most_visited(&self, index: u32) -> Option<u32> {
        self.children(index)
            .fold(None, |best: Option<u32>, c| match best {
                Some(b) if self.nodes[b as usize].visits >= self.nodes[c as usize].visits => Some(b),
                _ => Some(c),
            })
    }

    /// The subtree under node `index` as a tree of its own (for reuse after moves were played).
    pub fn subtree(&self, index: u32) -> Tree {
        let mut nodes = vec![self.nodes[index as usize]];
        let mut queue = vec![(index, 0usize)];
        while let Some((old, new)) = queue.pop() {
            let first = nodes.len();
            for (k, c) in self.children(old).enumerate() {
                nodes.push(self.nodes[c as usize]);
                queue.push((c, first + k));
            }
            nodes[new].first_child = first as u32;
        }
        Tree { nodes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_visits(mv: Point, visits: f32, wins: f32) -> Node {
        Node {
            visits,
            wins,
            ..Node::new(mv)
        }
    }

    #[test]
    fn rave_weighs_less_as_real_visits_grow() {
        let mut node = with_visits(5, 10.0, 2.0);
        node.rave_visits = 1000.0;
        node.rave_wins = 900.0;
        let early = node.urgency(3500.0);
        node.visits = 100_000.0;
        node.wins = 20_000.0;
        let late = node.urgency(3500.0);
        assert!(early > 0.8, "{early}");
        assert!((late - 0.2).abs() < 0.05, "{late}");
    }

    #[test]
    fn a_subtree_keeps_its_nodes_and_links() {
        let mut tree = Tree::new();
        tree.expand(0, [with_visits(10, 5.0, 1.0), with_visits(11, 9.0, 3.0)]);
        tree.expand(2, [with_visits(20, 4.0, 2.0), with_visits(21, 1.0, 0.0)]);
        tree.expand(3, [with_visits(30, 1.0, 1.0)]);
        let sub = tree.subtree(2);
        assert_eq!(sub.nodes.len(), 4);
        assert_eq!(sub.root().mv, 11);
        let moves: Vec<Point> = sub.children(0).map(|c| sub.nodes[c as usize].mv).collect();
        assert_eq!(moves, [20, 21]);
        let twenty = sub.child_by_move(0, 20).unwrap();
        assert_eq!(
            sub.children(twenty)
                .map(|c| sub.nodes[c as usize].mv)
                .collect::<Vec<_>>(),
            [30]
        );
        assert_eq!(tree.most_visited(0), Some(2));
        assert_eq!(sub.most_visited(0), Some(sub.child_by_move(0, 20).unwrap()));
    }
}
