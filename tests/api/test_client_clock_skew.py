"""The client's clock against the server's: a skew refusal resyncs once and retries, the
resync corrects for half the round trip, every response's received header feeds the clock."""

from __future__ import annotations

import httpx
import pytest

from tests.api.kit import LOCAL_MS, FakeTime, FakeVenue, LocalClock, fail, make_client, ok, page
from tests.api.kit import records as rec
from tests.api.kit.calls import ACCEPT_SELL
from tui.api.errors import TimestampSkew
from tui.api.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER


async def test_skew_resyncs_the_clock_once_and_retries_a_post(fake_time: FakeTime) -> None:
    server_ahead_ms = 60_000
    local = LocalClock()

    def status(request: httpx.Request) -> httpx.Response:
        return ok({"auth": None, "server_timestamp_ms": local.now_ms + server_ahead_ms})

    def accept(request: httpx.Request) -> httpx.Response:
        stamp = int(request.headers[TIMESTAMP_HEADER])
        if abs(stamp - (local.now_ms + server_ahead_ms)) > 5000:
            return fail(401, 2001, "timestamp too far from server time")
        return ok(rec.QUOTE_ACCEPT)

    venue = FakeVenue().on("GET", "/v1/status", status).on("POST", "/v1/quotes/accept", accept)
    async with make_client(venue, fake_time, local) as client:
        accepted = await client.quotes_accept(ACCEPT_SELL)
        assert client.clock_offset_ms == server_ahead_ms
    assert accepted.pending_deposits_sum_qty is not None
    paths = [r.url.path for r in venue.requests]
    assert paths == ["/v1/quotes/accept", "/v1/status", "/v1/quotes/accept"]
    sync = venue.requests[1]
    assert SIGNATURE_HEADER not in sync.headers  # the resync is unsigned: it cannot fail on skew
    assert int(venue.requests[2].headers[TIMESTAMP_HEADER]) == LOCAL_MS + server_ahead_ms


async def test_skew_twice_is_raised(fake_time: FakeTime) -> None:
    venue = (
        FakeVenue()
        .on("GET", "/v1/status", ok({"auth": None, "server_timestamp_ms": LOCAL_MS}))
        .on("POST", "/v1/rfqs/cancel", fail(401, 2001, "skew"))
    )
    async with make_client(venue, fake_time) as client:
        with pytest.raises(TimestampSkew):
            await client.rfqs_cancel(rec.RFQ_ID)
    assert [r.url.path for r in venue.requests] == [
        "/v1/rfqs/cancel",
        "/v1/status",
        "/v1/rfqs/cancel",
    ]


async def test_sync_clock_corrects_for_half_the_round_trip(fake_time: FakeTime) -> None:
    local = LocalClock()

    def status(request: httpx.Request) -> httpx.Response:
        local.now_ms += 100  # the exchange takes 200 ms; the server reads its clock halfway
        server = local.now_ms + 7000
        local.now_ms += 100
        return ok({"auth": None, "server_timestamp_ms": server})

    venue = FakeVenue().on("GET", "/v1/status", status)
    async with make_client(venue, fake_time, local) as client:
        assert await client.sync_clock() == 7000
        assert client.clock.now_ms() == local.now_ms + 7000


async def test_every_response_header_feeds_the_clock(fake_time: FakeTime) -> None:
    local = LocalClock()
    venue = FakeVenue().on(
        "GET",
        "/v1/companies",
        lambda request: page([], None).__class__(
            200,
            json={"result": [], "pagination": {"next_page": None}},
            headers={"X-Request-Received-Ms": str(local.now_ms - 2500)},
        ),
    )
    async with make_client(venue, fake_time, local) as client:
        await client.companies()
        assert client.clock_offset_ms == -2500
        await client.companies()
        assert int(venue.requests[1].headers[TIMESTAMP_HEADER]) == LOCAL_MS - 2500
