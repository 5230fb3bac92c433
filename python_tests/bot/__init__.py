"""Tests of the bot and GTP: `genmove`/`analyze`, `gokata gtp`, `gokata bot`, games and rule differentials against GNU Go, the strength script."""
