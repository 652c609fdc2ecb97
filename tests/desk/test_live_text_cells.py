"""`LiveText` redraws only the cells that changed (issue 11): a countdown's tick marks its own
cells dirty, not the lines around it, and what the widget then draws is the new text on every
line; where a character's cells may move, the whole widget is redrawn."""

from __future__ import annotations

from typing import Any

import pytest
from textual.content import Content
from textual.geometry import Region
from textual.widget import Widget

from tests.desk.kit.panes import PaneApp
from tui.desk.widgets.live_text import LiveText, changed_cells

HEAD = "RFQ 1a2b3c4d from EMBR  qty 1.5  expires [b]{left}[/b]\nB BTC-PERP\n{px}"


class Marked:
    """The regions each `Widget.refresh` of one widget marks dirty (none: all of it), and
    whether it asked for a layout."""

    def __init__(self, widget: Widget, monkeypatch: pytest.MonkeyPatch) -> None:
        self.regions: list[tuple[Region, ...]] = []
        self.layouts: list[bool] = []
        refresh = Widget.refresh

        def spy(node: Widget, *regions: Region, **options: Any) -> Any:
            if node is widget:
                self.regions.append(regions)
                self.layouts.append(bool(options.get("layout")))
            return refresh(node, *regions, **options)

        monkeypatch.setattr(Widget, "refresh", spy)


def _drawn(text: LiveText) -> list[str]:
    """The widget's lines as the screen gets them (through its line cache)."""
    width, height = text.size
    return [strip.text.rstrip() for strip in text.render_lines(Region(0, 0, width, height))]


async def test_a_tick_redraws_the_countdowns_cells_only(monkeypatch: pytest.MonkeyPatch) -> None:
    text = LiveText(id="head")
    async with PaneApp(text).run_test() as pilot:
        text.update(HEAD.format(left="0:21", px="structure px 168.2"))
        await pilot.pause()
        assert _drawn(text)[:3] == [
            "RFQ 1a2b3c4d from EMBR  qty 1.5  expires 0:21",
            "B BTC-PERP",
            "structure px 168.2",
        ]
        seen = Marked(text, monkeypatch)
        text.update(HEAD.format(left="0:20", px="structure px 168.2"))
        column = len("RFQ 1a2b3c4d from EMBR  qty 1.5  expires 0:2")
        assert seen.layouts == [False]
        assert seen.regions == [(Region(column, 0, 1, 1),)]
        await pilot.pause()
        text.update(HEAD.format(left="0:19", px="structure px 168.3"))
        assert seen.regions[-1] == (
            Region(column - 1, 0, 2, 1),
            Region(len("structure px 168."), 2, 1, 1),
        )
        await pilot.pause()
        assert _drawn(text)[:3] == [
            "RFQ 1a2b3c4d from EMBR  qty 1.5  expires 0:19",
            "B BTC-PERP",
            "structure px 168.3",
        ]


async def test_a_change_of_style_alone_redraws_the_styled_cells(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = LiveText(id="bar")
    async with PaneApp(text).run_test() as pilot:
        text.update("tokens used [$foreground]59/100[/] per 10s")
        await pilot.pause()
        seen = Marked(text, monkeypatch)
        text.update("tokens used [$warning]59/100[/] per 10s")
        start = len("tokens used ")
        assert seen.regions == [(Region(start, 0, len("59/100"), 1),)]
        text.update("tokens used [$warning]59/100[/] per 10s ")  # another shape: all of it
        assert seen.regions[-1] == ()


async def test_text_that_may_move_is_redrawn_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    text = LiveText(id="wrapped")
    async with PaneApp(text).run_test(size=(30, 10)) as pilot:
        text.update("a line far wider than thirty cells, wrapped: 0:21")
        await pilot.pause()
        seen = Marked(text, monkeypatch)
        text.update("a line far wider than thirty cells, wrapped: 0:20")
        assert seen.regions == [()]
        await pilot.pause()
        assert "0:20" in " ".join(_drawn(text))


def test_cells_are_told_only_for_lines_of_the_same_length() -> None:
    before, after = Content("expires 9s"), Content("expires 10s")
    assert changed_cells(before, after) is None
    assert changed_cells(Content("a\nb"), Content("a\nc")) == {1: (0, 1)}
    assert changed_cells(Content("same"), Content("same")) == {}
