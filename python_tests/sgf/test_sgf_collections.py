"""SGF on real game collections no one here wrote, installed at test time (they are GPL):

- ``GOKATA_GOBAN_GAMES`` (default ``/usr/share/goban``): Debian's goban-original-games, 596
  professional games in ``.sgf`` and ``.mgt`` files;
- ``GOKATA_GNUGO_SGF`` (default ``~/.cache/gokata/gnugo-sgf``): the SGF files of GNU Go's
  source package (about 1,765, boards from 2x2 to 19x19, handicaps, passes, setup).

``scripts/sgf-collections`` installs both and prints these variables. A missing collection
fails the test: it does not skip.

Every file must read: strict where it is valid, else lenient with its problems listed (and the
strict error is the first of them). Every game's main line must replay to the same final
position as sgfmill's reading of the file (where sgfmill accepts it), and every game must write
back to SGF that reads to the same tree and the same game; its replay, a ``Go``, to SGF with
the same game and every property of the main line.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import gokata
from gokata import Go, SgfError, SgfGame, SgfNode
from support.sgf_collections import GNUGO, GOBAN, files_of
from support.sgfmill_replay import Stones, main_line_boards, stones

# Root properties the writer sets (FF[4], GM[1] when missing, CA[UTF-8]).
NORMALISED = {"FF", "GM", "CA"}


@dataclass
class Tally:
    files: int = 0
    strict: int = 0
    lenient: int = 0
    without_game: int = 0
    games: int = 0
    compared: int = 0
    sgfmill_refused: Counter[str] = field(default_factory=Counter)
    disagreements: list[str] = field(default_factory=list)
    problems: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def report(self, name: str) -> str:
        return (
            f"{name}: {self.files} files, {self.strict} read strict, {self.lenient} lenient "
            f"({self.without_game} without any game); {self.games} games, {self.compared} compared "
            f"with sgfmill, {sum(self.sgfmill_refused.values())} refused by sgfmill "
            f"{dict(self.sgfmill_refused)}, {len(self.disagreements)} disagreements"
        )


def sgfmill_position(data: bytes, index: int) -> tuple[int, Stones]:
    """The final position of game ``index``'s main line as sgfmill reads and plays it: the
    size and the stones."""
    board = None
    for _, board in main_line_boards(data, index):
        pass
    assert board is not None
    return board.side, stones(board)


def gokata_position(go: Go) -> dict[tuple[int, int], str]:
    return {(r, c): cell for r, row in enumerate(go.board) for c, cell in enumerate(row) if cell != "."}


def same_tree(a: SgfGame, b: SgfGame) -> str | None:
    """Where two games' trees differ (root properties the writer sets aside), or None."""
    pairs: list[tuple[SgfNode, SgfNode]] = [(a.root, b.root)]
    while pairs:
        x, y = pairs.pop()
        px, py = x.properties, y.properties
        if x.parent is None:
            px = {k: v for k, v in px.items() if k not in NORMALISED}
            py = {k: v for k, v in py.items() if k not in NORMALISED}
        if px != py:
            return f"node at line {x.line}: {px} != {py}"
        if len(x.children) != len(y.children):
            return f"node at line {x.line}: {len(x.children)} != {len(y.children)} children"
        pairs.extend(zip(x.children, y.children))
    return None


def main_line_properties(game: SgfGame) -> list[dict[str, list[str]]]:
    """The properties of each node of the main line, the root's but those the writer sets."""
    nodes = [node.properties for node in game.main_line()]
    nodes[0] = {k: v for k, v in nodes[0].items() if k not in NORMALISED}
    return nodes


def check_file(path: Path, tally: Tally) -> None:
    data = path.read_bytes()
    tally.files += 1
    strict = True
    try:
        games = gokata.read_sgf_collection(data)
        tally.strict += 1
    except SgfError as error:
        strict = False
        tally.lenient += 1
        games = gokata.read_sgf_collection(data, strict=False)
        problems = sorted((line, column) for game in games for (line, column, _) in game.problems)
        if not games:
            tally.without_game += 1
        elif not problems or (error.line, error.column) != problems[0]:
            tally.failures.append(f"{path}: strict raised {error} but lenient lists {problems[:3]}")
        for game in games:
            for _, _, message in game.problems:
                tally.problems[message.split(":")[0][:60]] += 1
    for index, game in enumerate(games):
        tally.games += 1
        where = f"{path} game {index + 1}"
        go = game.replay()
        # sgfmill, where it accepts the file.
        try:
            size, expected = sgfmill_position(data, index)
        except Exception as refusal:  # sgfmill's refusals: ValueError, IndexError, ...
            tally.sgfmill_refused[type(refusal).__name__] += 1
        else:
            tally.compared += 1
            if size != go.size["height"] or expected != gokata_position(go):
                tally.disagreements.append(f"{where}: {game.problems[:2]}")
        # Written back, the same tree and the same game.
        text = game.to_sgf()
        try:
            again = gokata.read_sgf_collection(text, strict=strict)
        except SgfError as error:
            tally.failures.append(f"{where}: written back, it does not read strictly: {error}")
            continue
        if len(again) != 1:
            tally.failures.append(f"{where}: written back, {len(again)} games")
            continue
        difference = same_tree(game, again[0])
        replayed = again[0].replay()
        if difference:
            tally.failures.append(f"{where}: written back, {difference}")
        elif (replayed.board, replayed.turn, replayed.move_number) != (go.board, go.turn, go.move_number):
            tally.failures.append(f"{where}: written back, it replays to another game")
        elif again[0].to_sgf() != text:
            tally.failures.append(f"{where}: writing is not deterministic")
        # The engine's game through Go.to_sgf and Go.from_sgf: the same history (read as
        # leniently as the file, which may break the rules).
        written = go.to_sgf()
        copy = Go.from_sgf(written, strict=strict)
        if copy.__getstate__() != go.__getstate__():
            tally.failures.append(f"{where}: Go.to_sgf then Go.from_sgf is another game")
        # ... which keeps every property of the main line, the game information and the
        # comments included.
        (kept,) = gokata.read_sgf_collection(written, strict=strict)
        if main_line_properties(kept) != main_line_properties(game):
            tally.failures.append(f"{where}: Go.to_sgf lost properties of the main line")


def run(name: str, paths: list[Path]) -> Tally:
    tally = Tally()
    for path in paths:
        try:
            check_file(path, tally)
        except Exception as error:  # a crash on one file is a failure to report, not the end
            tally.failures.append(f"{path}: {type(error).__name__}: {error}")
    print("\n" + tally.report(name))
    print("  problems in lenient files:", dict(tally.problems.most_common(12)))
    for line in tally.disagreements:
        print("  disagreement:", line)
    return tally


@pytest.mark.slow
def test_goban_original_games() -> None:
    tally = run("goban-original-games", files_of(GOBAN, ("*.sgf", "*.mgt")))
    assert tally.failures == [], "\n".join(tally.failures[:20])
    assert tally.games >= 590
    assert tally.disagreements == []


@pytest.mark.slow
def test_gnugo_source_sgf_files() -> None:
    tally = run("GNU Go's SGF files", files_of(GNUGO, ("*.sgf",)))
    assert tally.failures == [], "\n".join(tally.failures[:20])
    assert tally.files >= 1700
    assert tally.disagreements == []
