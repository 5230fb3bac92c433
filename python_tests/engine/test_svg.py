"""Board pictures: valid SVG (parsed with xml.etree), the right parts for each size and
position, options checked, and a few pictures rendered to PNG with rsvg-convert (Debian's
librsvg2-bin, installed by scripts/sgf-collections) to be sure a real renderer draws them.
Set GOKATA_PICTURES=DIR to keep the PNGs for looking at."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gokata
from gokata import Go

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def find(root: ET.Element, tag: str, cls: str | None = None) -> list[ET.Element]:
    found = root.iter(f"{SVG}{tag}")
    return [e for e in found if cls is None or cls in (e.get("class") or "").split()]


def texts(root: ET.Element) -> list[str]:
    return [e.text or "" for e in find(root, "text")]


def caption(root: ET.Element) -> str:
    """The caption's lines, joined as one."""
    return " \u00b7 ".join(e.text or "" for e in find(root, "text", "caption"))


def star_points(root: ET.Element) -> int:
    return sum(1 for c in find(root, "circle") if c.get("r") == "4.5")


def test_the_parts_of_a_picture() -> None:
    game = Go(9)
    game.move("5E", "4E", "3C")
    picture = parse(game._repr_svg_())
    assert picture.get("viewBox") and picture.get("width") is None
    assert len(find(picture, "circle", "stone")) == 3
    assert len(find(picture, "circle", "black")) == 2
    assert len(find(picture, "circle", "last-move")) == 1
    assert star_points(picture) == 5
    labels = texts(picture)
    assert labels.count("J") == 2 and "I" not in labels
    assert labels.count("1") == 2 and labels.count("9") == 2
    text = caption(picture)
    assert text == "White to move \u00b7 captures: black 0, white 0 \u00b7 last: black C3"
    desc = find(picture, "desc")[0].text or ""
    assert str(game).strip() in desc and "white to move" in desc
    assert find(picture, "title")[0].text == "9x9 Go board, white to move"


@pytest.mark.parametrize(("size", "stars"), [(19, 9), (13, 5), (9, 5), (7, 4), (5, 0), (2, 0), (1, 0)])
def test_star_points_by_size(size: int, stars: int) -> None:
    assert star_points(parse(gokata.svg(Go(size)))) == stars


def test_rectangles_and_options() -> None:
    picture = parse(gokata.svg(Go(5, 25), size=500, coordinates=False, caption=False, style="plain"))
    assert picture.get("width") == "500"
    assert int(picture.get("height") or 0) < 150
    assert texts(picture) == []
    game = Go(9)
    game.move("5E")
    plain = parse(gokata.svg(game, last_move=False, marks=["1A", (0, 0)], fill={"5E": "red", "4D": "#00ff0080"}))
    assert find(plain, "circle", "last-move") == []
    assert len(find(plain, "path", "mark")) == 2
    assert {r.get("fill") for r in find(plain, "rect")} >= {"red", "#00ff0080"}


def test_ko_and_captures_are_shown() -> None:
    game = Go.from_board([".xo.", "xo.o", ".xo.", "...."], turn="black")
    game.move("3C")  # black takes at 3B; white may not retake at once
    picture = parse(gokata.svg(game))
    assert len(find(picture, "rect", "ko")) == 1
    assert "captures: black 1, white 0" in caption(picture)
    game.pass_turn()
    picture = parse(gokata.svg(game))
    assert find(picture, "rect", "ko") == []
    assert "last: white passed" in caption(picture)


def test_bad_options_are_clear_errors() -> None:
    game = Go(9)
    with pytest.raises(TypeError, match="draws a gokata.Go"):
        gokata.svg("not a game")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="width in pixels"):
        gokata.svg(game, size=0)
    with pytest.raises(ValueError, match="'wood' or 'plain'"):
        gokata.svg(game, style="marble")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a colour"):
        gokata.svg(game, fill={"1A": 'red"/><script>'})
    with pytest.raises(ValueError, match="off the board"):
        gokata.svg(game, marks=["10A"])
    with pytest.raises(TypeError, match="collection of coordinates"):
        gokata.svg(game, marks="1A")  # a str is iterable, but not taken for a collection
    with pytest.raises(TypeError, match="mapping"):
        gokata.svg(game, fill=["1A"])  # type: ignore[arg-type]


def positions() -> dict[str, Go]:
    opening = Go(19)
    opening.handicap_stones(2)
    opening.move("4Q", "16D", "17C", "3D", "5C", "17O")
    nine = Go.from_sgf("(;SZ[9];B[ee];W[ce];B[cd];W[dd];B[de];W[cc];B[ed];W[dc];B[ec];W[ef];B[ff];W[df];B[fe])")
    ko = Go.from_board([".xo.", "xo.o", ".xo.", "...."], turn="black")
    ko.move("3C")
    return {"opening19": opening, "nine": nine, "ko4": ko, "rectangle": Go.from_sgf("(;SZ[13:7];B[dd];W[jd])")}


def test_pictures_render_to_png(tmp_path: Path) -> None:
    renderer = shutil.which("rsvg-convert")
    if renderer is None:
        pytest.fail("rsvg-convert is missing: run scripts/sgf-collections (it installs librsvg2-bin)")
    keep = os.environ.get("GOKATA_PICTURES")
    out = Path(keep) if keep else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    for name, game in positions().items():
        svg_file = out / f"{name}.svg"
        png_file = out / f"{name}.png"
        svg_file.write_text(gokata.svg(game, size=480, marks=["1A"] if name == "nine" else None))
        subprocess.run([renderer, "-o", str(png_file), str(svg_file)], check=True, capture_output=True)
        data = png_file.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        width = int.from_bytes(data[16:20], "big")
        assert width == 480


# The picture's size: the board and the options alone decide it, never the position

OPTIONS: list[dict[str, Any]] = [
    {},
    {"size": 480},
    {"size": 97, "coordinates": False},
    {"caption": False},
    {"style": "plain", "last_move": False, "marks": [(0, 0)]},
]


def picture_size(svg: str) -> tuple[str | None, ...]:
    root = parse(svg)
    return root.get("viewBox"), root.get("width"), root.get("height")


def assert_sizes_as_on_an_empty_board(game: Go) -> None:
    height, width = game.size["height"], game.size["width"]
    for options in OPTIONS:
        empty = picture_size(gokata.svg(Go(height, width), **options))
        assert picture_size(gokata.svg(game, **options)) == empty, (options, str(game), game.move_number)
    assert picture_size(game._repr_svg_()) == picture_size(Go(height, width)._repr_svg_())


@settings(max_examples=60, deadline=None)
@given(height=st.integers(1, 25), width=st.integers(1, 25), seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 120))
@pytest.mark.slow
def test_every_position_of_a_game_has_the_picture_size_of_its_empty_board(height: int, width: int, seed: int, turns: int) -> None:
    # The first move added a caption line on a 9x9 board: the picture grew 20 pixels taller.
    rng = random.Random(seed)
    game = Go(height, width)
    for _ in range(turns):
        legal = game.legal_moves()
        if legal and rng.random() < 0.9:
            game.move(rng.choice(legal))
        else:
            game.pass_turn()
        assert_sizes_as_on_an_empty_board(game)


def test_more_captures_than_points_keep_the_size() -> None:
    """On a 1x2 board each side takes the other's stone again and again (a ko: two passes in
    between), until the captures have more digits than the caption was laid out for."""
    game = Go(1, 2)
    while game.move_number < 4000:
        takes = [point for point in ("1A", "1B") if game.is_legal(point) and game.captures(point)]
        if takes:
            game.move(takes[0])
        elif game.move_number == 0:
            game.move("1A")
        else:
            game.pass_turn()
        if game.move_number % 500 == 0:
            assert_sizes_as_on_an_empty_board(game)
    text = caption(parse(gokata.svg(game)))
    counts = re.search(r"captures: black (\d+), white (\d+)", text)
    assert counts is not None and min(int(counts[1]), int(counts[2])) > 99, text
    assert_sizes_as_on_an_empty_board(game)
