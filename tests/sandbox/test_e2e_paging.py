"""End to end through `ServiceClient` over HTTP: paging over 2,500 trades, by `iterate`, by
``next_page`` sent back as given, and by any limit and offset.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tests.sandbox.kit import mark, perp
from tests.sandbox.kit.common import D
from tests.sandbox.kit.e2e import BOOKED
from tui.api.client import CallInfo
from tui.api.models import (
    AcceptQuoteRequest,
    MakerLastLookRequest,
    RequestAction,
    TradeRole,
    TradeSide,
    UseExistingPool,
)


def seed_trades(sandbox: Any, rfqs: int, legs_per_rfq: int) -> None:
    """Book ``rfqs`` ten-leg trades DESK<-ALPHA straight through the engine (fast)."""
    from tui.api.models import (
        LegQuote,
        NewQuoteRequest,
        NewRfqRequest,
        Structure,
    )

    desk, alpha = sandbox.caller("DESK"), sandbox.caller("ALPHA")
    instrument = perp()
    price = mark(sandbox, instrument)
    structure = Structure.model_validate(
        {
            "legs": [
                {"side": "buy" if n % 2 == 0 else "sell", "ratio": 1, "instrument": instrument}
                for n in range(legs_per_rfq)
            ]
        }
    )

    def book_all(ex: Any) -> None:
        pool_id = next(
            p.pool_id for p in ex.settlement_pools(desk, limit=10, offset=0).items if p.data
        )
        for _ in range(rfqs):
            now = sandbox.clock.now()
            rfq = ex.rfqs_new(
                desk,
                NewRfqRequest(
                    structure=structure,
                    qty=D("0.001"),
                    expires_at=now + timedelta(minutes=5),
                    target_companies=[alpha.company_id],
                ),
            )
            quote = ex.quotes_new(
                alpha,
                NewQuoteRequest(
                    rfq_id=rfq.rfq_id,
                    expires_at=now + timedelta(minutes=2),
                    leg_quotes=[
                        LegQuote(target_rfq_leg_id=leg.rfq_leg_id, bid=price - 1, ask=price + 1)
                        for leg in rfq.rfq_legs
                    ],
                    pool_strategy=UseExistingPool(pool_id=pool_id),
                ),
            )
            ex.quotes_accept(
                desk,
                AcceptQuoteRequest(
                    parent_quote_id=quote.parent_quote_id, rfq_id=rfq.rfq_id, side=TradeSide.BUY
                ),
            )
            looked = ex.quotes_maker_last_look(
                alpha,
                MakerLastLookRequest(
                    parent_quote_id=quote.parent_quote_id,
                    rfq_id=rfq.rfq_id,
                    action=RequestAction.ACCEPT,
                ),
            )
            assert looked.new_clearing_status == BOOKED

    sandbox.call(book_all)


async def test_paging_over_2500_trades(sandbox: Any) -> None:
    seed_trades(sandbox, rfqs=250, legs_per_rfq=10)
    pages: list[CallInfo] = []
    async with (
        sandbox.client("DESK", on_call=pages.append) as desk,
        sandbox.client("ALPHA") as alpha,
    ):
        everything = [t async for t in desk.iterate(desk.portfolio_trades)]
        assert len(pages) == 3  # the default page is 1000 records
        ids = [t.id for t in everything]
        assert len(ids) == 2500 and len(set(ids)) == 2500
        created = [t.created_at for t in everything]
        assert created == sorted(created)

        first = await desk.portfolio_trades(limit=700)
        assert first.pagination.next_page == {"limit": "700", "offset": "700"}
        walked = [t.id for t in first.result]
        next_page = first.pagination.next_page
        while next_page:  # sent back exactly as the server gave them (strings)
            target = f"/v1/portfolio/trades?limit={next_page['limit']}&offset={next_page['offset']}"
            page = sandbox.request("GET", target).json()
            walked += [t["id"] for t in page["result"]]
            next_page = page["pagination"]["next_page"]
        assert walked == ids

        whole = await desk.portfolio_trades(limit=10_000)
        assert [t.id for t in whole.result] == ids and whole.pagination.next_page is None
        tail = await desk.portfolio_trades(limit=1000, offset=2000)
        assert [t.id for t in tail.result] == ids[2000:]
        assert tail.pagination.next_page is None
        beyond = await desk.portfolio_trades(limit=10, offset=2500)
        assert beyond.result == [] and beyond.pagination.next_page is None
        (one,) = (await desk.portfolio_trades(id=ids[1234])).result
        assert one.id == ids[1234]

        maker_side = [t async for t in alpha.iterate("portfolio_trades", limit=10_000)]
        assert len(maker_side) == 2500
        assert {t.role for t in maker_side} == {TradeRole.MAKER}
        assert (await desk.portfolio_positions()).result == []  # bought and sold in pairs
