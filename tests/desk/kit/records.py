"""Venue records for the roles' unit tests: quotes, RFQs, pools, transfers, a waiting trade.

Fixed ids and one fixed time (`tests.desk.kit.fakes.NOW`), so an outcome's text can be read
exactly; a book for each side of the desk (the taker's RFQ and its quote, the pools).
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from tests.desk.kit.fakes import NOW
from tests.desk.kit.venue import perp_rfq
from tui.api.models import (
    RFQ,
    Company,
    NewQuoteRequest,
    Quote,
    SettlementPool,
    TradeSide,
    Transfer,
    TransferType,
)
from tui.desk.book import DeskBook
from tui.desk.clearing import NextStep, Role, TrackedTrade

ME = "00000000-0000-4000-8000-00000000000a"
OTHER = "00000000-0000-4000-8000-00000000000b"
RFQ_ID = "11111111-1111-4111-8111-111111111111"
OLD_RFQ = "11111111-1111-4111-8111-111111111112"
QUOTE_ID = "22222222-2222-4222-8222-222222222222"
NEW_QUOTE_ID = "22222222-2222-4222-8222-222222222223"
POOL_ID = "33333333-3333-4333-8333-333333333333"
POOL_ADDRESS = "0x" + "ab" * 20


def quote(quote_id: str = QUOTE_ID, **fields: Any) -> Quote:
    return Quote(
        parent_quote_id=quote_id,
        target_rfq_id=RFQ_ID,
        maker_company=OTHER,
        expires_at=NOW + timedelta(seconds=30),
        aggregated_bid=Decimal("99"),
        aggregated_ask=Decimal("101"),
        **fields,
    )


def quote_request() -> NewQuoteRequest:
    return NewQuoteRequest(
        rfq_id=RFQ_ID,
        expires_at=NOW + timedelta(seconds=30),
        leg_quotes=[{"target_rfq_leg_id": "leg-a", "bid": "99", "ask": "101"}],
        pool_strategy={"strategy": "use_existing", "pool_id": POOL_ID},
    )


def rfq(rfq_id: str = RFQ_ID, status: str = "open") -> RFQ:
    return RFQ(
        rfq_id=rfq_id,
        created_at=NOW,
        structure=perp_rfq([OTHER], "2", NOW).structure,
        rfq_expires_at=NOW + timedelta(minutes=5),
        taker_company=ME,
        rfq_status=status,
        qty=Decimal(2),
    )


def pool(max_withdraw: str = "1000") -> SettlementPool:
    def party(company: str) -> dict[str, Any]:
        return {
            "company": company,
            "created_at": NOW,
            "status": "confirmed",
            "margin_usage": {
                "company": company,
                "balance": "1000",
                "max_withdrawable_amount": max_withdraw,
            },
        }

    return SettlementPool.model_validate(
        {
            "pool_id": POOL_ID,
            "company_id": ME,
            "data": {
                "created_at": NOW,
                "company_creator": ME,
                "status": "open",
                "address": POOL_ADDRESS,
                "name": "DESK-EMBR",
                "parties": [party(ME), party(OTHER)],
            },
        }
    )


def transfer(kind: TransferType) -> Transfer:
    return Transfer(
        id="t-1",
        created_at=NOW,
        company=ME,
        counterparty=OTHER,
        qty=Decimal(400),
        asset="USDC",
        target_pool_location=POOL_ID,
        transfer_type=kind,
        status="pending",
    )


def waiting_trade(status: str, role: Role = Role.MAKER) -> TrackedTrade:
    step = NextStep.LAST_LOOK if "last_look" in status else NextStep.APPROVE_DEPOSIT
    return TrackedTrade(
        quote=quote(clearing_status=status, pool_location=POOL_ID),
        role=role,
        rfq=None,
        side=TradeSide.SELL,
        price=Decimal("101"),
        qty=Decimal(2),
        counterparty=OTHER,
        status=status,
        steps=(),
        next_step=step,
        deadline=None,
        accepted_at=None,
    )


def taker_book() -> DeskBook:
    book = DeskBook(me=ME)
    book.companies = {
        OTHER: Company(id=OTHER, created_at=NOW, legal_name="Alpha Markets", short_name="ALPHA")
    }
    book.rfqs_sent = {RFQ_ID: rfq()}
    book.quotes_received = {QUOTE_ID: quote(new_pool_name="DESK-ALPHA")}
    return book


def pools_book() -> DeskBook:
    book = taker_book()
    book.pools = {POOL_ID: pool()}
    return book
