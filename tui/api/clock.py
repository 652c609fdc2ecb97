"""The client's estimate of server time, so signed timestamps stay inside the 5 s skew window.

Every exchange with the server gives one sample: the server read its clock (``server_timestamp_ms``
of ``/v1/status``, or the ``X-Request-Received-Ms`` header of any response) at some instant
between the local send and the local receive. So the true offset (server minus local) lies in
``[server - received, server - sent]``; the middle of that interval is the estimate, and its
half-width (half the round trip) is the error bound.

The clock keeps the sample with the tightest bound among the recent ones (as NTP does), and
drops all history the moment a new sample proves the current estimate impossible (the server
clock jumped, as the sandbox's clock can, or the local clock was stepped).

`ServerClock.most_ms_between` turns a server instant into local terms with that bound on the
safe side: the request-token budget (`tui.api.budget`) uses it to free a charge no sooner than
the server does.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import NamedTuple

from tui.api.signing import system_time_ms

__all__ = ["RECEIVED_HEADER", "ClockSample", "ServerClock", "read_stamp"]

RECEIVED_HEADER = "X-Request-Received-Ms"
_RECENT_SAMPLES = 16
_RESOLUTION_MS = 1  # both clocks tick in whole milliseconds


def read_stamp(value: str | None) -> int | None:
    """The server time (Unix ms) an ``X-Request-Received-Ms`` header gives; None when the header
    is missing or is not a whole number."""
    if value is None:
        return None
    try:
        return int(value.strip())
    except ValueError:
        return None


class ClockSample(NamedTuple):
    """One observation: the offset estimate and the round trip it was measured over."""

    offset_ms: float
    rtt_ms: int

    @property
    def low(self) -> float:
        """The smallest offset consistent with this observation."""
        return self.offset_ms - self.rtt_ms / 2 - _RESOLUTION_MS

    @property
    def high(self) -> float:
        """The largest offset consistent with this observation."""
        return self.offset_ms + self.rtt_ms / 2 + _RESOLUTION_MS


class ServerClock:
    """Local wall time corrected by the learnt offset to the server's clock."""

    def __init__(self, local_ms: Callable[[], int] = system_time_ms) -> None:
        self._local_ms = local_ms
        self._samples: deque[ClockSample] = deque(maxlen=_RECENT_SAMPLES)
        self._best: ClockSample | None = None

    def __repr__(self) -> str:
        return f"ServerClock(offset_ms={self.offset_ms}, synced={self.synced})"

    @property
    def synced(self) -> bool:
        """True once at least one sample has been taken."""
        return self._best is not None

    @property
    def offset_ms(self) -> int:
        """Server time minus local time, in ms (0 before any sample)."""
        return round(self._best.offset_ms) if self._best else 0

    @property
    def uncertainty_ms(self) -> float | None:
        """Half the round trip of the sample in use: how wrong the offset may be."""
        return self._best.rtt_ms / 2 if self._best else None

    def local_ms(self) -> int:
        """The local wall clock, in Unix ms (the base the offset is applied to)."""
        return self._local_ms()

    def now_ms(self) -> int:
        """The current server time estimate, in Unix ms: what a request should be stamped."""
        return self._local_ms() + self.offset_ms

    def most_ms_between(self, local_ms: int, server_ms: int) -> float | None:
        """At most how many ms pass from the local instant ``local_ms`` until the server's clock
        reads ``server_ms`` (negative: it read that before); None before any sample.

        The bound takes the smallest offset the sample in use allows, so the true gap is never
        larger: what waits this long has surely let the server's clock reach ``server_ms``.
        """
        if self._best is None:
            return None
        return server_ms - (local_ms + self._best.low)

    def reset(self) -> None:
        """Forget every sample (before a deliberate resynchronisation)."""
        self._samples.clear()
        self._best = None

    def observe(self, server_ms: int, sent_local_ms: int, received_local_ms: int) -> None:
        """Learn from one exchange: the server read ``server_ms`` between send and receive."""
        rtt = max(0, received_local_ms - sent_local_ms)
        sample = ClockSample(server_ms - (sent_local_ms + received_local_ms) / 2, rtt)
        current = self._best
        if current is not None and not sample.low <= current.offset_ms <= sample.high:
            self._samples.clear()  # the current estimate is impossible: a clock jumped
        self._samples.append(sample)
        self._best = min(self._samples, key=lambda s: s.rtt_ms)

    def observe_header(self, value: str | None, sent_local_ms: int, received_local_ms: int) -> None:
        """Learn from an ``X-Request-Received-Ms`` header; a missing or odd value is ignored."""
        server_ms = read_stamp(value)
        if server_ms is not None:
            self.observe(server_ms, sent_local_ms, received_local_ms)
