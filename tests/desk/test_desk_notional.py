"""Notional is gross: Σ |leg qty x leg price|, the same figure in every pane that shows one.

A calendar spread (buy the perpetual, sell the dated future) trades at a small negative
structure price; its notional is still the full size of both legs, never the (negative)
premium. DESK takes ALPHA's quote from the board, and the accept confirmation, the clearing
tracker (taker and maker side) and the blotter all show the same notional.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.scenes import CALENDAR_EXPIRY
from tests.desk.kit.tabs import show_tab
from tests.desk.kit.venue import pool_between
from tui.api.models import (
    DatedFutureInstrument,
    Leg,
    LegQuote,
    MakerLastLookRequest,
    NewQuoteRequest,
    NewRfqRequest,
    PerpetualFutureInstrument,
    RequestAction,
    Structure,
    TradeSide,
    UseExistingPool,
)
from tui.desk.book import DeskBook
from tui.desk.clearing import LegFill, gross_notional
from tui.desk.messages import Topic
from tui.desk.screens.confirm import ConfirmScreen
from tui.desk.widgets.blotter import Blotter
from tui.desk.widgets.common import fmt
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.trade_tracker import TradeTracker


def test_gross_notional_counts_every_leg_at_its_size() -> None:
    legs = [LegFill(Decimal("0.5"), Decimal("98000")), LegFill(Decimal("0.5"), Decimal("-3"))]
    assert gross_notional(legs) == Decimal("49001.5")
    assert gross_notional([]) == 0


async def test_a_calendar_spread_shows_its_gross_notional_everywhere(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    ids = sandbox.company_ids
    qty = Decimal("0.5")
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS, Topic.STATS)
        async with sandbox.client("DESK") as mine, sandbox.client("ALPHA") as alpha:
            rfq = await mine.rfqs_new(
                NewRfqRequest(
                    structure=Structure(
                        legs=[
                            Leg(
                                side=TradeSide.BUY,
                                instrument=PerpetualFutureInstrument(underlying="BTC"),
                            ),
                            Leg(
                                side=TradeSide.SELL,
                                instrument=DatedFutureInstrument(
                                    underlying="BTC", expiry=CALENDAR_EXPIRY
                                ),
                            ),
                        ]
                    ),
                    qty=qty,
                    expires_at=sandbox.clock.now() + timedelta(minutes=5),
                    target_companies=[ids["ALPHA"]],
                )
            )
            (view,) = (await alpha.rfqs_received(id=rfq.rfq_id)).result
            perp = next(x.mark_price for x in app.book.stats.listings if x.ticker == "BTC")
            assert view.structure_price is not None
            dated = perp - view.structure_price.price  # structure = perp - dated
            prices = [perp.quantize(Decimal(1)), dated.quantize(Decimal(1))]
            pool = await pool_between(alpha, ids["DESK"])
            quote = await alpha.quotes_new(
                NewQuoteRequest(
                    rfq_id=rfq.rfq_id,
                    expires_at=sandbox.clock.now() + timedelta(seconds=60),
                    leg_quotes=[
                        LegQuote(target_rfq_leg_id=leg.rfq_leg_id, bid=price - 20, ask=price + 20)
                        for leg, price in zip(view.rfq_legs, prices, strict=True)
                    ],
                    pool_strategy=UseExistingPool(pool_id=pool.pool_id),
                )
            )
            # DESK buys the spread: buys the perpetual at its ask, sells the future at its bid.
            expected = qty * (prices[0] + 20) + qty * (prices[1] - 20)
            premium = qty * ((prices[0] + 20) - (prices[1] - 20))
            assert premium < 0 < expected

            await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
            app.query_one(RfqInbox).select("sent", rfq.rfq_id)
            await pilot.pause()
            app.query_one(QuoteBoard).table.focus()
            await pilot.press("b")
            await pilot.pause()
            confirm = app.screen
            assert isinstance(confirm, ConfirmScreen)
            assert f"notional  BTC [b]{fmt.money(expected)}[/b] USDC" in confirm.body
            # Futures have no premium: the structure price x qty is not labelled as one.
            assert "premium   none (no option legs)" in confirm.body
            assert f"{fmt.money(-premium)} USDC you receive" not in confirm.body
            await pilot.press("y")
            await settle(app, pilot)

            await alpha.quotes_maker_last_look(
                MakerLastLookRequest(
                    parent_quote_id=quote.parent_quote_id,
                    rfq_id=rfq.rfq_id,
                    action=RequestAction.ACCEPT,
                )
            )
            sandbox.advance(3)
            await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED, Topic.TRADES)

            (trade,) = app.book.tracked_trades()
            # Futures only: no premium, whatever the structure price.
            assert trade.notionals == {"BTC": expected} and trade.premium is None
            assert trade.notionals == {"BTC": expected}
            prompt = str(app.query_one(TradeTracker).options.get_option_at_index(0).prompt)
            assert f"notional BTC {fmt.money(expected)} USDC" in prompt
            assert "premium" not in prompt
            blotter = await show_tab(app, pilot, "blotter", Blotter)
            count = str(blotter.query_one("#blotter-count").render())
            assert f"notional BTC {fmt.money(expected)} USDC" in count

            # The maker's side of the same trade: the same gross figure, not the premium.
            maker = DeskBook(me=ids["ALPHA"])
            maker.rfqs_received = {r.rfq_id: r for r in (await alpha.rfqs_received()).result}
            maker.quotes_sent = {q.parent_quote_id: q for q in (await alpha.quotes_sent()).result}
            (seen,) = maker.tracked_trades()
            assert seen.side == TradeSide.SELL and seen.notionals == {"BTC": expected}
