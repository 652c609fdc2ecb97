"""Where the trader's attention is needed: a last look or a deposit approval, wherever focus is.

``g`` then ``a``/``r``/``p`` answer from anywhere (a price field included: nothing is typed into
it); a last look rings, flashes and counts down next to the header; a deposit approval shows its
deadline there too; venue refusals read as words; a taker is never offered a last look.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import accept, perp_rfq, pool_between, quote_rfq
from tests.desk.test_desk_navigation import footer_says
from tui.api.errors import Conflict
from tui.api.models import RFQ, ClearingStatus, TradeSide
from tui.desk.clearing import NextStep
from tui.desk.messages import Topic
from tui.desk.roles.refusals import refusal_words
from tui.desk.widgets.attention import Attention
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.trade_tracker import TradeTracker


async def _last_look_for_desk(sandbox: Any) -> RFQ:
    """ALPHA asks DESK, DESK quotes in their pool, ALPHA sells: DESK's last look is due."""
    async with sandbox.client("ALPHA") as alpha, sandbox.client("DESK") as mine:
        asked = await alpha.rfqs_new(
            perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now())
        )
        (view,) = (await mine.rfqs_received(id=asked.rfq_id)).result
        pool = await pool_between(alpha, sandbox.company_ids["DESK"])
        quote = await quote_rfq(mine, view, sandbox.clock.now(), pool_id=pool.pool_id, seconds=45)
        await accept(alpha, quote, TradeSide.SELL)
    return asked


async def _fresh_rfq_for_desk(sandbox: Any) -> RFQ:
    async with sandbox.client("EMBR") as embr:
        return await embr.rfqs_new(
            perp_rfq([sandbox.company_ids["DESK"]], "3", sandbox.clock.now(), underlying="ETH")
        )


async def test_g_then_a_answers_the_last_look_even_from_a_price_field(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        await _last_look_for_desk(sandbox)
        fresh = await _fresh_rfq_for_desk(sandbox)
        await refresh(app, pilot)
        (trade,) = app.book.needs_me()
        assert trade.next_step is NextStep.LAST_LOOK

        # The trader is typing an ETH price into the ticket of another RFQ.
        app.query_one(RfqInbox).select("received", fresh.rfq_id)
        await pilot.pause()
        ask = app.query_one(QuoteTicket).query_one("#ask-0", Input)
        ask.focus()
        await pilot.pause()
        typed = ask.value
        await pilot.press("g", "a")
        await settle(app, pilot)
        assert ask.value == typed, "nothing was typed into the ask field"
        await refresh(app, pilot, Topic.QUOTES_SENT)
        (done,) = app.book.tracked_trades()
        assert done.status != ClearingStatus.PENDING_MAKER_LAST_LOOK
        assert not app.book.needs_me() or app.book.needs_me()[0].next_step is not NextStep.LAST_LOOK


async def test_g_types_g_when_nothing_waits(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        fresh = await _fresh_rfq_for_desk(sandbox)
        await refresh(app, pilot)
        app.query_one(RfqInbox).select("received", fresh.rfq_id)
        await pilot.pause()
        ask = app.query_one(QuoteTicket).query_one("#ask-0", Input)
        ask.focus()
        ask.value = ""
        await pilot.press("g")
        await pilot.pause()
        # Nothing waits: the key is the field's (which takes it or refuses it, as typed).
        assert app.focused is ask


async def test_a_last_look_rings_flashes_and_counts_down_next_to_the_header(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    rings: list[bool] = []
    app.bell = lambda: rings.append(True)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        attention = app.query_one(Attention)
        assert not attention.display
        await _last_look_for_desk(sandbox)
        await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.QUOTES_SENT)
        assert rings
        assert attention.display
        said = str(attention.render())
        assert "LAST LOOK" in said and "0:45" in said and "g a" in said
        assert attention.has_class("flash")
        sandbox.advance(5)
        attention.tick()
        assert "0:40" in str(attention.render())


async def test_a_deposit_approval_shows_its_deadline(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        async with sandbox.client("DESK") as mine, sandbox.client("ALPHA") as alpha:
            # 30 BTC needs more initial margin than DESK has in the pool.
            rfq = await mine.rfqs_new(
                perp_rfq([sandbox.company_ids["ALPHA"]], "30", sandbox.clock.now())
            )
            (received,) = (await alpha.rfqs_received()).result
            pool = await pool_between(alpha, sandbox.company_ids["DESK"])
            quote = await quote_rfq(alpha, received, sandbox.clock.now(), pool_id=pool.pool_id)
            await accept(mine, quote, TradeSide.BUY)
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        (trade,) = app.book.needs_me()
        assert trade.next_step is NextStep.APPROVE_DEPOSIT
        assert trade.deadline is not None
        said = str(app.query_one(Attention).render())
        assert "APPROVE DEPOSIT" in said and "2:00" in said and "g p" in said
        assert rfq.rfq_id


async def test_the_takers_tracker_never_offers_a_last_look(sandbox: Any, desk: DeskFactory) -> None:
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
            await accept(mine, quote, TradeSide.BUY)  # ALPHA's last look, not mine
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        tracker = app.query_one(TradeTracker)
        tracker.options.focus()
        await pilot.pause()
        assert tracker.selected is not None and rfq.rfq_id
        assert footer_says(app, "a") == "" and footer_says(app, "r") == ""
        assert footer_says(app, "p") == ""


async def test_a_venue_refusal_reads_as_words_with_the_code_in_the_detail(
    sandbox: Any, desk: DeskFactory
) -> None:
    words, detail = refusal_words(
        Conflict("rejected_maker_last_look_rejected: the maker said no", endpoint="POST x")
    )
    assert words == "the maker declined at last look"
    assert "rejected_maker_last_look_rejected" in detail and "409" in detail

    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        async with sandbox.client("DESK") as mine, sandbox.client("ALPHA") as alpha:
            rfq = await mine.rfqs_new(
                perp_rfq([sandbox.company_ids["ALPHA"]], "1", sandbox.clock.now())
            )
            (received,) = (await alpha.rfqs_received()).result
            pool = await pool_between(alpha, sandbox.company_ids["DESK"])
            quote = await quote_rfq(alpha, received, sandbox.clock.now(), pool_id=pool.pool_id)
        sandbox.advance(400)  # the RFQ has expired
        app.clear_notifications()
        app.taker.accept_now(rfq.rfq_id, quote.parent_quote_id, TradeSide.BUY)
        await settle(app, pilot)
        (toast,) = list(app._notifications)
        first_line = toast.message.splitlines()[0]
        assert "rejected_failed" not in first_line
        assert "expired" in first_line
        assert "rejected_failed_taker_accept" in toast.message  # the raw code, in the detail


async def test_open_only_with_nothing_open_says_so(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        async with sandbox.client("DESK") as mine:
            rfq = await mine.rfqs_new(
                perp_rfq([sandbox.company_ids["ALPHA"]], "1", sandbox.clock.now())
            )
            await mine.rfqs_cancel(rfq.rfq_id)
        await refresh(app, pilot, Topic.RFQS_SENT)
        inbox = app.query_one(RfqInbox)
        inbox.table.focus()
        await pilot.press("o")
        await pilot.pause()
        empty = str(inbox.query_one("#inbox-empty").render())
        assert "No open RFQs" in empty and "1 in all" in empty
