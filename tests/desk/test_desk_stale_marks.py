"""Every pane says when its data is stale or the venue is gone, with the age, and stops saying so
when the data is fresh again (`tui.desk.stale_marks`).

The sandbox is switched dead (``drop_before=1``: no answer at all) and broken (``5xx=1``) as in
`tests.desk.test_desk_faults`; the marks are read from the panes' rendered top border, where
the trader sees them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.geometry import Region
from textual.widget import Widget

from tests.desk.kit.desk import SIZE, refresh
from tests.desk.kit.faults import BROKEN, DEAD, faults, faulty_desk, poll
from tui.desk.app import DeskApp
from tui.desk.messages import ConnectionState, PaneAge, Topic
from tui.desk.stale_marks import PANE_FRESHNESS, pane_mark, titled

TABS = {"2": "pools-pane", "3": "blotter-pane", "4": "market-pane", "5": "positions-pane"}
"""A key that shows a later tab -> the pane it builds."""
TRADE_PANES = ("inbox", "tracker", "ticket", "board")


def top_border(pane: Widget) -> str:
    """The pane's top border line as drawn (its title and mark)."""
    width = pane.outer_size.width
    return "".join(strip.text for strip in pane.render_lines(Region(0, 0, width, 1)))


def marks(app: DeskApp, *pane_ids: str) -> dict[str, str]:
    """Each pane's border title (markup) by id."""
    return {pane_id: str(app.query_one(f"#{pane_id}").border_title) for pane_id in pane_ids}


def test_a_pane_is_marked_by_its_oldest_stale_data_and_offline_by_the_link() -> None:
    ages = (
        PaneAge("inbox", 3.0, False),
        PaneAge("clearing", 40.0, True),
        PaneAge("pools", 9, True),
    )
    assert pane_mark(("inbox",), ages, offline=False) == ""
    assert pane_mark(("inbox", "clearing"), ages, offline=False) == "STALE 40s"
    assert pane_mark(("clearing", "pools"), ages, offline=False) == "STALE 40s"
    assert pane_mark(("inbox",), ages, offline=True) == "OFFLINE 3s"
    assert pane_mark(("market",), ages, offline=True) == "OFFLINE", "no age known: the word"
    assert pane_mark(("pools",), (PaneAge("pools", None, True),), offline=False) == "STALE"
    assert titled("RFQ inbox", "") == "RFQ inbox"
    assert titled("RFQ inbox", "STALE 4s") == "RFQ inbox [$stale]· STALE 4s[/]"


def test_every_pane_has_its_sources() -> None:
    from tui.desk.feed.policy import PANE_TOPICS

    sources = {pane for pane, _topics in PANE_TOPICS}
    for pane_id, shown in PANE_FRESHNESS.items():
        assert shown and set(shown) <= sources, pane_id


async def test_every_pane_is_marked_offline_with_its_age_and_clears_when_the_venue_is_back(
    sandbox: Any, tmp_path: Path
) -> None:
    app = faulty_desk(sandbox, tmp_path, with_stats=True)
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot)
        app.link.tick_freshness()
        await pilot.pause()
        fresh = marks(app, *TRADE_PANES)
        assert not any("STALE" in t or "OFFLINE" in t for t in fresh.values()), fresh
        # Fresh news costs nothing: no title is written again.
        titles = {pane: app.query_one(f"#{pane}")._border_title for pane in TRADE_PANES}
        app.link.tick_freshness()
        await pilot.pause()
        for pane, title in titles.items():
            assert app.query_one(f"#{pane}")._border_title is title, pane

        faults(sandbox, DEAD)
        sandbox.advance(12)
        await poll(app, pilot, Topic.STATUS)
        assert app.panes.stale_marks.offline
        for pane in TRADE_PANES:
            assert "· OFFLINE 12s" in str(app.query_one(f"#{pane}").border_title), pane
        for pane in ("inbox", "tracker", "ticket"):  # on screen: drawn in the border
            assert "OFFLINE 12s" in top_border(app.query_one(f"#{pane}")), pane

        # Tabs shown for the first time while the venue is gone: built with their mark.
        for key, pane_id in TABS.items():
            await pilot.press(key)
            await pilot.pause()
            pane = app.query_one(f"#{pane_id}")
            assert "OFFLINE" in top_border(pane), pane_id

        sandbox.advance(60)
        app.link.tick_freshness()
        await pilot.pause()
        assert "OFFLINE 72s" in top_border(app.query_one("#positions-pane")), "the age counts"

        faults(sandbox, None)
        await pilot.press("f5")  # reach for the venue now
        feed = await app.wait_connected()
        await feed.refresh_all()
        app.link.tick_freshness()
        await pilot.pause()
        assert app.query_one("#header").state is ConnectionState.CONNECTED
        every = marks(app, *TRADE_PANES, *TABS.values())
        assert not any("STALE" in t or "OFFLINE" in t for t in every.values()), every
        assert marks(app, *TRADE_PANES) == fresh
        assert "OFFLINE" not in top_border(app.query_one("#positions-pane"))


async def test_a_failing_topic_marks_only_the_panes_that_show_it(
    sandbox: Any, tmp_path: Path
) -> None:
    app = faulty_desk(sandbox, tmp_path, with_stats=True)
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot)
        await pilot.press("3")  # the blotter
        await pilot.pause()
        faults(sandbox, BROKEN)
        await poll(app, pilot, Topic.TRADES)
        blotter = app.query_one("#blotter-pane")
        assert "STALE" in top_border(blotter)
        assert "OFFLINE" not in str(blotter.border_title), "up but failing: stale, not offline"
        assert "STALE" not in str(app.query_one("#inbox").border_title), "its RFQs are fresh"

        faults(sandbox, None)
        await poll(app, pilot, Topic.TRADES)
        assert "STALE" not in top_border(blotter)
        assert str(blotter.border_title) == "Trades"
