"""The client's failures on the wire: each error class reaches the caller, malformed replies
are named, GETs retried within bounds, a POST never resent once it may have arrived."""

from __future__ import annotations

import httpx
import pytest

from tests.api.kit import FakeTime, FakeVenue, fail, make_client, ok, page
from tests.api.kit import records as rec
from tests.api.kit.calls import ACCEPT_SELL
from tui.api.errors import (
    ApiError,
    AuthError,
    BadRequest,
    Conflict,
    ConnectionLost,
    Forbidden,
    MalformedResponse,
    NotFound,
    OutOfRange,
    RequestTimeout,
    ServerError,
)


@pytest.mark.parametrize(
    ("status", "code", "cls"),
    [
        (400, 1000, BadRequest),
        (400, 1001, OutOfRange),
        (401, 2000, AuthError),
        (403, 2002, Forbidden),
        (404, 3000, NotFound),
        (409, 4000, Conflict),
        (500, 9000, ServerError),
        (418, None, ApiError),
    ],
)
async def test_each_error_class_reaches_the_caller(
    fake_time: FakeTime, status: int, code: int | None, cls: type[ApiError]
) -> None:
    venue = FakeVenue().on("POST", "/v1/quotes/accept", fail(status, code, "no can do"))
    async with make_client(venue, fake_time) as client:
        with pytest.raises(cls) as caught:
            await client.quotes_accept(ACCEPT_SELL)
    assert type(caught.value) is cls
    assert caught.value.status == status
    assert caught.value.endpoint == "POST /v1/quotes/accept"
    assert len(venue.requests) == 1  # a POST is never resent after the server answered


async def test_malformed_success_responses(fake_time: FakeTime) -> None:
    venue = (
        FakeVenue()
        .on("GET", "/v1/portfolio/summary", httpx.Response(200, content=b"<html>"))
        .on("GET", "/v1/status", httpx.Response(200, json={"server_timestamp_ms": 1}))
        .on("GET", "/v1/companies", page([{"id": "x"}]))
    )
    async with make_client(venue, fake_time) as client:
        with pytest.raises(MalformedResponse, match="not JSON"):
            await client.portfolio_summary()
        with pytest.raises(MalformedResponse, match="result"):
            await client.status()
        with pytest.raises(MalformedResponse, match=r"result\.0\.created_at"):
            await client.companies()


async def test_get_is_retried_after_5xx_and_connection_errors(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "GET",
        "/v1/transfers",
        fail(503, None),
        httpx.ConnectError("refused"),
        page([rec.TRANSFER]),
    )
    async with make_client(venue, fake_time, max_attempts=3) as client:
        transfers = await client.transfers()
    assert len(transfers.result) == 1
    assert len(venue.requests) == 3
    assert len(fake_time.sleeps) == 2  # one backoff before each retry
    first, second = fake_time.sleeps
    assert 0.125 <= first <= 0.25 and 0.25 <= second <= 0.5


async def test_get_retries_are_bounded(fake_time: FakeTime) -> None:
    venue = FakeVenue().on("GET", "/v1/transfers", httpx.ReadTimeout("slow"))
    async with make_client(venue, fake_time, max_attempts=4) as client:
        with pytest.raises(RequestTimeout):
            await client.transfers()
    assert len(venue.requests) == 4


async def test_post_is_not_resent_after_a_5xx(fake_time: FakeTime) -> None:
    venue = FakeVenue().on("POST", "/v1/quotes/accept", fail(500, 9000), ok(rec.QUOTE_ACCEPT))
    async with make_client(venue, fake_time) as client:
        with pytest.raises(ServerError):
            await client.quotes_accept(ACCEPT_SELL)
    assert len(venue.requests) == 1


@pytest.mark.parametrize(
    "exc",
    [httpx.ReadTimeout("slow"), httpx.RemoteProtocolError("dropped"), httpx.ReadError("reset")],
)
async def test_post_that_may_have_arrived_is_not_resent(
    fake_time: FakeTime, exc: Exception
) -> None:
    venue = FakeVenue().on("POST", "/v1/quotes/accept", exc, ok(rec.QUOTE_ACCEPT))
    async with make_client(venue, fake_time) as client:
        with pytest.raises(ConnectionLost) as caught:
            await client.quotes_accept(ACCEPT_SELL)
    assert caught.value.maybe_sent
    assert len(venue.requests) == 1


async def test_post_that_never_left_is_retried(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "POST", "/v1/quotes/accept", httpx.ConnectError("refused"), ok(rec.QUOTE_ACCEPT)
    )
    async with make_client(venue, fake_time) as client:
        accepted = await client.quotes_accept(ACCEPT_SELL)
    assert accepted.new_clearing_status == "pending_taker_deposit_approval"
    assert len(venue.requests) == 2
    first, second = venue.requests
    assert first.content == second.content


async def test_connection_refused_everywhere_is_connection_lost(fake_time: FakeTime) -> None:
    venue = FakeVenue().on("POST", "/v1/rfqs/cancel", httpx.ConnectError("refused"))
    async with make_client(venue, fake_time, max_attempts=2) as client:
        with pytest.raises(ConnectionLost) as caught:
            await client.rfqs_cancel(rec.RFQ_ID)
    assert not caught.value.maybe_sent
    assert len(venue.requests) == 2
