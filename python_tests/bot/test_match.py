"""``gokata match`` and ``gokata.engine.match``: real GNU Go (level 1) against the real ``gokata
gtp`` (50 playouts), four games on 9x9, two at a time: every game written as SGF that sgfmill
reads back (names, komi, result, legal moves), the results scored by area, the printed tally's
arithmetic and Wilson intervals checked, and ``--resume`` playing only the missing games. With
stand-in engines: a timeout, a crash and an illegal move each lose the game, with the reason
in the tally and in the SGF file."""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sgfmill import boards, sgf, sgf_moves  # type: ignore[import-untyped]

import gokata
from gokata import Go
from gokata._match_cli import engine_commands
from gokata.engine import GameRecord, match

HERE = Path(__file__).resolve().parent
GNUGO = "/usr/games/gnugo"
GNUGO_LINE = f"{GNUGO} --mode gtp --level 1"
GOKATA_LINE = f"{sys.executable} -m gokata gtp --playouts 50 --threads 1"
GOKATA_ARGV = [sys.executable, "-m", "gokata", "gtp", "--playouts", "50", "--threads", "1", "--seed", "1"]
STANDIN = [sys.executable, str(HERE.parent / "support" / "standin_gtp.py")]
ODDITIES = [sys.executable, str(HERE.parent / "support" / "gtp_oddities_standin.py")]
needs_gnugo = pytest.mark.skipif(not os.access(GNUGO, os.X_OK), reason="GNU Go is not installed (scripts/test installs it)")
NAMES = {"A": "GNU Go 3.8", "B": f"gokata {gokata.__version__}"}


def run_match(*options: str) -> str:
    command = [sys.executable, "-m", "gokata", "match", *options, "--", GNUGO_LINE, "--", GOKATA_LINE]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def game_lines(output: str) -> dict[int, str]:
    return {int(m.group(1)): m.group(0) for m in re.finditer(r"^game (\d+): .*$", output, re.MULTILINE)}


def wilson(points: float, games: int) -> tuple[float, float]:
    """The Wilson score interval, written out again here."""
    z, p = 1.96, points / games
    denominator = 1 + z**2 / games
    centre = p + z**2 / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z**2 / (4 * games**2))
    return max(0.0, (centre - spread) / denominator), min(1.0, (centre + spread) / denominator)


def read_back(folder: Path) -> dict[int, sgf.Sgf_game]:
    return {int(path.stem.split("-")[1]): sgf.Sgf_game.from_bytes(path.read_bytes()) for path in sorted(folder.glob("game-*.sgf"))}


def check_games(folder: Path, output: str, games: int) -> dict[int, str]:
    """Every SGF file against the printed game lines and the rules; the winners by number."""
    records, lines = read_back(folder), game_lines(output)
    assert sorted(records) == list(range(1, games + 1))
    winners = {}
    for number, record in records.items():
        root = record.get_root()
        a_black = number % 2 == 1
        assert (record.get_size(), record.get_komi()) == (9, 7.5)
        assert record.get_player_name("b") == NAMES["A" if a_black else "B"]
        assert record.get_player_name("w") == NAMES["B" if a_black else "A"]
        result = root.get("RE")
        assert f": {result}, " in lines.get(number, f": {result}, "), lines.get(number)
        board = boards.Board(9)
        _, moves = sgf_moves.get_setup_and_moves(record)
        for colour, move in moves:
            if move is not None:
                assert board.get(*move) is None, f"game {number}: {move} is occupied"
                board.play(*move, colour)
        assert "ended by: two passes" in root.get("GC") or "resignation" in root.get("GC")
        if "two passes" in root.get("GC"):
            score = Go.from_sgf(folder.joinpath(f"game-{number:04d}.sgf").read_text()).score(7.5)
            margin = score["black"] - score["white"] - 7.5
            assert result == f"{'B' if margin > 0 else 'W'}+{abs(margin):g}", "scored by area"
        winner = {"B": "black", "W": "white"}[result[0]]
        winners[number] = "A" if (winner == "black") == a_black else "B"
    return winners


def check_tally(output: str, winners: dict[int, str]) -> None:
    """The printed tally against the games' winners (no draws with komi 7.5)."""
    games = len(winners)
    for engine in ("A", "B"):
        won = sum(1 for w in winners.values() if w == engine)
        low, high = wilson(won, games)
        assert (
            f"{NAMES[engine]}: {won} won, {games - won} lost, 0 drawn: {won / games:.1%} "
            f"(95% Wilson interval {low:.1%} to {high:.1%})"
        ) in output, output
        parts = []
        for color in ("black", "white"):
            mine = [n for n in winners if (n % 2 == 1) == ((engine == "A") == (color == "black"))]
            won_here = sum(1 for n in mine if winners[n] == engine)
            low, high = wilson(won_here, len(mine))
            parts.append(f"as {color} {won_here}/{len(mine)} = {won_here / len(mine):.1%} ({low:.1%} to {high:.1%})")
        assert "  " + "; ".join(parts) in output.splitlines(), output


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    if not os.access(GNUGO, os.X_OK):
        pytest.skip("GNU Go is not installed")
    folder = tmp_path_factory.mktemp("match") / "games"
    output = run_match("--games", "4", "--size", "9", "--komi", "7.5", "--jobs", "2", "--sgf-dir", str(folder))
    return folder, output


@needs_gnugo
def test_a_match_writes_every_game_and_tallies_them(first_run: tuple[Path, str]) -> None:
    folder, output = first_run
    assert sorted(game_lines(output)) == [1, 2, 3, 4]
    assert f"{NAMES['A']} (A) against {NAMES['B']} (B): 4 games on 9x9, komi 7.5" in output
    winners = check_games(folder, output, 4)
    check_tally(output, winners)
    assert "abnormal ends: none" in output
    assert f"SGF files in {folder}" in output
    assert re.search(r"^seconds a move: GNU Go 3\.8 \d+\.\d{3}, gokata \S+ \d+\.\d{3}$", output, re.MULTILINE)


@needs_gnugo
def test_resume_plays_only_the_missing_games(first_run: tuple[Path, str], tmp_path: Path) -> None:
    folder = tmp_path / "games"
    shutil.copytree(first_run[0], folder)
    kept = (folder / "game-0001.sgf").read_bytes()
    (folder / "game-0002.sgf").unlink()
    refused = subprocess.run(
        [sys.executable, "-m", "gokata", "match", "--games", "5", "--sgf-dir", str(folder), "--", GNUGO_LINE, "--", GOKATA_LINE],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert refused.returncode == 1 and "holds games of an earlier match: resume it (--resume)" in refused.stderr
    output = run_match("--games", "5", "--jobs", "2", "--sgf-dir", str(folder), "--resume")
    assert sorted(game_lines(output)) == [2, 5], "only the missing games are played"
    assert (folder / "game-0001.sgf").read_bytes() == kept
    assert "(3 read back, 2 played now)" in output and "5 games on 9x9" in output
    check_tally(output, check_games(folder, output, 5))


def faulty_match(tmp_path: Path, engine_b: list[str], **options: float) -> tuple[list[GameRecord], str]:
    seen: list[GameRecord] = []
    result = match(GOKATA_ARGV, engine_b, games=2, jobs=2, sgf_dir=tmp_path, on_game=seen.append, **options)
    assert sorted(g.number for g in seen) == [1, 2] and result.games == sorted(seen, key=lambda g: g.number)
    assert result.count("A", "won") == 2 and result.points("B") == (0.0, 2)
    return result.games, result.summary()


@pytest.mark.parametrize(
    "engine_b, options, ended_by, why, words",
    [
        (STANDIN + ["--delay", "30"], {"move_timeout": 0.5}, "timeout", "T", "no answer to 'genmove"),
        (STANDIN + ["--crash"], {}, "crash", "F", "the engine exited (status 3) during 'genmove"),
        (ODDITIES + ["--move", "E5"], {}, "illegal move", "F", "played 5E, illegal here (occupied)"),
    ],
    ids=["timeout", "crash", "illegal"],
)
def test_a_fault_loses_the_game_with_its_reason(
    tmp_path: Path, engine_b: list[str], options: dict[str, float], ended_by: str, why: str, words: str
) -> None:
    games, summary = faulty_match(tmp_path, engine_b, **options)
    for game in games:
        assert game.ended_by == ended_by and words in game.detail
        loser = "W" if game.black == "A" else "B"
        assert game.result == f"{'B' if loser == 'W' else 'W'}+{why}"
        assert f"  game {game.number}: {game.result}, " in summary
        record = sgf.Sgf_game.from_bytes(Path(game.sgf_path or "").read_bytes())
        assert record.get_root().get("RE") == game.result
        played = [node for node in record.get_main_sequence() if node.get_move()[0] is not None]
        assert game.moves == len(played), "a lost game's moves are the turns it had"
        comment = record.get_last_node().get("C")
        assert words in comment and "ended by: " + ended_by in record.get_root().get("GC")
    assert "abnormal ends:\n" in summary


def test_a_folder_of_another_match_is_refused(tmp_path: Path) -> None:
    game = Go(9)
    game.komi = 7.5
    (tmp_path / "game-0001.sgf").write_text(game.to_sgf())
    with pytest.raises(ValueError, match="holds games of an earlier match"):
        match(GOKATA_ARGV, GOKATA_ARGV, games=2, sgf_dir=tmp_path)
    with pytest.raises(ValueError, match=r"game-0001.sgf is a game on 9x9 with komi 7.5, not 13x13"):
        match(GOKATA_ARGV, GOKATA_ARGV, games=2, size=13, sgf_dir=tmp_path, resume=True)
    with pytest.raises(ValueError, match="not written by gokata match"):
        match(GOKATA_ARGV, GOKATA_ARGV, games=2, sgf_dir=tmp_path, resume=True)
    with pytest.raises(ValueError, match="needs the folder"):
        match(GOKATA_ARGV, GOKATA_ARGV, resume=True)


def test_each_engine_is_one_quoted_command_or_its_words_up_to_the_next_separator() -> None:
    assert engine_commands(["gnugo --mode gtp", "--", "gokata gtp"]) == [["gnugo", "--mode", "gtp"], ["gokata", "gtp"]]
    assert engine_commands(["gnugo", "--mode", "gtp", "--", "gokata", "gtp"]) == [["gnugo", "--mode", "gtp"], ["gokata", "gtp"]]
    done = subprocess.run([sys.executable, "-m", "gokata", "match", "--", "gnugo"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "two engines are needed" in done.stderr
