"""Positions and P&L from the records a real trade makes: a position opened and closed in the
sandbox over loopback shows the right net and realised P&L."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from tests.desk.kit.venue import accept, perp_rfq, pool_between, quote_rfq
from tui.api.models import MakerLastLookRequest, RequestAction, TradeSide
from tui.desk.analytics.positions import build_positions
from tui.desk.analytics.realised import fill

DAY = "2026-01-05T00:00:00+00:00"


async def _trade(sandbox: Any, side: TradeSide, qty: str) -> None:
    """DESK asks ALPHA for BTC-PERP and takes ``side``; ALPHA accepts at last look."""
    ids = sandbox.company_ids
    async with sandbox.client("DESK") as desk, sandbox.client("ALPHA") as alpha:
        rfq = await desk.rfqs_new(perp_rfq([ids["ALPHA"]], qty, sandbox.clock.now()))
        (seen,) = (await alpha.rfqs_received(id=rfq.rfq_id)).result
        pool = await pool_between(alpha, ids["DESK"])
        quote = await quote_rfq(alpha, seen, sandbox.clock.now(), pool_id=pool.pool_id)
        await accept(desk, quote, side)
        await alpha.quotes_maker_last_look(
            MakerLastLookRequest(
                parent_quote_id=quote.parent_quote_id,
                rfq_id=quote.target_rfq_id,
                action=RequestAction.ACCEPT,
            )
        )
    sandbox.advance(3)


async def _reads(sandbox: Any) -> tuple[list[Any], list[Any], list[Any]]:
    async with sandbox.client("DESK") as desk:
        positions = [p async for p in desk.iterate(desk.portfolio_positions)]
        valued = [p async for p in desk.iterate(desk.portfolio_aggregated_positions)]
        trades = [t async for t in desk.iterate(desk.portfolio_trades)]
    return positions, valued, trades


async def test_a_position_opened_and_closed_shows_its_net_and_realised_pnl(
    sandbox_factory: Any,
) -> None:
    # The request budget is not what this test is about: a roomy one keeps it quick.
    sandbox = sandbox_factory(token_budget=10_000)
    day_start = datetime.fromisoformat(DAY)
    positions, valued, trades = await _reads(sandbox)
    before = build_positions(positions, valued, trades, day_start)
    btc_before = next((p for p in before.positions if p.label == "BTC-PERP"), None)
    held_before = btc_before.qty if btc_before else Decimal(0)
    assert held_before == 0  # the seeded DESK holds no BTC: the trade opens the position
    realised_before = btc_before.realised.inception if btc_before else Decimal(0)

    await _trade(sandbox, TradeSide.BUY, "2")
    positions, valued, trades = await _reads(sandbox)
    opened = build_positions(positions, valued, trades, day_start)
    btc = opened.position("perpetual_future|BTC")
    assert btc is not None
    assert btc.qty == held_before + 2
    bought = max((t for t in trades if t.source_rfq), key=lambda t: t.created_at)
    assert str(bought.side) == "buy" and bought.qty == 2
    venue = [p for p in positions if p.instrument.underlying == "BTC"]
    assert sum(p.qty for p in venue) == btc.qty
    assert btc.mark is not None and btc.upnl is not None
    assert btc.upnl == sum(v.upnl for v in valued if v.position_info.instrument.underlying == "BTC")
    assert btc.greeks.delta == btc.qty  # a perpetual's delta is its size
    assert btc.greeks.dollar_delta == btc.qty * btc.underlying_price

    await _trade(sandbox, TradeSide.SELL, "2")
    positions, valued, trades = await _reads(sandbox)
    closed = build_positions(positions, valued, trades, day_start)
    btc = closed.position("perpetual_future|BTC")
    assert btc is not None
    assert btc.qty == held_before
    sold = max((t for t in trades if t.source_rfq), key=lambda t: t.created_at)
    assert str(sold.side) == "sell"
    expected = (2 * (sold.price - bought.price)).quantize(Decimal("1e-6"))
    assert expected != 0
    assert btc.realised.inception - realised_before == expected
    assert btc.realised.today == expected
    assert btc.avg_entry is None and btc.upnl == 0
    assert closed.book.realised.inception - before.book.realised.inception == expected
    (holding,) = btc.holdings
    assert holding.counterparty == sandbox.company_ids["ALPHA"]


def test_the_fill_rule_realises_on_reduce_and_reopens_through_zero() -> None:
    qty, cost, realised = fill(Decimal(0), Decimal(0), Decimal(2), Decimal(100))
    assert (qty, cost, realised) == (2, 200, 0)
    qty, cost, realised = fill(qty, cost, Decimal(-1), Decimal(110))
    assert (qty, cost, realised) == (1, 100, 10)
    qty, cost, realised = fill(qty, cost, Decimal(-3), Decimal(90))
    assert (qty, cost, realised) == (-2, -180, -10)
