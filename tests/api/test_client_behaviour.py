"""The client's behaviour on the wire: paging, budget, 429, clock skew, retries, errors, secrets."""

from __future__ import annotations

import asyncio
import logging

import httpx
import pytest

from tests.api.kit import (
    API_SECRET,
    LOCAL_MS,
    FakeTime,
    FakeVenue,
    LocalClock,
    fail,
    make_client,
    ok,
    page,
)
from tests.api.kit import records as rec
from tui.api.client import CallInfo
from tui.api.errors import (
    ApiError,
    AuthError,
    BadRequest,
    Conflict,
    ConnectionLost,
    Forbidden,
    InvalidArgument,
    MalformedResponse,
    NotFound,
    OutOfRange,
    RateLimited,
    RequestTimeout,
    ServerError,
    TimestampSkew,
)
from tui.api.models import AcceptQuoteRequest, Company
from tui.api.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER

ACCEPT = AcceptQuoteRequest(parent_quote_id=rec.QUOTE_ID, rfq_id=rec.RFQ_ID, side="sell")


def _company(n: int) -> dict[str, object]:
    return dict(rec.COMPANY, id=f"a1b2c3d4-0000-4000-8000-{n:012d}", short_name=f"C{n}")


# -- paging ----------------------------------------------------------------------------------


async def test_iterate_follows_next_page_exactly(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "GET",
        "/v1/companies",
        page([_company(1), _company(2)], {"limit": "2", "offset": "2"}),
        page([_company(3), _company(4)], {"limit": "2", "offset": "4", "cursor": "Zm9v+/="}),
        page([_company(5)], None),
    )
    async with make_client(venue, fake_time) as client:
        names = [c.short_name async for c in client.iterate(client.companies, limit=2)]
        assert client.tokens_used == 3
    assert names == ["C1", "C2", "C3", "C4", "C5"]
    queries = [list(r.url.params.multi_items()) for r in venue.requests]
    assert queries == [
        [("limit", "2")],
        [("limit", "2"), ("offset", "2")],
        [("limit", "2"), ("offset", "4"), ("cursor", "Zm9v+/=")],
    ]


async def test_iterate_by_name_keeps_the_filters(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "GET",
        "/v1/rfqs/received",
        page([rec.RFQ], {"limit": "1000", "offset": "1000"}),
        page([rec.RFQ], None),
    )
    async with make_client(venue, fake_time) as client:
        rfqs = [r async for r in client.iterate("rfqs_received", price=False)]
    assert len(rfqs) == 2
    assert [dict(r.url.params) for r in venue.requests] == [
        {"price": "false"},
        {"price": "false", "limit": "1000", "offset": "1000"},
    ]


async def test_iterate_refuses_bad_arguments_at_once(fake_time: FakeTime) -> None:
    async with make_client(FakeVenue(), fake_time) as client:
        with pytest.raises(InvalidArgument) as caught:
            client.iterate(client.quotes, limit=5000)
        assert caught.value.field == "limit"
        with pytest.raises(InvalidArgument) as caught:
            client.iterate("companies", pool="x")
        assert caught.value.field == "pool"
        with pytest.raises(InvalidArgument, match="not a list endpoint"):
            client.iterate("quotes_new")


async def test_iterate_stops_on_a_pagination_loop(fake_time: FakeTime) -> None:
    venue = FakeVenue().on("GET", "/v1/quotes", page([rec.QUOTE], {"offset": "1"}))
    async with make_client(venue, fake_time) as client:
        with pytest.raises(MalformedResponse, match="pagination"):
            _ = [q async for q in client.iterate("quotes")]
    assert len(venue.requests) == 2


async def test_single_page_carries_next_page(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "GET", "/v1/companies", page([rec.COMPANY], {"limit": "1", "offset": "1"})
    )
    async with make_client(venue, fake_time) as client:
        result = await client.companies(limit=1)
    assert result.pagination.next_page == {"limit": "1", "offset": "1"}
    assert isinstance(result.result[0], Company)


# -- budget and 429 --------------------------------------------------------------------------


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
            await client.quotes_accept(ACCEPT)
        assert client.budget.blocked_for() == pytest.approx(4.0)
    assert caught.value.resets_in_ms == 4000
    assert caught.value.endpoint == "POST /v1/quotes/accept"
    assert len(venue.requests) == 1


# -- clock -----------------------------------------------------------------------------------


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
        accepted = await client.quotes_accept(ACCEPT)
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


# -- errors ----------------------------------------------------------------------------------


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
            await client.quotes_accept(ACCEPT)
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


# -- retries ---------------------------------------------------------------------------------


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
            await client.quotes_accept(ACCEPT)
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
            await client.quotes_accept(ACCEPT)
    assert caught.value.maybe_sent
    assert len(venue.requests) == 1


async def test_post_that_never_left_is_retried(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "POST", "/v1/quotes/accept", httpx.ConnectError("refused"), ok(rec.QUOTE_ACCEPT)
    )
    async with make_client(venue, fake_time) as client:
        accepted = await client.quotes_accept(ACCEPT)
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


# -- what the desk reads ---------------------------------------------------------------------


async def test_hook_and_attributes_report_each_exchange(fake_time: FakeTime) -> None:
    seen: list[CallInfo] = []
    venue = FakeVenue().on(
        "GET", "/v1/portfolio/summary", fail(502, None), ok(rec.PORTFOLIO_SUMMARY)
    )
    async with make_client(venue, fake_time, on_call=seen.append) as client:
        assert client.last_latency_ms is None
        await client.portfolio_summary()
        assert client.last_latency_ms is not None and client.last_latency_ms >= 0
        assert client.last_call == seen[-1]
    assert [(i.endpoint, i.status, i.attempt) for i in seen] == [
        ("portfolio_summary", 502, 1),
        ("portfolio_summary", 200, 2),
    ]
    assert seen[-1].tokens_used == 20


async def test_a_failing_hook_does_not_fail_the_call(
    fake_time: FakeTime, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(info: CallInfo) -> None:
        raise RuntimeError("display bug")

    venue = FakeVenue().on("POST", "/v1/quotes/cancel_all", ok(True))
    with caplog.at_level(logging.ERROR):
        async with make_client(venue, fake_time, on_call=broken) as client:
            assert await client.quotes_cancel_all() is True
    assert "on_call hook failed" in caplog.text


# -- secrets ---------------------------------------------------------------------------------


async def test_the_secret_never_shows(
    fake_time: FakeTime, caplog: pytest.LogCaptureFixture
) -> None:
    venue = (
        FakeVenue()
        .on("POST", "/v1/quotes/accept", fail(401, 2000, "bad signature"))
        .on("GET", "/v1/quotes", httpx.ConnectError("refused"))
    )
    texts: list[str] = []
    with caplog.at_level(logging.DEBUG):
        async with make_client(venue, fake_time, max_attempts=1) as client:
            texts += [repr(client), str(client), repr(vars(client)), repr(client._auth)]
            for call in (lambda: client.quotes_accept(ACCEPT), lambda: client.quotes()):
                with pytest.raises(ApiError) as caught:
                    await call()
                texts += [str(caught.value), repr(caught.value), repr(vars(caught.value))]
                cause = caught.value.__cause__
                texts += [str(cause), repr(cause)]
    texts.append(caplog.text)
    for text in texts:
        assert API_SECRET not in text
        assert API_SECRET.upper() not in text


# -- the user's reserve ----------------------------------------------------------------------


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
        await client.quotes_accept(ACCEPT)
        await client.quotes_accept(ACCEPT)
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
