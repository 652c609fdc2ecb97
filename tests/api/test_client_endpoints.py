"""Every endpoint method sends the right method, path, query and body, signed, and parses the
reply into typed models (unknown fields and enum values included)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from tests.api.kit import API_KEY, API_SECRET, FakeTime, FakeVenue, make_client, page
from tests.api.kit import records as rec
from tests.api.kit.calls import ACCEPT, CASES, LAST_LOOK, TEMPLATE_REQUEST, Call
from tui.api.client import ServiceClient
from tui.api.endpoints import ENDPOINTS, endpoint_named
from tui.api.models import (
    RFQ,
    AggregatedPosition,
    Asset,
    ClearingStatus,
    Company,
    MakerLastLookResponse,
    PerpetualFutureInstrument,
    PortfolioSummary,
    Position,
    Quote,
    QuoteAcceptResponse,
    SettlementPool,
    Status,
    SupportedAssetDetails,
    Trade,
    Transfer,
    VanillaOptionInstrument,
)
from tui.api.signing import KEY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, verify


def test_every_catalogue_endpoint_has_a_method_and_a_case() -> None:
    names = {e.name for e in ENDPOINTS}
    assert names == {case[0] for case in CASES}
    for name in names:
        assert callable(getattr(ServiceClient, name))


@pytest.mark.parametrize(
    ("name", "call", "query", "body", "reply"), CASES, ids=[case[0] for case in CASES]
)
async def test_endpoint_wire(
    fake_time: FakeTime,
    name: str,
    call: Call,
    query: list[tuple[str, str]],
    body: Any,
    reply: httpx.Response,
) -> None:
    endpoint = endpoint_named(name)
    venue = FakeVenue().on(endpoint.method.value, endpoint.path, reply)
    async with make_client(venue, fake_time) as client:
        result = await call(client)
        assert client.tokens_used == endpoint.cost
    (request,) = venue.requests
    assert request.method == endpoint.method.value
    assert request.url.path == endpoint.path
    assert list(request.url.params.multi_items()) == query
    expected_path = endpoint.path + (f"?{urlencode(query)}" if query else "")
    assert request.url.raw_path.decode() == expected_path
    if body is None:
        assert request.content == b""
        assert "content-type" not in request.headers
    else:
        assert request.headers["content-type"] == "application/json"
        assert json.loads(request.content) == body
        assert b": " not in request.content and b", " not in request.content  # compact
    # Signed over exactly what went on the wire.
    assert request.headers[KEY_HEADER] == API_KEY
    assert verify(
        API_KEY,
        API_SECRET,
        int(request.headers[TIMESTAMP_HEADER]),
        request.method,
        request.url.raw_path.decode(),
        request.content or None,
        request.headers[SIGNATURE_HEADER],
    )
    assert result is not None


async def test_records_parse_into_typed_models(fake_time: FakeTime) -> None:
    venue = FakeVenue()
    for name, _, _, _, reply in CASES:
        endpoint = endpoint_named(name)
        venue.on(endpoint.method.value, endpoint.path, reply)
    async with make_client(venue, fake_time) as client:
        (company,) = (await client.companies()).result
        assert isinstance(company, Company) and company.short_name == "DESK"
        (asset,) = (await client.portfolio_assets()).result
        assert isinstance(asset, Asset) and asset.qty == Decimal("218205.58082")
        (position,) = (await client.portfolio_positions()).result
        assert isinstance(position, Position)
        assert isinstance(position.instrument, PerpetualFutureInstrument)
        (aggregated,) = (await client.portfolio_aggregated_positions()).result
        assert isinstance(aggregated, AggregatedPosition) and aggregated.iv is None
        (trade,) = (await client.portfolio_trades()).result
        assert isinstance(trade, Trade) and trade.price == Decimal("64250.5")
        summary = await client.portfolio_summary()
        assert isinstance(summary, PortfolioSummary)
        assert summary.sum_balance == Decimal("100000.000001")
        (quote,) = (await client.quotes()).result
        assert isinstance(quote, Quote)
        assert quote.clearing_status is ClearingStatus.PENDING_MAKER_LAST_LOOK
        assert quote.per_leg_quotes[0].ask == Decimal("64300.5")
        (rfq,) = (await client.rfqs_received()).result
        assert isinstance(rfq, RFQ) and rfq.best_bid is not None
        assert rfq.best_bid.quote_price == Decimal("32100")
        (pool,) = (await client.settlement_pools()).result
        assert isinstance(pool, SettlementPool) and pool.data is not None
        assert pool.data.parties[0].margin_usage is not None
        (transfer,) = (await client.transfers()).result
        assert isinstance(transfer, Transfer) and transfer.qty == Decimal("2500")
        accepted = await client.quotes_accept(ACCEPT)
        assert isinstance(accepted, QuoteAcceptResponse)
        assert accepted.pending_deposits_sum_qty == Decimal("320.5")
        looked = await client.quotes_maker_last_look(LAST_LOOK)
        assert isinstance(looked, MakerLastLookResponse)
        assert looked.settlement_pool_address == rec.POOL_ADDRESS
        status = await client.status()
        assert isinstance(status, Status) and status.auth is not None
        assert status.server_timestamp_ms == rec.STATUS["server_timestamp_ms"]
        assets = await client.supported_assets()
        assert isinstance(assets["BTC"][0], SupportedAssetDetails)
        assert await client.quotes_cancel(rec.QUOTE_ID) is True
        template = await client.transfers_permit_template(TEMPLATE_REQUEST)
        assert template["primaryType"] == "Permit"


async def test_unknown_fields_and_enum_values_do_not_break_parsing(fake_time: FakeTime) -> None:
    odd_option = dict(rec.OPTION, payoff="call")
    odd = dict(
        rec.TRADE,
        status="pending_something_new",
        instrument={"instrument_type": "exotic_barrier", "underlying": "SOL"},
        brand_new_field={"x": 1},
    )
    venue = FakeVenue().on(
        "GET", "/v1/portfolio/trades", page([odd, dict(rec.TRADE, instrument=odd_option)])
    )
    async with make_client(venue, fake_time) as client:
        first, second = (await client.portfolio_trades()).result
    assert first.status == "pending_something_new"
    assert first.model_extra == {"brand_new_field": {"x": 1}}
    assert isinstance(second.instrument, VanillaOptionInstrument)
