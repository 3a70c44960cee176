"""Clocks for the emulator: the real one, and one that tests move by hand."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Anything that tells the current Unix time in seconds."""

    def time(self) -> float:
        """Return the current Unix time in seconds."""
        ...


class SystemClock:
    """The wall clock."""

    def time(self) -> float:
        """Return the current Unix time in seconds."""
        return time.time()


class FakeClock:
    """A clock that stands still until a test advances it, so time-based rules are deterministic."""

    def __init__(self, start: float = 1_750_000_000.0) -> None:
        self._now = start

    def time(self) -> float:
        """Return the clock's current reading."""
        return self._now

    def advance(self, seconds: float) -> None:
        """Move the clock forward by ``seconds``."""
        if seconds < 0:
            raise ValueError("a clock only moves forward")
        self._now += seconds

    def set(self, now: float) -> None:
        """Set the clock to ``now``, which must not be in its past."""
        if now < self._now:
            raise ValueError("a clock only moves forward")
        self._now = now
