"""How much a caller may do: the sandbox's sliding-window limits and their 429 refusals.

One rule, `SlidingWindowLimiter`, serves every limit: the request-token budget per company
(`CompanyTokenMeter`, the server's side of the client's `tui.api.budget.TokenBudget`), unsigned
calls per address (`AnonymousLimiter`) and the public statistics endpoint (`StatsLimiter`).

The window, exactly (what a client has to mirror to never meet a 429):

- A charge is stamped with the instant the server took the request in: the sandbox-clock
  millisecond it sends back as ``X-Request-Received-Ms`` on that request's answer.
- A charge stamped ``s`` counts at every server instant ``t`` with ``s <= t < s + W``; so the
  window at ``t`` holds the charges stamped in the half-open interval ``(t - W, t]``. With W =
  10 000 ms, a charge made at ``s`` is free again at exactly ``s + 10 000``.
- A call that would take the window over capacity is refused (429/5000) and charged nothing.
  Its ``X-Rate-Limit-Resets-In-Ms`` R is the least wait: received at ``X-Request-Received-Ms
  + R`` the same call fits (unless other calls of the same company were charged meanwhile),
  received one millisecond earlier it does not. R is at least 1.
- Charges are kept in stamp order whatever order they were booked in (a request stamped
  earlier can be charged later, when its body arrived later), so each leaves the window at
  its own stamp plus W.

Time always comes from the caller (the sandbox clock), which keeps all of it deterministic.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable

from tui.api.endpoints import (
    BUDGET_TOKENS,
    BUDGET_WINDOW_S,
    STATS_GLOBAL_PER_MINUTE,
    STATS_PER_IP,
    STATS_WINDOW_S,
)
from tui.api.models import ErrorCode
from tui.sandbox.engine.errors import ServiceError

__all__ = [
    "ANONYMOUS_PER_IP",
    "ANONYMOUS_WINDOW_S",
    "RATE_LIMIT_RESET_HEADER",
    "AnonymousLimiter",
    "CompanyTokenMeter",
    "SlidingWindowLimiter",
    "StatsLimiter",
    "rate_limited",
]

RATE_LIMIT_RESET_HEADER = "X-Rate-Limit-Resets-In-Ms"
"""Response header of a 429: ms after ``X-Request-Received-Ms`` when the call fits again."""


def rate_limited(message: str, wait_ms: int) -> ServiceError:
    """A 429/5000 refusal whose reset header says ``wait_ms`` (at least 1)."""
    return ServiceError(
        ErrorCode.RATE_LIMITED,
        message,
        headers={RATE_LIMIT_RESET_HEADER: str(max(1, wait_ms))},
    )


class SlidingWindowLimiter:
    """At most ``capacity`` units per key in any window of ``window_ms`` milliseconds.

    A spend stamped t counts against its key while ``now < t + window_ms`` (the module
    docstring has the whole rule). A spend that would take the key over capacity is refused and
    recorded nowhere, so refused calls cost nothing.
    """

    def __init__(self, capacity: int, window_ms: int) -> None:
        if capacity <= 0 or window_ms <= 0:
            raise ValueError("capacity and window must be positive")
        self.capacity = capacity
        self.window_ms = window_ms
        self._spends: dict[Hashable, deque[tuple[int, int]]] = {}
        self._used: dict[Hashable, int] = {}
        self._calls = 0

    def _expire(self, key: Hashable, now_ms: int) -> deque[tuple[int, int]] | None:
        spends = self._spends.get(key)
        if spends is None:
            return None
        horizon = now_ms - self.window_ms
        while spends and spends[0][0] <= horizon:
            self._used[key] -= spends.popleft()[1]
        if not spends:
            del self._spends[key]
            del self._used[key]
            return None
        return spends

    def _sweep(self, now_ms: int) -> None:
        # Keys are client IPs for the stats limit: drop the idle ones now and then.
        for key in list(self._spends):
            self._expire(key, now_ms)

    def used(self, key: Hashable, now_ms: int) -> int:
        """Units ``key`` has spent inside the window ending at ``now_ms``."""
        self._expire(key, now_ms)
        return self._used.get(key, 0)

    def wait_ms(self, key: Hashable, cost: int, now_ms: int) -> int:
        """0 when ``cost`` fits now; otherwise ms until enough earlier spends have expired.

        A cost larger than the whole capacity never fits; that reports one full window.
        """
        spends = self._expire(key, now_ms)
        if spends is None:
            return 0 if cost <= self.capacity else self.window_ms
        excess = self._used[key] + cost - self.capacity
        if excess <= 0:
            return 0
        if cost > self.capacity:
            return self.window_ms
        freed = 0
        for at_ms, spent in spends:
            freed += spent
            if freed >= excess:
                return at_ms + self.window_ms - now_ms
        return self.window_ms  # unreachable: all spends expired frees everything

    def spend(self, key: Hashable, cost: int, now_ms: int) -> None:
        """Record a spend stamped ``now_ms`` without checking (call `wait_ms` first)."""
        self._calls += 1
        if self._calls % 1024 == 0:
            self._sweep(now_ms)
        spends = self._spends.setdefault(key, deque())
        index = len(spends)
        while index and spends[index - 1][0] > now_ms:  # booked late: find its place
            index -= 1
        spends.insert(index, (now_ms, cost))
        self._used[key] = self._used.get(key, 0) + cost

    def try_spend(self, key: Hashable, cost: int, now_ms: int) -> int:
        """Spend ``cost`` if it fits and return 0, else spend nothing and return the wait in ms."""
        wait = self.wait_ms(key, cost, now_ms)
        if wait == 0:
            self.spend(key, cost, now_ms)
        return wait


class CompanyTokenMeter:
    """The request-token budget as the server meters it: ``tokens`` per company per sliding
    ``window_s`` seconds, a call over it refused with 429/5000.

    The server's side of the rule the client's `tui.api.budget.TokenBudget` keeps to (that one
    waits before sending; this one counts what arrives). One budget per company whatever key or
    address it calls from, as the contract says. ``tokens`` is configurable only so a benchmark
    can measure the server without being throttled; the interface's value is `BUDGET_TOKENS`.
    """

    def __init__(self, tokens: int = BUDGET_TOKENS, window_s: float = BUDGET_WINDOW_S) -> None:
        self._limiter = SlidingWindowLimiter(tokens, round(window_s * 1000))

    @property
    def tokens(self) -> int:
        """Tokens per window."""
        return self._limiter.capacity

    def charge(self, company_id: str, cost: int, now_ms: int) -> None:
        """Charge ``cost`` tokens to the company, or refuse with 429/5000 and charge nothing."""
        wait = self._limiter.try_spend(company_id, cost, now_ms)
        if wait:
            raise rate_limited(
                f"request-token budget exhausted: this call costs {cost} of "
                f"{self._limiter.capacity} tokens per {self._limiter.window_ms // 1000} s; "
                f"retry in {wait} ms",
                wait,
            )

    def charge_if_available(self, company_id: str, cost: int, now_ms: int) -> bool:
        """Charge ``cost`` when the budget has it; never refuse. True when it was charged.

        For the two liveness endpoints (status, supported assets): they cost their tokens like
        any call, but a spent budget must not make a desk's liveness check fail exactly when
        the desk is busiest.
        """
        return self._limiter.try_spend(company_id, cost, now_ms) == 0

    def used(self, company_id: str, now_ms: int) -> int:
        """Tokens the company has spent inside the current window."""
        return self._limiter.used(company_id, now_ms)


ANONYMOUS_PER_IP = 20
"""Unsigned (or unverifiable) calls to status / supported assets per client address..."""
ANONYMOUS_WINDOW_S = 10.0
"""... per this many seconds; past it, 429 with ``X-Rate-Limit-Resets-In-Ms``."""


class AnonymousLimiter:
    """The limit on calls without a valid signature (only status and supported assets take
    them): `ANONYMOUS_PER_IP` per client address per `ANONYMOUS_WINDOW_S`, so nobody can use
    the two open endpoints to keep the engine busy for free."""

    def __init__(
        self, per_ip: int = ANONYMOUS_PER_IP, window_s: float = ANONYMOUS_WINDOW_S
    ) -> None:
        self._per_ip = SlidingWindowLimiter(per_ip, round(window_s * 1000))

    def admit(self, client_ip: str, now_ms: int) -> None:
        """Count one anonymous call from ``client_ip``, or refuse with 429/5000 counting nothing."""
        wait = self._per_ip.try_spend(client_ip, 1, now_ms)
        if wait:
            raise rate_limited(
                f"unsigned requests are limited to {self._per_ip.capacity} per "
                f"{self._per_ip.window_ms // 1000} s per address; sign the request or retry "
                f"in {wait} ms",
                wait,
            )


class StatsLimiter:
    """The public statistics endpoint's limits: per client IP and for all callers together.

    The client IP is the TCP peer unless the server was told to trust a proxy
    (``--trusted-proxy``): a forwarded-for header from anybody else changes nothing.
    """

    def __init__(
        self,
        per_ip: int = STATS_PER_IP,
        per_ip_window_s: float = STATS_WINDOW_S,
        global_per_minute: int = STATS_GLOBAL_PER_MINUTE,
    ) -> None:
        self._per_ip = SlidingWindowLimiter(per_ip, round(per_ip_window_s * 1000))
        self._global = SlidingWindowLimiter(global_per_minute, 60_000)

    def admit(self, client_ip: str, now_ms: int) -> None:
        """Count one request from ``client_ip``, or refuse with 429/5000 counting nothing."""
        ip_wait = self._per_ip.wait_ms(client_ip, 1, now_ms)
        if ip_wait:
            raise rate_limited(
                f"public statistics limit: {self._per_ip.capacity} requests per "
                f"{self._per_ip.window_ms // 1000} s per address; retry in {ip_wait} ms",
                ip_wait,
            )
        global_wait = self._global.wait_ms(None, 1, now_ms)
        if global_wait:
            raise rate_limited(
                f"public statistics limit: {self._global.capacity} requests per minute "
                f"in all; retry in {global_wait} ms",
                global_wait,
            )
        self._per_ip.spend(client_ip, 1, now_ms)
        self._global.spend(None, 1, now_ms)
