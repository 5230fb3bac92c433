//! Positions as plain grids of stones, for what the incremental board does not do: moves
//! carried out against the rules as a game record says, and set-up stones checked for chains
//! without liberties.

use super::board::Board;
use super::color::Color;

/// Rows top first, `None` for an empty point.
pub type Grid = Vec<Vec<Option<Color>>>;

/// The stones of `board`.
pub fn grid_of(board: &Board) -> Grid {
    (0..board.height())
        .map(|r| {
            (0..board.width())
                .map(|c| board.stone(board.point(r, c)))
                .collect()
        })
        .collect()
}

fn neighbours(r: usize, c: usize, height: usize, width: usize) -> impl Iterator<Item = (usize, usize)> {
    let candidates = [
        (r.wrapping_sub(1), c),
        (r + 1, c),
        (r, c.wrapping_sub(1)),
        (r, c + 1),
    ];
    candidates
        .into_iter()
        .filter(move |&(r, c)| r < height && c < width)
}

/// The chain through `(r, c)` and whether it has a liberty.
pub fn chain(grid: &Grid, r: usize, c: usize) -> (Vec<(usize, usize)>, bool) {
    let (height, width) = (grid.len(), grid[0].len());
    let color = grid[r][c];
    let mut seen = vec![vec![false; width]; height];
    let mut stack = vec![(r, c)];
    seen[r][c] = true;
    let mut stones = Vec::new();
    let mut free = false;
    while let Some((r, c)) = stack.pop() {
        stones.push((r, c));
        for (nr, nc) in neighbours(r, c, height, width) {
            if grid[nr][nc].is_none() {
                free = true;
            } else if grid[nr][nc] == color && !seen[nr][nc] {
                seen[nr][nc] = true;
                stack.push((nr, nc));
            }
        }
    }
    (stones, free)
}

/// Removes the chain through `(r, c)` if it has no liberty.
fn remove_if_dead(grid: &mut Grid, r: usize, c: usize) {
    let (stones, free) = chain(grid, r, c);
    if !free {
        for (sr, sc) in stones {
            grid[sr][sc] = None;
        }
    }
}

/// Removes every chain without a liberty; returns one stone of each, top left first.
pub fn remove_dead_chains(grid: &mut Grid) -> Vec<(usize, usize, Color)> {
    let mut removed = Vec::new();
    for r in 0..grid.len() {
        for c in 0..grid[0].len() {
            let Some(color) = grid[r][c] else { continue };
            let (stones, free) = chain(grid, r, c);
            if !free {
                removed.push((r, c, color));
                for (sr, sc) in stones {
                    grid[sr][sc] = None;
                }
            }
        }
    }
    removed
}

/// A move carried out as the SGF specification says, whatever the rules: the stone placed
/// (replacing one already there), the opponent's chains left without a liberty removed, then
/// the mover's own chain if it has none.
pub fn place_regardless(grid: &mut Grid, r: usize, c: usize, color: Color) {
    grid[r][c] = Some(color);
    let (height, width) = (grid.len(), grid[0].len());
    for (nr, nc) in neighbours(r, c, height, width) {
        if grid[nr][nc] == Some(color.opponent()) {
            remove_if_dead(grid, nr, nc);
        }
    }
    remove_if_dead(grid, r, c);
}
