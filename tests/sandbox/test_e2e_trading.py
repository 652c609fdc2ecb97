"""End to end through `ServiceClient` over HTTP: a whole trade seen alike from both sides,
every endpoint reachable, the simulated makers answering as the admin clock moves.

Each test talks to a real sandbox server on 127.0.0.1 (the ``sandbox`` fixture) with the
client the desk uses, signed, budgeted and parsed exactly as in production; the sandbox clock
is frozen and moved by the test.
"""

from __future__ import annotations

from typing import Any

from tests.sandbox.kit import book_trade, quote_request, rfq_request, seed_pool_id
from tests.sandbox.kit.common import D
from tests.sandbox.kit.e2e import BOOKED
from tui.api.client import CallInfo
from tui.api.endpoints import ENDPOINTS
from tui.api.models import (
    ClearingStatus,
    DecimalAllowance,
    NewSettlementPoolRequest,
    NewTransferRequest,
    PermitTemplateRequest,
    ReplaceQuoteRequest,
    TradeRole,
    TradeSide,
    TransferType,
)
from tui.api.permits import sign_permit
from tui.api.stats import StatsClient
from tui.sandbox.engine.seed import default_margin_params


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
