"""Who is calling, and may they: HMAC request verification and the sandbox's rate limits.

Independent pieces the HTTP layer (`tui.sandbox.http.app`) strings together:

- `read_signed_headers` and `authenticate`: the interface's three headers, the signed message
  ``key|timestamp|METHOD|path?query[|body]`` (built by `tui.api.signing.signing_message`, the
  client's own function) over the *raw* request target and body bytes, the hex-decoded secret
  as the HMAC key, and the 5 s timestamp window against the sandbox clock.
- `SlidingWindowLimiter`: "at most N units in any window of W ms" per key, used both for the
  request-token budget per company and for the public statistics limits.
- `CompanyTokenMeter`: the request-token budget per company, the server's side of the rule the
  client's `tui.api.budget.TokenBudget` keeps to.
- `AnonymousLimiter` and `StatsLimiter`: the limits on unsigned calls and on the public
  statistics endpoint (per client IP and, for statistics, for everybody).

Nothing here touches the network or the database, so all of it is testable on its own.
"""

from __future__ import annotations

import hmac
from collections import deque
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Protocol

from tui.api.endpoints import (
    BUDGET_TOKENS,
    BUDGET_WINDOW_S,
    MAX_SKEW_MS,
    STATS_GLOBAL_PER_MINUTE,
    STATS_PER_IP,
    STATS_WINDOW_S,
)
from tui.api.models import ApiRole, ErrorCode
from tui.api.signing import (
    KEY_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    message_signature,
    signing_message,
)
from tui.sandbox.engine.errors import ServiceError

__all__ = [
    "ANONYMOUS_PER_IP",
    "ANONYMOUS_WINDOW_S",
    "RATE_LIMIT_RESET_HEADER",
    "AnonymousLimiter",
    "CompanyTokenMeter",
    "KeyRecord",
    "SignedHeaders",
    "SlidingWindowLimiter",
    "StatsLimiter",
    "authenticate",
    "read_signed_headers",
]

RATE_LIMIT_RESET_HEADER = "X-Rate-Limit-Resets-In-Ms"
"""Response header of a 429: milliseconds until the refused call would fit again."""

_AUTH_HEADERS = (TIMESTAMP_HEADER, KEY_HEADER, SIGNATURE_HEADER)


class KeyRecord(Protocol):
    """What authentication needs to know about a stored API key (the engine's ``ApiKey``)."""

    @property
    def key_id(self) -> str: ...

    @property
    def company_id(self) -> str: ...

    @property
    def role(self) -> ApiRole | str: ...

    @property
    def secret(self) -> bytes: ...


@dataclass(frozen=True, slots=True)
class SignedHeaders:
    """The three authentication headers of one request, parsed but not yet verified."""

    api_key: str
    timestamp_ms: int
    signature: str

    def __repr__(self) -> str:
        return f"SignedHeaders(api_key={self.api_key!r}, timestamp_ms={self.timestamp_ms})"


def _unauthenticated(message: str) -> ServiceError:
    return ServiceError(ErrorCode.UNAUTHENTICATED, message)


def read_signed_headers(headers: Mapping[str, str]) -> SignedHeaders | None:
    """The authentication headers of a request; None when none of the three was sent.

    ``headers`` maps lower-case header names to values. Some but not all of the headers, or a
    timestamp that is not an integer, is refused (401/2000) with the header named.
    """
    values = {name: headers.get(name.lower()) for name in _AUTH_HEADERS}
    if all(value is None for value in values.values()):
        return None
    missing = [name for name, value in values.items() if not value]
    if missing:
        raise _unauthenticated(f"missing authentication header {', '.join(missing)}")
    raw_ts = (values[TIMESTAMP_HEADER] or "").strip()
    if not raw_ts.isascii() or not raw_ts.isdigit() or len(raw_ts) > 16:
        raise _unauthenticated(f"{TIMESTAMP_HEADER} must be Unix time in whole milliseconds")
    return SignedHeaders(
        api_key=(values[KEY_HEADER] or "").strip(),
        timestamp_ms=int(raw_ts),
        signature=(values[SIGNATURE_HEADER] or "").strip().lower(),
    )


def authenticate(
    signed: SignedHeaders,
    lookup: Callable[[str], KeyRecord | None],
    *,
    method: str,
    raw_target: bytes,
    body: bytes,
    now_ms: int,
    max_skew_ms: int = MAX_SKEW_MS,
) -> KeyRecord:
    """The API key that signed this request, or a 401 `ServiceError`.

    ``raw_target`` is the path and query exactly as they arrived on the wire. The signature is
    checked before the timestamp so that a stranger learns nothing about the server's clock
    from the error; then a timestamp more than ``max_skew_ms`` away from ``now_ms`` (either
    direction; exactly ``max_skew_ms`` is still accepted) is refused as 2001.
    """
    key = lookup(signed.api_key) if signed.api_key else None
    expected = None
    if key is not None:
        message = signing_message(signed.api_key, signed.timestamp_ms, method, raw_target, body)
        expected = message_signature(key.secret, message)
    # Compare even for an unknown key, so both failures take the same path and time.
    ok = hmac.compare_digest(
        (expected or "0" * 64).encode("ascii"),
        signed.signature.encode("ascii", errors="replace"),
    )
    if key is None or expected is None or not ok:
        raise _unauthenticated("invalid API key or signature")
    skew = abs(now_ms - signed.timestamp_ms)
    if skew > max_skew_ms:
        raise ServiceError(
            ErrorCode.TIMESTAMP_SKEW,
            f"{TIMESTAMP_HEADER} is {skew} ms from server time {now_ms} "
            f"(at most {max_skew_ms} ms allowed); sync with GET /v1/status",
        )
    return key


class SlidingWindowLimiter:
    """At most ``capacity`` units per key in any window of ``window_ms`` milliseconds.

    A spend at time t counts against its key while ``now < t + window_ms``. A spend that would
    take the key over capacity is refused and recorded nowhere, so refused calls cost nothing.
    Time comes from the caller (the sandbox clock), which keeps the limiter deterministic.
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
        """Record a spend without checking (call `wait_ms` first)."""
        self._calls += 1
        if self._calls % 1024 == 0:
            self._sweep(now_ms)
        spends = self._spends.setdefault(key, deque())
        # Keep the deque ordered even if the wall clock under the sandbox clock stepped back.
        at_ms = max(now_ms, spends[-1][0]) if spends else now_ms
        spends.append((at_ms, cost))
        self._used[key] = self._used.get(key, 0) + cost

    def try_spend(self, key: Hashable, cost: int, now_ms: int) -> int:
        """Spend ``cost`` if it fits and return 0, else spend nothing and return the wait in ms."""
        wait = self.wait_ms(key, cost, now_ms)
        if wait == 0:
            self.spend(key, cost, now_ms)
        return wait


def _rate_limited(message: str, wait_ms: int) -> ServiceError:
    return ServiceError(
        ErrorCode.RATE_LIMITED,
        message,
        headers={RATE_LIMIT_RESET_HEADER: str(max(1, wait_ms))},
    )


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
            raise _rate_limited(
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
            raise _rate_limited(
                f"unsigned requests are limited to {self._per_ip.capacity} per "
                f"{self._per_ip.window_ms // 1000} s per address; sign the request or retry "
                f"in {wait} ms",
                wait,
            )


class StatsLimiter:
    """The public statistics endpoint's limits: per client IP and for all callers together."""

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
            raise _rate_limited(
                f"public statistics limit: {self._per_ip.capacity} requests per "
                f"{self._per_ip.window_ms // 1000} s per address; retry in {ip_wait} ms",
                ip_wait,
            )
        global_wait = self._global.wait_ms(None, 1, now_ms)
        if global_wait:
            raise _rate_limited(
                f"public statistics limit: {self._global.capacity} requests per minute "
                f"in all; retry in {global_wait} ms",
                global_wait,
            )
        self._per_ip.spend(client_ip, 1, now_ms)
        self._global.spend(None, 1, now_ms)
