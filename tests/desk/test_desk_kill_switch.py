"""The kill switch: one priority key, one confirmation, every quote and open RFQ gone."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import perp_rfq
from tui.desk.clearing import quote_is_open
from tui.desk.messages import Topic
from tui.desk.screens.confirm import ConfirmScreen
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox


async def _desk_with_a_quote_and_an_rfq(app: Any, pilot: Any, sandbox: Any) -> None:
    """DESK quotes an RFQ from EMBR and sends one of its own to ALPHA."""
    await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
    async with sandbox.client("EMBR") as embr:
        rfq = await embr.rfqs_new(perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now()))
    async with sandbox.client("DESK") as desk_client:
        await desk_client.rfqs_new(
            perp_rfq([sandbox.company_ids["ALPHA"]], "1", sandbox.clock.now())
        )
    await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.RFQS_SENT, Topic.POOLS)
    app.query_one(RfqInbox).select("received", rfq.rfq_id)
    await pilot.pause()
    app.query_one(QuoteTicket).query_one("#bid-0", Input).focus()
    await pilot.press("ctrl+s")
    await settle(app, pilot)
    await refresh(app, pilot, Topic.QUOTES_SENT)


async def test_kill_switch_cancels_every_quote_and_open_rfq(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await _desk_with_a_quote_and_an_rfq(app, pilot, sandbox)
        now = sandbox.clock.now()
        assert len(app.book.live_quotes(now)) == 1
        assert [r.rfq_status for r in app.book.rfqs_sent.values()] == ["open"]

        # Works from anywhere, even with the cursor in a text field.
        app.query_one(QuoteTicket).query_one("#bid-0", Input).focus()
        await pilot.press("ctrl+k")
        await pilot.pause()
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen)
        assert "1 known live" in confirm.body and "(1 known)" in confirm.body
        await pilot.press("y")
        await settle(app, pilot)

        await refresh(app, pilot, Topic.QUOTES_SENT, Topic.RFQS_SENT)
        assert app.book.live_quotes(now) == []
        assert all(not quote_is_open(q, now) for q in app.book.quotes_sent.values())
        assert [r.rfq_status for r in app.book.rfqs_sent.values()] == ["canceled"]


async def test_kill_switch_backs_out_without_sending(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await _desk_with_a_quote_and_an_rfq(app, pilot, sandbox)
        await pilot.press("ctrl+k")
        await pilot.pause()
        await pilot.press("n")
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        await refresh(app, pilot, Topic.QUOTES_SENT, Topic.RFQS_SENT)
        assert len(app.book.live_quotes(sandbox.clock.now())) == 1
        assert [r.rfq_status for r in app.book.rfqs_sent.values()] == ["open"]
