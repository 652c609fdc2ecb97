"""The maker's whole trade from the keyboard, a last-look reject, and the permit approval.

EMBR (a taker driven by the test) asks DESK for a price. DESK quotes from the ticket in a new
pool, EMBR accepts and funds its side, DESK accepts at last look, approves its own deposit by
signing a permit in the desk, and the trade books.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from textual.widgets import Input, Select

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import accept, permit, perp_rfq
from tui.api.models import RFQ, ClearingStatus, TradeSide
from tui.desk.clearing import NextStep
from tui.desk.messages import Topic
from tui.desk.screens.permit import PermitScreen
from tui.desk.widgets.quote_form import NEW_POOL
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.trade_tracker import TradeTracker


async def _rfq_from_embr(sandbox: Any, embr: Any, qty: str = "1") -> RFQ:
    return await embr.rfqs_new(perp_rfq([sandbox.company_ids["DESK"]], qty, sandbox.clock.now()))


async def _quote_from_ticket(app: Any, pilot: Any, rfq: RFQ) -> str:
    """Select the RFQ, quote it from the ticket in a new pool, return the quote id."""
    await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.POOLS, Topic.STATS)
    app.query_one(RfqInbox).select("received", rfq.rfq_id)
    await pilot.pause()
    ticket = app.query_one(QuoteTicket)
    assert ticket.rfq is not None and ticket.rfq.rfq_id == rfq.rfq_id
    bid = ticket.query_one("#bid-0", Input)
    ask = ticket.query_one("#ask-0", Input)
    assert Decimal(bid.value) < Decimal(ask.value)  # prefilled around the mark
    assert ticket.query_one("#pool", Select).value == NEW_POOL  # no DESK-EMBR pool yet
    bid.focus()
    await pilot.press("ctrl+s")
    await settle(app, pilot)
    await refresh(app, pilot, Topic.QUOTES_SENT)
    (quote,) = app.book.my_quotes_on(rfq.rfq_id)
    return quote.parent_quote_id


async def test_maker_trade_with_last_look_and_deposit_approval(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    embr_wallet = sandbox.credentials["EMBR"]["wallet_private_key"]
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        async with sandbox.client("EMBR") as embr:
            rfq = await _rfq_from_embr(sandbox, embr)
            quote_id = await _quote_from_ticket(app, pilot, rfq)

            # EMBR buys; the new pool is created one block later; EMBR funds its margin.
            quote = app.book.quotes_sent[quote_id]
            accepted = await accept(embr, quote, TradeSide.BUY)
            assert accepted.new_clearing_status == ClearingStatus.PENDING_POOL_CREATION
            sandbox.advance(2)
            (embr_quote,) = (await embr.quotes_received(id=quote_id)).result
            if embr_quote.clearing_status == ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL:
                pools = (await embr.settlement_pools(id=embr_quote.pool_location)).result
                address = pools[0].data.address
                amount = Decimal(
                    str(embr_quote.model_extra.get("pending_deposits_sum_qty") or "1000000")
                )
                assert await permit(embr, embr_wallet, address, amount)
                sandbox.advance(2)

        # DESK's move: the tracker rings for the last look; g goes there, a accepts.
        await refresh(app, pilot, Topic.QUOTES_SENT, Topic.POOLS)
        (trade,) = app.book.needs_me()
        assert trade.next_step is NextStep.LAST_LOOK
        await pilot.press("g")
        tracker = app.query_one(TradeTracker)
        assert tracker.selected_key == quote_id
        await pilot.press("a")
        await settle(app, pilot)
        await refresh(app, pilot, Topic.QUOTES_SENT, Topic.POOLS)
        (trade,) = app.book.tracked_trades()
        assert trade.status == ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL
        assert trade.next_step is NextStep.APPROVE_DEPOSIT

        # Approve the deposit: permit template -> sign with the wallet -> submit.
        await pilot.press("g", "p")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, PermitScreen)
        assert form.form.pool_address
        assert Decimal(form.query_one("#amount", Input).value) > 0
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        sandbox.advance(2)
        await refresh(app, pilot, Topic.QUOTES_SENT, Topic.TRADES)
        (trade,) = app.book.tracked_trades()
        assert trade.status == ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL
        assert trade.role.value == "maker" and trade.side == TradeSide.SELL
        assert "booked into the pool" in str(tracker.options.get_option_at_index(0).prompt)


async def test_last_look_reject_shows_the_reason(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        async with sandbox.client("ALPHA") as alpha:
            # ALPHA asks DESK; DESK quotes in the pool they share (ALPHA has funds there).
            rfq = await alpha.rfqs_new(
                perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now())
            )
            await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.POOLS, Topic.STATS)
            app.query_one(RfqInbox).select("received", rfq.rfq_id)
            await pilot.pause()
            ticket = app.query_one(QuoteTicket)
            assert ticket.query_one("#pool", Select).value != NEW_POOL
            ticket.query_one("#bid-0", Input).focus()
            await pilot.press("ctrl+s")
            await settle(app, pilot)
            await refresh(app, pilot, Topic.QUOTES_SENT)
            (quote,) = app.book.my_quotes_on(rfq.rfq_id)
            await accept(alpha, quote, TradeSide.SELL)
        await refresh(app, pilot, Topic.QUOTES_SENT)
        (trade,) = app.book.needs_me()
        assert trade.next_step is NextStep.LAST_LOOK
        await pilot.press("g", "r")
        await settle(app, pilot)
        await refresh(app, pilot, Topic.QUOTES_SENT)
        (trade,) = app.book.tracked_trades()
        assert trade.status == ClearingStatus.REJECTED_MAKER_LAST_LOOK_REJECTED
        prompt = str(app.query_one(TradeTracker).options.get_option_at_index(0).prompt)
        assert "the maker declined at last look" in prompt


async def test_the_ticket_follows_the_cursor_and_keeps_it_when_rfqs_arrive(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        async with sandbox.client("EMBR") as embr:
            first = await _rfq_from_embr(sandbox, embr, "1")
            sandbox.advance(1)
            second = await _rfq_from_embr(sandbox, embr, "2")
            await refresh(app, pilot, Topic.RFQS_RECEIVED)
            inbox = app.query_one(RfqInbox)
            ticket = app.query_one(QuoteTicket)
            # Newest first, the cursor on top, the ticket on that RFQ.
            assert inbox.table.row_keys == [f"received:{second.rfq_id}", f"received:{first.rfq_id}"]
            assert ticket.rfq is not None and ticket.rfq.rfq_id == second.rfq_id
            # Moving the cursor rebuilds the ticket for the other RFQ, back and forth.
            for rfq, key in ((first, "down"), (second, "up"), (first, "down")):
                await pilot.press(key)
                await pilot.pause()
                assert ticket.rfq is not None and ticket.rfq.rfq_id == rfq.rfq_id
                assert len(ticket.query("#bid-0")) == 1
            # A new RFQ lands on top; the cursor (and the ticket) stay where the trader was.
            sandbox.advance(1)
            third = await _rfq_from_embr(sandbox, embr, "3")
            await refresh(app, pilot, Topic.RFQS_RECEIVED)
            assert inbox.table.row_keys[0] == f"received:{third.rfq_id}"
            assert inbox.selected == ("received", first.rfq_id)
            assert ticket.rfq is not None and ticket.rfq.rfq_id == first.rfq_id


async def test_replace_pull_and_venue_errors_next_to_the_field(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        async with sandbox.client("EMBR") as embr:
            rfq = await _rfq_from_embr(sandbox, embr)
        first = await _quote_from_ticket(app, pilot, rfq)
        ticket = app.query_one(QuoteTicket)

        # Replace with a tighter bid: a new quote id, the old one gone.
        bid = ticket.query_one("#bid-0", Input)
        bid.value = str(Decimal(bid.value) + 10)
        bid.focus()
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        await refresh(app, pilot, Topic.QUOTES_SENT, Topic.RFQS_RECEIVED)
        live = app.book.live_quote_on(rfq.rfq_id, sandbox.clock.now())
        assert live is not None and live.parent_quote_id != first
        assert live.per_leg_quotes[0].bid == Decimal(bid.value)

        # The venue refuses a quote that outlives its RFQ: the message sits under "expiry".
        expiry = ticket.query_one("#expiry", Input)
        expiry.value = "3000"
        expiry.focus()
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        error = ticket.query_one("#err-expiry")
        assert error.display and str(error.render())

        # Pull: no live quote left.
        expiry.value = "30"
        await pilot.press("ctrl+w")
        await settle(app, pilot)
        await refresh(app, pilot, Topic.QUOTES_SENT)
        assert app.book.live_quote_on(rfq.rfq_id, sandbox.clock.now()) is None


async def test_the_inbox_can_hide_settled_rfqs(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        async with sandbox.client("EMBR") as embr:
            old = await _rfq_from_embr(sandbox, embr)
            sandbox.advance(400)
            live = await _rfq_from_embr(sandbox, embr)
        await refresh(app, pilot, Topic.RFQS_RECEIVED)
        inbox = app.query_one(RfqInbox)
        assert set(inbox.table.row_keys) == {f"received:{old.rfq_id}", f"received:{live.rfq_id}"}
        inbox.table.focus()
        await pilot.press("o")
        assert inbox.table.row_keys == [f"received:{live.rfq_id}"]
        await pilot.press("o")
        assert inbox.table.row_count == 2
