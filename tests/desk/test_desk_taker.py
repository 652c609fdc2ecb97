"""The taker's whole trade, from the keyboard, against the sandbox over loopback HTTP.

DESK builds an RFQ in the structure builder, ALPHA (driven by the test) quotes it, DESK buys at
the ask after the confirmation, ALPHA accepts at last look, and the tracker shows the trade
booked into the pool, with the legs in the blotter.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from textual.widgets import Input, Select, SelectionList

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.tabs import show_tab
from tests.desk.kit.venue import perp_rfq, pool_between, quote_rfq
from tui.api.models import ClearingStatus, MakerLastLookRequest, RequestAction
from tui.desk.messages import Topic
from tui.desk.screens.confirm import ConfirmScreen
from tui.desk.screens.new_rfq import NewRfqScreen
from tui.desk.screens.permit import PermitScreen
from tui.desk.widgets.blotter import Blotter
from tui.desk.widgets.common.virtual_table import VirtualTable
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.trade_tracker import TradeTracker


async def test_taker_trade_from_rfq_to_booked(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    alpha_id = sandbox.company_ids["ALPHA"]
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot)

        # Build and send the RFQ from the keyboard-driven builder.
        await pilot.press("n")
        screen = app.screen
        assert isinstance(screen, NewRfqScreen)
        screen.query_one("#underlying-0", Select).value = "BTC"
        screen.query_one("#qty", Input).value = "2"
        targets = screen.query_one("#targets", SelectionList)
        targets.deselect_all()
        targets.select(alpha_id)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert not isinstance(app.screen, NewRfqScreen)
        await refresh(app, pilot, Topic.RFQS_SENT)
        (rfq,) = app.book.rfqs_sent.values()
        assert rfq.qty == Decimal(2)

        # ALPHA quotes it in the pool both already share.
        async with sandbox.client("ALPHA") as alpha:
            (received,) = (await alpha.rfqs_received()).result
            pool = await pool_between(alpha, sandbox.company_ids["DESK"])
            quote = await quote_rfq(alpha, received, sandbox.clock.now(), pool_id=pool.pool_id)

            await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED, Topic.POOLS)
            inbox = app.query_one(RfqInbox)
            inbox.select("sent", rfq.rfq_id)
            await pilot.pause()
            board = app.query_one(QuoteBoard)
            assert board.display and board.rfq is not None
            assert board.table.row_keys == [quote.parent_quote_id]

            # Buy at the ask, after a confirmation that says what is traded.
            board.table.focus()
            await pilot.press("b")
            await pilot.pause()
            confirm = app.screen
            assert isinstance(confirm, ConfirmScreen)
            assert "BUY" in confirm.body and "notional" in confirm.body
            assert "DESK-ALPHA main" in confirm.body
            feed = await app.wait_connected()
            money_kicks: list[bool] = []
            feed.kick_money = lambda: money_kicks.append(True)  # type: ignore[method-assign]
            await pilot.press("y")
            await settle(app, pilot)
            assert money_kicks, "an accept moves margin: summary, pools, positions refresh early"
            await refresh(app, pilot, Topic.QUOTES_RECEIVED)
            tracker = app.query_one(TradeTracker)
            (trade,) = app.book.tracked_trades()
            assert trade.status == ClearingStatus.PENDING_MAKER_LAST_LOOK
            assert tracker.selected_key == quote.parent_quote_id

            # ALPHA takes its last look; the trade books.
            await alpha.quotes_maker_last_look(
                MakerLastLookRequest(
                    parent_quote_id=quote.parent_quote_id,
                    rfq_id=quote.target_rfq_id,
                    action=RequestAction.ACCEPT,
                )
            )
        sandbox.advance(2)
        await refresh(app, pilot, Topic.QUOTES_RECEIVED, Topic.TRADES)
        (trade,) = app.book.tracked_trades()
        assert trade.status == ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL
        assert [s.state for s in trade.steps][-1] == "done"
        blotter = (await show_tab(app, pilot, "blotter", Blotter)).query_one(VirtualTable)
        assert blotter.row_count == len(app.book.trades) >= 1


async def test_taker_approves_its_deposit_when_the_pool_is_short(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        async with sandbox.client("DESK") as desk_client, sandbox.client("ALPHA") as alpha:
            # 30 BTC needs more initial margin than DESK's 250,000 in the pool.
            rfq = await desk_client.rfqs_new(
                perp_rfq([sandbox.company_ids["ALPHA"]], "30", sandbox.clock.now())
            )
            (received,) = (await alpha.rfqs_received()).result
            pool = await pool_between(alpha, sandbox.company_ids["DESK"])
            quote = await quote_rfq(alpha, received, sandbox.clock.now(), pool_id=pool.pool_id)
            await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
            app.query_one(RfqInbox).select("sent", rfq.rfq_id)
            await pilot.pause()
            app.query_one(QuoteBoard).table.focus()
            await pilot.press("b", "y")
            await settle(app, pilot)
            # 30 BTC is over the default notional guardrail: asked again, saying why.
            second = app.screen
            assert isinstance(second, ConfirmScreen) and "notional" in second.body
            await pilot.press("s")  # send anyway: y does not answer a second question
            await settle(app, pilot)
            await refresh(app, pilot, Topic.QUOTES_RECEIVED)
            (trade,) = app.book.needs_me()
            assert trade.status == ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL

            # g, p: the permit form knows the pool address and the amount the venue asked for.
            await pilot.press("g", "p")
            await pilot.pause()
            form = app.screen
            assert isinstance(form, PermitScreen)
            hint = app.book.deposit_hint(trade)
            assert hint.amount is not None and hint.amount > 0
            assert form.form.pool_address == hint.pool_address
            assert Decimal(form.query_one("#amount", Input).value) == hint.amount
            await pilot.press("ctrl+s")
            await settle(app, pilot)
            sandbox.advance(2)
            await refresh(app, pilot, Topic.QUOTES_RECEIVED)
            (trade,) = app.book.tracked_trades()
            assert trade.status == ClearingStatus.PENDING_MAKER_LAST_LOOK

            await alpha.quotes_maker_last_look(
                MakerLastLookRequest(
                    parent_quote_id=quote.parent_quote_id,
                    rfq_id=quote.target_rfq_id,
                    action=RequestAction.ACCEPT,
                )
            )
        sandbox.advance(3)
        await refresh(app, pilot, Topic.QUOTES_RECEIVED)
        (trade,) = app.book.tracked_trades()
        assert trade.status == ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL
        assert [s.name for s in trade.steps][:2] == ["taker deposit", "last look"]
