"""Helpers shared by the test folders; no tests here.

Importable as ``support.<module>`` from any test (``python_tests`` is on pytest's ``pythonpath``
and mypy's ``mypy_path``): the reference Go model, the server as a process, the PostgreSQL
cluster, GTP referee and stand-in engine, game drivers, and `waiting.wait_until`.
"""
