"""The quotes on my RFQ at 80x24: the board shows at least three quotes (issue 9, "any
terminal, including 80x24"); at 80x24 three makers had quoted and the board had room for one."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from tests.desk.kit.desk import DeskFactory, refresh
from tests.desk.kit.venue import perp_rfq, pool_between, quote_near
from tui.api.models import (
    Leg,
    NewRfqRequest,
    PerpetualFutureInstrument,
    Structure,
    TradeSide,
)
from tui.desk.messages import Topic
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.lines import MORE
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


async def test_the_one_line_head_leaves_figures_out_whole(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=(80, 24)) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        legs = [
            Leg(side=side, ratio=1, instrument=PerpetualFutureInstrument(underlying=name))
            for side, name in ((TradeSide.BUY, "BTC"), (TradeSide.SELL, "ETH"))
        ]
        request = NewRfqRequest(
            structure=Structure(legs=legs),
            qty=Decimal("1234.5"),
            expires_at=sandbox.clock.now() + timedelta(minutes=5),
            target_companies=[sandbox.company_ids["ALPHA"]],
        )
        async with sandbox.client("DESK") as mine:
            rfq = await mine.rfqs_new(request)
        await refresh(app, pilot, Topic.RFQS_SENT)
        app.query_one(RfqInbox).select("sent", rfq.rfq_id)
        await pilot.pause()
        await pilot.pause()
        line = app.query_one("#board-line")
        width = line.content_size.width
        text = str(line.render())
        assert line.display and 0 < len(text) <= width, (text, width)
        assert fmt.short_id(rfq.rfq_id) in text
        assert text.endswith(MORE), "this structure's line is longer than 80 columns"
        # Each figure in it is whole: the line ends in a whole word, or says there is more.
        full = str(app.query_one("#board-head").render()).replace("\n", "  ")
        for word in text.removesuffix(" " + MORE).split():
            assert word in full, (word, full)
