"""What the quote ticket sends is exactly what it shows, bound to the RFQ it names (trial #2).

A trader typed a bid on a one-leg option ticket, the screen showed it, and the quote went out
with the prefilled ask only. The ticket had been on a two-leg RFQ (shown behind the builder),
then the board of my own RFQ, then the option. The leg rows are kept and refilled from RFQ to
RFQ; the ticket now reads the prices from the rows on screen (never from fields looked up by
id, of which a hidden row may hold a second), fills one RFQ at a time, and sends only when the
rows were filled for the RFQ its head names. A poll landing while the trader types changes
nothing typed.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from textual.widgets import Input

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import perp_rfq
from tui.api.models import (
    RFQ,
    DatedFutureInstrument,
    Leg,
    NewRfqRequest,
    PerpetualFutureInstrument,
    Structure,
    TradeSide,
    VanillaOptionInstrument,
)
from tui.api.writes import WriteKind
from tui.desk.messages import Topic
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.ticket_head import TicketHead
from tui.desk.widgets.ticket_legs import LegRow

EXPIRY = datetime(2026, 1, 30, 8, tzinfo=UTC)


def calendar(me: str, now: datetime) -> NewRfqRequest:
    """Two legs: ETH perpetual against a dated ETH future."""
    return NewRfqRequest(
        structure=Structure(
            legs=[
                Leg(side=TradeSide.BUY, instrument=PerpetualFutureInstrument(underlying="ETH")),
                Leg(
                    side=TradeSide.SELL,
                    instrument=DatedFutureInstrument(underlying="ETH", expiry=EXPIRY),
                ),
            ]
        ),
        qty=Decimal(2),
        expires_at=now + timedelta(minutes=4),
        target_companies=[me],
    )


def call(me: str, now: datetime) -> NewRfqRequest:
    """One leg: a BTC call."""
    option = VanillaOptionInstrument(
        underlying="BTC", expiry=EXPIRY, strike=Decimal(96000), payoff="call"
    )
    return NewRfqRequest(
        structure=Structure(legs=[Leg(side=TradeSide.BUY, ratio=1, instrument=option)]),
        qty=Decimal(1),
        expires_at=now + timedelta(minutes=5),
        target_companies=[me],
    )


async def sent_quote_legs(sandbox: Any, taker: str, rfq: RFQ) -> list[tuple[Any, Any]]:
    """The bid and ask per leg of the quote the taker sees on ``rfq`` (the venue's record)."""
    async with sandbox.client(taker) as client:
        quotes = [
            q for q in (await client.quotes_received()).result if q.target_rfq_id == rfq.rfq_id
        ]
    (quote,) = quotes
    return [(leg.bid, leg.ask) for leg in quote.per_leg_quotes]


async def test_a_typed_bid_goes_out_after_a_two_leg_ticket_the_builder_and_the_board(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    me = sandbox.company_ids["DESK"]
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS, Topic.POOLS)
        now = sandbox.clock.now()
        inbox = app.query_one(RfqInbox)
        ticket = app.query_one(QuoteTicket)

        # The builder opens; a two-leg RFQ arrives and its ticket is shown behind it.
        await pilot.press("n")
        await pilot.pause()
        async with sandbox.client("EMBR") as embr:
            two = await embr.rfqs_new(calendar(me, now))
        await refresh(app, pilot, Topic.RFQS_RECEIVED)
        assert ticket.rfq is not None and ticket.rfq.rfq_id == two.rfq_id
        await pilot.press("escape")
        await pilot.pause()

        # My own RFQ's board, then the one-leg option's ticket.
        async with sandbox.client("DESK") as mine:
            sent = await mine.rfqs_new(perp_rfq([sandbox.company_ids["ALPHA"]], "1", now))
        await refresh(app, pilot, Topic.RFQS_SENT)
        inbox.select("sent", sent.rfq_id)
        await pilot.pause()
        async with sandbox.client("ALPHA") as alpha:
            one = await alpha.rfqs_new(call(me, now))
        await refresh(app, pilot, Topic.RFQS_RECEIVED)
        inbox.table.focus()
        inbox.select("received", one.rfq_id)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        bid = app.focused
        assert isinstance(bid, Input) and bid.id == "bid-0"
        ask = ticket.query_one("#ask-0", Input).value
        typed = str(Decimal(bid.value) - Decimal("1.0123456"))

        # Half the bid typed, every poll lands, the rest typed: nothing typed is touched.
        await pilot.press(*typed[:3])
        await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.QUOTES_SENT, Topic.STATS, Topic.POOLS)
        ticket.tick()
        await pilot.press(*typed[3:])
        await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.STATS)
        assert bid.value == typed and ticket.query_one("#ask-0", Input).value == ask
        assert ticket.rfq is not None and ticket.rfq.rfq_id == one.rfq_id

        sandbox.advance(11)  # the polls' tokens back: the quote is not refused for them
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        (entry,) = [e for e in app.writes.entries() if e.intent.kind is WriteKind.QUOTE]
        assert entry.intent.payload["rfq_id"] == one.rfq_id
        assert [(q["bid"], q["ask"]) for q in entry.intent.payload["leg_quotes"]] == [(typed, ask)]
        assert await sent_quote_legs(sandbox, "ALPHA", one) == [(Decimal(typed), Decimal(ask))]


async def test_two_moves_at_once_leave_one_rfqs_legs_and_send_them(
    sandbox: Any, desk: DeskFactory
) -> None:
    """A move that lands while another is mounting leg rows waits for it: the ticket ends on
    the last RFQ with its legs only (the first move used to finish after the second, filling
    the rows with its own legs under the second's head), and its quote carries what they
    show."""
    app = desk()
    me = sandbox.company_ids["DESK"]
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS, Topic.POOLS)
        now = sandbox.clock.now()
        async with sandbox.client("ALPHA") as alpha:
            one = await alpha.rfqs_new(call(me, now))
        await refresh(app, pilot, Topic.RFQS_RECEIVED)
        app.query_one(RfqInbox).select("received", one.rfq_id)
        await pilot.pause()
        async with sandbox.client("EMBR") as embr:
            two = await embr.rfqs_new(calendar(me, now))
        await refresh(app, pilot, Topic.RFQS_RECEIVED)
        ticket = app.query_one(QuoteTicket)
        assert len(ticket.query(LegRow)) == 1  # the two-leg RFQ mounts a row as it moves
        book = app.book.rfqs_received
        await asyncio.gather(ticket.show_rfq(book[two.rfq_id]), ticket.show_rfq(book[one.rfq_id]))
        await pilot.pause()
        assert ticket.rfq is not None and ticket.rfq.rfq_id == one.rfq_id
        shown = [row for row in ticket.query(LegRow) if row.display]
        assert len(shown) == 1 and len(ticket.query("#bid-0")) == 1
        label = str(shown[0].query_one(".leg-label").render())
        assert "96000" in label, label
        assert one.rfq_id[:8] in str(ticket.query_one("#ticket-head", TicketHead).render())

        field = ticket.query_one("#bid-0", Input)
        field.focus()
        typed = str(Decimal(field.value) - Decimal("0.5"))
        field.value = typed
        ask = ticket.query_one("#ask-0", Input).value
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert await sent_quote_legs(sandbox, "ALPHA", one) == [(Decimal(typed), Decimal(ask))]


async def test_the_ticket_sends_nothing_while_its_rows_are_another_rfqs(
    sandbox: Any, desk: DeskFactory
) -> None:
    """The rows say which RFQ they were filled for; a send against any other RFQ is refused
    under the form, never sent with prices the screen does not show for it."""
    app = desk()
    me = sandbox.company_ids["DESK"]
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS, Topic.POOLS)
        async with sandbox.client("ALPHA") as alpha:
            one = await alpha.rfqs_new(call(me, sandbox.clock.now()))
        await refresh(app, pilot, Topic.RFQS_RECEIVED)
        app.query_one(RfqInbox).select("received", one.rfq_id)
        await pilot.pause()
        ticket = app.query_one(QuoteTicket)
        legs = ticket.query_one("#ticket-legs")
        legs.shown_for = "another"  # type: ignore[attr-defined]
        ticket.query_one("#bid-0", Input).focus()
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert not [e for e in app.writes.entries() if e.intent.kind is WriteKind.QUOTE]
        assert "nothing sent" in str(ticket.query_one("#err-form").render())
