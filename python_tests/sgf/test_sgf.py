"""SGF in and out through the Python API: what real files throw at a reader (encodings,
byte-order marks, leading text, old property names, damage, deep nesting), strict and lenient
reading, the Go meaning of a record (setup in any node, handicap, whose turn, passes, board
sizes), rule breaks with their move number, and deterministic writing that keeps everything."""

from __future__ import annotations

import pytest

import gokata
from gokata import Go, SgfError, SgfGame


def board_of(game: Go) -> list[str]:
    return ["".join(row) for row in game.board]


def test_a_simple_game_reads_with_its_metadata() -> None:
    data = "(;GM[1]FF[4]SZ[9]PB[Honinbo Shusaku]PW[Gennan Inseki]BR[4d]WR[8d]KM[6.5]RE[B+2]DT[1846-09-11]RU[Japanese]EV[Ear-reddening]GN[x]HA[0];B[ee];W[cc];B[])"
    game = Go.from_sgf(data)
    assert game.get_position("5E") == "x" and game.get_position("7C") == "o"
    assert game.move_number == 3 and game.turn == "white"
    (record,) = gokata.read_sgf_collection(data)
    assert isinstance(record, SgfGame)
    assert (record.black_player, record.white_player) == ("Honinbo Shusaku", "Gennan Inseki")
    assert (record.black_rank, record.white_rank, record.result) == ("4d", "8d", "B+2")
    assert (record.komi, record.handicap, record.date, record.rules) == (6.5, 0, "1846-09-11", "Japanese")
    assert (record.event, record.game_name, record.encoding) == ("Ear-reddening", "x", "UTF-8")
    assert record.size == {"height": 9, "width": 9}
    assert record.properties["PB"] == ["Honinbo Shusaku"]
    assert record.problems == []
    assert [node.move for node in record.main_line()] == [None, ("black", "5E"), ("white", "7C"), ("black", None)]


def test_variations_can_be_walked_and_replayed() -> None:
    data = "(;SZ[9];B[ee](;W[cc];B[gg])(;W[gc](;B[gg])(;B[cg])))"
    (record,) = gokata.read_sgf_collection(data)
    root = record.root
    assert root.parent is None and len(root.children) == 1
    first = root.children[0]
    assert [child.move for child in first.children] == [("white", "7C"), ("white", "7G")]
    leaf = first.children[1].children[1]
    assert leaf.move == ("black", "3C") and leaf.move_number == 3
    assert leaf.parent == first.children[1] and leaf.parent is not None
    assert hash(leaf) == hash(first.children[1].children[1])
    game = record.replay(leaf)
    assert board_of(game)[2] == "......o.." and game.get_position("3C") == "x"
    assert game.move_number == 3
    assert board_of(record.replay())[2] == "..o......"
    assert board_of(record.replay(root)) == ["........."] * 9
    (other,) = gokata.read_sgf_collection(data)
    with pytest.raises(ValueError, match="not one of this game's nodes"):
        record.replay(other.root)


def test_a_collection_of_games() -> None:
    data = b"(;GM[1]SZ[9]PB[a];B[aa])\n(;GM[1]SZ[13]PB[b];B[mm])"
    games = gokata.read_sgf_collection(data)
    assert [g.black_player for g in games] == ["a", "b"]
    assert [g.size["height"] for g in games] == [9, 13]
    assert Go.from_sgf(data).size == {"height": 9, "width": 9}
    written = gokata.write_sgf_collection([*games, Go(5)])
    again = gokata.read_sgf_collection(written)
    assert [g.size["height"] for g in again] == [9, 13, 5]
    with pytest.raises(TypeError, match="Go and SgfGame"):
        gokata.write_sgf_collection([1])  # type: ignore[list-item]


def test_strict_raises_at_the_first_problem_with_line_and_column() -> None:
    data = "(;GM[1]SZ[9]\n;B[ee]\n;W[ee]\n;B[dd])"
    with pytest.raises(SgfError) as caught:
        Go.from_sgf(data)
    error = caught.value
    assert isinstance(error, ValueError)
    assert (error.line, error.column) == (3, 3)
    assert "move 2 (W[ee])" in str(error) and "occupied" in str(error)
    assert str(error).startswith("line 3, column 3: ")
    # Lenient: the move is carried out as the record says, and listed.
    game = Go.from_sgf(data, strict=False)
    assert game.get_position("5E") == "o" and game.get_position("6D") == "x"
    (record,) = gokata.read_sgf_collection(data, strict=False)
    assert record.problems == [(3, 3, "move 2 (W[ee]): illegal move 5E for white: the point is occupied")]
    assert SgfError("made by hand").line == 0


def test_rule_breaks_name_the_move_and_lenient_follows_the_specification() -> None:
    # Suicide: a white stone at 1A, surrounded; the specification removes it.
    suicide = "(;SZ[5]AB[ba][ab];W[aa];B[ee])"
    with pytest.raises(SgfError, match=r"move 1 \(W\[aa\]\): .*suicide"):
        Go.from_sgf(suicide)
    game = Go.from_sgf(suicide, strict=False)
    assert game.get_position("5A") == "." and game.get_position("1E") == "x"
    # Ko: black takes, white retakes at once.
    ko = "(;SZ[5]AB[ba][ab][bc]AW[ca][bb][cc][db];B[cb];W[bb];B[cb])"
    with pytest.raises(SgfError, match=r"move 2 \(W\[bb\]\): .*ko"):
        Go.from_sgf(ko)
    game = Go.from_sgf(ko, strict=False)
    assert game.get_position("4B") == "."  # taken back by black's third move
    assert game.get_position("4C") == "x"
    # The same colour twice is no rule break: the kata's engine plays it as an explicit colour.
    twice = Go.from_sgf("(;SZ[9];B[ee];B[cc];W[gg])")
    assert twice.move_number == 3 and twice.turn == "black"


def test_messy_files() -> None:
    # Text before '(;', no FF, GM or SZ, FF[3] long names, a byte-order mark.
    data = "\ufeffDownloaded from somewhere (really)\n(;AddBlack[dd];Black[pp];White[dp])"
    game = Go.from_sgf(data.encode("utf-8"))
    assert game.size == {"height": 19, "width": 19}
    assert (game.get_position("16D"), game.get_position("4Q"), game.get_position("4D")) == ("x", "x", "o")
    # A truncated file: strict refuses it, lenient keeps every complete move.
    truncated = "(;SZ[9];B[ee];W[cc];B[g"
    with pytest.raises(SgfError, match="not closed"):
        Go.from_sgf(truncated)
    game = Go.from_sgf(truncated, strict=False)
    assert game.move_number == 2
    # Duplicated properties are joined (and listed).
    (record,) = gokata.read_sgf_collection("(;SZ[9]AB[aa]AB[bb])", strict=False)
    assert record.properties["AB"] == ["aa", "bb"]
    assert record.problems[0][2] == "property AB appears twice in one node: its values are joined"
    # Nothing to read.
    for empty in ("", "no sgf here", b"\x00\x01"):
        with pytest.raises(SgfError, match="no game tree"):
            Go.from_sgf(empty)
        with pytest.raises(SgfError):
            Go.from_sgf(empty, strict=False)
        assert gokata.read_sgf_collection(empty, strict=False) == []


def test_encodings() -> None:
    names = "(;GM[1]CA[{ca}]SZ[9]PB[{black}]PW[{white}]C[{comment}];B[ee])"
    cases = [
        ("GB2312", "gb2312", "聂卫平", "马晓春", "第一届中日围棋擂台赛"),
        ("Shift_JIS", "shift_jis", "本因坊秀策", "井山裕太", "ソ表示の第一局です"),
        ("EUC-KR", "euc_kr", "이창호", "조훈현", "바둑 대국"),
        ("Big5", "big5", "吳清源", "木谷實", "對局"),
        ("UTF-16", "utf-16", "Lee Sedol", "AlphaGo", "é ü ß"),
        ("ISO-8859-1", "latin-1", "Frédéric", "Müller", "À bientôt"),
    ]
    for ca, codec, black, white, comment in cases:
        text = names.format(ca=ca, black=black, white=white, comment=comment)
        (record,) = gokata.read_sgf_collection(text.encode(codec))
        assert (record.black_player, record.white_player) == (black, white), ca
        assert record.properties["C"] == [comment], ca
        # No CA at all: a sensible guess.
        guessed = text.replace(f"CA[{ca}]", "")
        (record,) = gokata.read_sgf_collection(guessed.encode(codec))
        assert record.black_player == black, (ca, record.encoding)
    # A CA that the bytes contradict: lenient reads on with a guess, strict refuses.
    wrong = names.format(ca="UTF-8", black="聂卫平", white="马晓春", comment="第一届中日围棋擂台赛")
    with pytest.raises(SgfError, match=r"CA\[UTF-8\] does not match"):
        gokata.read_sgf_collection(wrong.encode("gb18030"))
    (record,) = gokata.read_sgf_collection(wrong.encode("gb18030"), strict=False)
    assert record.black_player == "聂卫平"
    # Text in a str is already decoded: CA does not matter.
    assert gokata.read_sgf_collection(wrong)[0].black_player == "聂卫平"


def test_text_values() -> None:
    data = "(;C[a \\] b \\\\ c\\\nd\r\ne\tf]GN[x\\:y])"
    (record,) = gokata.read_sgf_collection(data)
    assert record.properties["C"] == ["a ] b \\ cd\ne f"]
    assert record.game_name == "x:y"


def test_setup_in_any_node_handicap_and_whose_turn() -> None:
    data = "(;SZ[9]HA[2]AB[cc][gg];W[ee];AB[aa:ab]AE[cc]PL[W];W[ii])"
    (record,) = gokata.read_sgf_collection(data)
    game = record.replay()
    assert board_of(game)[0][0] == "x" and board_of(game)[1][0] == "x"
    assert game.get_position("7C") == "." and game.get_position("1J") == "o"
    assert game.turn == "black"
    with pytest.raises(ValueError):
        game.handicap_stones(2)
    # With no move, a handicap game has white to move (the SGF convention) unless PL says.
    assert Go.from_sgf("(;SZ[9]HA[2]AB[cc][gg])").turn == "white"
    assert Go.from_sgf("(;SZ[9]HA[2]AB[cc][gg]PL[B])").turn == "black"
    assert Go.from_sgf("(;SZ[9]PL[W])").turn == "white"


def test_passes_and_board_sizes() -> None:
    game = Go.from_sgf("(;SZ[19];B[];W[tt];B[aa])")
    assert game.move_number == 3 and game.get_position("19A") == "x"
    big = Go.from_sgf("(;SZ[21];B[tt])")
    assert big.get_position("2U") == "x" and big.move_number == 1
    rectangle = Go.from_sgf("(;SZ[19:13];B[sm])")
    assert rectangle.size == {"height": 13, "width": 19}
    assert rectangle.get_position("1T") == "x"
    assert "SZ[19:13]" in rectangle.to_sgf()
    for size, name in (("26", "26x26"), ("19:30", "19x30"), ("52", "52x52")):
        for strict in (True, False):
            with pytest.raises(ValueError, match=name):
                Go.from_sgf(f"(;SZ[{size}])", strict=strict)
    with pytest.raises(SgfError, match=r"SZ\[zz\] is not a board size"):
        Go.from_sgf("(;SZ[zz])")
    assert Go.from_sgf("(;SZ[zz])", strict=False).size["height"] == 19
    with pytest.raises(SgfError, match=r"move 1 \(B\[jj\]\): jj is off the 9x9 board"):
        Go.from_sgf("(;SZ[9];B[jj])")


def test_deep_nesting_does_not_overflow() -> None:
    depth = 100_000
    data = "(;SZ[9]" + "".join("(;W[]" if i % 2 else "(;B[]" for i in range(depth)) + ")" * (depth + 1)
    (record,) = gokata.read_sgf_collection(data)
    assert len(record.main_line()) == depth + 1
    game = record.replay()
    assert game.move_number == depth
    again = gokata.read_sgf_collection(record.to_sgf())
    assert len(again[0].main_line()) == depth + 1


def test_writing_keeps_everything_and_is_deterministic() -> None:
    data = "(;FF[3]SZ[9]XY[private \\] value]AP[Someone:1.0]C[hi];B[ee]MA[cc:dd]C[look]\n(;W[cc])(;W[dd]))"
    (record,) = gokata.read_sgf_collection(data)
    text = record.to_sgf()
    assert text.startswith("(;GM[1]CA[UTF-8]FF[4]SZ[9]XY[private \\] value]AP[Someone:1.0]C[hi]")
    (again,) = gokata.read_sgf_collection(text)
    assert again.to_sgf() == text
    assert again.root.children[0].properties == {"B": ["ee"], "MA": ["cc:dd"], "C": ["look"]}
    game = Go(9)
    game.handicap_stones(3)
    game.move("5E", "3E")
    first = game.to_sgf()
    assert first == game.to_sgf()
    assert "FF[4]" in first and "GM[1]" in first and "HA[3]" in first


def test_side_to_move_survives_writing() -> None:
    for size in (9, 13, 19):
        for stones in range(1, 6):
            game = Go(size)
            game.handicap_stones(stones)
            assert Go.from_sgf(game.to_sgf()).turn == "black"
            game.pass_turn()
            assert Go.from_sgf(game.to_sgf()).turn == "white"
    game = Go.from_board(["...", ".x.", "..."], turn="white")
    back = Go.from_sgf(game.to_sgf())
    assert back.turn == "white" and back.board == game.board


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="str or bytes"):
        Go.from_sgf(123)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Go.from_sgf("(;)", strict="yes")  # type: ignore[arg-type]
    assert Go.from_sgf(bytearray(b"(;SZ[5])")).size["width"] == 5
