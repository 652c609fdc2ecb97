"""The quote ticket is bound to the RFQ it was opened on (issue 9, "Identity, not position").

ETH prices were typed, the ETH RFQ expired, and the ticket silently showed a WIF RFQ with the
focus still in it. While the trader is in the ticket it stays on its RFQ whatever the inbox
cursor does; when that RFQ expires or closes, the ticket says so and cannot send.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from textual.widget import Widget
from textual.widgets import Button, Input, Static

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import perp_rfq
from tui.desk.messages import Topic
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox


async def test_the_ticket_stays_on_its_rfq_and_refuses_once_it_expired(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    me = sandbox.company_ids["DESK"]
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        async with sandbox.client("ALPHA") as alpha:
            short = perp_rfq([me], "1", sandbox.clock.now(), underlying="ETH")
            short.expires_at = sandbox.clock.now() + timedelta(seconds=20)
            eth = await alpha.rfqs_new(short)
            other = await alpha.rfqs_new(perp_rfq([me], "3", sandbox.clock.now()))
        await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.POOLS)
        inbox = app.query_one(RfqInbox)
        inbox.table.focus()
        inbox.select("received", eth.rfq_id)
        await pilot.pause()
        await pilot.press("enter", "3", "4", "0", "0", "tab", "3", "5", "0", "0")
        ticket = app.query_one(QuoteTicket)
        assert ticket.rfq is not None and ticket.rfq.rfq_id == eth.rfq_id
        assert ticket.has_focus_within

        # The ETH RFQ expires; meanwhile the inbox cursor lands on the other RFQ.
        sandbox.advance(25)
        await refresh(app, pilot, Topic.RFQS_RECEIVED)
        inbox.select("received", other.rfq_id)
        await pilot.pause()
        assert ticket.rfq is not None and ticket.rfq.rfq_id == eth.rfq_id, "never rebinds"
        assert ticket.query_one("#bid-0", Input).value == "3400"
        head = str(ticket.query_one("#ticket-head", Static).render())
        assert "EXPIRED" in head and "cannot send" in head
        assert ticket.query_one("#send", Button).disabled

        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert "expired" in str(ticket.query_one("#err-form", Static).render())
        await refresh(app, pilot, Topic.QUOTES_SENT)
        assert not app.book.quotes_sent

        # Back in the inbox, the ticket follows the cursor again.
        await pilot.press("escape")
        inbox.select("received", eth.rfq_id)
        await pilot.pause()
        inbox.select("received", other.rfq_id)
        await pilot.pause()
        assert ticket.rfq is not None and ticket.rfq.rfq_id == other.rfq_id


async def test_moving_between_rfqs_of_one_shape_lays_the_ticket_out_nowhere(
    sandbox: Any, desk: DeskFactory, monkeypatch: Any
) -> None:
    """Issue 11: the down arrow in a long inbox refilled the ticket's pool choices and wrote
    texts that lay the whole screen out on every move, though nothing had changed shape."""
    app = desk()
    me = sandbox.company_ids["DESK"]
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        rfqs = []
        for taker, qty in (("BORE", "1"), ("CBLT", "2"), ("BORE", "3")):
            async with sandbox.client(taker) as client:
                rfqs.append(await client.rfqs_new(perp_rfq([me], qty, sandbox.clock.now())))
        await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.POOLS)
        inbox = app.query_one(RfqInbox)
        ticket = app.query_one(QuoteTicket)
        inbox.select("received", rfqs[0].rfq_id)
        await pilot.pause()

        laid_out: list[str] = []
        original = Widget.refresh

        def spy(widget: Widget, *regions: Any, layout: bool = False, **options: Any) -> Any:
            if layout and ticket in widget.ancestors_with_self:
                laid_out.append(f"{type(widget).__name__}#{widget.id}")
            return original(widget, *regions, layout=layout, **options)

        monkeypatch.setattr(Widget, "refresh", spy)
        for rfq in rfqs[1:]:
            inbox.select("received", rfq.rfq_id)
            await pilot.pause()
            assert ticket.rfq is not None and ticket.rfq.rfq_id == rfq.rfq_id
        assert laid_out == []
