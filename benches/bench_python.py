"""Speed of gokata as a Python user sees it, printed as a table beside the targets.

Run from the project root: ``python benches/bench_python.py`` (``--quick`` for a smoke run).

Speed is measured, never asserted: the table shows each median next to its target or a
published reference. Correctness is asserted: every corpus replay (gokata and the pure-Python
baseline alike) must reproduce the recorded final boards, or the script stops with an error.

The pure-Python baseline is the repository's one pure-Python Go model, the tests' reference
model (``python_tests/support/reference_model.py``, `ReferenceGo`), replaying the corpus one
``move``/``pass_turn`` call per turn as `Go.move` does. What it times is that model as written
to be obviously right rather than fast: each move copies the whole board, finds liberties by
flood fill and compares the board with the one before the last turn (ko), and the history
keeps a full board per turn. Timed turn about on the corpus as it is, it took about as long a
move as the straightforward board this row timed before (0.95 to 1.16 times as long, on a
loaded 2-core machine), so the row's figures stay comparable with earlier ones.

The corpus is the repository's ``src/testkit/data/corpus``; set ``GOKATA_CORPUS`` to another folder
holding ``random-9x9.txt`` and ``random-19x19.txt`` to override it.
"""

from __future__ import annotations

import argparse
import copy
import gc
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Optional, Protocol, TypeVar

import gokata
from gokata import Go, playouts
from pyspiel_board import PyspielReplay, action, load_pyspiel

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python_tests"))  # for the reference model

from support.reference_model import ReferenceGo  # noqa: E402

COLUMN_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
CORPUS_FILES = ("random-9x9.txt", "random-19x19.txt")
STONE_BY_DIGIT = {"0": ".", "1": "x", "2": "o"}
PASS_INDEX = -1

EMPTY = "."

Move = Optional[str]
"""A kata coordinate such as ``"7A"``, or None for a pass."""


class ReplayError(RuntimeError):
    """A corpus game could not be replayed, or ended on a board other than the recorded one."""


# --- The corpus -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordedGame:
    moves: list[Move]
    final_rows: list[str]
    """Rows top first, of ``'.'``, ``'x'`` and ``'o'``, as ``Go.board`` joined row by row."""


@dataclass(frozen=True)
class Corpus:
    size: int
    games: list[RecordedGame]

    @property
    def turn_count(self) -> int:
        return sum(len(game.moves) for game in self.games)


def default_corpus_folder() -> Path:
    override = os.environ.get("GOKATA_CORPUS")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[1] / "src" / "testkit" / "data" / "corpus"


def kata_coordinate(point_index: int, size: int) -> Move:
    if point_index == PASS_INDEX:
        return None
    row_from_top, column = divmod(point_index, size)
    return f"{size - row_from_top}{COLUMN_LETTERS[column]}"


def point_of(coord: str, size: int) -> tuple[int, int]:
    return size - int(coord[:-1]), COLUMN_LETTERS.index(coord[-1])


SYMMETRIES = 8
"""Four rotations of the square board, each also mirrored."""


def turn_point(row: int, column: int, size: int, k: int) -> tuple[int, int]:
    """Where symmetry ``k`` takes a point: a mirror image when bit 2 of ``k`` is set, then
    ``k % 4`` quarter turns (as ``gokata_testkit::corpus::turn_point`` in Rust)."""
    last = size - 1
    if k & 4:
        column = last - column
    return [(row, column), (column, last - row), (last - row, last - column), (last - column, row)][k & 3]


def turned(corpus: Corpus, k: int) -> Corpus:
    """The same games seen through symmetry ``k``, final boards included. The replays take the
    eight in turn: replayed over and over unchanged, ten thousand moves are learnt by the
    processor's branch predictor, and the figures would then measure that memory, which
    comes and goes, rather than the boards (README.md, Speed)."""
    size = corpus.size

    def turn(coord: Move) -> Move:
        if coord is None:
            return None
        row, column = turn_point(*point_of(coord, size), size, k)
        return kata_coordinate(row * size + column, size)

    def turn_rows(rows: list[str]) -> list[str]:
        grid = [[EMPTY] * size for _ in range(size)]
        for row, stones in enumerate(rows):
            for column, stone in enumerate(stones):
                turned_row, turned_column = turn_point(row, column, size, k)
                grid[turned_row][turned_column] = stone
        return ["".join(stones) for stones in grid]

    return Corpus(size, [RecordedGame([turn(m) for m in g.moves], turn_rows(g.final_rows)) for g in corpus.games])


def board_rows(digits: str, size: int) -> list[str]:
    stones = "".join(STONE_BY_DIGIT[digit] for digit in digits)
    return [stones[start : start + size] for start in range(0, size * size, size)]


def load_corpus(path: Path) -> Corpus:
    if not path.is_file():
        raise ReplayError(f"corpus file not found: {path} (set GOKATA_CORPUS to its folder)")
    lines = [line.strip() for line in path.read_text().splitlines() if line.strip()]
    size, game_count = (int(field) for field in lines[0].split())
    if game_count < 1:
        raise ReplayError(f"{path}: the corpus has no games")
    move_lines = lines[1 : 1 + game_count]
    board_lines = lines[1 + game_count : 1 + 2 * game_count]
    if len(board_lines) != game_count:
        raise ReplayError(f"{path}: expected {game_count} games and {game_count} final boards")
    games = [
        RecordedGame(
            moves=[kata_coordinate(int(index), size) for index in moves.split()],
            final_rows=board_rows(digits, size),
        )
        for moves, digits in zip(move_lines, board_lines)
    ]
    return Corpus(size, games)


# --- The pure-Python baseline -------------------------------------------------------------------


def reference_rows(game: ReferenceGo) -> list[str]:
    return ["".join(row) for row in game.board]


# --- Timing -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    elapsed_ns: int
    operations: int

    @property
    def ns_per_operation(self) -> float:
        return self.elapsed_ns / self.operations


def time_ns(action: Callable[[], object]) -> int:
    """Wall time of ``action()``, with the garbage collector off (as ``timeit`` does)."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter_ns()
        action()
        return time.perf_counter_ns() - start
    finally:
        gc.enable()


def median_ns_per_operation(take_sample: Callable[[], Sample], repetitions: int) -> float:
    take_sample()  # warm-up, not counted
    return statistics.median(take_sample().ns_per_operation for _ in range(repetitions))


@dataclass(frozen=True)
class Paired:
    """Two ways timed turn about, so that both see the same moments of a machine whose speed
    comes and goes: each one's median, and the median (min-max) of the ratios b / a taken a
    moment apart."""

    a_ns: float
    b_ns: float
    ratios: list[float]

    def ratio(self) -> str:
        return f"{statistics.median(self.ratios):.2f}x ({min(self.ratios):.2f}-{max(self.ratios):.2f})"


def paired_ns_per_operation(
    take_a: Callable[[], Sample], take_b: Callable[[], Sample], repetitions: int
) -> Paired:
    take_a(), take_b()  # warm-up, not counted
    pairs = [(take_a().ns_per_operation, take_b().ns_per_operation) for _ in range(repetitions)]
    return Paired(
        statistics.median(a for a, _ in pairs),
        statistics.median(b for _, b in pairs),
        [b / a for a, b in pairs],
    )


# --- Corpus replays -------------------------------------------------------------------------------

BoardT = TypeVar("BoardT")


@dataclass(frozen=True)
class ReplayMethod(Generic[BoardT]):
    name: str
    new_board: Callable[[int], BoardT]
    replay: Callable[[BoardT, list[Move]], None]
    final_rows: Callable[[BoardT], list[str]]


class MovesOneByOne(Protocol):
    """A board played one call per turn: gokata's Go and the pure-Python baseline alike."""

    def move(self, coord: str, /) -> None: ...
    def pass_turn(self) -> None: ...


def replay_one_by_one(game: MovesOneByOne, moves: list[Move]) -> None:
    move, pass_turn = game.move, game.pass_turn
    for coord in moves:
        if coord is None:
            pass_turn()
        else:
            move(coord)


def replay_with_play_many(game: Go, moves: list[Move]) -> None:
    played = game.play_many(moves)
    if played != len(moves):
        raise ValueError(f"play_many stopped at an illegal move after {played} of {len(moves)}")


def gokata_rows(game: Go) -> list[str]:
    return ["".join(row) for row in game.board]


GO_MOVE = ReplayMethod("Go.move", Go, replay_one_by_one, gokata_rows)
GO_PLAY_MANY = ReplayMethod("Go.play_many", Go, replay_with_play_many, gokata_rows)
BASELINE = ReplayMethod("pure-Python board (the reference model)", ReferenceGo, replay_one_by_one, reference_rows)


def replay_all(method: ReplayMethod[BoardT], jobs: list[tuple[str, BoardT, RecordedGame]]) -> None:
    for label, board, recorded in jobs:
        try:
            method.replay(board, recorded.moves)
        except ValueError as error:
            raise ReplayError(f"{method.name}: {label}: {error}") from error


def check_final_boards(method: ReplayMethod[BoardT], jobs: list[tuple[str, BoardT, RecordedGame]]) -> None:
    for label, board, recorded in jobs:
        actual = method.final_rows(board)
        if actual != recorded.final_rows:
            row = next(r for r, (got, want) in enumerate(zip(actual, recorded.final_rows)) if got != want)
            raise ReplayError(
                f"{method.name}: {label}: wrong final board, row {row} from the top is "
                f"{actual[row]!r}, the corpus has {recorded.final_rows[row]!r}"
            )


def sample_replay(method: ReplayMethod[BoardT], corpora: Sequence[Corpus]) -> Sample:
    """Replays every corpus game on fresh boards (made before the clock starts), then checks
    every final board; one operation is one move or pass."""
    jobs = [
        (f"{corpus.size}x{corpus.size} game {number}", method.new_board(corpus.size), recorded)
        for corpus in corpora
        for number, recorded in enumerate(corpus.games)
    ]
    elapsed = time_ns(lambda: replay_all(method, jobs))
    check_final_boards(method, jobs)
    return Sample(elapsed, sum(corpus.turn_count for corpus in corpora))


# --- Position queries -------------------------------------------------------------------------


def mid_game_positions(corpus: Corpus) -> list[Go]:
    """Each game of the corpus stopped at a quarter, half and three quarters of its length."""
    positions = []
    for recorded in corpus.games:
        for fraction in (0.25, 0.5, 0.75):
            game = Go(corpus.size)
            game.play_many(recorded.moves[: int(len(recorded.moves) * fraction)])
            positions.append(game)
    return positions


def sample_board_reads(positions: list[Go], reads_per_position: int) -> Sample:
    def read_boards() -> None:
        for game in positions:
            for _ in range(reads_per_position):
                game.board

    return Sample(time_ns(read_boards), len(positions) * reads_per_position)


def sample_query_calls(
    positions: list[Go], bound_query: Callable[[Go], Callable[[], object]], calls_per_position: int
) -> Sample:
    def call_queries() -> None:
        for game in positions:
            query = bound_query(game)
            for _ in range(calls_per_position):
                query()

    return Sample(time_ns(call_queries), len(positions) * calls_per_position)


# --- Playouts ---------------------------------------------------------------------------------

PLAYOUT_SEED = 20240601


def sample_playouts_batch(size: int, count: int, threads: Optional[int] = None) -> Sample:
    game = Go(size)
    played: list[int] = []
    elapsed = time_ns(lambda: played.append(playouts(game, count, seed=PLAYOUT_SEED, threads=threads)["playouts"]))
    if played != [count]:
        raise ReplayError(f"playouts ran {played} playouts, asked for {count}")
    few = min(count, 200)
    if playouts(game, few, seed=PLAYOUT_SEED, threads=threads) != playouts(game, few, seed=PLAYOUT_SEED, threads=1):
        raise ReplayError(f"playouts with threads={threads} differ from one thread's for the same seed")
    return Sample(elapsed, count)


def sample_playout_calls(size: int, count: int) -> Sample:
    game = Go(size)

    def play_out() -> None:
        for seed in range(PLAYOUT_SEED, PLAYOUT_SEED + count):
            game.playout(seed=seed)

    return Sample(time_ns(play_out), count)


# --- The benchmark table ------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    repetitions: int
    calls_per_position: int
    playouts_9x9: int
    playouts_19x19: int


FULL = Settings(repetitions=5, calls_per_position=20, playouts_9x9=20_000, playouts_19x19=4_000)
QUICK = Settings(repetitions=2, calls_per_position=3, playouts_9x9=2_000, playouts_19x19=400)


@dataclass(frozen=True)
class Row:
    benchmark: str
    figure: str
    target: str


def mask_kind() -> str:
    """What legal_mask() returns here: a numpy array when numpy is installed, else bytes."""
    return "numpy" if not isinstance(Go(1).legal_mask(), bytes) else "bytes"


def microseconds(ns: float, unit: str) -> str:
    return f"{ns / 1000:.3f} µs/{unit}" if ns < 10_000 else f"{ns / 1000:.1f} µs/{unit}"


def per_second(ns_per_operation: float) -> str:
    return f"{1e9 / ns_per_operation:,.0f} /s"


def sample_pyspiel_replay(replay: PyspielReplay, corpora: Sequence[Corpus]) -> Sample:
    """OpenSpiel's Go replaying the same games on fresh states (made before the clock starts),
    every final board checked."""
    replay.fresh_states()
    elapsed = time_ns(replay.replay)
    wrong = replay.first_wrong_board([recorded.final_rows for c in corpora for recorded in c.games])
    if wrong is not None:
        raise ReplayError(wrong)
    return Sample(elapsed, sum(corpus.turn_count for corpus in corpora))


class NativeReplay:
    """The engine's own replay, `Game::play` with no Python between moves: the floor that
    `Go.play_many` is measured against. It runs in the test kit's ``native-replay`` program
    (built by cargo in release, like the wheel), which loads the same corpus, turns it by every
    symmetry and answers each request with the time one replay of all of it took, so that its
    samples are taken turn about with the benchmark's own."""

    def __init__(self, folder: Path) -> None:
        root = Path(__file__).resolve().parents[1]
        command = ["cargo", "run", "-q", "--release", "-p", "gokata-testkit", "--bin", "native-replay"]
        try:
            self.process = subprocess.Popen(
                command, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                env={**os.environ, "GOKATA_CORPUS": str(folder)},
            )
        except OSError as error:
            raise ReplayError(f"cannot start {' '.join(command)}: {error}") from error

    def sample(self, every_symmetry: Sequence[Corpus], rounds: int) -> Sample:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{rounds}\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline().split()
        if len(answer) != 2:
            raise ReplayError(f"native-replay stopped (exit status {self.process.wait()})")
        nanoseconds, moves = int(answer[0]), int(answer[1])
        expected = rounds * sum(corpus.turn_count for corpus in every_symmetry)
        if moves != expected:
            raise ReplayError(f"native-replay played {moves} moves, the benchmark's corpus has {expected}")
        return Sample(nanoseconds, moves)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait()


def replay_rows(corpora: Sequence[Corpus], repetitions: int, native: NativeReplay) -> list[Row]:
    """Go.move against pyspiel, play_many against the Rust replay, each pair over the corpus
    under all eight symmetries; the slow pure-Python baseline over the corpus as it is."""
    every_symmetry = [turned(corpus, k) for k in range(SYMMETRIES) for corpus in corpora]
    pyspiel_games = [
        (corpus.size, [action(coord, corpus.size) for coord in recorded.moves])
        for corpus in every_symmetry
        for recorded in corpus.games
    ]
    pyspiel_replay = PyspielReplay(load_pyspiel(), pyspiel_games)
    move_vs_pyspiel = paired_ns_per_operation(
        lambda: sample_replay(GO_MOVE, every_symmetry),
        lambda: sample_pyspiel_replay(pyspiel_replay, every_symmetry),
        repetitions,
    )
    native_vs_many = paired_ns_per_operation(
        lambda: native.sample(every_symmetry, 1),
        lambda: sample_replay(GO_PLAY_MANY, every_symmetry),
        repetitions,
    )
    move_ns, pyspiel_ns = move_vs_pyspiel.a_ns, move_vs_pyspiel.b_ns
    native_ns, many_ns = native_vs_many.a_ns, native_vs_many.b_ns
    baseline_ns = median_ns_per_operation(lambda: sample_replay(BASELINE, corpora), repetitions)
    return [
        Row("replay, Go.move(coord) per move", microseconds(move_ns, "move"), "-"),
        Row("replay, pyspiel state.apply_action per move", microseconds(pyspiel_ns, "move"),
            "OpenSpiel's Go, same games, same process, timed turn about"),
        Row("  speed-up: pyspiel / Go.move", f"{pyspiel_ns / move_ns:.1f}x", ">= 2x"),
        Row("  the same, paired: median (min-max)", move_vs_pyspiel.ratio(), ">= 2x"),
        Row("replay, Go.play_many(game) per move", microseconds(many_ns, "move"), "-"),
        Row("replay, Rust Game::play (native-replay)", microseconds(native_ns, "move"),
            "the engine without Python, timed turn about"),
        Row("  ratio: Go.play_many / Rust replay", f"{many_ns / native_ns:.2f}x", "<= 2x"),
        Row("  the same, paired: median (min-max)", native_vs_many.ratio(), "<= 2x"),
        Row("replay, pure-Python board (baseline)", microseconds(baseline_ns, "move"),
            "the tests' reference model: obviously right, not fast"),
        Row("  speed-up: baseline / Go.move", f"{baseline_ns / move_ns:.0f}x", "-"),
        Row("  speed-up: baseline / Go.play_many", f"{baseline_ns / many_ns:.0f}x", "-"),
    ]


def sample_creations(size: int, count: int) -> Sample:
    """Games made and dropped one after another: the cost of making one, not of the memory a
    growing heap takes from the system."""

    def create() -> None:
        for _ in range(count):
            Go(size)

    return Sample(time_ns(create), count)


def sample_copies(game: Go, count: int) -> Sample:
    def copy_out() -> None:
        for _ in range(count):
            copy.copy(game)

    return Sample(time_ns(copy_out), count)


def game_cost_rows(corpus_9x9: Corpus, settings: Settings) -> list[Row]:
    """What a game costs to make, copy and keep: a tree search copies positions by the
    million. Sizes are `sys.getsizeof`, which counts the board's block and the turns."""
    count = settings.calls_per_position * 500
    mid_game = Go(9)
    mid_game.play_many(corpus_9x9.games[0].moves[:40])
    new_ns = median_ns_per_operation(lambda: sample_creations(9, count), settings.repetitions)
    copy_ns = median_ns_per_operation(lambda: sample_copies(mid_game, count), settings.repetitions)
    return [
        Row("Go(9)", microseconds(new_ns, "game"), "-"),
        Row("copy.copy(9x9 game after 40 turns)", microseconds(copy_ns, "copy"), "-"),
        Row("bytes: Go(9), its copy", f"{sys.getsizeof(Go(9))}, {sys.getsizeof(copy.copy(Go(9)))} B",
            "< 2 KB"),
        Row("bytes: 9x9 game after 40 turns, its copy",
            f"{sys.getsizeof(mid_game)}, {sys.getsizeof(copy.copy(mid_game))} B", "10 B per turn"),
        Row("bytes: Go(19)", f"{sys.getsizeof(Go(19))} B", "< 8 KB"),
        Row("resident bytes: 50,000 copies of Go(9), each", resident_bytes_per_copy(Go(9), 50_000),
            "< 2,048 B (what getsizeof misses: allocator overhead, the list's slot)"),
    ]


def resident_bytes_per_copy(game: Go, count: int) -> str:
    """The process's resident memory grown by `count` copies of `game`, per copy (Linux's
    /proc/self/statm; elsewhere not measured)."""
    statm = Path("/proc/self/statm")
    if not statm.exists():
        return "-"

    def resident() -> int:
        return int(statm.read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    gc.collect()
    before = resident()
    copies = [copy.copy(game) for _ in range(count)]
    gc.collect()
    grown = resident() - before
    del copies
    return f"{grown / count:,.0f} B"


def query_rows(corpus_19x19: Corpus, settings: Settings) -> list[Row]:
    positions = mid_game_positions(corpus_19x19)
    calls = settings.calls_per_position
    board_ns = median_ns_per_operation(lambda: sample_board_reads(positions, calls), settings.repetitions)
    moves_ns = median_ns_per_operation(
        lambda: sample_query_calls(positions, lambda game: game.legal_moves, calls), settings.repetitions
    )
    mask_ns = median_ns_per_operation(
        lambda: sample_query_calls(positions, lambda game: game.legal_mask, calls), settings.repetitions
    )
    return [
        Row("19x19 mid-game, game.board read", microseconds(board_ns, "read"), "-"),
        Row("19x19 mid-game, legal_moves()", microseconds(moves_ns, "call"),
            "pyspiel legal-move list 10.6 µs"),
        Row(f"19x19 mid-game, legal_mask() ({mask_kind()})", microseconds(mask_ns, "call"), "-"),
    ]


def playout_rows(size: int, count: int, rust_target: str, repetitions: int) -> list[Row]:
    one_ns = median_ns_per_operation(lambda: sample_playouts_batch(size, count, threads=1), repetitions)
    all_ns = median_ns_per_operation(lambda: sample_playouts_batch(size, count), repetitions)
    loop_ns = median_ns_per_operation(lambda: sample_playout_calls(size, count), repetitions)
    cores = os.cpu_count() or 1
    return [
        Row(f"{size}x{size} empty board, playouts(game, {count:,}, threads=1)", per_second(one_ns),
            f"{rust_target} (target for the Rust engine)"),
        Row(f"{size}x{size} empty board, playouts(game, {count:,})", per_second(all_ns),
            f"all {cores} cores, same summary as one thread"),
        Row("  speed-up: all cores / one thread", f"{one_ns / all_ns:.2f}x", f"up to {cores}x"),
        Row(f"{size}x{size} empty board, game.playout() loop", per_second(loop_ns), "-"),
    ]


def format_table(rows: Sequence[Row]) -> str:
    header = Row("benchmark", "median", "target / reference")
    widths = [max(len(getattr(row, field)) for row in (header, *rows)) for field in ("benchmark", "figure")]

    def line(row: Row) -> str:
        return f"{row.benchmark:<{widths[0]}}  {row.figure:>{widths[1]}}  {row.target}"

    rule = "-" * (widths[0] + widths[1] + 4 + max(len(row.target) for row in (header, *rows)))
    return "\n".join([line(header), rule, *(line(row) for row in rows)])


def corpus_summary(corpora: Sequence[Corpus], folder: Path) -> str:
    parts = [f"{c.size}x{c.size}: {len(c.games)} games, {c.turn_count:,} turns" for c in corpora]
    return f"corpus {folder} ({'; '.join(parts)})"


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and playouts (smoke test)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    settings = QUICK if parse_arguments(argv).quick else FULL
    folder = default_corpus_folder()
    print(f"gokata {gokata.__version__} Python benchmark: Python {platform.python_version()} "
          f"({platform.python_implementation()}) on {platform.machine()}, {os.cpu_count()} CPUs")
    native: NativeReplay | None = None
    try:
        corpora = [load_corpus(folder / name) for name in CORPUS_FILES]
        print(corpus_summary(corpora, folder), end="\n\n", flush=True)
        native = NativeReplay(folder)
        rows = [
            *replay_rows(corpora, settings.repetitions, native),
            *game_cost_rows(corpora[0], settings),
            *query_rows(corpora[1], settings),
            *playout_rows(9, settings.playouts_9x9, "> 100k/s", settings.repetitions),
            *playout_rows(19, settings.playouts_19x19, "> 25k/s", settings.repetitions),
        ]
    except (ReplayError, ImportError) as error:
        print(f"\nBENCHMARK FAILED: {error}", file=sys.stderr)
        return 1
    finally:
        if native is not None:
            native.close()
    print(format_table(rows))
    print(f"\nFigures are medians of {settings.repetitions} runs after one warm-up run "
          f"(time.perf_counter_ns, garbage collector off); speed is measured, not asserted.\n"
          f"Every replay of every run reproduced all {sum(len(c.games) for c in corpora)} "
          f"final boards of the corpus (the paired replays: each under all {SYMMETRIES} "
          f"symmetries of the board).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
