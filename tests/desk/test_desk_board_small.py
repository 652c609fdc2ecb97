"""The quotes on my RFQ at 80x24: the board shows at least three quotes (issue 9, "any
terminal, including 80x24"); at 80x24 three makers had quoted and the board had room for one."""

from __future__ import annotations

from typing import Any

from tests.desk.kit.desk import DeskFactory, refresh
from tests.desk.kit.venue import perp_rfq, pool_between, quote_near
from tui.desk.messages import Topic
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.rfq_inbox import RfqInbox


async def test_the_board_shows_three_quotes_at_80x24(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=(80, 24)) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        async with sandbox.client("DESK") as mine, sandbox.client("ALPHA") as alpha:
            rfq = await mine.rfqs_new(
                perp_rfq([sandbox.company_ids["ALPHA"]], "1", sandbox.clock.now())
            )
            (received,) = (await alpha.rfqs_received(id=rfq.rfq_id)).result
            pool = await pool_between(alpha, sandbox.company_ids["DESK"])
            for bid, ask in (("-30", "30"), ("-20", "20"), ("-10", "10")):
                await quote_near(
                    alpha, received, sandbox.clock.now(), bid, ask, pool_id=pool.pool_id
                )
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED)
        app.query_one(RfqInbox).select("sent", rfq.rfq_id)
        await pilot.pause()
        board = app.query_one(QuoteBoard)
        table = board.table
        assert board.display and table.row_count == 3
        # The table's own header takes one line; every quote needs one more.
        rows_shown = table.scrollable_content_region.height - 1
        assert rows_shown >= 3, f"room for {rows_shown} quote rows"
        # The board's keys are still said somewhere on it.
        assert "b buy" in str(board.border_subtitle or "") + str(
            board.query_one("#board-hint").render()
        )
