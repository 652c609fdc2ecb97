"""The inbox's Best bid / Best ask are the board's: the quotes open now, by one rule.

The RFQ poll is slow (20 s) and the quotes poll quick (2 s): after a maker replaced its quote,
the RFQ still lists the old price until its next poll. The inbox must read the same open
quotes as the board (never a replaced price), and say "crossed" only when the open quotes
really cross.
"""

from __future__ import annotations

from typing import Any

from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tests.desk.kit.venue import mark_plus, my_rfq, pool_between, quote_near, their_view
from tui.api.models import RFQ, LegQuote, ReplaceQuoteRequest
from tui.desk.messages import Topic
from tui.desk.widgets.common import fmt
from tui.desk.widgets.quote_board import BEST, QuoteBoard
from tui.desk.widgets.rfq_inbox import RfqInbox, row_key


def _inbox_says(app: Any, rfq: RFQ, column: str) -> str:
    return str(app.query_one(RfqInbox).table.cell_value(row_key("sent", rfq.rfq_id), column))


def _board_best(board: QuoteBoard, column: str) -> str:
    cells = [str(board.table.cell_value(key, column)) for key in board.table.row_keys]
    starred = [cell for cell in cells if cell.strip().startswith(BEST)]
    assert len(starred) == 1, starred
    return starred[0].strip().removeprefix(BEST).strip()


async def test_inbox_best_follows_the_quotes_poll_not_the_stale_rfq(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        rfq = await my_rfq(sandbox, "ALPHA", "BORE")
        now = sandbox.clock.now
        async with sandbox.client("ALPHA") as alpha, sandbox.client("BORE") as bore:
            pool = await pool_between(alpha, sandbox.company_ids["DESK"])
            view = await their_view(alpha, rfq)
            first = await quote_near(alpha, view, now(), "10", "20", pool_id=pool.pool_id)
            await quote_near(bore, await their_view(bore, rfq), now(), "-8", "30", new_pool="B")
            await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
            assert _inbox_says(app, rfq, "bid") == fmt.price(mark_plus(view, "10"))

            # ALPHA drops its quote below BORE's bid; only the quotes poll has seen it.
            await alpha.quotes_replace(
                ReplaceQuoteRequest(
                    parent_quote_id=first.parent_quote_id,
                    rfq_id=rfq.rfq_id,
                    expires_at=first.expires_at,
                    leg_quotes=[
                        LegQuote(
                            target_rfq_leg_id=view.rfq_legs[0].rfq_leg_id,
                            bid=mark_plus(view, "-12"),
                            ask=mark_plus(view, "-5"),
                        )
                    ],
                    pool_strategy={"strategy": "use_existing", "pool_id": pool.pool_id},
                )
            )
        await refresh(app, pilot, Topic.QUOTES_RECEIVED)
        inbox = app.query_one(RfqInbox)
        inbox.select("sent", rfq.rfq_id)
        await pilot.pause()
        board = app.query_one(QuoteBoard)
        assert board.display

        # BORE's bid is the best now (ALPHA's old +10 is gone), ALPHA's new ask the best ask.
        assert _inbox_says(app, rfq, "bid") == fmt.price(mark_plus(view, "-8"))
        assert _inbox_says(app, rfq, "ask") == fmt.price(mark_plus(view, "-5"))
        assert _inbox_says(app, rfq, "bid") == _board_best(board, "bid")
        assert _inbox_says(app, rfq, "ask") == _board_best(board, "ask")
        assert _inbox_says(app, rfq, "quotes") == "2"
        assert _inbox_says(app, rfq, "status") == "open"


async def test_inbox_says_crossed_only_when_the_open_quotes_cross(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        rfq = await my_rfq(sandbox, "ALPHA", "BORE")
        now = sandbox.clock.now
        async with sandbox.client("ALPHA") as alpha, sandbox.client("BORE") as bore:
            pool = await pool_between(alpha, sandbox.company_ids["DESK"])
            view = await their_view(alpha, rfq)
            await quote_near(alpha, view, now(), "5", "9", pool_id=pool.pool_id)
            await quote_near(bore, await their_view(bore, rfq), now(), "-9", "2", new_pool="B")
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        assert _inbox_says(app, rfq, "bid") == fmt.price(mark_plus(view, "5"))
        assert _inbox_says(app, rfq, "ask") == fmt.price(mark_plus(view, "2"))
        assert _inbox_says(app, rfq, "status") == "crossed"
