"""The desk's start (issue 11, `tui.desk.start_up`): the first frame shows only what it must, the
rest is built right after it, and a key typed meanwhile waits for the whole desk instead of
acting on part of it; once connected, the first poll is the portfolio summary, alone, and its
figures are on screen before any other topic is polled."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import TabbedContent

from tests.desk.kit.desk import SIZE, make_desk
from tui.desk.feed.scheduler import Feed
from tui.desk.layout import TICKET_FRAME, DeskFooter
from tui.desk.messages import Topic
from tui.desk.start_up import StartUp
from tui.desk.widgets.portfolio_header import PortfolioHeader
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.quote_ticket import QuoteTicket


async def test_a_key_typed_before_the_desk_is_whole_acts_once_it_is(
    sandbox: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = asyncio.Event()
    assemble = StartUp._assemble

    async def held_back(self: StartUp) -> None:
        await gate.wait()
        await assemble(self)

    monkeypatch.setattr(StartUp, "_assemble", held_back)
    app = make_desk(sandbox, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await app.start_up.first_frame()
        # The first frame: the ticket's empty frame stands in; the ticket is not built yet.
        assert app.query_one(f"#{TICKET_FRAME}").display
        assert not app.query(QuoteTicket)
        await pilot.press("3", "2")
        await pilot.pause()
        assert app.query_one(TabbedContent).active == "trade"  # held, not lost
        gate.set()
        await app.start_up.whole.wait()
        await pilot.pause()
        await pilot.pause()
        assert app.query_one(TabbedContent).active == "pools"  # both keys, in order
        assert app.panes.tabs.blotter is not None
        # Whole: the ticket in place of its frame, the board hidden behind it.
        assert not app.query(f"#{TICKET_FRAME}")
        assert app.query_one(QuoteTicket).display
        assert not app.query_one(QuoteBoard).display


async def test_the_first_poll_is_the_summary_on_screen_before_any_other(
    sandbox: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    polled: list[tuple[Topic, bool]] = []
    poll = Feed.poll

    async def noted(self: Feed, topic: Topic) -> bool:
        header = app.query_one(PortfolioHeader)
        polled.append((topic, header.summary is not None))
        return await poll(self, topic)

    monkeypatch.setattr(Feed, "poll", noted)
    app = make_desk(sandbox, tmp_path, auto_feed=True)
    async with app.run_test(size=SIZE) as pilot:
        feed = await app.wait_connected()
        await pilot.pause()
        await feed.stop()
    assert polled[0] == (Topic.SUMMARY, False)
    others = polled[1:]
    assert others, "the feed polled nothing after the summary"
    assert all(shown for _topic, shown in others), polled


async def test_the_footer_composes_its_keys_once_while_they_stay_the_same(
    sandbox: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    composed: list[str] = []
    recompose = DeskFooter.recompose

    async def counted(self: DeskFooter) -> None:
        composed.append(app.focused.id if app.focused is not None else "")
        await recompose(self)

    monkeypatch.setattr(DeskFooter, "recompose", counted)
    app = make_desk(sandbox, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await app.start_up.whole.wait()
        await pilot.pause()
        assert len(composed) == 1, composed  # Textual's footer: five times over
        footer = app.query_one(DeskFooter)
        assert "New RFQ" in " ".join(str(key.render()) for key in footer.children)
        await pilot.press("tab")  # the tracker: other keys
        await pilot.pause()
        assert len(composed) == 2, composed
