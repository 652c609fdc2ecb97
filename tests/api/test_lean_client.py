"""The client's speed work (issue 11), as behaviour: pages are read straight from their bytes,
importing the client builds no model, and a plain-HTTP client loads no CA bundle.

The figures themselves are benchmarks (`tests/bench/bench_paging.py`,
`tests/bench/bench_imports.py`); these tests hold the mechanisms, which cannot be timed here.
"""

from __future__ import annotations

import json
import ssl
import subprocess
import sys
from decimal import Decimal
from typing import Any

import httpx
import pytest

from tests.api.kit import FakeTime, FakeVenue, make_client, page
from tests.api.kit import records as rec
from tui.api.client import wire
from tui.api.client.connections import connection_pool
from tui.api.errors import MalformedResponse
from tui.api.models import ClearingStatus, Trade, UnknownVariant


def _no_python_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(content: bytes) -> Any:
        raise AssertionError("a page went through json.loads")

    monkeypatch.setattr(wire, "decode_json", refuse)


async def test_a_page_is_read_on_pydantics_json_path(
    fake_time: FakeTime, monkeypatch: pytest.MonkeyPatch
) -> None:
    odd = dict(
        rec.TRADE,
        id="odd",
        status="pending_new_thing",
        pool_location=None,
        instrument={"instrument_type": "future_spread", "underlying": "BTC"},
        venue_note={"a": [1, 2]},
    )
    venue = FakeVenue().on("GET", "/v1/portfolio/trades", page([rec.TRADE, odd]))
    _no_python_decoding(monkeypatch)
    async with make_client(venue, fake_time) as client:
        trades = (await client.portfolio_trades()).result
    assert all(isinstance(trade, Trade) for trade in trades)
    assert trades[0].status is ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL
    assert isinstance(trades[0].price, Decimal)
    # The tolerant reader holds on the JSON path: unknown values, kinds and fields are kept.
    assert trades[1].status == "pending_new_thing" and trades[1].pool_location == ""
    assert isinstance(trades[1].instrument, UnknownVariant)
    assert trades[1].model_extra == {"venue_note": {"a": [1, 2]}}


async def test_a_page_that_does_not_fit_names_the_field_once(fake_time: FakeTime) -> None:
    bad = dict(rec.TRADE, pool_location=5)
    venue = FakeVenue().on("GET", "/v1/portfolio/trades", page([bad]))
    async with make_client(venue, fake_time) as client:
        with pytest.raises(MalformedResponse) as caught:
            await client.portfolio_trades()
    assert "result.0.pool_location: Input should be a valid string" in str(caught.value)
    assert "None" not in str(caught.value) and "null-as-default" not in str(caught.value)


async def test_a_page_that_is_not_json_is_malformed(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "GET", "/v1/portfolio/trades", httpx.Response(200, content=b'{"result": [')
    )
    async with make_client(venue, fake_time) as client:
        with pytest.raises(MalformedResponse, match="not JSON"):
            await client.portfolio_trades()


HEAVY = ("pydantic.main", "pydantic.types", "pydantic.functional_validators", "asyncio")
"""What importing the client must not load: pydantic's model machinery, asyncio."""


def test_importing_the_client_builds_no_model() -> None:
    probe = (
        "import json, sys, tui.api.client, tui.api.stats; print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run(  # noqa: S603 - our own interpreter
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    loaded = json.loads(done.stdout)
    # The enums are plain Python (the errors name codes with them); no record room is loaded.
    rooms = {m for m in loaded if m.startswith("tui.api.models.")}
    assert rooms == {"tui.api.models.enums"}
    assert not [m for m in loaded if m.startswith(HEAVY)]


def test_a_plain_http_pool_loads_no_certificate_authority() -> None:
    def ca_count(client: httpx.AsyncClient) -> int:
        context = client._transport._pool._ssl_context  # type: ignore[attr-defined]
        assert isinstance(context, ssl.SSLContext)
        return int(context.cert_store_stats()["x509_ca"])

    plain = connection_pool("http://127.0.0.1:8765", transport=None, timeout=1, headers={})
    secure = connection_pool("https://venue.example", transport=None, timeout=1, headers={})
    assert ca_count(plain) == 0
    assert ca_count(secure) > 0
    assert plain._transport._pool._ssl_context.verify_mode == ssl.CERT_REQUIRED  # type: ignore[attr-defined]
