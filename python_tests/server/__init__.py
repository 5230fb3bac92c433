"""Tests of `gokata serve`, the game server, as a real process: sign-in, pairing, games, clocks, limits, durability, several processes, the deployment."""
