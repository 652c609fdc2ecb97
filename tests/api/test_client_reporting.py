"""What the client tells the desk of each exchange (the ``on_call`` hook, the last call and
latency; a failing hook never fails the call), and what it never tells anyone: the secret."""

from __future__ import annotations

import logging

import httpx
import pytest

from tests.api.kit import API_SECRET, FakeTime, FakeVenue, fail, make_client, ok
from tests.api.kit import records as rec
from tests.api.kit.calls import ACCEPT_SELL
from tui.api.client import CallInfo
from tui.api.errors import ApiError


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
            for call in (lambda: client.quotes_accept(ACCEPT_SELL), lambda: client.quotes()):
                with pytest.raises(ApiError) as caught:
                    await call()
                texts += [str(caught.value), repr(caught.value), repr(vars(caught.value))]
                cause = caught.value.__cause__
                texts += [str(cause), repr(cause)]
    texts.append(caplog.text)
    for text in texts:
        assert API_SECRET not in text
        assert API_SECRET.upper() not in text
