"""`StatsClient`: the public market-statistics endpoint (other base URL, no authentication).

``GET {stats_base_url}/metadata/stats`` is limited to 10 requests per 10 s per IP address, so
the client keeps its own `TokenBudget` with those numbers (every request costs 1) and waits
rather than be refused. The venue meters it with the same sliding window as the trading API
(stamped by each answer's ``X-Request-Received-Ms``; a 429 charges nothing), so the budget
follows the same rule as the service client's (`tui.api.budget`): a charge counts from sending,
an answer re-stamps it on the stats server's clock (learnt from those stamps, `ServerClock`), a
429 refunds it and blocks until the reset counted from its stamp, no answer keeps it. No key,
signature or timestamp is ever sent here. A failed read goes again by the same rules as any GET
of the trading API (`tui.api.client.retry`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import httpx
from pydantic import ValidationError

from tui.api.budget import TokenBudget, asyncio_sleep, reset_from_now, settle_answer
from tui.api.client.connections import connection_pool
from tui.api.client.retry import Action, RetryPolicy, Tries, outcome_of
from tui.api.clock import RECEIVED_HEADER, ServerClock, read_stamp
from tui.api.endpoints import STATS_PER_IP, STATS_WINDOW_S, Method
from tui.api.errors import (
    ApiError,
    MalformedResponse,
    RateLimited,
    backoff_delay,
    error_from_response,
    transport_error,
)
from tui.api.jsonwire import decode_json

if TYPE_CHECKING:
    from tui.api.models import MarketStats

__all__ = ["STATS_PATH", "StatsClient"]

STATS_PATH = "/metadata/stats"
_LABEL = f"GET {STATS_PATH}"


class StatsClient:
    """Reads the public statistics record; one per stats base URL, shared by the desk.

    ``sleep`` (async, seconds) and ``monotonic`` (a clock in seconds) are what retries and a
    budget made here (when ``budget`` is None) wait with; tests inject fakes of both together.
    ``clock`` is the estimate of the stats server's clock (its own by default).
    """

    def __init__(
        self,
        stats_base_url: str,
        transport: httpx.AsyncBaseTransport | None = None,
        *,
        budget: TokenBudget | None = None,
        timeout: float | httpx.Timeout = 10.0,
        max_attempts: int = 3,
        max_rate_limit_waits: int = 2,
        sleep: Callable[[float], Awaitable[None]] = asyncio_sleep,
        rng: random.Random | None = None,
        monotonic: Callable[[], float] = time.monotonic,
        clock: ServerClock | None = None,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.base_url = stats_base_url.rstrip("/")
        self.budget = (
            budget
            if budget is not None
            else TokenBudget(STATS_PER_IP, STATS_WINDOW_S, clock=monotonic, sleep=sleep)
        )
        self.clock = clock if clock is not None else ServerClock()
        self.max_attempts = max_attempts
        self.max_rate_limit_waits = max_rate_limit_waits
        self._policy = RetryPolicy(max_attempts, max_rate_limit_waits)
        self.last_latency_ms: float | None = None
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._http = connection_pool(
            self.base_url,
            transport=transport,
            timeout=timeout,
            headers={"accept": "application/json"},
        )

    def __repr__(self) -> str:
        return f"StatsClient(base_url={self.base_url!r})"

    async def __aenter__(self) -> StatsClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def stats(self) -> MarketStats:
        """The platform-wide and per-listing statistics, parsed (decimals stay `Decimal`)."""
        tries = Tries()
        while True:
            async with self.budget.spending(1) as charge:
                sent = self.clock.local_ms()
                started = time.perf_counter()
                cause: httpx.TransportError | None = None
                error: ApiError
                try:
                    response = await self._http.get(STATS_PATH)
                except httpx.TransportError as exc:
                    # No answer: the charge is kept (`TokenBudget.lost`) as the block ends.
                    cause, error = exc, transport_error(exc, _LABEL)
                else:
                    received = self.clock.local_ms()
                    self.last_latency_ms = (time.perf_counter() - started) * 1000
                    self.clock.observe_header(response.headers.get(RECEIVED_HEADER), sent, received)
                    stamp = read_stamp(response.headers.get(RECEIVED_HEADER))
                    if response.status_code == 200:
                        settle_answer(self.budget, charge, self.clock, stamp, sent)
                        return self._parse(response)
                    error = error_from_response(response, _LABEL)
                    if isinstance(error, RateLimited):
                        # Refused uncharged; another desk behind the same IP may share the
                        # limit: wait for the server's reset, counted from its stamp.
                        self.budget.refunded(charge)
                        self.budget.penalize(reset_from_now(self.clock, error.resets_in_ms, stamp))
                    else:
                        settle_answer(self.budget, charge, self.clock, stamp, sent)
            action = self._policy.decide(Method.GET, tries, outcome_of(error, signed=False))
            if action is Action.RAISE:
                if cause is not None:
                    raise error from cause
                raise error
            if action is Action.BACKOFF:
                await self._sleep(backoff_delay(tries.attempt, rng=self._rng))
            tries = tries.after(action)

    @staticmethod
    def _parse(response: httpx.Response) -> MarketStats:
        try:
            data: Any = decode_json(response.content)
        except (ValueError, UnicodeDecodeError):
            raise MalformedResponse(
                "the response is not JSON", status=200, endpoint=_LABEL
            ) from None
        # The record comes bare; a server that wraps it in the API's envelope is tolerated.
        if isinstance(data, dict) and "result" in data and "total_volume_24h" not in data:
            data = data["result"]
        from tui.api.models import MarketStats
        from tui.api.models.base import plain_errors

        try:
            return MarketStats.model_validate(data)
        except ValidationError as exc:
            fields = ", ".join(
                ".".join(str(p) for p in e["loc"]) or "body" for e in plain_errors(exc)[:3]
            )
            raise MalformedResponse(
                f"unexpected statistics record ({fields})", status=200, endpoint=_LABEL
            ) from None
