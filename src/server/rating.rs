//! Ratings and ranks as OGS keeps them: Glicko-2 (Glickman, "Example of the Glicko-2 system")
//! with one game a rating period and OGS's bounds (online-go/goratings), and ranks from ratings
//! as OGS shows them.

/// Glicko-2's scale between the displayed rating and its internal `mu` (400 / ln 10).
const SCALE: f64 = 173.7178;
/// The rating Glicko-2 is centred on.
const CENTRE: f64 = 1500.0;
/// The system constant, how much the volatility may change.
pub const TAU: f64 = 0.5;
/// When the volatility's iteration stops.
const TOLERANCE: f64 = 0.000_001;

/// Bounds kept after every update.
const DEVIATION_BOUNDS: (f64, f64) = (30.0, 500.0);
const VOLATILITY_BOUNDS: (f64, f64) = (0.01, 0.15);
const RATING_BOUNDS: (f64, f64) = (100.0, 6000.0);

/// Ranks: `rank = RANK_SCALE * ln(rating / RANK_BASE)`, 30 being 1 dan.
const RANK_SCALE: f64 = 23.15;
const RANK_BASE: f64 = 525.0;
/// From this deviation up a rank is uncertain: its label ends in `?`.
const UNCERTAIN_DEVIATION: f64 = 160.0;

/// A player's Glicko-2 rating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

impl Rating {
    /// A new player's.
    pub const NEW: Rating = Rating {
        rating: 1500.0,
        deviation: 350.0,
        volatility: 0.06,
    };

    /// The rating after one rating period with these games (`(opponent, score)`, the score 1
    /// for a win, 0 for a loss, 0.5 for a draw), exactly as the paper computes it (no bounds).
    /// Without games only the deviation grows, as the paper's step 6 says.
    pub fn after_period(self, games: &[(Rating, f64)], tau: f64) -> Rating {
        let mu = (self.rating - CENTRE) / SCALE;
        let phi = self.deviation / SCALE;
        if games.is_empty() {
            let grown = (phi * phi + self.volatility * self.volatility).sqrt();
            return Rating {
                deviation: grown * SCALE,
                ..self
            };
        }
        let opponents: Vec<(f64, f64, f64)> = games
            .iter()
            .map(|(opponent, score)| {
                let g = g((opponent.deviation) / SCALE);
                let expected = 1.0 / (1.0 + (-g * (mu - (opponent.rating - CENTRE) / SCALE)).exp());
                (g, expected, *score)
            })
            .collect();
        let v = 1.0
            / opponents
                .iter()
                .map(|(g, e, _)| g * g * e * (1.0 - e))
                .sum::<f64>();
        let improvement: f64 = opponents.iter().map(|(g, e, s)| g * (s - e)).sum();
        let delta = v * improvement;
        let volatility = new_volatility(phi, v, delta, self.volatility, tau);
        let phi_star = (phi * phi + volatility * volatility).sqrt();
        let new_phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let new_mu = mu + new_phi * new_phi * improvement;
        Rating {
            rating: new_mu * SCALE + CENTRE,
            deviation: new_phi * SCALE,
            volatility,
        }
    }

    /// The rating after one game against `opponent` (`score` 1, 0.5 or 0), with OGS's choices:
    /// the game is a rating period of its own, tau 0.5, and the result kept within bounds.
    pub fn after_game(self, opponent: Rating, score: f64) -> Rating {
        let next = self.after_period(&[(opponent, score)], TAU);
        Rating {
            rating: next.rating.clamp(RATING_BOUNDS.0, RATING_BOUNDS.1),
            deviation: next.deviation.clamp(DEVIATION_BOUNDS.0, DEVIATION_BOUNDS.1),
            volatility: next.volatility.clamp(VOLATILITY_BOUNDS.0, VOLATILITY_BOUNDS.1),
        }
    }

    /// The rank as a real number (30 is 1 dan, 29 is 1 kyu).
    pub fn rank(self) -> f64 {
        rank_of(self.rating)
    }

    /// The rank as players read it: `"6k"`, `"1d"`, kept within 25k and 9d, with `?` while the
    /// deviation is 160 or more.
    pub fn rank_label(self) -> String {
        let uncertain = if self.deviation >= UNCERTAIN_DEVIATION {
            "?"
        } else {
            ""
        };
        format!("{}{uncertain}", rank_label(self.rank()))
    }
}

/// The rank of a rating, as a real number.
pub fn rank_of(rating: f64) -> f64 {
    RANK_SCALE * (rating / RANK_BASE).ln()
}

/// The rating of a rank (the inverse of [`rank_of`]).
pub fn rating_of(rank: f64) -> f64 {
    RANK_BASE * (rank / RANK_SCALE).exp()
}

/// A rank's label without the deviation's `?`: below 30 `ceil(30 - rank)` kyu, from 30 up
/// `floor(rank - 29)` dan, within 25k and 9d.
pub fn rank_label(rank: f64) -> String {
    if rank < 30.0 {
        let kyu = (30.0 - rank).ceil().clamp(1.0, 25.0) as u32;
        format!("{kyu}k")
    } else {
        let dan = (rank - 29.0).floor().clamp(1.0, 9.0) as u32;
        format!("{dan}d")
    }
}

/// What a handicap stone is worth in ranks on a board of this size (1 on 19x19, 3 on 13x13, 6
/// on 9x9).
fn stone_worth(size: usize) -> f64 {
    match size {
        9 => 6.0,
        13 => 3.0,
        _ => 1.0,
    }
}

/// The handicap stones between two players whose ranks (as real numbers) differ by
/// `rank_difference`: `floor(difference / worth)` at most 9 (5 on 9x9); 0 or 1 is an even game.
pub fn handicap_stones(rank_difference: f64, size: usize) -> u32 {
    let most = if size == 9 { 5.0 } else { 9.0 };
    let stones = (rank_difference.abs() / stone_worth(size)).floor().min(most);
    if stones < 2.0 {
        0
    } else {
        stones as u32
    }
}

/// The rating black counts as in a handicap game's update: that of its rank raised by the
/// stones' worth (white counts as its own rating).
pub fn handicapped_rating(rating: f64, stones: u32, size: usize) -> f64 {
    rating_of(rank_of(rating) + f64::from(stones) * stone_worth(size))
}

/// Both players' ratings after a rated game (`black_won` or not) with `stones` handicap stones
/// on a board of `size`, black first: black counts as its rank raised by the stones' worth
/// (as OGS's goratings does it, white is lowered by as much in black's own update).
pub fn after_rated_game(
    black: Rating,
    white: Rating,
    black_won: bool,
    stones: u32,
    size: usize,
) -> [Rating; 2] {
    let raised = handicapped_rating(black.rating, stones, size);
    let black_as_white_sees_it = Rating {
        rating: raised,
        ..black
    };
    let white_as_black_sees_it = Rating {
        rating: white.rating - (raised - black.rating),
        ..white
    };
    let black_score = if black_won { 1.0 } else { 0.0 };
    [
        black.after_game(white_as_black_sees_it, black_score),
        white.after_game(black_as_white_sees_it, 1.0 - black_score),
    ]
}

/// Glicko-2's `g`, which weighs a result by how well the opponent's rating is known.
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

/// The paper's step 5: the new volatility, by the Illinois algorithm.
fn new_volatility(phi: f64, v: f64, delta: f64, volatility: f64, tau: f64) -> f64 {
    let a = (volatility * volatility).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let denominator = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * denominator * denominator) - (x - a) / (tau * tau)
    };
    let mut upper_a = a;
    let mut upper_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let mut f_a = f(upper_a);
    let mut f_b = f(upper_b);
    while (upper_b - upper_a).abs() > TOLERANCE {
        let c = upper_a + (upper_a - upper_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            upper_a = upper_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        upper_b = c;
        f_b = f_c;
    }
    (upper_a / 2.0).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64, within: f64) -> bool {
        (actual - expected).abs() <= within
    }

    #[test]
    fn the_papers_worked_example() {
        // Glickman's example: a player rated 1500 (RD 200, volatility 0.06) beats a 1400 (RD 30)
        // and loses to a 1550 (RD 100) and a 1700 (RD 300), tau 0.5: 1464.06, RD 151.52,
        // volatility 0.05999.
        let player = Rating {
            rating: 1500.0,
            deviation: 200.0,
            volatility: 0.06,
        };
        let opponent = |rating, deviation| Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let after = player.after_period(
            &[
                (opponent(1400.0, 30.0), 1.0),
                (opponent(1550.0, 100.0), 0.0),
                (opponent(1700.0, 300.0), 0.0),
            ],
            0.5,
        );
        assert!(close(after.rating, 1464.06, 0.01), "{after:?}");
        assert!(close(after.deviation, 151.52, 0.01), "{after:?}");
        assert!(close(after.volatility, 0.05999, 0.00001), "{after:?}");
    }

    #[test]
    fn a_period_without_games_only_widens_the_deviation() {
        let player = Rating {
            rating: 1500.0,
            deviation: 200.0,
            volatility: 0.06,
        };
        let after = player.after_period(&[], 0.5);
        assert_eq!(after.rating, 1500.0);
        assert!(close(
            after.deviation,
            (200.0_f64.powi(2) + (0.06 * SCALE).powi(2)).sqrt(),
            1e-9
        ));
    }

    #[test]
    fn one_game_moves_both_players_the_right_way_within_the_bounds() {
        let winner = Rating::NEW.after_game(Rating::NEW, 1.0);
        let loser = Rating::NEW.after_game(Rating::NEW, 0.0);
        assert!(winner.rating > 1500.0 && loser.rating < 1500.0);
        assert!(close(winner.rating - 1500.0, 1500.0 - loser.rating, 1e-9));
        assert!(winner.deviation < 350.0);
        let extreme = Rating {
            rating: 6000.0,
            deviation: 30.0,
            volatility: 0.01,
        };
        let after = extreme.after_game(Rating::NEW, 1.0);
        assert!(after.rating <= 6000.0 && after.deviation >= 30.0 && after.volatility >= 0.01);
        let beginner = Rating {
            rating: 100.0,
            deviation: 500.0,
            volatility: 0.15,
        };
        let after = beginner.after_game(extreme, 0.0);
        assert!(after.rating >= 100.0 && after.deviation <= 500.0 && after.volatility <= 0.15);
    }

    #[test]
    fn handicap_stones_from_the_rank_difference_on_each_size() {
        let cases = [
            (0.9, 19, 0),
            (1.99, 19, 0),
            (2.0, 19, 2),
            (-3.7, 19, 3),
            (12.0, 19, 9),
            (5.99, 13, 0),
            (6.0, 13, 2),
            (27.5, 13, 9),
            (11.99, 9, 0),
            (12.0, 9, 2),
            (29.9, 9, 4),
            (30.0, 9, 5),
            (60.0, 9, 5),
        ];
        for (difference, size, stones) in cases {
            assert_eq!(
                handicap_stones(difference, size),
                stones,
                "{difference} on {size}x{size}"
            );
        }
    }

    #[test]
    fn black_counts_as_its_rank_raised_by_the_stones() {
        let rating = 1200.0;
        assert!(close(handicapped_rating(rating, 0, 19), rating, 1e-9));
        assert!(close(
            rank_of(handicapped_rating(rating, 3, 19)),
            rank_of(rating) + 3.0,
            1e-9
        ));
        assert!(close(
            rank_of(handicapped_rating(rating, 2, 13)),
            rank_of(rating) + 6.0,
            1e-9
        ));
        assert!(close(
            rank_of(handicapped_rating(rating, 2, 9)),
            rank_of(rating) + 12.0,
            1e-9
        ));
    }

    #[test]
    fn rank_labels_at_their_boundaries() {
        assert_eq!(rank_label(29.999), "1k");
        assert_eq!(rank_label(30.0), "1d");
        assert_eq!(rank_label(30.999), "1d");
        assert_eq!(rank_label(31.0), "2d");
        assert_eq!(rank_label(29.0), "1k");
        assert_eq!(rank_label(28.999), "2k");
        assert_eq!(rank_label(24.0), "6k");
        assert_eq!(rank_label(-40.0), "25k");
        assert_eq!(rank_label(4.5), "25k");
        assert_eq!(rank_label(5.5), "25k");
        assert_eq!(rank_label(6.0), "24k");
        assert_eq!(rank_label(38.0), "9d");
        assert_eq!(rank_label(60.0), "9d");
        // 1500 is about 24.3: 6k; a new player's rank is uncertain.
        assert_eq!(Rating::NEW.rank_label(), "6k?");
        let settled = Rating {
            deviation: 159.9,
            ..Rating::NEW
        };
        assert_eq!(settled.rank_label(), "6k");
        assert!(close(rating_of(rank_of(1234.5)), 1234.5, 1e-9));
    }
}
