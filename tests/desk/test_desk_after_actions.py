"""After my own actions: the ticket says my quote was accepted, a permit moves the trade on at
once, and a poll that started before an action's answer never shows the old state again
(issue 9, "your own actions, at once")."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import accept, alpha_quotes_my_rfq, perp_rfq, pool_between, quote_rfq
from tests.desk.test_desk_attention import _last_look_for_desk
from tui.api.models import ClearingStatus, TradeSide
from tui.desk.clearing import NextStep
from tui.desk.messages import QuotesUpdated, RfqsUpdated, Topic
from tui.desk.screens.permit import PermitScreen
from tui.desk.widgets.attention import Attention
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox


async def test_the_ticket_says_my_quote_was_accepted_not_that_none_is_live(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        rfq = await _last_look_for_desk(sandbox)
        await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.QUOTES_SENT, Topic.POOLS)
        app.query_one(RfqInbox).select("received", rfq.rfq_id)
        await pilot.pause()
        live = str(app.query_one(QuoteTicket).query_one("#ticket-live", Static).render())
        assert "no live quote" not in live
        assert "your quote was accepted" in live and "see tracker (t)" in live


async def test_a_permit_moves_the_trade_on_at_once(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        # 30 BTC needs more margin than DESK has in the pool: its deposit approval is due.
        rfq, quote = await alpha_quotes_my_rfq(sandbox, "30")
        rfq_id, quote_id = rfq.rfq_id, quote.parent_quote_id
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        app.taker.accept_now(rfq_id, quote_id, TradeSide.BUY)
        await settle(app, pilot)
        (trade,) = app.book.needs_me()
        assert trade.next_step is NextStep.APPROVE_DEPOSIT
        feed = await app.wait_connected()
        polls: list[Topic] = []
        feed.follow_up = lambda *topics, **_: polls.extend(topics)  # type: ignore[method-assign]
        await pilot.press("g", "p")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, PermitScreen)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        await settle(app, pilot)
        assert app.screen is not form
        # No poll has run yet: the book filed the approval from the venue's answer.
        assert not app.book.needs_me(), "the approval is filed at once"
        assert not app.query_one(Attention).display
        (trade,) = app.book.tracked_trades()
        assert trade.status == ClearingStatus.PENDING_MAKER_LAST_LOOK


async def test_a_poll_that_started_before_an_answer_does_not_show_the_old_state(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        rfq, quote = await alpha_quotes_my_rfq(sandbox)
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        # A poll in flight: its answers were read before the accept was filed.
        async with sandbox.client("DESK") as mine:
            old_quotes = (await mine.quotes_received()).result
            old_rfqs = (await mine.rfqs_sent()).result
        app.taker.accept_now(rfq.rfq_id, quote.parent_quote_id, TradeSide.BUY)
        await settle(app, pilot)
        accepted = app.book.quotes_received[quote.parent_quote_id].clearing_status
        assert accepted is not None
        app.post_message(QuotesUpdated(sandbox.clock.now(), "received", old_quotes))
        app.post_message(RfqsUpdated(sandbox.clock.now(), "sent", old_rfqs))
        await pilot.pause()
        assert app.book.quotes_received[quote.parent_quote_id].clearing_status == accepted
        assert app.book.rfqs_sent[rfq.rfq_id].clearing_status == accepted
        # A poll after the answer confirms it, and then it is the poll that is shown.
        sandbox.advance(1)
        await refresh(app, pilot, Topic.QUOTES_RECEIVED, Topic.RFQS_SENT)
        assert app.book.quotes_received[quote.parent_quote_id].clearing_status is not None


async def test_the_last_look_counts_down_to_the_deadline_the_venue_enforces(
    sandbox: Any, desk: DeskFactory
) -> None:
    """The venue gives a last look at least 10 s after the trade reached it, even when the
    quote expires sooner: the countdown is the venue's, not the quote's expiry."""
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        async with sandbox.client("ALPHA") as alpha, sandbox.client("DESK") as mine:
            asked = await alpha.rfqs_new(
                perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now())
            )
            (view,) = (await mine.rfqs_received(id=asked.rfq_id)).result
            pool = await pool_between(alpha, sandbox.company_ids["DESK"])
            quote = await quote_rfq(
                mine, view, sandbox.clock.now(), pool_id=pool.pool_id, seconds=12
            )
            sandbox.advance(8)  # the quote has 4 s left when it is accepted
            await accept(alpha, quote, TradeSide.SELL)
        await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.QUOTES_SENT)
        (trade,) = app.book.needs_me()
        assert trade.deadline is not None
        assert (trade.deadline - sandbox.clock.now()).total_seconds() == 10
        said = str(app.query_one(Attention).render())
        assert "0:10" in said, said
