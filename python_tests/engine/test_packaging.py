"""What the wheel carries: the engine, the server and the binding, and nothing of the test kit
(the game corpus, the naive reference board, the native-replay probe live in the workspace's
unpublished `gokata-testkit` crate)."""

from __future__ import annotations

from pathlib import Path

import gokata._gokata as extension


def test_the_extension_exports_no_benchmark_probe() -> None:
    names = set(dir(extension))
    assert "_replay_natively" not in names
    assert not {name for name in names if "corpus" in name.lower()}


def test_the_extension_binary_holds_nothing_of_the_test_kit() -> None:
    binary = Path(extension.__file__).read_bytes()
    for trace in (b"testkit", b"data/corpus", b"random-9x9.txt", b"NaiveBoard"):
        assert trace not in binary, f"the extension module contains {trace!r}"
