"""Waiting for something observable instead of sleeping a fixed time.

A test that needs the server, a page or a process to have done something polls for it with
`wait_until` (or `wait_until_equal`, which also shows the last value seen): it goes on as soon
as the condition holds, and fails with a message naming what it waited for when it does not
hold in time. The short sleeps between polls are the only sleeps here.

A fixed sleep is left in a test only where no condition exists (letting a clock run out, or
giving something that must *not* happen the time to happen), each with a comment saying why.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Optional, TypeVar

T = TypeVar("T")

POLL = 0.02
"""Seconds between two looks at a condition."""


class WaitTimeout(AssertionError):
    """A condition waited for did not hold in time: a test failure, naming what was awaited."""


def wait_until(condition: Callable[[], Optional[T]], timeout: float, what: str, every: float = POLL) -> T:
    """Calls ``condition()`` every ``every`` seconds until it returns something true, and returns
    that (so a condition may return what it found, or None). After ``timeout`` seconds fails with `WaitTimeout`: "timed out after N s waiting for
    WHAT (last seen: ...)"."""
    deadline = time.monotonic() + timeout
    while True:
        seen = condition()
        if seen:
            return seen
        if time.monotonic() >= deadline:
            raise WaitTimeout(f"timed out after {timeout:g} s waiting for {what} (last seen: {seen!r})")
        time.sleep(every)


def wait_until_equal(observe: Callable[[], T], expected: T, timeout: float, what: str, every: float = POLL) -> T:
    """Calls ``observe()`` until it returns ``expected``; after ``timeout`` seconds fails with
    `WaitTimeout` naming ``what``, the value expected and the last value seen."""
    deadline = time.monotonic() + timeout
    while True:
        seen = observe()
        if seen == expected:
            return seen
        if time.monotonic() >= deadline:
            raise WaitTimeout(
                f"timed out after {timeout:g} s waiting for {what}:\n  expected {expected!r}\n  last seen {seen!r}"
            )
        time.sleep(every)
