"""One example call of every endpoint: the request models it sends, and `CASES`, a row per
endpoint of the call, the query and body it must put on the wire and the venue's reply
(``test_client_endpoints``, ``test_client_arguments``); also the accepts the client's
behaviour tests send (`ACCEPT_SELL`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from tests.api.kit import records as rec
from tests.api.kit.venue import ok, page
from tui.api.client import ServiceClient
from tui.api.models import (
    AcceptQuoteRequest,
    MakerLastLookRequest,
    NewQuoteRequest,
    NewRfqRequest,
    NewSettlementPoolRequest,
    NewTransferRequest,
    PermitTemplateRequest,
    ReplaceQuoteRequest,
    SubmitPermitRequest,
)

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
ACCEPT_SELL = AcceptQuoteRequest(parent_quote_id=rec.QUOTE_ID, rfq_id=rec.RFQ_ID, side="sell")
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
"""A call of one endpoint method on a client."""

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
