"""Tests of SGF reading and writing: the API, game information, rule-breaking records, real collections."""
