"""Fake time for the api tests: a monotonic clock moved only by sleeping, and a wall clock."""

from __future__ import annotations

LOCAL_MS = 1_763_726_400_000
"""Where the fake local wall clock starts (ms since the epoch)."""


class FakeTime:
    """A monotonic clock in seconds and an async sleep that advances it instantly."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def clock(self) -> float:
        """The current fake monotonic time, in seconds."""
        return self.now

    async def sleep(self, seconds: float) -> None:
        """Record the wait and move the clock past it at once."""
        self.sleeps.append(seconds)
        self.now += max(0.0, seconds)

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass without anyone sleeping."""
        self.now += seconds


class LocalClock:
    """A local wall clock in ms that tests move by hand."""

    def __init__(self, now_ms: int = LOCAL_MS) -> None:
        self.now_ms = now_ms

    def __call__(self) -> int:
        return self.now_ms
