//! A deliberately naive Go board for differential tests: a grid, flood fill for every
//! liberty question, and whole-board snapshots for ko. Shares no code with the engine.

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct NaiveBoard {
    pub height: usize,
    pub width: usize,
    /// 0 empty, 1 black, 2 white.
    pub cells: Vec<u8>,
}

impl NaiveBoard {
    pub fn new(height: usize, width: usize) -> NaiveBoard {
        NaiveBoard {
            height,
            width,
            cells: vec![0; height * width],
        }
    }

    fn neighbours(&self, i: usize) -> Vec<usize> {
        let (r, c) = (i / self.width, i % self.width);
        let mut out = Vec::new();
        if r > 0 {
            out.push(i - self.width);
        }
        if r + 1 < self.height {
            out.push(i + self.width);
        }
        if c > 0 {
            out.push(i - 1);
        }
        if c + 1 < self.width {
            out.push(i + 1);
        }
        out
    }

    /// The chain through `i` and its liberties (distinct empty neighbours).
    pub fn chain_and_liberties(&self, i: usize) -> (Vec<usize>, Vec<usize>) {
        let color = self.cells[i];
        let mut chain = vec![i];
        let mut liberties = Vec::new();
        let mut k = 0;
        while k < chain.len() {
            for n in self.neighbours(chain[k]) {
                if self.cells[n] == color && !chain.contains(&n) {
                    chain.push(n);
                } else if self.cells[n] == 0 && !liberties.contains(&n) {
                    liberties.push(n);
                }
            }
            k += 1;
        }
        (chain, liberties)
    }

    /// The board after `color` plays at `i`, or the reason it cannot: "occupied", "suicide",
    /// or "ko" when the result equals `two_back`.
    pub fn after_move(
        &self,
        i: usize,
        color: u8,
        two_back: Option<&NaiveBoard>,
    ) -> Result<NaiveBoard, &'static str> {
        if self.cells[i] != 0 {
            return Err("occupied");
        }
        let mut next = self.clone();
        next.cells[i] = color;
        for n in self.neighbours(i) {
            if next.cells[n] == 3 - color && next.chain_and_liberties(n).1.is_empty() {
                for s in next.chain_and_liberties(n).0 {
                    next.cells[s] = 0;
                }
            }
        }
        if next.chain_and_liberties(i).1.is_empty() {
            return Err("suicide");
        }
        if two_back == Some(&next) {
            return Err("ko");
        }
        Ok(next)
    }
}

/// A game on the naive board: every position kept, so rollback is a pop.
pub struct NaiveGame {
    pub positions: Vec<NaiveBoard>,
    pub to_move: Vec<u8>,
}

impl NaiveGame {
    pub fn new(height: usize, width: usize) -> NaiveGame {
        NaiveGame {
            positions: vec![NaiveBoard::new(height, width)],
            to_move: vec![1],
        }
    }

    pub fn board(&self) -> &NaiveBoard {
        self.positions.last().unwrap()
    }

    pub fn color(&self) -> u8 {
        *self.to_move.last().unwrap()
    }

    pub fn play(&mut self, i: usize) -> Result<(), &'static str> {
        let n = self.positions.len();
        let two_back = (n >= 2).then(|| &self.positions[n - 2]);
        let next = self.board().after_move(i, self.color(), two_back)?;
        self.positions.push(next);
        self.to_move.push(3 - self.color());
        Ok(())
    }

    pub fn pass(&mut self) {
        self.positions.push(self.board().clone());
        self.to_move.push(3 - self.color());
    }

    pub fn rollback(&mut self, turns: usize) {
        for _ in 0..turns {
            self.positions.pop();
            self.to_move.pop();
        }
    }
}
