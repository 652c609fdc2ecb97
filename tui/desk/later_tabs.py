"""`LaterTabs`: the Pools, Trades and Market panes, built when their tab is first shown.

A tab not on screen is not drawn for. Its pane is built (`tui.desk.layout.tab_pane`) the first
time the trader shows the tab; what arrives for it while the tab is hidden only marks it behind,
and `show` hands it the book's current data when it comes on screen again. `DeskPanes` asks
`on_screen` before it draws for one of these tabs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from textual.app import App
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

from tui.desk.layout import LATER_TABS, tab_pane

if TYPE_CHECKING:
    from tui.desk.book import DeskBook
    from tui.desk.widgets.blotter import Blotter
    from tui.desk.widgets.market_stats import MarketStatsPane
    from tui.desk.widgets.pools import PoolsPane


class LaterTabs:
    """The panes of `LATER_TABS`: built when first shown, caught up when shown again."""

    def __init__(self, app: App[Any], book: DeskBook, clock: Callable[[], datetime]) -> None:
        self.app = app
        self.book = book
        self.clock = clock
        self._built: dict[str, Widget] = {}
        self._behind: set[str] = set()
        self._building = asyncio.Lock()

    async def show(self, tab: str) -> None:
        """A tab coming on screen: its pane is built the first time, then handed what it
        missed while hidden. Awaited before the tab shows, so it never shows empty."""
        if tab not in LATER_TABS:
            return
        async with self._building:  # a key and the tab's own activation may both ask
            if tab not in self._built:
                pane = tab_pane(tab, self.book, self.clock)
                await self.app.query_one(f"#{tab}", TabPane).mount(pane)
                self._built[tab] = pane
                self._behind.add(tab)
        if tab in self._behind:
            self._behind.discard(tab)
            self.catch_up(tab)

    def catch_up(self, tab: str) -> None:
        """Everything the book knows, to a tab's pane (built, or back on screen)."""
        if tab == "pools" and (pools := self.pools_pane) is not None:
            pools.show_pools()
            pools.show_detail()
        elif tab == "blotter" and (blotter := self.blotter) is not None:
            blotter.invalidate()  # pool and company names may have arrived meanwhile
            blotter.show_trades(self.book.trade_legs)
        elif tab == "market" and (market := self.market) is not None and self.book.stats:
            market.invalidate()
            market.show_stats(self.book.stats)

    def on_screen(self, tab: str) -> Widget | None:
        """The pane of one of `LATER_TABS` if its tab is on screen; else None, and the tab is
        marked behind (caught up when shown)."""
        pane = self._built.get(tab)
        if pane is not None and self.app.query_one(TabbedContent).active == tab:
            return pane
        self._behind.add(tab)
        return None

    @property
    def pools_pane(self) -> PoolsPane | None:
        """The pools pane, once built (its tab was shown)."""
        return cast("PoolsPane | None", self._built.get("pools"))

    @property
    def blotter(self) -> Blotter | None:
        """The trades blotter, once built (its tab was shown)."""
        return cast("Blotter | None", self._built.get("blotter"))

    @property
    def market(self) -> MarketStatsPane | None:
        """The market statistics pane, once built (its tab was shown)."""
        return cast("MarketStatsPane | None", self._built.get("market"))

    def restyle(self) -> None:
        """A new theme: the panes on screen are drawn again now, the others when shown."""
        if (pools := self.pools_pane) is not None:
            pools.pools_table.clear_rows()
        for tab in LATER_TABS:
            if self.on_screen(tab) is not None:
                self._behind.discard(tab)
                self.catch_up(tab)
