"""The `new_game` fixture: most rule tests run twice, on `gokata.Go` and on the pure-Python
`ReferenceGo`. A test that fails only for `gokata` points at the engine, one that fails for
both points at the test, and the reference model is itself checked against the spec before
it is used as the oracle of the differential tests. The helpers the rule tests share are in
`support.tracked_game`."""

from __future__ import annotations

import pytest

from gokata import Go
from support.reference_model import GoFactory, ReferenceGo


@pytest.fixture(params=["gokata", "reference"])
def new_game(request: pytest.FixtureRequest) -> GoFactory:
    """The class under test: `gokata.Go`, and the reference model as a cross-check."""
    factory: GoFactory = Go if request.param == "gokata" else ReferenceGo
    return factory
