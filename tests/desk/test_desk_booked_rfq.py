"""A booking closes its RFQ at once (issue 9, "your own actions, at once").

The quotes poll sees a trade booked seconds before the RFQ poll would: the inbox row of that
RFQ says closed from then on, the feed kicks the RFQ poll to confirm it, and an RFQ poll that
started before the booking does not show it open again.
"""

from __future__ import annotations

from typing import Any

from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tests.desk.kit.venue import accept, alpha_quotes_my_rfq
from tui.api.lifecycle import clearing_is_booked
from tui.api.models import MakerLastLookRequest, RequestAction, RFQStatus, TradeSide
from tui.desk.messages import RfqsUpdated, Topic
from tui.desk.widgets.rfq_inbox import RfqInbox, row_key


async def test_a_booking_seen_on_the_quotes_closes_the_rfq_row_at_once(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        rfq, quote = await alpha_quotes_my_rfq(sandbox)
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        key = row_key("sent", rfq.rfq_id)
        inbox = app.query_one(RfqInbox)
        assert str(inbox.table.cell_value(key, "status")) == "open"
        async with sandbox.client("DESK") as mine, sandbox.client("ALPHA") as alpha:
            # An RFQ poll on its way before the booking: it lists the RFQ open.
            before = (await mine.rfqs_sent()).result
            await accept(mine, quote, TradeSide.BUY)
            await alpha.quotes_maker_last_look(
                MakerLastLookRequest(
                    parent_quote_id=quote.parent_quote_id,
                    rfq_id=rfq.rfq_id,
                    action=RequestAction.ACCEPT,
                )
            )
        sandbox.advance(2)
        feed = await app.wait_connected()
        kicked: list[Topic] = []
        feed.follow_up = lambda *topics, **_: kicked.extend(topics)  # type: ignore[method-assign]
        # Only the quotes are polled: they show the trade booked.
        await refresh(app, pilot, Topic.QUOTES_RECEIVED)
        booked = app.book.quotes_received[quote.parent_quote_id]
        assert clearing_is_booked(booked.clearing_status)
        assert app.book.rfqs_sent[rfq.rfq_id].rfq_status == RFQStatus.CLOSED
        assert str(inbox.table.cell_value(key, "status")) == "closed"
        assert Topic.RFQS_SENT in kicked, "the RFQ poll is kicked to confirm the closing"
        # The poll that started before the booking does not reopen it.
        app.post_message(RfqsUpdated(sandbox.clock.now(), "sent", before))
        await pilot.pause()
        assert str(inbox.table.cell_value(key, "status")) == "closed"
