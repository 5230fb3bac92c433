//! The batch: `num_envs` boards stepped together, their rows of the output arrays spread
//! over threads (each thread takes a run of boards and their rows).

use std::fmt;
use std::sync::Mutex;

use crate::{coord, playout_rng, Color};

use super::config::{Config, Rules};
use super::pool::Pool;
use super::single::{Row, SingleEnv};

/// The output arrays of a step, one row per board, each row contiguous.
pub struct StepRows<'a> {
    /// `observation_len` bytes a board (0 or 1).
    pub observation: &'a mut [u8],
    /// Two a board, by colour (0 black, 1 white).
    pub rewards: &'a mut [f32],
    pub terminated: &'a mut [u8],
    pub truncated: &'a mut [u8],
    /// `actions` bytes a board (0 or 1).
    pub mask: &'a mut [u8],
    pub to_play: &'a mut [i8],
    /// With same-step autoreset: the observation of each game that ended at this step (rows of
    /// the others are left as they were).
    pub final_observation: Option<&'a mut [u8]>,
}

impl<'a> StepRows<'a> {
    /// The rows of the first `envs` boards, and the rest.
    fn split_at(self, envs: usize, config: &Config) -> (StepRows<'a>, StepRows<'a>) {
        let observation_len = config.observation_len();
        let (observation, observation_rest) = self.observation.split_at_mut(envs * observation_len);
        let (rewards, rewards_rest) = self.rewards.split_at_mut(envs * 2);
        let (terminated, terminated_rest) = self.terminated.split_at_mut(envs);
        let (truncated, truncated_rest) = self.truncated.split_at_mut(envs);
        let (mask, mask_rest) = self.mask.split_at_mut(envs * config.actions());
        let (to_play, to_play_rest) = self.to_play.split_at_mut(envs);
        let (final_observation, final_rest) = match self.final_observation {
            Some(rows) => {
                let (first, rest) = rows.split_at_mut(envs * observation_len);
                (Some(first), Some(rest))
            }
            None => (None, None),
        };
        (
            StepRows {
                observation,
                rewards,
                terminated,
                truncated,
                mask,
                to_play,
                final_observation,
            },
            StepRows {
                observation: observation_rest,
                rewards: rewards_rest,
                terminated: terminated_rest,
                truncated: truncated_rest,
                mask: mask_rest,
                to_play: to_play_rest,
                final_observation: final_rest,
            },
        )
    }

    /// The row of board `i`.
    fn row(&mut self, i: usize, config: &Config) -> Row<'_> {
        let (observation_len, actions) = (config.observation_len(), config.actions());
        Row {
            observation: &mut self.observation[i * observation_len..(i + 1) * observation_len],
            reward: &mut self.rewards[i * 2..i * 2 + 2],
            terminated: &mut self.terminated[i],
            truncated: &mut self.truncated[i],
            mask: &mut self.mask[i * actions..(i + 1) * actions],
            to_play: &mut self.to_play[i],
            final_observation: self
                .final_observation
                .as_deref_mut()
                .map(|rows| &mut rows[i * observation_len..(i + 1) * observation_len]),
        }
    }
}

/// An action a step refused: nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionError {
    pub board: usize,
    pub action: i64,
    pub problem: String,
}

impl fmt::Display for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "board {}: action {} {}", self.board, self.action, self.problem)
    }
}

/// `num_envs` boards of one configuration.
pub struct VecEnv {
    config: Config,
    envs: Vec<SingleEnv>,
    pool: Pool,
}

impl VecEnv {
    /// `num_envs` (at least 1) new games; board `i` draws its random actions from a stream
    /// derived from `seed` and `i`.
    pub fn new(config: Config, num_envs: usize, threads: usize, seed: u64) -> VecEnv {
        let first = SingleEnv::new(&config, playout_rng(seed, 0));
        let mut envs = vec![first; num_envs.max(1)];
        for (i, env) in envs.iter_mut().enumerate() {
            env.reseed(playout_rng(seed, i as u64));
        }
        // More threads than boards would have nothing to do.
        let threads = threads.clamp(1, envs.len());
        VecEnv {
            config,
            envs,
            pool: Pool::new(threads - 1),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn num_envs(&self) -> usize {
        self.envs.len()
    }

    pub fn threads(&self) -> usize {
        self.pool.threads()
    }

    /// The game on board `i`, if there is one.
    pub fn game(&self, i: usize) -> Option<&crate::Game> {
        self.envs.get(i).map(SingleEnv::game)
    }

    /// New games on every board, their random streams seeded from `seed` if given; writes
    /// each board's observation, mask and player to move.
    pub fn reset(&mut self, seed: Option<u64>, observation: &mut [u8], mask: &mut [u8], to_play: &mut [i8]) {
        if let Some(seed) = seed {
            self.reseed(seed);
        }
        let config = self.config;
        let rows = observation
            .chunks_exact_mut(config.observation_len())
            .zip(mask.chunks_exact_mut(config.actions()))
            .zip(to_play.iter_mut());
        for (env, ((observation, mask), to_play)) in self.envs.iter_mut().zip(rows) {
            env.reset();
            env.write_state(&config, observation, mask, to_play);
        }
    }

    fn reseed(&mut self, seed: u64) {
        for (i, env) in self.envs.iter_mut().enumerate() {
            env.reseed(playout_rng(seed, i as u64));
        }
    }

    /// Whether every action is one a step takes: a number from 0 to `points` (pass), and under
    /// the engine's rules a legal move unless that board's game just ended.
    pub fn check_actions(&self, actions: &[i64]) -> Result<(), ActionError> {
        let config = &self.config;
        let points = config.points();
        if actions.len() != self.envs.len() {
            return Err(ActionError {
                board: actions.len().min(self.envs.len()),
                action: -1,
                problem: format!(
                    "missing: {} actions for {} boards",
                    actions.len(),
                    self.envs.len()
                ),
            });
        }
        for (board, (&action, env)) in actions.iter().zip(&self.envs).enumerate() {
            let refuse = |problem: String| {
                Err(ActionError {
                    board,
                    action,
                    problem,
                })
            };
            let Some(index) = usize::try_from(action).ok().filter(|&a| a <= points) else {
                return refuse(format!(
                    "is out of range: actions are 0 to {} (the points row by row from the top, then {points} to pass)",
                    points
                ));
            };
            if config.rules == Rules::Gokata && !env.accepts(index) {
                let game = env.game();
                let (row, col) = (index / config.size, index % config.size);
                let problem = match game.check_move(game.to_move(), game.board().point(row, col)) {
                    Err(error) => error.to_string(),
                    Ok(()) => format!("is refused at {}", coord::format(row, col, config.size)),
                };
                return refuse(format!(
                    "({}) is illegal: {problem}",
                    coord::format(row, col, config.size)
                ));
            }
        }
        Ok(())
    }

    /// One step of every board: board `i` takes `actions[i]`. Refuses the whole step, changing
    /// nothing, if [`VecEnv::check_actions`] refuses an action. The rows must be sized for
    /// `num_envs` boards.
    pub fn step(&mut self, actions: &[i64], rows: StepRows<'_>) -> Result<(), ActionError> {
        self.check_actions(actions)?;
        let config = self.config;
        let chunks = chunked(&mut self.envs, actions, rows, self.pool.threads(), &config);
        self.pool.run(chunks.len(), &|chunk| {
            let taken = chunks[chunk].lock().map(|mut chunk| chunk.take());
            if let Ok(Some((envs, actions, mut rows))) = taken {
                for (i, (env, &action)) in envs.iter_mut().zip(actions).enumerate() {
                    env.step(action as usize, &config, rows.row(i, &config));
                }
            }
        });
        Ok(())
    }

    /// One uniformly random action per board among those its next step accepts. On this
    /// thread: a draw is a few nanoseconds, less than starting a thread.
    pub fn random_actions(&mut self, seed: Option<u64>, out: &mut [i64]) {
        if let Some(seed) = seed {
            self.reseed(seed);
        }
        for (env, out) in self.envs.iter_mut().zip(out.iter_mut()) {
            *out = env.random_action() as i64;
        }
    }

    /// The colour to play on board `i`.
    pub fn to_play(&self, i: usize) -> Option<Color> {
        self.envs.get(i).map(|env| env.game().to_move())
    }
}

/// A run of boards with their actions and rows, taken once by whichever thread claims it.
type Chunk<'a, 'b> = Mutex<Option<(&'a mut [SingleEnv], &'b [i64], StepRows<'b>)>>;

/// The boards cut into runs of near-equal length, a few for each thread (so that a thread
/// that starts late finds some left, and one that is slowed has little to finish).
fn chunked<'a, 'b>(
    envs: &'a mut [SingleEnv],
    actions: &'b [i64],
    rows: StepRows<'b>,
    threads: usize,
    config: &Config,
) -> Vec<Chunk<'a, 'b>> {
    const PER_THREAD: usize = 8;
    let count = (threads * PER_THREAD).clamp(1, envs.len().max(1));
    let mut chunks = Vec::with_capacity(count);
    let (mut envs, mut actions, mut rows) = (envs, actions, rows);
    for remaining in (1..=count).rev() {
        let take = envs.len() / remaining;
        let (first, rest) = std::mem::take(&mut envs).split_at_mut(take);
        let (first_actions, rest_actions) = actions.split_at(take);
        let (first_rows, rest_rows) = rows.split_at(take, config);
        chunks.push(Mutex::new(Some((first, first_actions, first_rows))));
        (envs, actions, rows) = (rest, rest_actions, rest_rows);
    }
    chunks
}
