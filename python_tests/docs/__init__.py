"""Tests of the documents: the README's examples run as written, and its install lines name extras that exist."""
