"""The sandbox's notion of now: wall time plus an offset that tests and demos can advance.

Every time-dependent rule of the exchange (expiries, permit deadlines, block delays, the price
walk, the request-token window) reads this clock, so advancing it moves the whole world forward
at once without anybody sleeping.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime


class SandboxClock:
    """Wall-clock time shifted by an offset that only ever grows.

    ``frozen_at_ms`` pins the clock to a fixed instant (snapshot tests, reproducible demos);
    `advance` still moves a frozen clock.
    """

    def __init__(self, offset_ms: int = 0, frozen_at_ms: int | None = None) -> None:
        self._offset_ms = offset_ms
        self._frozen_at_ms = frozen_at_ms
        self._lock = threading.Lock()

    def now_ms(self) -> int:
        """Current sandbox time in Unix milliseconds."""
        with self._lock:
            if self._frozen_at_ms is not None:
                return self._frozen_at_ms + self._offset_ms
            return time.time_ns() // 1_000_000 + self._offset_ms

    def now(self) -> datetime:
        """Current sandbox time as an aware UTC datetime."""
        return datetime.fromtimestamp(self.now_ms() / 1000, tz=UTC)

    def advance(self, seconds: float) -> int:
        """Move time forward by ``seconds`` (never backward); returns the new time in ms."""
        if seconds < 0:
            raise ValueError("the sandbox clock only moves forward")
        with self._lock:
            self._offset_ms += round(seconds * 1000)
        return self.now_ms()

    @property
    def offset_ms(self) -> int:
        """How far ahead of wall time (or of the frozen instant) the clock has been moved."""
        return self._offset_ms
