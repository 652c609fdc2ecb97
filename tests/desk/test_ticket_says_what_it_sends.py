"""The ticket says what ``ctrl+s`` will do, in view at 80x24 (trial #3 and #13).

A quote was sent into "+ new pool" at 80x24 without the pool ever being on screen, and a
second ``ctrl+s`` left two quotes of mine live while the ticket named one. Above the form, the
ticket now says whether ``ctrl+s`` sends a new quote or replaces which live one, the pool it
settles in and how long it lives; if two of mine are ever live on one RFQ it counts and names
both. ``ctrl+s`` replaces exactly the quote the line names.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from tests.desk.kit.desk import DeskFactory, refresh, settle
from tests.desk.kit.venue import perp_rfq, quote_rfq
from tui.api.writes import WriteKind
from tui.desk.messages import Topic
from tui.desk.widgets.common import fmt
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.ticket_sends import TicketSends


def said(ticket: QuoteTicket) -> str:
    return str(ticket.query_one(TicketSends).render())


async def test_at_80x24_the_ticket_says_what_ctrl_s_sends_and_which_quote_it_replaces(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=(80, 24)) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS, Topic.POOLS)
        async with sandbox.client("EMBR") as embr:
            rfq = await embr.rfqs_new(
                perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now())
            )
        await refresh(app, pilot, Topic.RFQS_RECEIVED)
        app.query_one(RfqInbox).select("received", rfq.rfq_id)
        await pilot.pause()
        ticket = app.query_one(QuoteTicket)
        sends = ticket.query_one(TicketSends)
        # In view without scrolling: inside the ticket's frame, on the screen.
        assert sends.region.height == 2 and ticket.region.contains_region(sends.region)
        assert app.screen.region.contains_region(ticket.region)
        text = said(ticket)
        assert "^s sends a new quote" in text and "lives 30 s" in text
        assert f"+ new pool DESK-EMBR-{rfq.rfq_id[:4]} (standard)" in text

        # Sent: the line names the live quote ctrl+s now replaces, and ctrl+s replaces it.
        ticket.query_one("#bid-0", Input).focus()
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        await refresh(app, pilot, Topic.QUOTES_SENT)
        live = app.book.live_quote_on(rfq.rfq_id, sandbox.clock.now())
        assert live is not None
        assert f"^s replaces live quote {fmt.short_id(live.parent_quote_id)}" in said(ticket)
        sandbox.advance(11)  # the polls' tokens back
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        (last,) = [e for e in app.writes.entries() if e.intent.kind is WriteKind.REPLACE_QUOTE]
        assert last.intent.payload["parent_quote_id"] == live.parent_quote_id


async def test_two_live_quotes_of_mine_on_one_rfq_are_both_named(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=(80, 24)) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS, Topic.POOLS)
        async with sandbox.client("EMBR") as embr:
            rfq = await embr.rfqs_new(
                perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now())
            )
        async with sandbox.client("DESK") as mine:  # two, straight through the API
            (view,) = (await mine.rfqs_received(id=rfq.rfq_id)).result
            quotes = [
                await quote_rfq(mine, view, sandbox.clock.now(), new_pool=f"p{n}", seconds=90 - n)
                for n in (1, 2)
            ]
        await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.QUOTES_SENT)
        app.query_one(RfqInbox).select("received", rfq.rfq_id)
        await pilot.pause()
        ticket = app.query_one(QuoteTicket)
        text = said(ticket)
        assert "(2 of mine live!)" in text, text
        for quote in quotes:
            assert fmt.short_id(quote.parent_quote_id) in text
        live = str(ticket.query_one("#ticket-live").render())
        assert all(fmt.short_id(q.parent_quote_id) in live for q in quotes)
