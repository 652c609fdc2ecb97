"""Never left or maybe landed: how each httpx failure of a write is classified (issue 10).

`ConnectionLost.maybe_sent` is False exactly when provably nothing left: the connection was
never opened (refused, timed out, no pooled connection free, the proxy refused, a scheme httpx
cannot speak). Once a connection is open, any failure may come after the venue got the request.
Checked through `ServiceClient` on `httpx.MockTransport`, one attempt per call.
"""

from __future__ import annotations

from decimal import Decimal

import httpx
import pytest

from tests.api.kit import FakeTime, FakeVenue, make_client
from tests.api.kit import records as rec
from tui.api.errors import ConnectionLost, RequestTimeout
from tui.api.models import NewTransferRequest

NEVER_LEFT = [
    httpx.ConnectError("connection refused"),
    httpx.ConnectTimeout("no answer to SYN"),
    httpx.PoolTimeout("no pooled connection free"),
    httpx.ProxyError("the proxy refused to connect"),
    httpx.UnsupportedProtocol("no such scheme"),
]
MAYBE_LANDED = [
    httpx.ReadError("connection reset"),
    httpx.ReadTimeout("no answer in time"),
    httpx.RemoteProtocolError("server disconnected without sending a response"),
    httpx.WriteError("broken pipe"),
    httpx.WriteTimeout("send buffer full"),
    httpx.CloseError("close failed"),
    httpx.LocalProtocolError("h11 refused the state"),
    httpx.NetworkError("some other network failure"),
]


def _deposit() -> NewTransferRequest:
    return NewTransferRequest(
        qty=Decimal(10),
        target_pool_location=rec.POOL_ID,
        counterparty=rec.MAKER,
        transfer_type="deposit",
    )


async def _failure(exc: Exception, fake_time: FakeTime) -> ConnectionLost:
    venue = FakeVenue().on("POST", "/v1/transfers/new", exc)
    async with make_client(venue, fake_time, max_attempts=1) as client:
        with pytest.raises(ConnectionLost) as caught:
            await client.transfers_new(_deposit())
    assert caught.value.endpoint == "POST /v1/transfers/new"
    assert caught.value.__cause__ is exc
    return caught.value


@pytest.mark.parametrize("exc", NEVER_LEFT, ids=lambda e: type(e).__name__)
async def test_a_write_that_never_left_says_so(exc: Exception, fake_time: FakeTime) -> None:
    lost = await _failure(exc, fake_time)
    assert lost.maybe_sent is False
    assert isinstance(lost, RequestTimeout) == isinstance(exc, httpx.TimeoutException)


@pytest.mark.parametrize("exc", MAYBE_LANDED, ids=lambda e: type(e).__name__)
async def test_a_write_whose_answer_was_lost_may_have_landed(
    exc: Exception, fake_time: FakeTime
) -> None:
    lost = await _failure(exc, fake_time)
    assert lost.maybe_sent is True
    assert isinstance(lost, RequestTimeout) == isinstance(exc, httpx.TimeoutException)


async def test_a_write_is_resent_only_while_it_provably_never_left(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "POST",
        "/v1/transfers/new",
        httpx.ProxyError("proxy refused"),
        httpx.ReadError("reset after sending"),
    )
    async with make_client(venue, fake_time, max_attempts=3) as client:
        with pytest.raises(ConnectionLost) as caught:
            await client.transfers_new(_deposit())
    assert caught.value.maybe_sent is True
    assert len(venue.sent("/v1/transfers/new")) == 2  # never a third, blind, resend
