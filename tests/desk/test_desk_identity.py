"""Identity, not position: every cursor and every accept is bound to the record on screen.

The quote board re-sorts as makers quote, the inbox drops rows with the open-only filter: the
cursor stays on its record. The accept confirmation names the exact quote (maker, price, age),
and on ``y`` looks at the venue again: a quote replaced, pulled or expired meanwhile is not
traded, and the dialog says what changed.
"""

from __future__ import annotations

from typing import Any

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import (
    accept,
    mark_plus,
    my_rfq,
    perp_rfq,
    pool_between,
    quote_near,
    their_view,
)
from tests.desk.test_desk_navigation import footer_says
from tui.api.models import RFQ, LegQuote, ReplaceQuoteRequest, TradeSide
from tui.desk.app import DeskApp
from tui.desk.messages import Topic
from tui.desk.screens.confirm import ConfirmScreen
from tui.desk.widgets.common import fmt
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.rfq_inbox import RfqInbox


async def _show_board(app: DeskApp, pilot: Any, rfq: RFQ) -> QuoteBoard:
    await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED, Topic.POOLS)
    app.query_one(RfqInbox).select("sent", rfq.rfq_id)
    await pilot.pause()
    board = app.query_one(QuoteBoard)
    board.table.focus()
    await pilot.pause()
    return board


async def test_the_board_cursor_stays_on_its_quote_when_a_better_one_arrives(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        rfq = await my_rfq(sandbox, "ALPHA", "BORE", "CBLT")
        now = sandbox.clock.now
        async with sandbox.client("ALPHA") as alpha, sandbox.client("BORE") as bore:
            pool = await pool_between(alpha, sandbox.company_ids["DESK"])
            first = await quote_near(
                alpha, await their_view(alpha, rfq), now(), "-1", "1", pool_id=pool.pool_id
            )
            second = await quote_near(
                bore, await their_view(bore, rfq), now(), "-2", "2", new_pool="BORE-DESK"
            )
        board = await _show_board(app, pilot, rfq)
        assert board.table.row_keys == [first.parent_quote_id, second.parent_quote_id]
        await pilot.press("down")
        assert board.selected_quote is not None
        assert board.selected_quote.quote_id == second.parent_quote_id

        # CBLT quotes tighter: it goes on top; the cursor stays on BORE's quote.
        async with sandbox.client("CBLT") as cblt:
            best = await quote_near(
                cblt, await their_view(cblt, rfq), now(), "-0.5", "0.5", new_pool="CBLT-DESK"
            )
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        assert board.table.row_keys[0] == best.parent_quote_id
        assert board.selected_quote is not None
        assert board.selected_quote.quote_id == second.parent_quote_id

        # s sells at the bid of the quote under the cursor, and says whose.
        await pilot.press("s")
        await pilot.pause()
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen)
        assert "BORE" in confirm.body and fmt.price(second.aggregated_bid) in confirm.body
        assert "quoted 0s ago" in confirm.body


async def test_best_bid_and_best_ask_are_marked_on_the_board(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        rfq = await my_rfq(sandbox, "ALPHA", "BORE")
        now = sandbox.clock.now
        async with sandbox.client("ALPHA") as alpha, sandbox.client("BORE") as bore:
            pool = await pool_between(alpha, sandbox.company_ids["DESK"])
            tight = await quote_near(
                alpha, await their_view(alpha, rfq), now(), "-3", "1", pool_id=pool.pool_id
            )
            high_bid = await quote_near(
                bore, await their_view(bore, rfq), now(), "-1", "3", new_pool="BORE-DESK"
            )
        board = await _show_board(app, pilot, rfq)
        table = board.table
        # The best ask is on the top row, the best bid below it: each is marked.
        assert table.row_keys == [tight.parent_quote_id, high_bid.parent_quote_id]
        assert "best" in str(board.query_one("#board-hint").render()).lower()
        assert str(table.cell_value(tight.parent_quote_id, "ask")).startswith("★")
        assert str(table.cell_value(high_bid.parent_quote_id, "bid")).startswith("★")
        assert not str(table.cell_value(tight.parent_quote_id, "bid")).startswith("★")
        assert not str(table.cell_value(high_bid.parent_quote_id, "ask")).startswith("★")


async def test_y_trades_nothing_when_the_quote_was_replaced_and_offers_the_new_one(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        rfq = await my_rfq(sandbox, "ALPHA")
        async with sandbox.client("ALPHA") as alpha:
            pool = await pool_between(alpha, sandbox.company_ids["DESK"])
            view = await their_view(alpha, rfq)
            quote = await quote_near(
                alpha, view, sandbox.clock.now(), "-1", "1", pool_id=pool.pool_id
            )
            await _show_board(app, pilot, rfq)
            await pilot.press("b")
            await pilot.pause()
            confirm = app.screen
            assert isinstance(confirm, ConfirmScreen)
            assert fmt.price(quote.aggregated_ask) in confirm.body and "ALPHA" in confirm.body

            # Between the key and the y, ALPHA moves its ask up.
            leg = view.rfq_legs[0].rfq_leg_id
            newer = await alpha.quotes_replace(
                ReplaceQuoteRequest(
                    parent_quote_id=quote.parent_quote_id,
                    rfq_id=rfq.rfq_id,
                    expires_at=quote.expires_at,
                    leg_quotes=[
                        LegQuote(
                            target_rfq_leg_id=leg,
                            bid=mark_plus(view, "-1"),
                            ask=mark_plus(view, "5"),
                        )
                    ],
                    pool_strategy={"strategy": "use_existing", "pool_id": pool.pool_id},
                )
            )
            await pilot.press("y")
            await settle(app, pilot)
            assert app.screen is confirm, "nothing sent: the dialog stays and says why"
            assert "replaced" in confirm.body
            assert fmt.price(newer.aggregated_ask) in confirm.body
            (venue_view,) = (await alpha.quotes_sent(id=newer.parent_quote_id)).result
            assert venue_view.clearing_status is None

            # The new quote is offered: y now trades it, at the price the dialog shows.
            await pilot.press("y")
            await settle(app, pilot)
            assert not isinstance(app.screen, ConfirmScreen)
            (venue_view,) = (await alpha.quotes_sent(id=newer.parent_quote_id)).result
            assert venue_view.clearing_status is not None


async def test_y_trades_nothing_when_the_quote_was_pulled_or_expired(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        rfq = await my_rfq(sandbox, "ALPHA")
        async with sandbox.client("ALPHA") as alpha:
            pool = await pool_between(alpha, sandbox.company_ids["DESK"])
            view = await their_view(alpha, rfq)
            pulled = await quote_near(
                alpha, view, sandbox.clock.now(), "-1", "1", pool_id=pool.pool_id
            )
            await _show_board(app, pilot, rfq)
            await pilot.press("b")
            await pilot.pause()
            confirm = app.screen
            assert isinstance(confirm, ConfirmScreen)
            await alpha.quotes_cancel(pulled.parent_quote_id)
            await pilot.press("y")
            await settle(app, pilot)
            assert app.screen is confirm
            assert "pulled" in confirm.body
            await pilot.press("escape")
            await pilot.pause()

            short = await quote_near(
                alpha, view, sandbox.clock.now(), "-1", "1", pool_id=pool.pool_id, seconds=5
            )
            await _show_board(app, pilot, rfq)
            await pilot.press("b")
            await pilot.pause()
            confirm = app.screen
            assert isinstance(confirm, ConfirmScreen)
            sandbox.advance(6)
            await pilot.press("y")
            await settle(app, pilot)
            assert app.screen is confirm
            assert "expired" in confirm.body
            (venue_view,) = (await alpha.quotes_sent(id=short.parent_quote_id)).result
            assert venue_view.clearing_status is None


async def test_buy_and_sell_are_not_offered_while_my_trade_on_the_rfq_clears(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        rfq = await my_rfq(sandbox, "ALPHA", "BORE")
        now = sandbox.clock.now
        async with (
            sandbox.client("ALPHA") as alpha,
            sandbox.client("BORE") as bore,
            sandbox.client("DESK") as mine,
        ):
            pool = await pool_between(alpha, sandbox.company_ids["DESK"])
            taken = await quote_near(
                alpha, await their_view(alpha, rfq), now(), "-1", "1", pool_id=pool.pool_id
            )
            await quote_near(
                bore, await their_view(bore, rfq), now(), "-0.5", "1.5", new_pool="BORE-DESK"
            )
            await accept(mine, taken, TradeSide.BUY)  # waits for ALPHA's last look
        board = await _show_board(app, pilot, rfq)
        assert footer_says(app, "b") == "" and footer_says(app, "s") == ""
        assert "clearing" in str(board.query_one("#board-hint").render())
        await pilot.press("b")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)


async def test_the_inbox_cursor_stays_on_its_rfq_when_rows_above_go(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        async with sandbox.client("DESK") as mine:
            target = [sandbox.company_ids["ALPHA"]]
            oldest = await mine.rfqs_new(perp_rfq(target, "1", sandbox.clock.now()))
            sandbox.advance(1)
            middle = await mine.rfqs_new(perp_rfq(target, "2", sandbox.clock.now()))
            sandbox.advance(1)
            newest = await mine.rfqs_new(perp_rfq(target, "3", sandbox.clock.now()))
            await mine.rfqs_cancel(newest.rfq_id)
        await refresh(app, pilot, Topic.RFQS_SENT)
        inbox = app.query_one(RfqInbox)
        inbox.table.focus()
        inbox.select("sent", middle.rfq_id)
        await pilot.pause()
        assert inbox.table.row_keys.index(f"sent:{middle.rfq_id}") == 1
        await pilot.press("o")  # open only: the canceled RFQ above goes
        await pilot.pause()
        assert f"sent:{newest.rfq_id}" not in inbox.table.row_keys
        assert inbox.selected == ("sent", middle.rfq_id)
        assert oldest.rfq_id != middle.rfq_id
