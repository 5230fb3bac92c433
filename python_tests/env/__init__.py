"""Tests of the RL environments: `VecGo` against the reference model and pgx, the Gymnasium and PettingZoo wrappers, the environment benchmark."""
