//! `_VecGo`, the batched environment ([`gokata_engine::env`]) for Python: each call makes fresh numpy
//! arrays, lets the Rust side fill them with the GIL released, and returns them. The public
//! class, `gokata.env.VecGo`, is a thin Python layer over it.

use std::sync::Mutex;

use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::{PyImportError, PyMemoryError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyModule, PyString, PyTuple};

use super::arguments::{finite_number, whole_number};
use super::batch::{numpy, positive_int, seed as read_seed, thread_count};
use super::go::Go;
use gokata_engine::env::{available_bytes, check_fits, Autoreset, Config, Layout, Rules, StepRows, VecEnv};

/// A batch of Go boards stepped together (see `gokata.env.VecGo`).
#[pyclass(module = "gokata._gokata", name = "_VecGo", frozen)]
pub struct PyVecGo {
    config: Config,
    num_envs: usize,
    threads: usize,
    env: Mutex<VecEnv>,
}

/// A fresh numpy array and its memory, which nothing else has seen yet.
struct Fresh<'py, T: Element> {
    array: Bound<'py, PyAny>,
    buffer: PyBuffer<T>,
}

impl<'py, T: Element> Fresh<'py, T> {
    /// `numpy.<maker>(shape, dtype)`, `maker` being `empty` or `zeros`.
    fn new(numpy: &Bound<'py, PyModule>, maker: &str, shape: &[usize], dtype: &str) -> PyResult<Self> {
        let shape = PyTuple::new(numpy.py(), shape)?;
        let array = numpy.getattr(maker)?.call1((shape, dtype))?;
        let buffer = PyBuffer::<T>::get(&array)?;
        if !buffer.is_c_contiguous() || buffer.readonly() {
            return Err(PyRuntimeError::new_err(
                "numpy made an array that cannot be written in order",
            ));
        }
        Ok(Fresh { array, buffer })
    }

    /// The array's memory.
    ///
    /// Safety: the array is new, held only here until returned to Python, and its buffer
    /// export keeps the memory alive and unmoved; only one slice of it may exist at a time.
    #[allow(clippy::mut_from_ref)]
    unsafe fn slice(&self) -> &mut [T] {
        std::slice::from_raw_parts_mut(self.buffer.buf_ptr().cast::<T>(), self.buffer.item_count())
    }

    /// The array, viewed as bool if `as_bool` (it holds only 0 and 1).
    fn into_array(self, as_bool: bool) -> PyResult<Bound<'py, PyAny>> {
        let py = self.array.py();
        if as_bool {
            self.array
                .call_method1(intern!(py, "view"), (intern!(py, "bool"),))
        } else {
            Ok(self.array)
        }
    }
}

/// numpy, which the environment needs.
fn require_numpy(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    numpy(py)?.ok_or_else(|| PyImportError::new_err("the environment needs numpy: pip install 'gokata[env]'"))
}

/// A text argument that must be one of `choices` (compared as given).
fn choice<T: Copy>(value: &Bound<'_, PyAny>, name: &str, choices: &[(&str, T)]) -> PyResult<T> {
    let text = value.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} must be a str, not {}",
            value
                .get_type()
                .name()
                .map_or_else(|_| "?".into(), |n| n.to_string())
        ))
    })?;
    let text = text.to_str()?;
    choices
        .iter()
        .find(|(choice, _)| *choice == text)
        .map(|&(_, value)| value)
        .ok_or_else(|| {
            let names = choices
                .iter()
                .map(|(choice, _)| format!("{choice:?}"))
                .collect::<Vec<_>>();
            PyValueError::new_err(format!(
                "{name} must be one of {}, not {text:?}",
                names.join(", ")
            ))
        })
}

fn count(value: &Bound<'_, PyAny>, name: &str) -> PyResult<usize> {
    positive_int(value, name)?
        .extract::<usize>()
        .map_err(|_| PyValueError::new_err(format!("{name} is too large: {value}")))
}

impl PyVecGo {
    fn shape_of_observations(&self) -> Vec<usize> {
        let (n, size, planes) = (self.num_envs, self.config.size, self.config.planes());
        match self.config.layout {
            Layout::Nhwc => vec![n, size, size, planes],
            Layout::Nchw => vec![n, planes, size, size],
        }
    }
}

#[pymethods]
impl PyVecGo {
    #[new]
    #[pyo3(signature = (num_envs, size, komi, history, max_steps, rules, autoreset, layout, threads, seed))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        num_envs: &Bound<'_, PyAny>,
        size: &Bound<'_, PyAny>,
        komi: &Bound<'_, PyAny>,
        history: &Bound<'_, PyAny>,
        max_steps: Option<&Bound<'_, PyAny>>,
        rules: &Bound<'_, PyAny>,
        autoreset: &Bound<'_, PyAny>,
        layout: &Bound<'_, PyAny>,
        threads: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let num_envs = count(num_envs, "num_envs")?;
        let size = whole_number(size, "size")?;
        let size = usize::try_from(size)
            .ok()
            .filter(|size| (2..=25).contains(size))
            .ok_or_else(|| PyValueError::new_err(format!("size must be 2 to 25, not {size}")))?;
        let komi = finite_number(komi, "komi")?;
        let history = count(history, "history")?;
        let max_steps = max_steps.map(|value| count(value, "max_steps")).transpose()?;
        let rules = choice(rules, "rules", &[("gokata", Rules::Gokata), ("pgx", Rules::Pgx)])?;
        let autoreset = choice(
            autoreset,
            "autoreset",
            &[
                ("next_step", Autoreset::NextStep),
                ("same_step", Autoreset::SameStep),
            ],
        )?;
        let layout = choice(
            layout,
            "layout",
            &[("NHWC", Layout::Nhwc), ("NCHW", Layout::Nchw)],
        )?;
        let threads = thread_count(threads)?;
        let seed = read_seed(seed)?;
        let config = Config::new(size, komi, history, max_steps, rules, autoreset, layout)
            .map_err(PyValueError::new_err)?;
        // Each board holds a few kilobytes: refuse a batch that could not be allocated.
        if num_envs > 1 << 24 {
            return Err(PyValueError::new_err(format!(
                "num_envs must be at most 2**24, not {num_envs}"
            )));
        }
        check_fits(&config, num_envs, available_bytes()).map_err(PyMemoryError::new_err)?;
        // More threads than boards would have nothing to do.
        let threads = threads.min(num_envs);
        Ok(PyVecGo {
            config,
            num_envs,
            threads,
            env: Mutex::new(VecEnv::new(config, num_envs, threads, seed)),
        })
    }

    #[getter]
    fn num_envs(&self) -> usize {
        self.num_envs
    }

    #[getter]
    fn size(&self) -> usize {
        self.config.size
    }

    #[getter]
    fn komi(&self) -> f64 {
        self.config.komi
    }

    #[getter]
    fn history(&self) -> usize {
        self.config.history
    }

    #[getter]
    fn max_steps(&self) -> usize {
        self.config.max_steps
    }

    #[getter]
    fn rules(&self) -> &'static str {
        match self.config.rules {
            Rules::Gokata => "gokata",
            Rules::Pgx => "pgx",
        }
    }

    #[getter]
    fn autoreset(&self) -> &'static str {
        match self.config.autoreset {
            Autoreset::NextStep => "next_step",
            Autoreset::SameStep => "same_step",
        }
    }

    #[getter]
    fn layout(&self) -> &'static str {
        match self.config.layout {
            Layout::Nhwc => "NHWC",
            Layout::Nchw => "NCHW",
        }
    }

    #[getter]
    fn threads(&self) -> usize {
        self.threads
    }

    /// New games on every board: `(observation, legal_action_mask, to_play)`.
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(&self, py: Python<'py>, seed: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyTuple>> {
        let seed = seed.map(|seed| read_seed(Some(seed))).transpose()?;
        let numpy = require_numpy(py)?;
        let observation = Fresh::<u8>::new(numpy, "empty", &self.shape_of_observations(), "uint8")?;
        let mask = Fresh::<u8>::new(numpy, "empty", &[self.num_envs, self.config.actions()], "uint8")?;
        let to_play = Fresh::<i8>::new(numpy, "empty", &[self.num_envs], "int8")?;
        // Safety: each array is fresh and sliced once.
        let (observation_rows, mask_rows, to_play_rows) =
            unsafe { (observation.slice(), mask.slice(), to_play.slice()) };
        py.detach(|| {
            let mut env = self.env.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            env.reset(seed, observation_rows, mask_rows, to_play_rows);
        });
        PyTuple::new(
            py,
            [
                observation.into_array(true)?,
                mask.into_array(true)?,
                to_play.into_array(false)?,
            ],
        )
    }

    /// One step of every board: `(observation, rewards, terminated, truncated,
    /// legal_action_mask, to_play, final_observation)`, the last `None` unless autoreset is
    /// `"same_step"`. `actions` is a C-contiguous int64 buffer of `num_envs` numbers.
    fn step<'py>(&self, py: Python<'py>, actions: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
        let actions = read_actions(py, actions, self.num_envs)?;
        let numpy = require_numpy(py)?;
        let n = self.num_envs;
        let observation = Fresh::<u8>::new(numpy, "empty", &self.shape_of_observations(), "uint8")?;
        let rewards = Fresh::<f32>::new(numpy, "empty", &[n, 2], "float32")?;
        let terminated = Fresh::<u8>::new(numpy, "empty", &[n], "uint8")?;
        let truncated = Fresh::<u8>::new(numpy, "empty", &[n], "uint8")?;
        let mask = Fresh::<u8>::new(numpy, "empty", &[n, self.config.actions()], "uint8")?;
        let to_play = Fresh::<i8>::new(numpy, "empty", &[n], "int8")?;
        let final_observation = match self.config.autoreset {
            Autoreset::SameStep => Some(Fresh::<u8>::new(
                numpy,
                "zeros",
                &self.shape_of_observations(),
                "uint8",
            )?),
            Autoreset::NextStep => None,
        };
        // Safety: each array is fresh and sliced once.
        let rows = unsafe {
            StepRows {
                observation: observation.slice(),
                rewards: rewards.slice(),
                terminated: terminated.slice(),
                truncated: truncated.slice(),
                mask: mask.slice(),
                to_play: to_play.slice(),
                final_observation: final_observation.as_ref().map(|fresh| fresh.slice()),
            }
        };
        py.detach(|| {
            let mut env = self.env.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            env.step(&actions, rows)
        })
        .map_err(|error| PyValueError::new_err(error.to_string()))?;
        let final_observation = match final_observation {
            Some(fresh) => fresh.into_array(true)?,
            None => py.None().into_bound(py),
        };
        PyTuple::new(
            py,
            [
                observation.into_array(true)?,
                rewards.into_array(false)?,
                terminated.into_array(true)?,
                truncated.into_array(true)?,
                mask.into_array(true)?,
                to_play.into_array(false)?,
                final_observation,
            ],
        )
    }

    /// One uniformly random legal action per board (int64), drawn from each board's stream,
    /// reseeded from `seed` if given.
    #[pyo3(signature = (seed = None))]
    fn random_legal_actions<'py>(
        &self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let seed = seed.map(|seed| read_seed(Some(seed))).transpose()?;
        let numpy = require_numpy(py)?;
        let actions = Fresh::<i64>::new(numpy, "empty", &[self.num_envs], "int64")?;
        // Safety: the array is fresh and sliced once.
        let out = unsafe { actions.slice() };
        py.detach(|| {
            let mut env = self.env.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            env.random_actions(seed, out);
        });
        actions.into_array(false)
    }

    /// The game on board `index`, as a new `Go` (a copy, with its history).
    fn game(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<Go> {
        let i = whole_number(index, "index")?;
        let n = self.num_envs as i64;
        let i = if i < 0 { i + n } else { i };
        if !(0..n).contains(&i) {
            return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                "board index {} is out of range for {n} boards",
                whole_number(index, "index")?
            )));
        }
        let game = py.detach(|| {
            let env = self.env.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            env.game(i as usize).cloned()
        });
        game.map(Go::with_game)
            .ok_or_else(|| PyRuntimeError::new_err("no such board"))
    }

    /// Every board's game, as new `Go` objects.
    fn games<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let games = py.detach(|| {
            let env = self.env.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            (0..env.num_envs())
                .filter_map(|i| env.game(i).cloned())
                .collect::<Vec<_>>()
        });
        PyList::new(py, games.into_iter().map(Go::with_game))
    }
}

/// The actions argument: a one-dimensional C-contiguous int64 buffer of `num_envs` numbers.
fn read_actions(py: Python<'_>, actions: &Bound<'_, PyAny>, num_envs: usize) -> PyResult<Vec<i64>> {
    let buffer = PyBuffer::<i64>::get(actions).map_err(|_| {
        PyTypeError::new_err(format!(
            "actions must be an int64 array, not {}",
            actions
                .get_type()
                .name()
                .map_or_else(|_| "?".into(), |n| n.to_string())
        ))
    })?;
    if buffer.dimensions() != 1 || buffer.item_count() != num_envs {
        return Err(PyValueError::new_err(format!(
            "actions must have shape ({num_envs},), not {:?}",
            buffer.shape()
        )));
    }
    let mut out = vec![0; num_envs];
    buffer.copy_to_slice(py, &mut out)?;
    Ok(out)
}
