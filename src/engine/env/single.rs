//! One board of the batch: its game, its observation planes, its legal actions, and how a
//! step ends a game under each rule set.

use crate::{Color, Game, IllegalReason, Rng};

use super::config::{Autoreset, Config, Rules};
use super::observation::HistoryPlanes;
use super::superko::PositionHistory;

/// What one board writes for one step: its row of each output array.
pub struct Row<'a> {
    pub observation: &'a mut [u8],
    /// Indexed by colour: 0 black, 1 white.
    pub reward: &'a mut [f32],
    pub terminated: &'a mut u8,
    pub truncated: &'a mut u8,
    pub mask: &'a mut [u8],
    /// 0 black, 1 white.
    pub to_play: &'a mut i8,
    /// With [`Autoreset::SameStep`]: the observation at the end of a game that ended.
    pub final_observation: Option<&'a mut [u8]>,
}

/// How a step ended the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    /// Two passes in a row (and, under pgx's rules, the step limit): the score decides.
    Scored,
    /// The player who just moved loses (pgx's rules: an illegal action, or a repeated position).
    MoverLoses(Color),
    /// The step limit, under the engine's rules: no winner.
    Truncated,
}

/// One board and everything its steps need.
#[derive(Clone)]
pub struct SingleEnv {
    game: Game,
    /// The stones now, one byte a point row by row from the top: 0 empty, 1 black, 2 white.
    cells: Vec<u8>,
    planes: HistoryPlanes,
    /// The actions the next step accepts (every point, then pass): 1 if accepted.
    mask: Vec<u8>,
    /// The actions the mask accepts, in order (the first `accepted` entries).
    accepted_actions: Vec<u16>,
    accepted: usize,
    consecutive_passes: u32,
    steps: usize,
    /// The game ended at the last step and restarts at the next ([`Autoreset::NextStep`]).
    finished: bool,
    /// Under pgx's rules only: the positions reached, for superko.
    positions: Option<PositionHistory>,
    rng: Rng,
}

impl SingleEnv {
    pub fn new(config: &Config, rng: Rng) -> SingleEnv {
        let game = Game::new(config.size, config.size).expect("a checked size");
        let mut env = SingleEnv {
            game,
            cells: vec![0; config.points()],
            planes: HistoryPlanes::new(config.points(), config.history),
            mask: vec![0; config.actions()],
            accepted_actions: vec![0; config.actions()],
            accepted: 0,
            consecutive_passes: 0,
            steps: 0,
            finished: false,
            positions: (config.rules == Rules::Pgx).then(PositionHistory::default),
            rng,
        };
        env.reset();
        env
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn reseed(&mut self, rng: Rng) {
        self.rng = rng;
    }

    /// Whether the next step accepts `action` (a number below `config.actions()`).
    pub fn accepts(&self, action: usize) -> bool {
        self.mask[action] == 1
    }

    /// A new game: empty board, black to play.
    pub fn reset(&mut self) {
        self.game.reset();
        self.cells.fill(0);
        self.planes.clear();
        self.consecutive_passes = 0;
        self.steps = 0;
        self.finished = false;
        if let Some(positions) = &mut self.positions {
            positions.clear();
        }
        self.update_mask();
    }

    /// Writes the observation, the mask and the player to move.
    pub fn write_state(&self, config: &Config, observation: &mut [u8], mask: &mut [u8], to_play: &mut i8) {
        let colour = self.game.to_move();
        self.planes.write(colour, config.layout, observation);
        mask.copy_from_slice(&self.mask);
        *to_play = i8::from(colour == Color::White);
    }

    /// A uniformly random action among those the next step accepts (pass always is).
    pub fn random_action(&mut self) -> usize {
        usize::from(self.accepted_actions[self.rng.below(self.accepted)])
    }

    /// Takes `action` (below `config.actions()`; under the engine's rules one the mask accepts)
    /// and writes the step's row.
    pub fn step(&mut self, action: usize, config: &Config, row: Row<'_>) {
        if self.finished {
            self.reset();
            row.reward.fill(0.0);
            *row.terminated = 0;
            *row.truncated = 0;
            self.write_state(config, row.observation, row.mask, row.to_play);
            return;
        }
        let ending = self.play(action, config);
        let reward = match ending {
            None => [0.0, 0.0],
            Some(Ending::Scored) => self.score_rewards(config),
            Some(Ending::MoverLoses(mover)) => match mover {
                Color::Black => [-1.0, 1.0],
                Color::White => [1.0, -1.0],
            },
            Some(Ending::Truncated) => [0.0, 0.0],
        };
        row.reward.copy_from_slice(&reward);
        *row.terminated = u8::from(matches!(ending, Some(Ending::Scored | Ending::MoverLoses(_))));
        *row.truncated = u8::from(ending == Some(Ending::Truncated));
        if ending.is_some() {
            // As pgx: once the game is over, any action is accepted (and ignored).
            self.mask.fill(1);
            self.list_accepted_actions();
        } else {
            self.update_mask();
        }
        self.write_state(config, row.observation, row.mask, row.to_play);
        if ending.is_none() {
            return;
        }
        match (config.autoreset, row.final_observation) {
            (Autoreset::SameStep, Some(final_observation)) => {
                final_observation.copy_from_slice(row.observation);
                self.reset();
                self.write_state(config, row.observation, row.mask, row.to_play);
            }
            _ => self.finished = true,
        }
    }

    /// Plays `action` for the side to move under `config.rules`; how it ended the game, if it did.
    fn play(&mut self, action: usize, config: &Config) -> Option<Ending> {
        let mover = self.game.to_move();
        let is_pass = action == config.points();
        let mut illegal = false;
        if is_pass {
            self.game.pass();
            self.consecutive_passes += 1;
        } else {
            self.consecutive_passes = 0;
            let p = self
                .game
                .board()
                .point(action / config.size, action % config.size);
            match self.game.board().illegal_reason(p, mover) {
                None => {
                    self.game.play(p).expect("a legal move");
                    self.game.board().write_cells(&mut self.cells);
                }
                // Only pgx's rules take an illegal action (the engine's are checked before).
                Some(reason) => {
                    illegal = true;
                    self.play_illegal(p, action, mover, reason);
                }
            }
        }
        self.steps += 1;
        self.planes.push(&self.cells);
        let repeated = match &mut self.positions {
            Some(positions) => positions.record(&self.cells) && !is_pass,
            None => false,
        };
        if illegal || repeated {
            Some(Ending::MoverLoses(mover))
        } else if self.consecutive_passes >= 2 {
            Some(Ending::Scored)
        } else if self.steps >= config.max_steps {
            Some(match config.rules {
                Rules::Pgx => Ending::Scored,
                Rules::Gokata => Ending::Truncated,
            })
        } else {
            None
        }
    }

    /// An illegal action as pgx carries it out: a ko retake is played as if ko allowed it; a
    /// stone on an occupied point replaces what was there; a suicidal stone stays, without
    /// liberty. The game records the move with the engine's rule for moves against the rules
    /// (the SGF specification's: a suicidal chain is removed), so its board may then differ
    /// from the observation; the game is over either way.
    fn play_illegal(&mut self, p: crate::Point, action: usize, mover: Color, reason: IllegalReason) {
        self.game.play_regardless(mover, p);
        match reason {
            IllegalReason::Ko => self.game.board().write_cells(&mut self.cells),
            IllegalReason::Occupied | IllegalReason::Suicide => self.cells[action] = mover as u8,
        }
    }

    /// Rewards by colour from the area score: +1 to the winner, -1 to the loser. Under the
    /// engine's rules a draw gives 0 to both; under pgx's, black wins only with more than
    /// white's area plus komi (a tie is white's), its area and white's counted as pgx counts
    /// them (Tromp-Taylor: an empty board is all territory of both).
    fn score_rewards(&self, config: &Config) -> [f32; 2] {
        let area = self.game.board().area();
        let (mut black, mut white) = (area[Color::Black as usize], area[Color::White as usize]);
        let black_wins = match config.rules {
            Rules::Pgx => {
                if black == 0 && white == 0 {
                    (black, white) = (config.points() as u32, config.points() as u32);
                }
                // pgx compares in float32.
                black as f32 - config.komi as f32 > white as f32
            }
            Rules::Gokata => {
                let margin = f64::from(black) - config.komi - f64::from(white);
                if margin == 0.0 {
                    return [0.0, 0.0];
                }
                margin > 0.0
            }
        };
        if black_wins {
            [1.0, -1.0]
        } else {
            [-1.0, 1.0]
        }
    }

    /// The points the side to move may play (the engine's rules: simple ko, no suicide; pgx's
    /// mask is the same), then pass.
    fn update_mask(&mut self) {
        let points = self.mask.len() - 1;
        let colour = self.game.to_move();
        self.game
            .board()
            .write_legal_mask(colour, &mut self.mask[..points]);
        self.mask[points] = 1;
        self.list_accepted_actions();
    }

    /// Lists the actions the mask accepts (without a branch on each).
    fn list_accepted_actions(&mut self) {
        let mut accepted = 0;
        for (action, &m) in self.mask.iter().enumerate() {
            self.accepted_actions[accepted] = action as u16;
            accepted += usize::from(m);
        }
        self.accepted = accepted;
    }
}
