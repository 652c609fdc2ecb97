"""After a send or a replace, the focus stays in the quote ticket: typing goes on editing the
quote (a trader typing ``167.5`` to replace must not land on another tab with ``1`` and ``6``).
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Input, TabbedContent

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import perp_rfq
from tui.desk.messages import Topic
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox


async def test_focus_stays_in_the_ticket_after_send_and_replace(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS, Topic.POOLS)
        async with sandbox.client("EMBR") as embr:
            rfq = await embr.rfqs_new(
                perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now())
            )
        await refresh(app, pilot, Topic.RFQS_RECEIVED)
        app.query_one(RfqInbox).select("received", rfq.rfq_id)
        await pilot.pause()
        await pilot.press("enter")  # the ticket's first price field
        await pilot.pause()
        ticket = app.query_one(QuoteTicket)
        ask = ticket.query_one("#ask-0", Input)
        ask.focus()
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        await refresh(app, pilot, Topic.QUOTES_SENT, Topic.RFQS_RECEIVED)
        live = app.book.live_quote_on(rfq.rfq_id, sandbox.clock.now())
        assert live is not None
        assert app.focused is ask

        # The trader types a new ask: the digits edit it (no tab switch), ctrl+r replaces.
        price = str(live.aggregated_ask)
        await pilot.press("end", *["backspace"] * 20, *price, "5")
        assert ask.value == price + "5"
        assert app.query_one(TabbedContent).active == "trade"
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        await refresh(app, pilot, Topic.QUOTES_SENT, Topic.RFQS_RECEIVED)
        replaced = app.book.live_quote_on(rfq.rfq_id, sandbox.clock.now())
        assert replaced is not None and replaced.parent_quote_id != live.parent_quote_id
        assert app.focused is ask
