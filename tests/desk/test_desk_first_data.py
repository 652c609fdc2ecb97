"""The desk's first data comes first (issue 11, `tui.desk.start_up`, `tui.desk.venue_link`):
right after the first frame the link connects and the portfolio summary is shown, before the
ticket and the board are built; the summary does not wait for the clock sync; and the modules
of the ticket and the board are not loaded with the app (they are built after the first frame).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.desk.kit.desk import SIZE, make_desk
from tui.api.client import ServiceClient
from tui.desk.widgets.portfolio_header import PortfolioHeader
from tui.desk.widgets.quote_ticket import QuoteTicket

REPO = Path(__file__).resolve().parents[2]


async def test_the_summary_is_on_screen_before_the_ticket_is_built(
    sandbox: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built_at_summary: list[bool] = []
    shown = PortfolioHeader.watch_summary

    def noted(self: PortfolioHeader) -> None:
        if self.summary is not None and not built_at_summary:
            built_at_summary.append(bool(self.app.query(QuoteTicket)))
        shown(self)

    monkeypatch.setattr(PortfolioHeader, "watch_summary", noted)
    app = make_desk(sandbox, tmp_path, auto_feed=True)
    async with app.run_test(size=SIZE) as pilot:
        feed = await app.wait_connected()
        await app.start_up.whole.wait()
        await pilot.pause()
        await feed.stop()
        assert app.query_one(QuoteTicket)  # built all the same, right after
    assert built_at_summary == [False]


async def test_the_summary_does_not_wait_for_the_clock_sync(
    sandbox: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = asyncio.Event()
    sync = ServiceClient.sync_clock

    async def held(self: ServiceClient) -> int:
        await gate.wait()
        return await sync(self)

    monkeypatch.setattr(ServiceClient, "sync_clock", held)
    app = make_desk(sandbox, tmp_path, auto_feed=True)
    async with app.run_test(size=SIZE) as pilot:
        header = app.query_one(PortfolioHeader)
        for _ in range(200):
            if header.summary is not None:
                break
            await asyncio.sleep(0.02)
        assert header.summary is not None  # shown while the sync is still held
        assert not app.connected.is_set()  # nothing else polled before the clock is synced
        gate.set()
        feed = await app.wait_connected()
        await pilot.pause()
        await feed.stop()


def test_the_app_loads_without_the_ticket_and_the_board() -> None:
    script = textwrap.dedent(
        """
        import sys
        import tui.desk.app
        later = ("tui.desk.widgets.quote_ticket", "tui.desk.widgets.quote_board")
        print(" ".join(name for name in later if name in sys.modules))
        """
    )
    done = subprocess.run(  # noqa: S603 - our own interpreter
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == ""
