"""A venue that meters request tokens exactly as the sandbox does, on fake time with latency.

`MeteredVenue` is an httpx.MockTransport handler: every request waits its uplink latency (fake
time moves on), is stamped on the venue's clock (local time plus ``skew_ms``) and charged to the
company with the sandbox's own `CompanyTokenMeter`, then answers (200, or the sandbox's
429/5000 with ``X-Rate-Limit-Resets-In-Ms``) after its downlink latency. Every answer carries
``X-Request-Received-Ms``. `metered_client` is a `ServiceClient` on it whose budget clock
(seconds) and wall clock (ms) both read the same `FakeTime`, as real clocks do.
"""

from __future__ import annotations

import asyncio
import random
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.api.kit import records as rec
from tests.api.kit.clocks import LOCAL_MS, FakeTime
from tests.api.kit.venue import API_KEY, API_SECRET, BASE_URL
from tui.api.budget import TokenBudget
from tui.api.client import ServiceClient
from tui.api.clock import RECEIVED_HEADER, ServerClock
from tui.api.endpoints import endpoint_for
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.http.limits import RATE_LIMIT_RESET_HEADER, CompanyTokenMeter

_RESULTS: dict[str, Any] = {
    "companies": [],
    "quotes": [],
    "portfolio_summary": rec.PORTFOLIO_SUMMARY,
    "quotes_cancel_all": True,
    "status": rec.STATUS,
}
_PAGED = frozenset({"companies", "quotes"})


@dataclass(frozen=True)
class Leg:
    """How long one request takes: to the venue (before it is stamped) and back (after)."""

    up_ms: int = 0
    down_ms: int = 0
    lost: bool = False
    """The answer never arrives: the client sees a broken connection after ``down_ms``."""
    hold: asyncio.Event | None = None
    """Held on the way to the venue until this is set (the test looks at the client meanwhile)."""


@dataclass
class MeteredVenue:
    """The sandbox's token meter behind fake latencies (see the module docstring)."""

    time: FakeTime
    skew_ms: int = 0
    tokens: int = 100
    legs: deque[Leg] = field(default_factory=deque)
    refused: int = 0
    stamps: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.meter = CompanyTokenMeter(self.tokens)
        self.start = self.time.now

    def local_ms(self) -> int:
        """The client's wall clock: fake time in ms from `LOCAL_MS`."""
        return LOCAL_MS + round((self.time.now - self.start) * 1000)

    def server_ms(self) -> int:
        """The venue's clock: the local wall clock plus the skew."""
        return self.local_ms() + self.skew_ms

    def plan(self, legs: Iterable[Leg]) -> MeteredVenue:
        """Queue the latencies of the next requests (without a plan a request takes no time)."""
        self.legs.extend(legs)
        return self

    async def handler(self, request: httpx.Request) -> httpx.Response:
        """Wait the uplink, stamp and charge, answer after the downlink."""
        leg = self.legs.popleft() if self.legs else Leg()
        self.time.advance(leg.up_ms / 1000)
        if leg.hold is not None:
            await leg.hold.wait()
        stamp = self.server_ms()
        self.stamps.append(stamp)
        endpoint = endpoint_for(request.method, request.url.path)
        assert endpoint is not None, request.url.path
        headers = {RECEIVED_HEADER: str(stamp)}
        try:
            self.meter.charge("company", endpoint.cost, stamp)
        except ServiceError as refusal:
            self.refused += 1
            headers.update(refusal.headers or {})
            assert RATE_LIMIT_RESET_HEADER in headers
            response = httpx.Response(
                429, json={"error": {"code": 5000, "message": str(refusal)}}, headers=headers
            )
        else:
            result = _RESULTS[endpoint.name]
            body: dict[str, Any] = {"result": result}
            if endpoint.name in _PAGED:
                body["pagination"] = {"next_page": None}
            response = httpx.Response(200, json=body, headers=headers)
        self.time.advance(leg.down_ms / 1000)
        if leg.lost:
            raise httpx.ReadError("connection reset", request=request)
        return response


def metered_client(venue: MeteredVenue, budget: TokenBudget | None = None, **kwargs: Any) -> Any:
    """A `ServiceClient` on ``venue`` whose budget and wall clock read the venue's fake time."""
    time = venue.time
    return ServiceClient(
        BASE_URL,
        API_KEY,
        API_SECRET,
        budget=budget or TokenBudget(clock=time.clock, sleep=time.sleep),
        clock=ServerClock(local_ms=venue.local_ms),
        transport=httpx.MockTransport(venue.handler),
        sleep=time.sleep,
        rng=random.Random(1),
        **kwargs,
    )
