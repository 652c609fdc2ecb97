"""The client side of the request-token budget: a sliding window that never lets a call 429.

The venue allows each company 100 tokens per sliding 10 s window (`tui.api.endpoints`), and
every endpoint has a cost. The client charges its own window *before* sending, so it waits
instead of being refused. The desk's live feed asks with ``keep_free`` so that part of every
window stays free for the user's own actions (a quote must never wait behind a poll).

Time is injectable (a monotonic clock in seconds and an async sleep), so tests run instantly.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable

from tui.api.endpoints import BUDGET_TOKENS, BUDGET_WINDOW_S

__all__ = ["DESK_RESERVE_TOKENS", "TokenBudget"]

DESK_RESERVE_TOKENS = 40
"""Tokens of every window that background polling leaves free for the user's own actions."""

_DEFAULT_SLACK_S = 0.25
_MIN_NAP_S = 0.001


class TokenBudget:
    """The client's side of the request-token budget, shared by every call of one client.

    It mirrors the server's meter (the venue's, or the sandbox's) so that a request waits here
    rather than be refused there; the server still decides. A charge made at time ``t`` counts
    until ``t + window_s + slack_s``. The slack covers the difference between when the client
    charges (before sending) and when the server receives the request (later, by a latency
    that varies), so the server's window never sees more than ``tokens``.
    """

    def __init__(
        self,
        tokens: int = BUDGET_TOKENS,
        window_s: float = BUDGET_WINDOW_S,
        *,
        slack_s: float = _DEFAULT_SLACK_S,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if tokens <= 0 or window_s <= 0 or slack_s < 0:
            raise ValueError("tokens and window_s must be positive, slack_s not negative")
        self.tokens = tokens
        self.window_s = window_s
        self.slack_s = slack_s
        self._clock = clock
        self._sleep = sleep
        self._charges: deque[tuple[float, int]] = deque()
        self._used = 0
        self._blocked_until = float("-inf")

    def __repr__(self) -> str:
        return f"TokenBudget(used={self.used()}/{self.tokens}, window_s={self.window_s})"

    # -- reading ---------------------------------------------------------------------------

    def _expire(self, now: float) -> None:
        horizon = self.window_s + self.slack_s
        while self._charges and self._charges[0][0] + horizon <= now:
            _, cost = self._charges.popleft()
            self._used -= cost

    def used(self) -> int:
        """Tokens charged in the current window."""
        self._expire(self._clock())
        return self._used

    def blocked_for(self) -> float:
        """Seconds until a penalty from a 429 ends (0 when there is none)."""
        return max(0.0, self._blocked_until - self._clock())

    def available(self, keep_free: int = 0) -> int:
        """Tokens that can be spent right now while leaving ``keep_free`` untouched."""
        if self.blocked_for() > 0:
            return 0
        return max(0, self.tokens - keep_free - self.used())

    def wait_time(self, cost: int, keep_free: int = 0) -> float:
        """Seconds until ``cost`` tokens fit with ``keep_free`` left over (0: they fit now)."""
        self._check(cost, keep_free)
        now = self._clock()
        self._expire(now)
        ready = max(now, self._blocked_until)
        limit = self.tokens - keep_free - cost
        running = self._used
        horizon = self.window_s + self.slack_s
        for at, charged in self._charges:
            if running <= limit:
                break
            running -= charged
            ready = max(ready, at + horizon)
        return ready - now

    # -- spending --------------------------------------------------------------------------

    def _check(self, cost: int, keep_free: int) -> None:
        if cost < 0:
            raise ValueError("cost must not be negative")
        if keep_free < 0:
            raise ValueError("keep_free must not be negative")
        if cost + keep_free > self.tokens:
            raise ValueError(
                f"cost {cost} with keep_free {keep_free} can never fit a budget of {self.tokens}"
            )

    def _charge(self, cost: int) -> None:
        if cost:
            self._charges.append((self._clock(), cost))
            self._used += cost

    def try_acquire(self, cost: int, keep_free: int = 0) -> bool:
        """Charge ``cost`` now if it fits with ``keep_free`` left over; never waits."""
        if self.wait_time(cost, keep_free) > 0:
            return False
        self._charge(cost)
        return True

    async def acquire(self, cost: int, keep_free: int = 0) -> None:
        """Wait until ``cost`` tokens fit (leaving ``keep_free``), then charge them.

        No lock is held while waiting: a caller with a smaller need (the user's action, with
        no reserve) gets through while a background poll with ``keep_free`` still waits.
        """
        while True:
            delay = self.wait_time(cost, keep_free)
            if delay <= 0:
                self._charge(cost)
                return
            # A floor on the nap guarantees progress even when float rounding leaves a
            # vanishing remainder.
            await self._sleep(max(delay, _MIN_NAP_S))

    def penalize(self, resets_in_ms: int | float | None) -> None:
        """After a 429: spend nothing until the server says enough budget is back.

        The server saw more than this client counted (another desk on the same company, or a
        clock difference); the penalty resynchronises the two. The hint is believed only when
        it is a finite, non-negative number, and never beyond one window plus the slack (by
        then every charge the server counted has left its window); no hint, or garbage such as
        ``inf`` or a negative number, waits one whole window.
        """
        wait_s = self.window_s
        hint: object = resets_in_ms
        if isinstance(hint, int) and not isinstance(hint, bool):
            # Bounded before the conversion: an int past float's range would overflow it.
            hint = float(max(-1, min(hint, 10**12)))
        if isinstance(hint, float) and math.isfinite(hint) and hint >= 0:
            wait_s = min(hint / 1000.0, self.window_s + self.slack_s)
        self._blocked_until = max(self._blocked_until, self._clock() + wait_s)
