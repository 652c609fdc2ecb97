"""The client's token budget on the wire: calls wait rather than overspend, a 429 waited out
(GET) or raised (POST), and the reserve background calls leave for the user's own."""

from __future__ import annotations

import asyncio

import pytest

from tests.api.kit import FakeTime, FakeVenue, fail, make_client, ok, page
from tests.api.kit import records as rec
from tests.api.kit.calls import ACCEPT_SELL
from tui.api.errors import RateLimited


async def test_calls_wait_for_the_budget_instead_of_overspending(fake_time: FakeTime) -> None:
    venue = FakeVenue().on("GET", "/v1/rfqs/received", page([]))
    async with make_client(venue, fake_time) as client:
        for _ in range(11):
            await client.rfqs_received()  # 10 tokens each: the 11th must wait
    assert len(venue.requests) == 11
    assert sum(fake_time.sleeps) >= 10


async def test_get_waits_out_a_429_and_retries(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "GET",
        "/v1/portfolio/summary",
        fail(429, 5000, "budget", **{"X-Rate-Limit-Resets-In-Ms": "1500"}),
        ok(rec.PORTFOLIO_SUMMARY),
    )
    start = fake_time.now
    async with make_client(venue, fake_time) as client:
        summary = await client.portfolio_summary()
    assert summary.sum_upnl is not None
    assert len(venue.requests) == 2
    assert fake_time.now - start >= 1.5


async def test_get_gives_up_after_repeated_429(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "GET", "/v1/quotes", fail(429, 5000, "budget", **{"X-Rate-Limit-Resets-In-Ms": "100"})
    )
    async with make_client(venue, fake_time, max_rate_limit_waits=2) as client:
        with pytest.raises(RateLimited) as caught:
            await client.quotes()
    assert caught.value.resets_in_ms == 100
    assert len(venue.requests) == 3


async def test_post_429_is_raised_and_penalizes_the_budget(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "POST",
        "/v1/quotes/accept",
        fail(429, 5000, "budget", **{"X-Rate-Limit-Resets-In-Ms": "4000"}),
    )
    async with make_client(venue, fake_time) as client:
        with pytest.raises(RateLimited) as caught:
            await client.quotes_accept(ACCEPT_SELL)
        assert client.budget.blocked_for() == pytest.approx(4.0)
    assert caught.value.resets_in_ms == 4000
    assert caught.value.endpoint == "POST /v1/quotes/accept"
    assert len(venue.requests) == 1


async def test_background_calls_leave_the_reserve_for_the_user(fake_time: FakeTime) -> None:
    venue = (
        FakeVenue()
        .on("GET", "/v1/rfqs/received", page([]))
        .on("POST", "/v1/quotes/accept", ok(rec.QUOTE_ACCEPT))
    )
    async with make_client(venue, fake_time) as client:
        with client.keeping_free():
            for _ in range(6):
                await client.rfqs_received()
            assert fake_time.sleeps == []
            assert client.budget.available(keep_free=40) == 0
        # The user's accepts (outside the reserve context) go at once.
        await client.quotes_accept(ACCEPT_SELL)
        await client.quotes_accept(ACCEPT_SELL)
        assert fake_time.sleeps == []
        assert client.tokens_used == 100
        with client.keeping_free(40):
            await client.rfqs_received()  # waits for the window to roll
        assert fake_time.sleeps != []


async def test_the_reserve_follows_the_task_not_the_client(fake_time: FakeTime) -> None:
    venue = FakeVenue().on("POST", "/v1/quotes/cancel_all", ok(True))
    async with make_client(venue, fake_time) as client:
        assert client.budget.try_acquire(60)
        entered = asyncio.Event()
        release = asyncio.Event()

        async def background() -> None:
            with client.keeping_free():
                entered.set()
                await release.wait()

        task = asyncio.create_task(background())
        await entered.wait()
        assert await client.quotes_cancel_all() is True  # 60 + 20 <= 100: no reserve here
        assert fake_time.sleeps == []
        release.set()
        await task
