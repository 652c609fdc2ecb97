"""``ctrl+s`` on the quote ticket while my quote on that RFQ is live replaces it (trial #3):
never a second live quote the ticket does not show (the ticket shows the newest only, and
``ctrl+w`` pulls one)."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import perp_rfq, pool_between
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


async def _received_rfq(app: Any, pilot: Any, sandbox: Any) -> tuple[Any, str]:
    """An RFQ of ALPHA to DESK, in the desk's book, and the pool the two share."""
    await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
    async with sandbox.client("ALPHA") as alpha:
        rfq = await alpha.rfqs_new(
            perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now())
        )
    async with sandbox.client("DESK") as mine:
        pool = await pool_between(mine, sandbox.company_ids["ALPHA"])
    await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.POOLS, Topic.STATS)
    return rfq, pool.pool_id


def _quote(app: Any, rfq: Any, pool: str, offset: int) -> Any:
    from datetime import timedelta

    from tui.api.models import NewQuoteRequest

    fair = app.book.rfqs_received[rfq.rfq_id].structure_price.price
    return NewQuoteRequest(
        rfq_id=rfq.rfq_id,
        expires_at=app.clock() + timedelta(seconds=30),
        leg_quotes=[
            {
                "target_rfq_leg_id": rfq.rfq_legs[0].rfq_leg_id,
                "bid": str(fair - offset),
                "ask": str(fair + offset),
            }
        ],
        pool_strategy={"strategy": "use_existing", "pool_id": pool},
    )


async def test_a_ctrl_s_queued_behind_a_send_never_makes_a_second_quote(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        rfq, pool = await _received_rfq(app, pilot, sandbox)
        # Two sends before the first one's answer is in the book (a busy desk, keys queued).
        app.maker.send_quote_now(_quote(app, rfq, pool, 10))
        app.maker.send_quote_now(_quote(app, rfq, pool, 9))
        await settle(app, pilot)
        assert [e.intent.kind for e in app.writes.entries()] == [WriteKind.QUOTE]
        assert app.book.live_quote_on(rfq.rfq_id, app.clock()) is not None
        # Filed: the next one replaces it.
        app.maker.send_quote_now(_quote(app, rfq, pool, 8))
        await settle(app, pilot)
        kinds = [e.intent.kind for e in app.writes.entries()]
        assert kinds == [WriteKind.QUOTE, WriteKind.REPLACE_QUOTE]


async def test_a_send_that_never_started_does_not_lock_the_rfq(
    sandbox: Any, desk: DeskFactory, monkeypatch: Any
) -> None:
    from tui.api.errors import ApiError

    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        rfq, pool = await _received_rfq(app, pilot, sandbox)
        runner = app.maker.runner

        def offline() -> Any:
            raise ApiError("not connected")

        monkeypatch.setattr(runner, "client", offline)
        app.maker.send_quote_now(_quote(app, rfq, pool, 10))
        await settle(app, pilot)
        monkeypatch.undo()
        app.maker.send_quote_now(_quote(app, rfq, pool, 9))
        await settle(app, pilot)
        assert [e.intent.kind for e in app.writes.entries()] == [WriteKind.QUOTE]
