"""My own actions show at once: the venue's answer updates every pane that shows the record.

The feed is manual in these tests: nothing is polled after the action, so what the panes show
comes from the action's answer alone (the next poll only confirms it).
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import accept, perp_rfq, pool_between, quote_rfq
from tui.api.models import ClearingStatus, TradeSide
from tui.desk.messages import Topic
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.trade_tracker import TradeTracker


def _status(app: Any, key: str) -> str:
    return str(app.query_one(RfqInbox).table.cell_value(key, "status"))


async def test_an_accept_shows_at_once_on_the_board_inbox_and_tracker(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        async with sandbox.client("DESK") as mine, sandbox.client("ALPHA") as alpha:
            rfq = await mine.rfqs_new(
                perp_rfq([sandbox.company_ids["ALPHA"]], "1", sandbox.clock.now())
            )
            (received,) = (await alpha.rfqs_received()).result
            pool = await pool_between(alpha, sandbox.company_ids["DESK"])
            quote = await quote_rfq(alpha, received, sandbox.clock.now(), pool_id=pool.pool_id)
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        app.query_one(RfqInbox).select("sent", rfq.rfq_id)
        await pilot.pause()
        board = app.query_one(QuoteBoard)
        board.table.focus()
        await pilot.press("b", "y")
        await settle(app, pilot)
        # No poll since: the answer itself moved the panes on.
        assert "last look" in str(board.query_one("#board-head").render())
        (trade,) = app.book.tracked_trades()
        assert trade.key == quote.parent_quote_id
        assert trade.status == ClearingStatus.PENDING_MAKER_LAST_LOOK
        assert app.query_one(TradeTracker).selected_key == quote.parent_quote_id
        assert board.table.row_count == 0, "an accepted quote is no longer on offer"


async def test_a_cancel_and_the_kill_switch_show_at_once(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS, Topic.POOLS)
        async with sandbox.client("DESK") as mine, sandbox.client("EMBR") as embr:
            target = [sandbox.company_ids["ALPHA"]]
            first = await mine.rfqs_new(perp_rfq(target, "1", sandbox.clock.now()))
            second = await mine.rfqs_new(perp_rfq(target, "2", sandbox.clock.now()))
            asked = await embr.rfqs_new(
                perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now())
            )
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.RFQS_RECEIVED)
        sandbox.advance(10)  # a fresh request budget for the actions
        inbox = app.query_one(RfqInbox)

        # x on the board, y: the inbox row says canceled with no poll.
        inbox.select("sent", first.rfq_id)
        await pilot.pause()
        app.query_one(QuoteBoard).table.focus()
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("y")
        await settle(app, pilot)
        assert _status(app, f"sent:{first.rfq_id}") == "canceled"

        # A quote from the ticket, then the kill switch: both gone at once.
        inbox.select("received", asked.rfq_id)
        await pilot.pause()
        ticket = app.query_one(QuoteTicket)
        ticket.query_one("#bid-0", Input).focus()
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        now = sandbox.clock.now()
        assert app.book.live_quote_on(asked.rfq_id, now) is not None
        await pilot.press("ctrl+k")
        await pilot.pause()
        await pilot.press("y")
        await settle(app, pilot)
        assert _status(app, f"sent:{second.rfq_id}") == "canceled"
        assert app.book.live_quote_on(asked.rfq_id, now) is None


async def test_a_quote_accepted_by_the_taker_is_no_longer_live_on_the_ticket(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS, Topic.POOLS)
        async with sandbox.client("ALPHA") as alpha:
            asked = await alpha.rfqs_new(
                perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now())
            )
            await refresh(app, pilot, Topic.RFQS_RECEIVED)
            app.query_one(RfqInbox).select("received", asked.rfq_id)
            await pilot.pause()
            app.query_one(QuoteTicket).query_one("#bid-0", Input).focus()
            await pilot.press("ctrl+s")
            await settle(app, pilot)
            (mine,) = app.book.my_quotes_on(asked.rfq_id)
            await accept(alpha, mine, TradeSide.SELL)
        await refresh(app, pilot, Topic.QUOTES_SENT)
        assert app.book.live_quote_on(asked.rfq_id, sandbox.clock.now()) is None
        # The last look, answered: the tracker moves on at once.
        await pilot.press("g", "a")
        await settle(app, pilot)
        (trade,) = app.book.tracked_trades()
        assert trade.status != ClearingStatus.PENDING_MAKER_LAST_LOOK
