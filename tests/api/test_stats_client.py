"""The public statistics client: no auth headers, its own 10-per-10 s limiter, Decimal values."""

from __future__ import annotations

import random
from decimal import Decimal

import httpx
import pytest

from tests.api.kit import FakeTime, FakeVenue, fail
from tests.api.kit import records as rec
from tui.api.budget import TokenBudget
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
