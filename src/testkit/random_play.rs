//! Random turns of every kind for the integration tests that rebuild games: moves by the side to
//! move (many illegal, refused), moves with an explicit colour, passes and rollbacks.

use gokata_engine::{Color, Game, Rng};

/// `turns` random requests to `game`; the illegal ones change nothing.
pub fn random_turns(game: &mut Game, rng: &mut Rng, turns: usize) {
    let (h, w) = (game.board().height(), game.board().width());
    for _ in 0..turns {
        let p = game.board().point(rng.below(h), rng.below(w));
        match rng.below(12) {
            0 => game.pass(),
            1 => {
                let color = if rng.below(2) == 0 {
                    Color::Black
                } else {
                    Color::White
                };
                let _ = game.play_as(color, p);
            }
            2 => {
                let _ = game.rollback(rng.below(3) as i64);
            }
            _ => {
                let _ = game.play(p);
            }
        }
    }
}
