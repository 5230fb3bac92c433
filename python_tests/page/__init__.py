"""Tests of the page served by `gokata serve`, in a real headless Chromium (marked `browser`)."""
