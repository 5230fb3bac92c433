"""What another process is doing, read from Linux's ``/proc``: something to wait for when a
test must know that a process is busy (in a search, in its playouts) rather than sleep and
hope it is."""

from __future__ import annotations

import os
from pathlib import Path

TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


def cpu_ticks(pid: int) -> int:
    """Processor time the process has used so far, user and system, in clock ticks."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime and stime
