"""Every endpoint method sends the right method, path, query and body, signed, and parses."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from tests.api.kit import API_KEY, API_SECRET, FakeTime, FakeVenue, make_client, ok, page
from tests.api.kit import records as rec
from tui.api.client import ServiceClient, encode_body, encode_query
from tui.api.endpoints import ENDPOINTS, endpoint_named
from tui.api.errors import InvalidArgument
from tui.api.models import (
    RFQ,
    AcceptQuoteRequest,
    AggregatedPosition,
    Asset,
    ClearingStatus,
    Company,
    MakerLastLookRequest,
    MakerLastLookResponse,
    NewQuoteRequest,
    NewRfqRequest,
    NewSettlementPoolRequest,
    NewTransferRequest,
    PermitTemplateRequest,
    PerpetualFutureInstrument,
    PortfolioSummary,
    Position,
    Quote,
    QuoteAcceptResponse,
    ReplaceQuoteRequest,
    SettlementPool,
    Status,
    SubmitPermitRequest,
    SupportedAssetDetails,
    Trade,
    Transfer,
    VanillaOptionInstrument,
)
from tui.api.signing import KEY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, verify

NEW_QUOTE = NewQuoteRequest.model_validate(
    {
        "rfq_id": rec.RFQ_ID,
        "expires_at": "2026-11-21T12:00:30Z",
        "leg_quotes": [rec.LEG_QUOTE],
        "pool_strategy": {"strategy": "use_existing", "pool_id": rec.POOL_ID},
        "client_quote_id": "desk-1",
    }
)
REPLACE_QUOTE = ReplaceQuoteRequest.model_validate(
    {**NEW_QUOTE.to_wire(), "parent_quote_id": rec.QUOTE_ID}
)
ACCEPT = AcceptQuoteRequest(parent_quote_id=rec.QUOTE_ID, rfq_id=rec.RFQ_ID, side="buy")
LAST_LOOK = MakerLastLookRequest(parent_quote_id=rec.QUOTE_ID, rfq_id=rec.RFQ_ID, action="accept")
NEW_RFQ = NewRfqRequest.model_validate(
    {
        "structure": {"legs": [{"side": "buy", "ratio": 1, "instrument": rec.PERP}]},
        "qty": "0.5",
        "expires_at": "2026-11-21T12:00:00Z",
        "target_companies": [rec.MAKER],
    }
)
NEW_POOL = NewSettlementPoolRequest.model_validate(
    {
        "pool_name": "Désk ↔ Alpha",
        "company_other": rec.MAKER,
        "creator_params": rec.MARGIN_PARAMS,
        "other_params": rec.MARGIN_PARAMS,
    }
)
NEW_TRANSFER = NewTransferRequest.model_validate(
    {
        "qty": "2500.000001",
        "target_pool_location": rec.POOL_ID,
        "counterparty": rec.MAKER,
        "transfer_type": "deposit",
    }
)
TEMPLATE_REQUEST = PermitTemplateRequest.model_validate(
    {"pool_address": rec.POOL_ADDRESS, "allowance": {"type": "decimal", "value": "320.5"}}
)
PERMIT = SubmitPermitRequest(
    message=rec.permit_template("0x" + "11" * 20), signature="0x" + "ab" * 65
)

Call = Callable[[ServiceClient], Awaitable[Any]]

# name, call, query sent, body sent (None: no body), reply
CASES: list[tuple[str, Call, list[tuple[str, str]], Any, httpx.Response]] = [
    (
        "companies",
        lambda c: c.companies(id=rec.ME, limit=10, offset=20),
        [("id", rec.ME), ("limit", "10"), ("offset", "20")],
        None,
        page([rec.COMPANY]),
    ),
    (
        "portfolio_assets",
        lambda c: c.portfolio_assets(pool=rec.POOL_ID),
        [("pool", rec.POOL_ID)],
        None,
        page([rec.ASSET]),
    ),
    (
        "portfolio_positions",
        lambda c: c.portfolio_positions(limit=5),
        [("limit", "5")],
        None,
        page([rec.POSITION]),
    ),
    (
        "portfolio_aggregated_positions",
        lambda c: c.portfolio_aggregated_positions(offset=0),
        [("offset", "0")],
        None,
        page([rec.AGGREGATED_POSITION]),
    ),
    (
        "portfolio_trades",
        lambda c: c.portfolio_trades(pool=rec.POOL_ID, id=rec.TRADE["id"]),
        [("pool", rec.POOL_ID), ("id", rec.TRADE["id"])],
        None,
        page([rec.TRADE]),
    ),
    ("portfolio_summary", lambda c: c.portfolio_summary(), [], None, ok(rec.PORTFOLIO_SUMMARY)),
    (
        "quotes",
        lambda c: c.quotes(id=rec.QUOTE_ID),
        [("id", rec.QUOTE_ID)],
        None,
        page([rec.QUOTE]),
    ),
    (
        "quotes_sent",
        lambda c: c.quotes_sent(limit=1000),
        [("limit", "1000")],
        None,
        page([rec.QUOTE]),
    ),
    ("quotes_received", lambda c: c.quotes_received(), [], None, page([rec.QUOTE])),
    ("quotes_new", lambda c: c.quotes_new(NEW_QUOTE), [], NEW_QUOTE.to_wire(), ok(rec.QUOTE)),
    ("quotes_cancel", lambda c: c.quotes_cancel(rec.QUOTE_ID), [], {"id": rec.QUOTE_ID}, ok(True)),
    ("quotes_cancel_all", lambda c: c.quotes_cancel_all(), [], None, ok(True)),
    (
        "quotes_replace",
        lambda c: c.quotes_replace(REPLACE_QUOTE),
        [],
        REPLACE_QUOTE.to_wire(),
        ok(rec.QUOTE),
    ),
    (
        "quotes_accept",
        lambda c: c.quotes_accept(ACCEPT),
        [],
        {"parent_quote_id": rec.QUOTE_ID, "rfq_id": rec.RFQ_ID, "side": "buy"},
        ok(rec.QUOTE_ACCEPT),
    ),
    (
        "quotes_maker_last_look",
        lambda c: c.quotes_maker_last_look(LAST_LOOK),
        [],
        {"parent_quote_id": rec.QUOTE_ID, "rfq_id": rec.RFQ_ID, "action": "accept"},
        ok(rec.LAST_LOOK),
    ),
    ("rfqs_sent", lambda c: c.rfqs_sent(price=False), [("price", "false")], None, page([rec.RFQ])),
    (
        "rfqs_received",
        lambda c: c.rfqs_received(id=rec.RFQ_ID, price=True, limit=50),
        [("id", rec.RFQ_ID), ("price", "true"), ("limit", "50")],
        None,
        page([rec.RFQ]),
    ),
    ("rfqs_new", lambda c: c.rfqs_new(NEW_RFQ), [], NEW_RFQ.to_wire(), ok(rec.RFQ)),
    ("rfqs_cancel", lambda c: c.rfqs_cancel(rec.RFQ_ID), [], {"id": rec.RFQ_ID}, ok(True)),
    (
        "settlement_pools",
        lambda c: c.settlement_pools(id=rec.POOL_ID),
        [("id", rec.POOL_ID)],
        None,
        page([rec.SETTLEMENT_POOL]),
    ),
    (
        "settlement_pools_new",
        lambda c: c.settlement_pools_new(NEW_POOL),
        [],
        NEW_POOL.to_wire(),
        ok(rec.SETTLEMENT_POOL),
    ),
    (
        "transfers",
        lambda c: c.transfers(pool=rec.POOL_ID, id=rec.TRANSFER["id"], limit=10_000),
        [("pool", rec.POOL_ID), ("id", rec.TRANSFER["id"]), ("limit", "10000")],
        None,
        page([rec.TRANSFER]),
    ),
    (
        "transfers_new",
        lambda c: c.transfers_new(NEW_TRANSFER),
        [],
        {
            "asset": "USDC",
            "qty": "2500.000001",
            "target_pool_location": rec.POOL_ID,
            "counterparty": rec.MAKER,
            "transfer_type": "deposit",
        },
        ok(rec.TRANSFER),
    ),
    (
        "transfers_permit_template",
        lambda c: c.transfers_permit_template(TEMPLATE_REQUEST),
        [],
        {
            "pool_address": rec.POOL_ADDRESS,
            "allowance": {"type": "decimal", "value": "320.5"},
            "seconds_until_expiry": 60,
        },
        ok(rec.permit_template("0x" + "11" * 20)),
    ),
    ("transfers_permit", lambda c: c.transfers_permit(PERMIT), [], PERMIT.to_wire(), ok(True)),
    ("status", lambda c: c.status(), [], None, ok(rec.STATUS)),
    (
        "supported_assets",
        lambda c: c.supported_assets(verified=True),
        [("verified", "true")],
        None,
        ok({"BTC": [rec.SUPPORTED_ASSET]}),
    ),
]


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


def test_query_encoding() -> None:
    assert encode_query(
        {"a": None, "b": True, "c": False, "d": 5, "e": "x", "f": Decimal("1E+2")}
    ) == [
        ("b", "true"),
        ("c", "false"),
        ("d", "5"),
        ("e", "x"),
        ("f", "100"),
    ]


def test_body_is_compact_utf8_json_of_the_wire_form() -> None:
    raw = encode_body(NEW_POOL)
    assert raw.startswith(b'{"pool_name":"D\xc3\xa9sk \xe2\x86\x94 Alpha","company_other":')
    assert json.loads(raw) == NEW_POOL.to_wire()


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda c: c.rfqs_received(limit=1001), "limit"),
        (lambda c: c.companies(limit=10_001), "limit"),
        (lambda c: c.quotes(limit=0), "limit"),
        (lambda c: c.transfers(offset=-1), "offset"),
        (lambda c: c.quotes_cancel("not-a-uuid"), "id"),
        (lambda c: c.rfqs_cancel(""), "id"),
    ],
)
async def test_bad_arguments_are_refused_before_sending(
    fake_time: FakeTime, call: Call, field: str
) -> None:
    venue = FakeVenue()
    async with make_client(venue, fake_time) as client:
        with pytest.raises(InvalidArgument) as caught:
            await call(client)
        assert client.tokens_used == 0
    assert caught.value.field == field
    assert field in str(caught.value)
    assert venue.requests == []


async def test_limit_error_names_the_maximum(fake_time: FakeTime) -> None:
    async with make_client(FakeVenue(), fake_time) as client:
        with pytest.raises(InvalidArgument, match="at most 1000"):
            await client.settlement_pools(limit=5000)
