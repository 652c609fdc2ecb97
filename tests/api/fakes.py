"""Test doubles of the API client tests: fake time that moves only when code sleeps."""

from __future__ import annotations


class FakeTime:
    """A monotonic clock in seconds and an async sleep that advances it instantly."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += max(0.0, seconds)

    def advance(self, seconds: float) -> None:
        self.now += seconds
