"""A finished run of the ``gokata`` command and the boards it printed: shared by the tests of
``gokata play`` and ``gokata connect``, which print the same screens."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass
class Run:
    status: int
    out: str
    err: str

    @property
    def boards(self) -> list[list[str]]:
        """Every board printed, each as its rows top first, like ``"..x.."``."""
        boards: list[list[str]] = []
        rows: list[str] = []
        for line in self.out.splitlines():
            row = re.fullmatch(r"\s*(\d+) ([.xo](?: [.xo])*) \1", line)
            if row:
                rows.append(row.group(2).replace(" ", ""))
            elif rows:
                boards.append(rows)
                rows = []
        return boards

    @property
    def errors(self) -> list[str]:
        return [line for line in self.out.splitlines() if line.startswith("error: ")]

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()

    @property
    def last_line(self) -> str:
        return self.out.splitlines()[-1]
