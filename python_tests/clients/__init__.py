"""Tests of the clients: `gokata.client`, `gokata connect` (piped and at a terminal), and the `gokata` command line."""
