"""End to end through `ServiceClient` over HTTP: trades, every endpoint, scoping, paging.

Each test talks to a real sandbox server on 127.0.0.1 (the ``sandbox`` fixture) with the
client the desk uses, signed, budgeted and parsed exactly as in production; the sandbox clock
is frozen and moved by the test.
"""

from __future__ import annotations

import copy
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from tests.sandbox.kit import book_trade, mark, perp, quote_request, rfq_request, seed_pool_id
from tui.api.client import CallInfo
from tui.api.endpoints import ENDPOINTS
from tui.api.errors import Forbidden, NotFound
from tui.api.models import (
    AcceptQuoteRequest,
    ClearingStatus,
    DecimalAllowance,
    MakerLastLookRequest,
    NewSettlementPoolRequest,
    NewTransferRequest,
    PermitTemplateRequest,
    ReplaceQuoteRequest,
    RequestAction,
    TradeRole,
    TradeSide,
    TransferType,
    UseExistingPool,
)
from tui.api.permits import sign_permit
from tui.api.stats import StatsClient
from tui.sandbox.engine.seed import default_margin_params

D = Decimal
BOOKED = ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL


async def test_full_trade_seen_alike_from_both_sides(sandbox: Any) -> None:
    async with (
        sandbox.client("DESK") as desk,
        sandbox.client("ALPHA") as alpha,
        StatsClient(sandbox.stats_base_url) as stats,
    ):
        volume_before = (await stats.stats()).cumulative_volume
        desk_assets_before = (await desk.portfolio_assets()).result
        trade = await book_trade(sandbox, desk, alpha, qty="2")
        assert trade.accept_status == ClearingStatus.PENDING_MAKER_LAST_LOOK
        assert trade.last_look_status == BOOKED

        desk_ids, alpha_ids = sandbox.company_ids["DESK"], sandbox.company_ids["ALPHA"]
        (taker_leg,) = (await desk.portfolio_trades(pool=trade.pool_id)).result
        (maker_leg,) = (await alpha.portfolio_trades(pool=trade.pool_id)).result
        assert taker_leg.id != maker_leg.id
        for leg in (taker_leg, maker_leg):
            assert leg.source_rfq == trade.rfq.rfq_id
            assert leg.source_quote == trade.quote.parent_quote_id
            assert leg.pool_location == trade.pool_id
            assert leg.status == BOOKED
        assert (taker_leg.company, taker_leg.counterparty) == (desk_ids, alpha_ids)
        assert (maker_leg.company, maker_leg.counterparty) == (alpha_ids, desk_ids)
        assert (taker_leg.side, taker_leg.role) == (TradeSide.BUY, TradeRole.TAKER)
        assert (maker_leg.side, maker_leg.role) == (TradeSide.SELL, TradeRole.MAKER)
        assert taker_leg.price == maker_leg.price == trade.quote.per_leg_quotes[0].ask
        assert taker_leg.qty == maker_leg.qty == D(2)
        assert (await desk.portfolio_trades(id=taker_leg.id)).result == [taker_leg]

        (taker_position,) = (await desk.portfolio_positions(pool=trade.pool_id)).result
        (maker_position,) = (await alpha.portfolio_positions(pool=trade.pool_id)).result
        assert taker_position.qty == -maker_position.qty == D(2)
        assert taker_position.avg_entry_price == maker_position.avg_entry_price
        (taker_value,) = (await desk.portfolio_aggregated_positions()).result
        (maker_value,) = (await alpha.portfolio_aggregated_positions()).result
        assert taker_value.sum_delta == -maker_value.sum_delta != 0
        assert taker_value.upnl == -maker_value.upnl
        desk_summary = await desk.portfolio_summary()
        alpha_summary = await alpha.portfolio_summary()
        assert desk_summary.sum_delta == taker_value.sum_delta
        assert alpha_summary.sum_delta == maker_value.sum_delta
        assert desk_summary.sum_notional == taker_value.notional
        desk_assets = {a.asset: a.qty for a in (await desk.portfolio_assets()).result}
        assert desk_summary.sum_balance == desk_assets["USDC"]
        assert {a.asset for a in desk_assets_before} == set(desk_assets)

        (sent,) = (await desk.rfqs_sent(id=trade.rfq.rfq_id)).result
        (received,) = (await alpha.rfqs_received(id=trade.rfq.rfq_id)).result
        assert sent.rfq_status == received.rfq_status == "closed"
        (maker_view,) = (await alpha.quotes_sent(id=trade.quote.parent_quote_id)).result
        (taker_view,) = (await desk.quotes_received(id=trade.quote.parent_quote_id)).result
        assert maker_view.clearing_status == taker_view.clearing_status == BOOKED
        events = [str(e.status) for e in maker_view.clearing_events]
        assert events[-1] == BOOKED and ClearingStatus.PENDING_MAKER_LAST_LOOK in events

        volume_after = (await stats.stats()).cumulative_volume
        assert volume_after > volume_before


async def test_every_endpoint_is_reachable_through_the_client(sandbox: Any) -> None:
    calls: list[CallInfo] = []
    seen = calls.append  # the client swallows hook errors: check the calls afterwards

    desk_entry, bore_entry = sandbox.credentials["DESK"], sandbox.credentials["BORE"]
    async with (
        sandbox.client("DESK", on_call=seen) as desk,
        sandbox.client("ALPHA", on_call=seen) as alpha,
        sandbox.client("BORE", on_call=seen) as bore,
    ):
        assert (await desk.status()).auth is not None
        assert "BTC" in await desk.supported_assets(verified=True)
        assert len((await desk.companies()).result) == len(sandbox.company_ids)
        assert (await desk.companies(id=bore_entry["id"])).result[0].short_name == "BORE"
        pool_id = await seed_pool_id(desk)
        await desk.portfolio_assets(pool=pool_id)
        await desk.portfolio_positions()
        await desk.portfolio_aggregated_positions()
        await desk.portfolio_trades()
        await desk.portfolio_summary()

        # A quote replaced, cancelled, then everything cancelled.
        rfq = await desk.rfqs_new(rfq_request(sandbox, targets=("ALPHA",)))
        first = await alpha.quotes_new(quote_request(sandbox, rfq, pool_id))
        replacement = quote_request(sandbox, rfq, pool_id, spread="0.002")
        second = await alpha.quotes_replace(
            ReplaceQuoteRequest(
                parent_quote_id=first.parent_quote_id, **replacement.model_dump(by_alias=True)
            )
        )
        assert await alpha.quotes_cancel(second.parent_quote_id) is True
        await alpha.quotes_new(quote_request(sandbox, rfq, pool_id))
        assert await alpha.quotes_cancel_all() is True
        assert await desk.rfqs_cancel(rfq.rfq_id) is True
        await alpha.quotes()
        await desk.quotes_received()
        await alpha.quotes_sent()
        await desk.rfqs_sent(price=False)
        await alpha.rfqs_received()

        # A trade booked (accept, last look).
        trade = await book_trade(sandbox, desk, alpha)
        assert trade.last_look_status == BOOKED

        # A pool of its own, then a permit and a deposit into the seeded pool.
        pool = await bore.settlement_pools_new(
            NewSettlementPoolRequest(
                pool_name="BORE-DESK",
                company_other=desk_entry["id"],
                creator_params=default_margin_params(),
                other_params=default_margin_params(),
            )
        )
        assert pool.data is not None and pool.data.status == "pending"
        (seed_pool,) = (await desk.settlement_pools(id=pool_id)).result
        assert seed_pool.data is not None and seed_pool.data.address
        template = await desk.transfers_permit_template(
            PermitTemplateRequest(
                pool_address=seed_pool.data.address, allowance=DecimalAllowance(value=D(500))
            )
        )
        permit = sign_permit(template, desk_entry["wallet_private_key"])
        assert await desk.transfers_permit(permit) is True
        deposit = await desk.transfers_new(
            NewTransferRequest(
                qty=D(500),
                target_pool_location=pool_id,
                counterparty=sandbox.company_ids["ALPHA"],
                transfer_type=TransferType.DEPOSIT,
            )
        )
        assert deposit.status == "pending"
        sandbox.advance(2)  # one block
        (confirmed,) = (await desk.transfers(id=deposit.id)).result
        assert confirmed.status == "confirmed"
        assert (await desk.transfers(pool=pool_id)).result

    assert all(call.status == 200 for call in calls), [c for c in calls if c.status != 200]
    assert {call.endpoint for call in calls} == {e.name for e in ENDPOINTS}


async def test_scoping_other_companies_see_nothing_of_a_trade(sandbox: Any) -> None:
    """BORE probes every endpoint with DESK/ALPHA's ids: empty pages and 404s only."""
    async with (
        sandbox.client("DESK") as desk,
        sandbox.client("ALPHA") as alpha,
        sandbox.client("BORE") as bore,
    ):
        trade = await book_trade(sandbox, desk, alpha)
        open_rfq = await desk.rfqs_new(rfq_request(sandbox, targets=("ALPHA",)))
        open_quote = await alpha.quotes_new(quote_request(sandbox, open_rfq, trade.pool_id))
        (trade_leg,) = (await desk.portfolio_trades(pool=trade.pool_id)).result
        (pool,) = (await desk.settlement_pools(id=trade.pool_id)).result
        transfers = (await desk.transfers(pool=trade.pool_id)).result
        assert pool.data is not None and transfers
        rfq_ids = (trade.rfq.rfq_id, open_rfq.rfq_id)
        quote_ids = (trade.quote.parent_quote_id, open_quote.parent_quote_id)

        sandbox.advance(10)
        empty_pages = [
            await bore.portfolio_assets(pool=trade.pool_id),
            await bore.portfolio_positions(pool=trade.pool_id),
            await bore.portfolio_trades(pool=trade.pool_id),
            await bore.portfolio_trades(id=trade_leg.id),
            await bore.settlement_pools(id=trade.pool_id),
            await bore.transfers(pool=trade.pool_id),
            await bore.transfers(id=transfers[0].id),
            await bore.portfolio_aggregated_positions(),
            await bore.portfolio_positions(),
            await bore.portfolio_trades(),
        ]
        for quote_id in quote_ids:
            empty_pages += [
                await bore.quotes(id=quote_id),
                await bore.quotes_sent(id=quote_id),
                await bore.quotes_received(id=quote_id),
            ]
        sandbox.advance(10)
        for rfq_id in rfq_ids:
            empty_pages += [await bore.rfqs_sent(id=rfq_id), await bore.rfqs_received(id=rfq_id)]
        assert all(page.result == [] for page in empty_pages)
        assert all(page.pagination.next_page is None for page in empty_pages)
        bore_summary = await bore.portfolio_summary()
        assert bore_summary.sum_notional == 0

        sandbox.advance(10)
        refused = {
            "quotes_new": bore.quotes_new(quote_request(sandbox, open_rfq, trade.pool_id)),
            "quotes_replace": bore.quotes_replace(
                ReplaceQuoteRequest(
                    parent_quote_id=open_quote.parent_quote_id,
                    **quote_request(sandbox, open_rfq, trade.pool_id).model_dump(),
                )
            ),
            "quotes_cancel": bore.quotes_cancel(open_quote.parent_quote_id),
            "quotes_accept": bore.quotes_accept(
                AcceptQuoteRequest(
                    parent_quote_id=open_quote.parent_quote_id,
                    rfq_id=open_rfq.rfq_id,
                    side=TradeSide.BUY,
                )
            ),
            "quotes_maker_last_look": bore.quotes_maker_last_look(
                MakerLastLookRequest(
                    parent_quote_id=trade.quote.parent_quote_id,
                    rfq_id=trade.rfq.rfq_id,
                    action=RequestAction.ACCEPT,
                )
            ),
        }
        for name, call in refused.items():
            with pytest.raises(NotFound) as info:
                await call
            assert (info.value.status, info.value.code) == (404, 3000), name
            sandbox.advance(5)
        more = {
            "rfqs_cancel": bore.rfqs_cancel(open_rfq.rfq_id),
            "transfers_new": bore.transfers_new(
                NewTransferRequest(
                    qty=D(1),
                    target_pool_location=trade.pool_id,
                    counterparty=sandbox.company_ids["DESK"],
                    transfer_type=TransferType.DEPOSIT,
                )
            ),
            "transfers_permit_template": bore.transfers_permit_template(
                PermitTemplateRequest(
                    pool_address=pool.data.address, allowance=DecimalAllowance(value=D(1))
                )
            ),
        }
        for name, call in more.items():
            with pytest.raises(NotFound) as info:
                await call
            assert (info.value.status, info.value.code) == (404, 3000), name
            sandbox.advance(5)
        # A permit BORE signs itself for the DESK-ALPHA pool's address: the spender is unknown
        # to BORE (404); DESK's own signed permit submitted by BORE is not BORE's wallet (403).
        desk_template = await desk.transfers_permit_template(
            PermitTemplateRequest(
                pool_address=pool.data.address, allowance=DecimalAllowance(value=D(1))
            )
        )
        forged = copy.deepcopy(desk_template)
        forged["message"]["owner"] = sandbox.credentials["BORE"]["wallet_address"]
        with pytest.raises(NotFound):
            await bore.transfers_permit(
                sign_permit(forged, sandbox.credentials["BORE"]["wallet_private_key"])
            )
        sandbox.advance(5)
        with pytest.raises(Forbidden):
            await bore.transfers_permit(
                sign_permit(desk_template, sandbox.credentials["DESK"]["wallet_private_key"])
            )
        # BORE may not quote the DESK-ALPHA pool even on an RFQ it was asked for.
        asked = await desk.rfqs_new(rfq_request(sandbox, targets=("BORE",)))
        with pytest.raises(NotFound):
            await bore.quotes_new(quote_request(sandbox, asked, trade.pool_id))
        # Nothing of DESK's or ALPHA's changed.
        (still_open,) = (await alpha.quotes_sent(id=open_quote.parent_quote_id)).result
        assert still_open.model_extra is not None
        assert still_open.model_extra["quote_status"] == "open"


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


async def test_simulated_makers_answer_when_the_admin_clock_moves(sandbox_factory: Any) -> None:
    sandbox = sandbox_factory(actors=True)
    makers = ("ALPHA", "BORE", "CBLT", "DUNE")
    async with sandbox.client("DESK") as desk:
        rfq = await desk.rfqs_new(rfq_request(sandbox, targets=makers, expires_in_s=600))
        (fresh,) = (await desk.rfqs_sent(id=rfq.rfq_id)).result
        assert fresh.bids == [] and fresh.asks == []
        for _ in range(60):  # a minute of sandbox time, second by second, over HTTP
            moved = sandbox.request(
                "POST", "/admin/clock/advance", as_company=None, json_body={"seconds": 1}
            )
            assert moved.status_code == 200
        (answered,) = (await desk.rfqs_sent(id=rfq.rfq_id)).result
        assert answered.bids or answered.asks
        quotes = (await desk.quotes_received()).result
        assert quotes and {q.maker_company for q in quotes} <= {
            sandbox.company_ids[name] for name in makers
        }
