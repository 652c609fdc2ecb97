"""Header uPNL and Positions uPNL come from two reads (the venue's portfolio summary, the
positions valued at the mark), polled at different times: each says when it was valued, so two
different figures called uPNL on one screen are never left unexplained."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tests.desk.kit.scenes import build_world
from tui.desk.messages import Topic
from tui.desk.widgets.common import fmt
from tui.desk.widgets.portfolio_header import PortfolioHeader
from tui.desk.widgets.positions import PositionsPane


async def test_each_upnl_says_when_it_was_valued(sandbox: Any, desk: DeskFactory) -> None:
    await build_world(sandbox)  # a trade DESK bought from ALPHA: a BTC position
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot)
        summary_time = fmt.clock_time(sandbox.clock.now())
        header = str(app.query_one(PortfolioHeader).query_one("#portfolio", Static).render())
        assert "uPNL" in header and f"at {summary_time}" in header, header

        sandbox.advance(7)
        await app.action_show_tab("positions")
        await pilot.pause()
        pane = app.query_one(PositionsPane)
        await refresh(app, pilot, Topic.AGGREGATED, Topic.POSITIONS, Topic.TRADES)
        totals = str(pane.query_one("#positions-totals", Static).render())
        valued = fmt.clock_time(sandbox.clock.now())
        assert valued != summary_time
        assert "uPNL" in totals and f"at {valued}" in totals, totals
