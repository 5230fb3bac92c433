//! SGF for Python: `Go.from_sgf`, `Go.to_sgf`, `read_sgf_collection` with its `SgfGame` and
//! `SgfNode` views of a game tree, and `write_sgf_collection`. The work is in [`gokata_engine::sgf`].

use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyString};

use super::arguments::type_name;
use super::errors::sgf_error;
use super::go::Go;
use gokata_engine::sgf::{self, GameTree, Node, Problem, SgfRecord};
use gokata_engine::{coord, Color, Game};

/// A file's contents: bytes (decoded by `CA[...]` or a guess) or text.
enum Data {
    Bytes(Vec<u8>),
    Text(String),
}

fn data(value: &Bound<'_, PyAny>) -> PyResult<Data> {
    if let Ok(text) = value.cast::<PyString>() {
        Ok(Data::Text(text.to_str()?.to_owned()))
    } else if let Ok(bytes) = value.cast::<PyBytes>() {
        Ok(Data::Bytes(bytes.as_bytes().to_vec()))
    } else if let Ok(bytes) = value.cast::<PyByteArray>() {
        Ok(Data::Bytes(bytes.to_vec()))
    } else {
        Err(PyTypeError::new_err(format!(
            "SGF data must be str or bytes (a file's contents, not its name), not {}",
            type_name(value)
        )))
    }
}

/// Reads a collection, detached from Python while it parses.
fn read(py: Python<'_>, value: &Bound<'_, PyAny>, strict: bool) -> PyResult<Vec<sgf::SgfGame>> {
    let data = data(value)?;
    py.detach(move || match &data {
        Data::Bytes(bytes) => sgf::read_collection(bytes, strict),
        Data::Text(text) => sgf::read_collection_text(text, strict),
    })
    .map_err(|problem| sgf_error(py, &problem))
}

/// `Go.from_sgf`: the main line of the collection's first game.
pub fn go_from_sgf(py: Python<'_>, value: &Bound<'_, PyAny>, strict: bool) -> PyResult<Go> {
    let games = read(py, value, strict)?;
    let Some(first) = games.first() else {
        return Err(sgf_error(
            py,
            &Problem::new(
                1,
                1,
                "no game tree: an SGF file holds one or more game trees, each starting '(;'",
            ),
        ));
    };
    let line = first.tree.main_line();
    let end = line.last().copied().unwrap_or(0);
    let replayed = sgf::replay(&first.tree, end, strict).map_err(|problem| sgf_error(py, &problem))?;
    Ok(Go::with_record(
        replayed.game,
        SgfRecord::read(&first.tree, &line),
    ))
}

/// `Go.to_sgf`: the game with what it keeps of the record it was read from.
pub fn game_to_sgf(game: &Game, record: &SgfRecord) -> String {
    record.write(&game.record())
}

struct Shared {
    game: sgf::SgfGame,
    strict: bool,
}

/// One game of an SGF collection as read: its root properties (players, result, komi...), its
/// tree of variations (`root`, `main_line()`), the problems found reading it, and the game at
/// any node (`replay`). Read-only.
#[pyclass(module = "gokata", frozen, name = "SgfGame")]
pub struct SgfGame {
    shared: Arc<Shared>,
}

/// A node of an `SgfGame`'s tree: its properties, its children (the first continues the main
/// line) and its parent.
#[pyclass(module = "gokata", frozen, name = "SgfNode")]
pub struct SgfNode {
    shared: Arc<Shared>,
    index: usize,
}

fn properties<'py>(py: Python<'py>, node: &Node) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for property in &node.properties {
        let values: Vec<String> = property.values.iter().map(sgf::Value::text).collect();
        dict.set_item(&property.ident, values)?;
    }
    Ok(dict)
}

fn color_name(color: Color) -> &'static str {
    color.name()
}

impl SgfGame {
    fn tree(&self) -> &GameTree {
        &self.shared.game.tree
    }

    fn node(&self, index: usize) -> SgfNode {
        SgfNode {
            shared: Arc::clone(&self.shared),
            index,
        }
    }

    fn root_text(&self, ident: &str) -> Option<String> {
        self.tree().root().text(ident)
    }

    fn size_of(&self, py: Python<'_>) -> PyResult<(usize, usize)> {
        sgf::board_size(self.tree().root(), false, &mut Vec::new()).map_err(|p| sgf_error(py, &p))
    }
}

#[pymethods]
impl SgfGame {
    /// The root node's properties: identifier to values (as text: escapes resolved), in file order.
    #[getter]
    fn properties<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        properties(py, self.tree().root())
    }

    #[getter]
    fn root(&self) -> SgfNode {
        self.node(0)
    }

    /// Every problem found reading the game and replaying its main line, in file order:
    /// `(line, column, message)`. Empty for a valid file.
    #[getter]
    fn problems(&self) -> Vec<(usize, usize, String)> {
        self.shared
            .game
            .problems
            .iter()
            .map(|p| (p.line, p.column, p.message.clone()))
            .collect()
    }

    /// The encoding the file was read in (`"UTF-8"`, `"GBK"`, `"Shift_JIS"`...).
    #[getter]
    fn encoding(&self) -> &'static str {
        self.shared.game.encoding
    }

    /// `{"height": h, "width": w}` from `SZ` (19x19 without one).
    #[getter]
    fn size<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (height, width) = self.size_of(py)?;
        let dict = PyDict::new(py);
        dict.set_item(intern!(py, "height"), height)?;
        dict.set_item(intern!(py, "width"), width)?;
        Ok(dict)
    }

    /// `PB`.
    #[getter]
    fn black_player(&self) -> Option<String> {
        self.root_text("PB")
    }

    /// `PW`.
    #[getter]
    fn white_player(&self) -> Option<String> {
        self.root_text("PW")
    }

    /// `BR`.
    #[getter]
    fn black_rank(&self) -> Option<String> {
        self.root_text("BR")
    }

    /// `WR`.
    #[getter]
    fn white_rank(&self) -> Option<String> {
        self.root_text("WR")
    }

    /// `RE`: `"B+R"`, `"W+3.5"`, `"0"` (a draw)...
    #[getter]
    fn result(&self) -> Option<String> {
        self.root_text("RE")
    }

    /// `KM` as a number; `None` without one or when it is not a number.
    #[getter]
    fn komi(&self) -> Option<f64> {
        self.root_text("KM")?
            .trim()
            .parse()
            .ok()
            .filter(|k: &f64| k.is_finite())
    }

    /// `RU`.
    #[getter]
    fn rules(&self) -> Option<String> {
        self.root_text("RU")
    }

    /// `DT`.
    #[getter]
    fn date(&self) -> Option<String> {
        self.root_text("DT")
    }

    /// `HA` as a number; `None` without one or when it is not a number.
    #[getter]
    fn handicap(&self) -> Option<i64> {
        self.root_text("HA")?.trim().parse().ok()
    }

    /// `EV`.
    #[getter]
    fn event(&self) -> Option<String> {
        self.root_text("EV")
    }

    /// `GN`.
    #[getter]
    fn game_name(&self) -> Option<String> {
        self.root_text("GN")
    }

    /// The main line: the root, then each node's first child.
    fn main_line(&self) -> Vec<SgfNode> {
        self.tree()
            .main_line()
            .into_iter()
            .map(|i| self.node(i))
            .collect()
    }

    /// The game at `node` (default: the end of the main line), replayed from the root with the
    /// engine's rules. `strict` (default: as the collection was read) raises `SgfError` on a
    /// move the rules forbid; lenient, such a move is carried out as the record says.
    #[pyo3(signature = (node = None, strict = None))]
    fn replay(
        &self,
        py: Python<'_>,
        node: Option<&Bound<'_, SgfNode>>,
        strict: Option<bool>,
    ) -> PyResult<Go> {
        let index = match node {
            None => self.tree().main_line().last().copied().unwrap_or(0),
            Some(node) => {
                let node = node.get();
                if !Arc::ptr_eq(&node.shared, &self.shared) {
                    return Err(PyValueError::new_err("the node is not one of this game's nodes"));
                }
                node.index
            }
        };
        let strict = strict.unwrap_or(self.shared.strict);
        let shared = Arc::clone(&self.shared);
        let replayed = py
            .detach(move || sgf::replay(&shared.game.tree, index, strict))
            .map_err(|problem| sgf_error(py, &problem))?;
        let record = SgfRecord::read(self.tree(), &self.tree().path_to(index));
        Ok(Go::with_record(replayed.game, record))
    }

    /// The game as SGF: every property and variation as read (`FF[4]`, `GM[1]` and
    /// `CA[UTF-8]` in the root).
    fn to_sgf(&self) -> String {
        sgf::write_tree(self.tree())
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let size = self
            .size_of(py)
            .map_or_else(|_| "?".to_string(), |(h, w)| format!("{h}x{w}"));
        let players = match (self.black_player(), self.white_player()) {
            (None, None) => String::new(),
            (black, white) => format!(
                " {} (black) vs {} (white),",
                black.as_deref().unwrap_or("?"),
                white.as_deref().unwrap_or("?")
            ),
        };
        let problems = self.shared.game.problems.len();
        format!(
            "<SgfGame {size},{players} {} nodes, {problems} problem{}>",
            self.tree().nodes.len(),
            if problems == 1 { "" } else { "s" }
        )
    }
}

impl SgfNode {
    fn node(&self) -> &Node {
        &self.shared.game.tree.nodes[self.index]
    }

    fn sibling(&self, index: usize) -> SgfNode {
        SgfNode {
            shared: Arc::clone(&self.shared),
            index,
        }
    }
}

#[pymethods]
impl SgfNode {
    /// Identifier to values (as text: escapes resolved), in file order.
    #[getter]
    fn properties<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        properties(py, self.node())
    }

    /// The variations from here; the first continues the main line.
    #[getter]
    fn children(&self) -> Vec<SgfNode> {
        self.node().children.iter().map(|&i| self.sibling(i)).collect()
    }

    #[getter]
    fn parent(&self) -> Option<SgfNode> {
        self.node().parent.map(|i| self.sibling(i))
    }

    /// The node's move: `("black", "4D")`, `("white", None)` for a pass, `None` without a
    /// move (or when its value is not a point on the board: `problems` says so).
    #[getter]
    fn r#move(&self) -> PyResult<Option<(&'static str, Option<String>)>> {
        let node = self.node();
        let Some((color, property)) = [(Color::Black, "B"), (Color::White, "W")]
            .into_iter()
            .find_map(|(color, ident)| Some((color, node.get(ident)?)))
        else {
            return Ok(None);
        };
        let Ok((height, width)) = sgf::board_size(self.shared.game.tree.root(), false, &mut Vec::new())
        else {
            return Ok(None);
        };
        let text = property.values[0].text();
        let text = text.trim();
        if text.is_empty() || (text == "tt" && height <= 19 && width <= 19) {
            return Ok(Some((color_name(color), None)));
        }
        let letters: Vec<usize> = text
            .bytes()
            .map(|b| {
                if b.is_ascii_lowercase() {
                    usize::from(b - b'a')
                } else {
                    usize::MAX
                }
            })
            .collect();
        match letters.as_slice() {
            &[col, row] if col < width && row < height => {
                Ok(Some((color_name(color), Some(coord::format(row, col, height)))))
            }
            _ => Ok(None),
        }
    }

    /// Moves (`B` and `W` values, passes included) from the root to here.
    #[getter]
    fn move_number(&self) -> usize {
        let tree = &self.shared.game.tree;
        tree.path_to(self.index)
            .into_iter()
            .map(|i| {
                tree.nodes[i]
                    .properties
                    .iter()
                    .filter(|p| p.ident == "B" || p.ident == "W")
                    .map(|p| p.values.len())
                    .sum::<usize>()
            })
            .sum()
    }

    /// Where the node's `;` is in the file (from 1); 0 for a node made in memory.
    #[getter]
    fn line(&self) -> usize {
        self.node().line
    }

    #[getter]
    fn column(&self) -> usize {
        self.node().column
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<SgfNode>()
            .is_ok_and(|o| Arc::ptr_eq(&o.get().shared, &self.shared) && o.get().index == self.index)
    }

    fn __hash__(&self) -> u64 {
        (Arc::as_ptr(&self.shared) as u64)
            .wrapping_mul(31)
            .wrapping_add(self.index as u64)
    }

    fn __repr__(&self) -> String {
        let text: String = self
            .node()
            .properties
            .iter()
            .take(4)
            .map(|p| {
                format!(
                    "{}[{}]",
                    p.ident,
                    p.values[0].raw.chars().take(20).collect::<String>()
                )
            })
            .collect();
        format!(
            "<SgfNode {text} at line {}, column {}>",
            self.node().line,
            self.node().column
        )
    }
}

/// Every game of an SGF collection (str or bytes; bytes are decoded by the file's `CA[...]`,
/// a byte-order mark, or a guess). `strict` raises `SgfError` at the first problem; lenient,
/// each game lists its problems and a file without any game gives `[]`.
#[pyfunction]
#[pyo3(signature = (data, strict = true))]
pub fn read_sgf_collection(py: Python<'_>, data: &Bound<'_, PyAny>, strict: bool) -> PyResult<Vec<SgfGame>> {
    Ok(read(py, data, strict)?
        .into_iter()
        .map(|game| SgfGame {
            shared: Arc::new(Shared { game, strict }),
        })
        .collect())
}

/// One SGF collection of the games given, each a `Go` (as `Go.to_sgf` writes it) or an
/// `SgfGame` (as `SgfGame.to_sgf` writes it).
#[pyfunction]
pub fn write_sgf_collection(py: Python<'_>, games: &Bound<'_, PyAny>) -> PyResult<String> {
    let mut out = String::new();
    for item in games.try_iter()? {
        let item = item?;
        if let Ok(game) = item.cast::<Go>() {
            let (game, record) = game.get().snapshot(py)?;
            out.push_str(&game_to_sgf(&game, &record));
        } else if let Ok(game) = item.cast::<SgfGame>() {
            out.push_str(&sgf::write_tree(game.get().tree()));
        } else {
            return Err(PyTypeError::new_err(format!(
                "write_sgf_collection takes Go and SgfGame objects, not {}",
                type_name(&item)
            )));
        }
    }
    Ok(out)
}
