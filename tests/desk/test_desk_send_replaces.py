"""``ctrl+s`` on the quote ticket while my quote on that RFQ is live replaces it (trial #3):
never a second live quote the ticket does not show (the ticket shows the newest only, and
``ctrl+w`` pulls one)."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import perp_rfq
from tui.api.writes import WriteKind
from tui.desk.messages import Topic
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox


async def test_a_second_ctrl_s_replaces_the_live_quote(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        async with sandbox.client("EMBR") as embr:
            rfq = await embr.rfqs_new(
                perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now())
            )
        await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.POOLS, Topic.STATS)
        app.query_one(RfqInbox).select("received", rfq.rfq_id)
        await pilot.pause()
        ticket = app.query_one(QuoteTicket)
        fair = app.book.rfqs_received[rfq.rfq_id].structure_price.price
        for offset in (10, 8):
            ticket.set_leg_prices(0, str(fair - offset), str(fair + offset))
            ticket.query_one("#bid-0", Input).focus()
            await pilot.press("ctrl+s")
            await settle(app, pilot)
        kinds = [e.intent.kind for e in app.writes.entries()]
        assert kinds == [WriteKind.QUOTE, WriteKind.REPLACE_QUOTE]
        async with sandbox.client("EMBR") as embr:
            seen = [
                q for q in (await embr.quotes_received()).result if q.target_rfq_id == rfq.rfq_id
            ]
        live = [q for q in seen if (q.model_extra or {}).get("quote_status") in (None, "open")]
        assert len(live) == 1 and live[0].aggregated_bid == fair - 8
