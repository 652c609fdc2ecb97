"""The accept confirmation as a tester traded through it, against the sandbox over loopback.

Its clock is live (the quote's countdown and age move every second, and an expired quote is
said and not traded), every figure is labelled for what it is (notional per underlying,
premium only for option legs), a price in its sentences reads as sent, and the quote board's
error line belongs to the RFQ it was about.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from textual.widgets import Button, Static

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import alpha_quotes_my_rfq, perp_rfq, pool_between
from tui.api.models import (
    Leg,
    LegQuote,
    NewQuoteRequest,
    NewRfqRequest,
    PerpetualFutureInstrument,
    Structure,
    TradeSide,
    UseExistingPool,
    VanillaOptionInstrument,
)
from tui.desk.messages import Topic
from tui.desk.screens.accept_quote import AcceptQuoteScreen
from tui.desk.screens.confirm import ConfirmScreen
from tui.desk.widgets.common import fmt
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.rfq_inbox import RfqInbox

OPTION_EXPIRY = datetime(2026, 1, 30, 8, tzinfo=UTC)


async def _open_accept(app: Any, pilot: Any, rfq_id: str) -> ConfirmScreen:
    await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED, Topic.POOLS)
    app.query_one(RfqInbox).select("sent", rfq_id)
    await pilot.pause()
    app.query_one(QuoteBoard).table.focus()
    await pilot.press("b")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ConfirmScreen)
    return screen


def _body(screen: ConfirmScreen) -> str:
    return str(screen.query_one("#confirm-body", Static).render())


async def test_the_accept_dialog_keeps_its_clock_and_refuses_an_expired_quote(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        rfq, _quote = await alpha_quotes_my_rfq(sandbox)  # ALPHA's quote lives 60 s
        screen = await _open_accept(app, pilot, rfq.rfq_id)
        assert "quote expires in 1:00" in _body(screen)
        assert isinstance(screen, AcceptQuoteScreen), "a dialog that ticks with the second"

        sandbox.advance(20)
        screen.tick()  # the desk's second
        await pilot.pause()
        body = _body(screen)
        assert "quote expires in 0:40" in body and "quote expires in 1:00" not in body
        assert "quoted 20s ago" in body

        sandbox.advance(45)
        screen.tick()
        await pilot.pause()
        assert "the quote has expired: nothing can be sent on it" in _body(screen)
        assert screen.query_one("#yes", Button).disabled
        await pilot.press("y")
        await settle(app, pilot)
        assert app.screen is screen, "an expired quote is not traded"
        await refresh(app, pilot, Topic.QUOTES_RECEIVED)
        assert not app.book.tracked_trades()


async def test_premium_is_the_option_legs_and_notional_is_per_underlying(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    ids = sandbox.company_ids
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        async with sandbox.client("DESK") as mine, sandbox.client("ALPHA") as alpha:
            call = VanillaOptionInstrument(
                underlying="BTC", expiry=OPTION_EXPIRY, strike=Decimal(100000), payoff="call"
            )
            rfq = await mine.rfqs_new(
                NewRfqRequest(
                    structure=Structure(
                        legs=[
                            Leg(side=TradeSide.BUY, instrument=call),
                            Leg(
                                side=TradeSide.BUY,
                                instrument=PerpetualFutureInstrument(underlying="BTC"),
                            ),
                            Leg(
                                side=TradeSide.SELL,
                                instrument=PerpetualFutureInstrument(underlying="ETH"),
                            ),
                        ]
                    ),
                    qty=Decimal(1),
                    expires_at=sandbox.clock.now() + timedelta(minutes=5),
                    target_companies=[ids["ALPHA"]],
                )
            )
            (view,) = (await alpha.rfqs_received(id=rfq.rfq_id)).result
            prices = [("1600", "1657.8"), ("98000", "98447.4"), ("3400", "3460")]
            pool = await pool_between(alpha, ids["DESK"])
            await alpha.quotes_new(
                NewQuoteRequest(
                    rfq_id=rfq.rfq_id,
                    expires_at=sandbox.clock.now() + timedelta(seconds=60),
                    leg_quotes=[
                        LegQuote(target_rfq_leg_id=leg.rfq_leg_id, bid=bid, ask=ask)
                        for leg, (bid, ask) in zip(view.rfq_legs, prices, strict=True)
                    ],
                    pool_strategy=UseExistingPool(pool_id=pool.pool_id),
                )
            )
        body = (await _open_accept(app, pilot, rfq.rfq_id)).body
        # Buying the structure: buy the call at 1,657.80 and the BTC perp, sell the ETH perp.
        assert "premium   1,657.80 USDC you pay" in body
        assert "notional  BTC [b]100,105.20[/b] USDC · ETH [b]3,400.00[/b] USDC" in body
        assert "103,505.20" not in body, "never one notional across underlyings"


async def test_a_perpetual_has_no_premium_and_its_price_reads_as_sent(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        rfq, quote = await alpha_quotes_my_rfq(sandbox)
        body = (await _open_accept(app, pilot, rfq.rfq_id)).body
        assert "premium   none (no option legs)" in body
        ask = quote.aggregated_ask
        assert ask is not None
        # The price field as a price column shows it: every digit, padded to 2 places.
        assert f"price     [b]{fmt.price(ask)}[/b]" in body


async def test_the_board_message_belongs_to_the_rfq_it_was_about(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        old, _quote = await alpha_quotes_my_rfq(sandbox)
        async with sandbox.client("DESK") as mine:
            await mine.rfqs_cancel(old.rfq_id)
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        inbox, board = app.query_one(RfqInbox), app.query_one(QuoteBoard)
        inbox.select("sent", old.rfq_id)
        await pilot.pause()
        board.table.focus()
        await pilot.press("b")
        await pilot.pause()
        error = board.query_one("#board-error", Static)
        assert error.display and "this RFQ is canceled" in str(error.render())

        async with sandbox.client("DESK") as mine:
            new = await mine.rfqs_new(
                perp_rfq([sandbox.company_ids["ALPHA"]], "2", sandbox.clock.now())
            )
        await refresh(app, pilot, Topic.RFQS_SENT)
        inbox.select("sent", new.rfq_id)
        await pilot.pause()
        assert board.rfq is not None and board.rfq.rfq_id == new.rfq_id
        assert not error.display, "the canceled RFQ's message is not the new RFQ's"
