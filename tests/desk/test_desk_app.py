"""The desk as an app: first frame before the network, failures as stale marks and toasts,
the wallet prompt for real profiles, themes, help and the command palette."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.desk.kit.desk import SIZE, DeskFactory, make_desk, refresh
from tests.desk.kit.tabs import show_tab
from tui.desk.app import DeskApp
from tui.desk.messages import ConnectionState, Topic
from tui.desk.screens.help import HelpScreen
from tui.desk.session import Connection, SessionError
from tui.desk.widgets.market_stats import MarketStatsPane
from tui.desk.widgets.portfolio_header import PortfolioHeader
from tui.desk.widgets.status_bar import StatusBar


class SlowConnector:
    """A venue that answers only when the test says so."""

    label = "slow"
    sandbox = True

    def __init__(self, connection: Connection | None = None, error: str = "") -> None:
        self.release = asyncio.Event()
        self.connection = connection
        self.error = error

    async def connect(self) -> Connection:
        await self.release.wait()
        if self.connection is None:
            raise SessionError(self.error)
        return self.connection

    async def close(self) -> None:
        pass


async def test_the_first_frame_comes_before_the_network(tmp_path: Path) -> None:
    connector = SlowConnector(error="the sandbox did not start in time")
    app = DeskApp(connector, auto_feed=False, export_dir=tmp_path, user_theme_dirs=[])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        header = app.query_one(PortfolioHeader)
        assert header.state is ConnectionState.CONNECTING
        assert "SANDBOX" in str(header.query_one("#badge").render())
        assert "starting the sandbox" in header.detail
        assert "never" in app.query_one(StatusBar).markup()
        # The sandbox never comes: the desk says so and stays up.
        connector.release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert header.state is ConnectionState.DISCONNECTED
        assert any("did not start" in n.message for n in app._notifications)
        assert app.is_running


async def test_a_venue_going_away_marks_panes_stale(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot)
        status = app.query_one(StatusBar)
        assert "STALE" not in status.markup()
        sandbox.stop()
        await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.QUOTES_SENT)
        assert app.query_one(PortfolioHeader).state is ConnectionState.DISCONNECTED
        assert "inbox" in status.markup() and "STALE" in status.markup()
        assert any("stale" in (n.title or "") for n in app._notifications)
        sandbox.start()  # the fixture stops it again


async def test_themes_help_and_palette(sandbox: Any, tmp_path: Path) -> None:
    app = make_desk(sandbox, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        table = (await show_tab(app, pilot, "market", MarketStatsPane)).table
        dark = table.cell_value("BTC", "funding")
        assert dark is not None
        app.theme = "desk-light"
        await pilot.pause()
        assert app.theme_variables["bid"] != "#3fb950"
        assert table.cell_value("BTC", "funding") is not dark  # redrawn in the new colours
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for wanted in ("New RFQ", "Kill switch", "Export CSV", "Next action", "Create pool"):
            assert wanted in titles
