"""The public statistics client: no auth headers, its own 10-per-10 s limiter, Decimal values."""

from __future__ import annotations

import random
from decimal import Decimal

import httpx
import pytest

from tests.api.kit import FakeTime, FakeVenue, fail
from tests.api.kit import records as rec
from tui.api.budget import TokenBudget
from tui.api.clock import ServerClock
from tui.api.endpoints import STATS_PER_IP, STATS_WINDOW_S
from tui.api.errors import MalformedResponse, RateLimited, ServerError
from tui.api.models import MarketStats
from tui.api.signing import KEY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER
from tui.api.stats import STATS_PATH, StatsClient


def _client(venue: FakeVenue, fake_time: FakeTime, **kwargs: object) -> StatsClient:
    return StatsClient(
        "http://stats.test/",
        httpx.MockTransport(venue.handler),
        budget=TokenBudget(
            STATS_PER_IP, STATS_WINDOW_S, clock=fake_time.clock, sleep=fake_time.sleep
        ),
        sleep=fake_time.sleep,
        rng=random.Random(3),
        **kwargs,  # type: ignore[arg-type]
    )


async def test_reads_the_public_record_without_auth(fake_time: FakeTime) -> None:
    venue = FakeVenue().on("GET", STATS_PATH, httpx.Response(200, json=rec.MARKET_STATS))
    async with _client(venue, fake_time) as client:
        stats = await client.stats()
        assert client.last_latency_ms is not None
    assert isinstance(stats, MarketStats)
    assert stats.tvl == Decimal("45000000")
    (btc,) = stats.listings
    assert btc.quotes.size_1m is not None and btc.quotes.size_1m.ask == Decimal("64300")
    assert btc.funding_rate == Decimal("0.0000125")
    (request,) = venue.requests
    assert str(request.url) == "http://stats.test/metadata/stats"
    for header in (KEY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER):
        assert header not in request.headers


async def test_limits_itself_to_ten_per_ten_seconds(fake_time: FakeTime) -> None:
    venue = FakeVenue().on("GET", STATS_PATH, httpx.Response(200, json=rec.MARKET_STATS))
    async with _client(venue, fake_time) as client:
        start = fake_time.now
        for _ in range(10):
            await client.stats()
        assert fake_time.now == start
        await client.stats()
        assert fake_time.now - start >= STATS_WINDOW_S
    assert len(venue.requests) == 11


def test_default_budget_uses_the_stats_limits() -> None:
    client = StatsClient("http://stats.test")
    assert client.budget.tokens == 10 and client.budget.window_s == 10
    assert repr(client) == "StatsClient(base_url='http://stats.test')"


async def test_a_429_waits_for_the_reset_then_retries(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "GET",
        STATS_PATH,
        fail(429, 5000, "slow down", **{"X-Rate-Limit-Resets-In-Ms": "3000"}),
        httpx.Response(200, json=rec.MARKET_STATS),
    )
    start = fake_time.now
    async with _client(venue, fake_time) as client:
        await client.stats()
    assert fake_time.now - start >= 3
    assert len(venue.requests) == 2


async def test_persistent_429_is_raised(fake_time: FakeTime) -> None:
    venue = FakeVenue().on("GET", STATS_PATH, fail(429, None, "slow down"))
    async with _client(venue, fake_time, max_rate_limit_waits=1) as client:
        with pytest.raises(RateLimited):
            await client.stats()
    assert len(venue.requests) == 2


async def test_server_errors_are_retried_then_raised(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "GET", STATS_PATH, fail(503, None), httpx.ConnectError("down"), fail(500, 9000)
    )
    async with _client(venue, fake_time, max_attempts=3) as client:
        with pytest.raises(ServerError):
            await client.stats()
    assert len(venue.requests) == 3


async def test_enveloped_record_is_tolerated_and_garbage_is_not(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "GET",
        STATS_PATH,
        httpx.Response(200, json={"result": rec.MARKET_STATS}),
        httpx.Response(200, json={"tvl": "1"}),
    )
    async with _client(venue, fake_time) as client:
        assert (await client.stats()).num_markets == 2
        with pytest.raises(MalformedResponse, match="total_volume_24h"):
            await client.stats()


# -- the budget follows the stats server's window (the service client's rule) ----------------


class _StampedStats:
    """A stats server on fake time: each request takes ``up_s`` to arrive, is stamped on the
    server's clock (the fake wall clock plus ``skew_ms``), and answers at once; the answers
    queued in ``statuses`` (200 by default, 429 with a 3 s reset) come in order."""

    def __init__(self, fake_time: FakeTime, up_s: float, skew_ms: int = 5_000) -> None:
        self.time, self.up_s, self.skew_ms = fake_time, up_s, skew_ms
        self.start = fake_time.now
        self.statuses: list[int] = []
        self.requests = 0

    def local_ms(self) -> int:
        """The client's wall clock, in ms, on the same fake time."""
        return 1_763_726_400_000 + round((self.time.now - self.start) * 1000)

    async def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        self.time.advance(self.up_s)
        stamp = {"X-Request-Received-Ms": str(self.local_ms() + self.skew_ms)}
        if self.statuses and self.statuses.pop(0) == 429:
            body = {"error": {"code": 5000, "message": "public statistics limit"}}
            return httpx.Response(
                429, json=body, headers={**stamp, "X-Rate-Limit-Resets-In-Ms": "3000"}
            )
        return httpx.Response(200, json=rec.MARKET_STATS, headers=stamp)

    def client(self) -> StatsClient:
        return StatsClient(
            "http://stats.test",
            httpx.MockTransport(self.handler),
            sleep=self.time.sleep,
            monotonic=self.time.clock,
            clock=ServerClock(local_ms=self.local_ms),
            rng=random.Random(3),
        )


async def test_a_stats_charge_counts_until_the_server_stamp_plus_the_window(
    fake_time: FakeTime,
) -> None:
    # The request took 2 s to reach the server: the server counts it until 12 s after it was
    # sent (not 10.25 s after, as a charge kept from the moment of sending would be).
    server = _StampedStats(fake_time, up_s=2.0)
    async with server.client() as client:
        await client.stats()  # learns the server clock (2 s up: +-1 s); a window to pass
        fake_time.advance(30)
        sent = fake_time.now
        await client.stats()
        fake_time.advance(sent + 11.5 - fake_time.now)
        assert client.budget.used() == 1
        fake_time.advance(1.5 + 1.0)  # past the stamp plus the window, the clock's error too
        assert client.budget.used() == 0


async def test_a_stats_429_charges_nothing_and_waits_from_its_stamp(fake_time: FakeTime) -> None:
    server = _StampedStats(fake_time, up_s=0.0)
    server.statuses = [200, 429]
    async with server.client() as client:
        await client.stats()
        fake_time.advance(30)
        start = fake_time.now
        await client.stats()  # refused once, then read after the server's reset
        assert fake_time.now - start >= 3
        assert client.budget.used() == 1  # only the answered request counts
    assert server.requests == 3
