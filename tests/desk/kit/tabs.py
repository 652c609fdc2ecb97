"""Showing a tab the way a trader does: press its key, wait until its pane is on screen.

The Pools, Trades and Market panes are built the first time their tab is shown and are not
updated while hidden (`tui.desk.panes`), so a test looks at them the way a trader would:
`show_tab` first, then the pane, which then holds the book's current data.
"""

from __future__ import annotations

from typing import Any, TypeVar

from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

from tui.desk.app import DeskApp

PaneType = TypeVar("PaneType", bound=Widget)

TAB_KEYS = {"trade": "1", "pools": "2", "blotter": "3", "market": "4"}
"""The key that shows each tab (the desk's default keymap)."""

WAIT_PAUSES = 50
"""Pauses to wait for the pane at most (each lets the desk handle what is pending)."""


async def show_tab(app: DeskApp, pilot: Pilot[Any], tab: str, pane: type[PaneType]) -> PaneType:
    """Press ``tab``'s key and wait until the tab is active and its ``pane`` mounted in it;
    the pane."""
    await pilot.press(TAB_KEYS[tab])
    for _ in range(WAIT_PAUSES):
        await pilot.pause()
        if app.query_one(TabbedContent).active == tab:
            found = app.query_one(f"#{tab}", TabPane).query(pane)
            if found and found.first().is_mounted:
                return found.first()
    raise AssertionError(f"the {tab} tab did not show its {pane.__name__}")
