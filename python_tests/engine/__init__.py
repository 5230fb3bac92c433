"""Tests of the rules engine from Python: `gokata.Go` and its rules, rollback, handicap, the legality oracle, `solve`, pickling, threads, batch playouts, SVG pictures."""
