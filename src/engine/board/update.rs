//! Changing a board: playing, merging and capturing chains, and taking a move back. Every
//! chain's liberty count stays exact (as in KataGo's board): a placed stone takes one liberty
//! from each chain around it, a merge adds only the smaller chain's liberties that the larger
//! lacks, and a captured stone gives one liberty to each chain around it.

use super::super::color::Color;
use super::sized::{empty_neighbours, ix, neighbour_change, Cell, PointSet, SizedBoard, STATE};
use super::{MoveRecord, Point, EMPTY, NO_POINT};

/// The heads of the chains met so far around one point, so that each chain counts once.
struct ChainsSeen([Point; 4]);

impl ChainsSeen {
    #[inline(always)]
    fn new() -> ChainsSeen {
        ChainsSeen([NO_POINT; 4])
    }

    /// Whether `head`, met at neighbour number `k`, was not met at an earlier one.
    #[inline(always)]
    fn first_time(&mut self, k: usize, head: Point) -> bool {
        self.first_time_if(k, head, true)
    }

    /// `first_time` if `wanted`, else false with nothing noted; without branches (see
    /// `SizedBoard::new_liberty`).
    #[inline(always)]
    fn first_time_if(&mut self, k: usize, head: Point, wanted: bool) -> bool {
        let new = self.0[..k].iter().fold(wanted, |new, &seen| new & (seen != head));
        self.0[k] = if wanted { head } else { NO_POINT };
        new
    }
}

impl<const N: usize> SizedBoard<N> {
    /// Plays a move already known to be legal.
    #[inline(always)]
    pub(super) fn play_legal(&mut self, p: Point, color: Color) -> MoveRecord {
        let mut record = self.record(p, color);
        let own = color as u8;
        let opponent = own ^ 3;
        self.put_lone_stone(p, color);
        // One pass over the neighbours, as in KataGo: each chain around loses the liberty `p`
        // once; own chains join the new stone, opponent chains left without liberty are taken.
        let mut captured_stones = 0;
        let mut captured_at = NO_POINT;
        let mut opponents_seen = ChainsSeen::new();
        for_each_neighbour!(self, p, |n, i| {
            let cell = self.cell(n);
            if cell == own {
                let (head, joined) = (self.head(n), self.head(p));
                if head != joined {
                    self.chain_liberties[ix::<N>(head)] -= 1;
                    if joined == p {
                        self.join_new_stone(p, head, own);
                    } else {
                        self.merge_chains(head, joined);
                    }
                }
            } else if cell == opponent {
                let head = self.head(n);
                if opponents_seen.first_time(i, head) {
                    let liberties = &mut self.chain_liberties[ix::<N>(head)];
                    *liberties -= 1;
                    if *liberties == 0 {
                        captured_stones += self.remove_chain(n);
                        captured_at = n;
                        record.captured_directions |= 1 << i;
                    }
                }
            }
        });
        // A single stone that took a single stone and has one liberty left can be retaken
        // at once, which would repeat the position: that retake is the ko.
        let head = ix::<N>(self.head(p));
        self.ko_point =
            if captured_stones == 1 && self.chain_stones[head] == 1 && self.chain_liberties[head] == 1 {
                captured_at
            } else {
                NO_POINT
            };
        self.ko_color = color.opponent();
        record
    }

    /// A pass by `color`: it only lifts any ko ban.
    pub(super) fn pass(&mut self, color: Color) -> MoveRecord {
        let record = self.record(NO_POINT, color);
        self.ko_point = NO_POINT;
        record
    }

    /// Puts a stone on an empty point without any capture, for handicap stones and set-up
    /// positions (which may leave a chain without liberties: the caller checks).
    pub(super) fn place_stone(&mut self, p: Point, color: Color) {
        let own = color as u8;
        self.put_lone_stone(p, color);
        let mut opponents_seen = ChainsSeen::new();
        for_each_neighbour!(self, p, |n, i| {
            let cell = self.cell(n);
            let head = self.head(n);
            if cell == own && head != self.head(p) {
                self.chain_liberties[ix::<N>(head)] -= 1;
                self.merge_chains(head, self.head(p));
            } else if cell == own ^ 3 && opponents_seen.first_time(i, head) {
                self.chain_liberties[ix::<N>(head)] -= 1;
            }
        });
    }

    /// Puts a lone stone of `color` on the empty point `p`: a chain of its own whose liberties
    /// are its empty neighbours. The chains around still count `p` as a liberty.
    #[inline(always)]
    fn put_lone_stone(&mut self, p: Point, color: Color) {
        let i = ix::<N>(p);
        self.set_state(p, EMPTY, color as u8);
        self.stone_counts[color as usize] += 1;
        self.remove_empty(p);
        self.chain_head[i] = p;
        self.next_stone[i] = p;
        self.chain_stones[i] = 1;
        self.chain_liberties[i] = empty_neighbours(self.cells[i]);
    }

    /// Adds the stone just put at `p` to the chain with head `head` next to it: the chain
    /// gains the empty neighbours of `p` that are not already its liberties.
    #[inline(always)]
    fn join_new_stone(&mut self, p: Point, head: Point, color: u8) {
        let mut new_liberties = 0;
        for_each_neighbour!(self, p, |e, i| {
            new_liberties += self.new_liberty(e, 3 - i, head, color);
        });
        let (h, i) = (ix::<N>(head), ix::<N>(p));
        self.chain_head[i] = head;
        self.next_stone[i] = self.next_stone[h];
        self.next_stone[h] = p;
        self.chain_stones[h] += 1;
        self.chain_liberties[h] += new_liberties;
    }

    /// Joins the chains with heads `a` and `b` (same colour), the smaller into the larger.
    fn merge_chains(&mut self, a: Point, b: Point) {
        let (big, small) = if self.chain_stones[ix::<N>(a)] >= self.chain_stones[ix::<N>(b)] {
            (a, b)
        } else {
            (b, a)
        };
        let color = self.cell(big);
        // A liberty of the small chain is new unless it touches the big one. Relabelling each
        // stone after looking at its neighbours keeps a liberty shared by two small-chain
        // stones from counting twice: the second look sees the first stone as the big chain's.
        let mut new_liberties = 0;
        let mut s = small;
        let last = loop {
            for_each_neighbour!(self, s, |e, i| {
                new_liberties += self.new_liberty(e, 3 - i, big, color);
            });
            self.chain_head[ix::<N>(s)] = big;
            let next = self.next_stone[ix::<N>(s)];
            if next == small {
                break s;
            }
            s = next;
        };
        self.next_stone[ix::<N>(last)] = self.next_stone[ix::<N>(big)];
        self.next_stone[ix::<N>(big)] = small;
        self.chain_stones[ix::<N>(big)] += self.chain_stones[ix::<N>(small)];
        self.chain_liberties[ix::<N>(big)] += new_liberties;
    }

    /// 1 if `e` is an empty point that is not next to a stone of the chain with head `head`
    /// (leaving out its neighbour number `skip`, the stone it was reached from), else 0.
    /// Without branches: which way each test goes is random in a playout, and mispredicted
    /// branches cost more than the loads (a wall's neighbours wrap, and are read harmlessly).
    #[inline(always)]
    fn new_liberty(&self, e: Point, skip: usize, head: Point, color: u8) -> u16 {
        let s = self.stride;
        let touches = |m: Point, j: usize| (j != skip) & (self.cell(m) == color) & (self.head(m) == head);
        let touches_chain = touches(e.wrapping_sub(s), 0)
            | touches(e.wrapping_sub(1), 1)
            | touches(e.wrapping_add(1), 2)
            | touches(e.wrapping_add(s), 3);
        u16::from((self.cell(e) == EMPTY) & !touches_chain)
    }

    /// Adds `delta` (+1 or -1) to the liberties of each distinct chain of `color` next to `p`.
    #[inline(always)]
    fn add_to_liberties_around(&mut self, p: Point, color: u8, delta: u16) {
        let mut chains_seen = ChainsSeen::new();
        for_each_neighbour!(self, p, |n, k| {
            if self.cell(n) == color {
                let head = self.head(n);
                if chains_seen.first_time(k, head) {
                    let liberties = &mut self.chain_liberties[ix::<N>(head)];
                    *liberties = liberties.wrapping_add(delta);
                }
            }
        });
    }

    /// Removes the captured chain through `start`; returns the number of stones removed.
    fn remove_chain(&mut self, start: Point) -> u16 {
        let color = self.cell(start);
        let mut removed = 0;
        let mut s = start;
        loop {
            self.take_stone(s, color);
            removed += 1;
            s = self.next_stone[ix::<N>(s)];
            if s == start {
                break;
            }
        }
        self.stone_counts[color as usize] -= removed;
        removed
    }

    /// Empties the point `s` of a captured chain of `color`: one more liberty for each
    /// capturing chain around it (in the same pass that counts the change in their cells).
    #[inline(always)]
    fn take_stone(&mut self, s: Point, color: u8) {
        self.cells[ix::<N>(s)] &= !STATE;
        self.add_empty(s);
        let change = neighbour_change(color, EMPTY);
        let capturer = Cell::from(color ^ 3);
        let mut chains_seen = ChainsSeen::new();
        for_each_neighbour!(self, s, |n, k| {
            let cell = &mut self.cells[ix::<N>(n)];
            *cell = cell.wrapping_add(change);
            // Without branches: any other neighbour's liberties get 0 added (a wall's or an
            // empty point's stale head is written back unchanged).
            let capturing = *cell & STATE == capturer;
            let head = self.head(n);
            let first = chains_seen.first_time_if(k, head, capturing);
            self.chain_liberties[ix::<N>(head)] += u16::from(first);
        });
    }

    /// Takes back the move or pass that `record` describes; records must be undone newest first.
    pub(super) fn undo(&mut self, record: MoveRecord) {
        self.ko_point = record.previous_ko_point;
        self.ko_color = record.previous_ko_color;
        let p = record.point;
        if p == NO_POINT {
            return;
        }
        let own = record.color as u8;
        let opponent = own ^ 3;
        for_each_neighbour!(self, p, |n, i| {
            if record.captured_directions & (1 << i) != 0 && self.cell(n) == EMPTY {
                self.refill_captured_chain(n, opponent);
            }
        });
        let old_head = self.head(p);
        let was_alone = self.chain_stones[ix::<N>(old_head)] == 1;
        self.set_state(p, own, EMPTY);
        self.add_empty(p);
        self.stone_counts[own as usize] -= 1;
        self.add_to_liberties_around(p, opponent, 1);
        if was_alone {
            return;
        }
        // The stone joined chains together: rebuild what is left of them from scratch.
        for_each_neighbour!(self, p, |n| {
            if self.cell(n) == own && self.head(n) == old_head {
                self.rebuild_chain(n, old_head);
            }
        });
    }

    /// Puts back a captured chain of `color` in the empty region through `start`. The region
    /// is exactly the captured chain: every point around it holds a capturing stone. The chain
    /// is rebuilt breadth first, its list of stones doubling as the queue.
    fn refill_captured_chain(&mut self, start: Point, color: u8) {
        self.refill_stone(start, color, start);
        let (mut s, mut tail, mut stones) = (start, start, 1);
        loop {
            for_each_neighbour!(self, s, |n| {
                if self.cell(n) == EMPTY {
                    self.refill_stone(n, color, start);
                    self.next_stone[ix::<N>(tail)] = n;
                    tail = n;
                    stones += 1;
                }
            });
            if s == tail {
                break;
            }
            s = self.next_stone[ix::<N>(s)];
        }
        self.next_stone[ix::<N>(tail)] = start;
        self.chain_stones[ix::<N>(start)] = stones;
        // Its last liberty holds the capturing stone, which is taken back next.
        self.chain_liberties[ix::<N>(start)] = 0;
        self.stone_counts[color as usize] += stones;
    }

    fn refill_stone(&mut self, p: Point, color: u8, head: Point) {
        self.set_state(p, EMPTY, color);
        self.remove_empty(p);
        self.chain_head[ix::<N>(p)] = head;
        self.add_to_liberties_around(p, color ^ 3, u16::MAX);
    }

    /// Rebuilds, from `start`, the chain of stones still labelled `old_head`: breadth first,
    /// its list of stones doubling as the queue, with its liberties counted afresh.
    fn rebuild_chain(&mut self, start: Point, old_head: Point) {
        let color = self.cell(start);
        let mut liberties_seen = PointSet::new();
        let (mut s, mut tail, mut stones, mut liberties) = (start, start, 1, 0);
        // `NO_POINT` marks the stones already taken, whatever the old head was.
        self.chain_head[ix::<N>(start)] = NO_POINT;
        loop {
            for_each_neighbour!(self, s, |n| {
                let cell = self.cell(n);
                if cell == color && self.head(n) == old_head {
                    self.chain_head[ix::<N>(n)] = NO_POINT;
                    self.next_stone[ix::<N>(tail)] = n;
                    tail = n;
                    stones += 1;
                } else if cell == EMPTY && liberties_seen.insert(n) {
                    liberties += 1;
                }
            });
            if s == tail {
                break;
            }
            s = self.next_stone[ix::<N>(s)];
        }
        self.next_stone[ix::<N>(tail)] = start;
        let mut s = start;
        loop {
            self.chain_head[ix::<N>(s)] = start;
            s = self.next_stone[ix::<N>(s)];
            if s == start {
                break;
            }
        }
        self.chain_stones[ix::<N>(start)] = stones;
        self.chain_liberties[ix::<N>(start)] = liberties;
    }

    /// Sets the ko ban: `color` may not play at `p` next.
    pub(super) fn set_ko(&mut self, p: Point, color: Color) {
        self.ko_point = p;
        self.ko_color = color;
    }
}
