"""`LaterTabs`: the Pools, Trades, Market, Positions and History panes, built when first shown.

A tab not on screen is not drawn for. Its pane is built (`tui.desk.layout.tab_pane`) the first
time the trader shows the tab; what arrives for it while the tab is hidden only marks it behind,
and `show` hands it the book's current data when it comes on screen again. `DeskPanes` asks
`on_screen` before it draws for one of these tabs, or calls the ``show_*`` here that do.

The Positions pane is handed the book's positions valued at the mark with their P&L
(`tui.desk.analytics.positions.build_positions`, realised P&L today counted from 00:00 UTC);
the History pane the desk's history and the scorecards made from it.
"""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

from textual.app import App
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

from tui.desk.layout import LATER_TABS, tab_pane

if TYPE_CHECKING:
    from tui.api.models import Trade
    from tui.desk.analytics.positions import PositionBook
    from tui.desk.book import DeskBook
    from tui.desk.widgets.blotter import Blotter
    from tui.desk.widgets.history import HistoryPane
    from tui.desk.widgets.market_stats import MarketStatsPane
    from tui.desk.widgets.pools import PoolsPane
    from tui.desk.widgets.positions import PositionsPane


class LaterTabs:
    """The panes of `LATER_TABS`: built when first shown, caught up when shown again."""

    def __init__(self, app: App[Any], book: DeskBook, clock: Callable[[], datetime]) -> None:
        self.app = app
        self.book = book
        self.clock = clock
        self._built: dict[str, Widget] = {}
        self._behind: set[str] = set()
        self._building = asyncio.Lock()
        self._valued: tuple[tuple[object, ...], list[object], PositionBook] | None = None
        """The last position book and what it was made of (`position_book`)."""

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
        elif tab == "positions" and (positions := self.positions) is not None:
            positions.invalidate()
            positions.show_positions(self.position_book())
        elif tab == "history" and (history := self.history) is not None:
            history.invalidate()
            self._history_to(history)

    def on_screen(self, tab: str) -> Widget | None:
        """The pane of one of `LATER_TABS` if its tab is on screen; else None, and the tab is
        marked behind (caught up when shown)."""
        pane = self._built.get(tab)
        if pane is not None and self.app.query_one(TabbedContent).active == tab:
            return pane
        self._behind.add(tab)
        return None

    # -- the panes that read analytics ------------------------------------------------------

    def show_positions(self) -> None:
        """Positions, valuations or trades moved: the Positions pane (when on screen)."""
        if (pane := self.on_screen("positions")) is not None:
            cast("PositionsPane", pane).show_positions(self.position_book())

    def position_book(self) -> PositionBook:
        """The book's positions netted per instrument, valued, with realised P&L today
        (since 00:00 UTC) and since inception.

        Made again only when its inputs changed: the realised P&L walks every trade leg (about
        a second for 100,000), and the polls bring the same lists again and again. The legs
        of unchanged trades are the same objects from poll to poll (`tui.desk.trade_legs`),
        so comparing them is one pass at C speed.
        """
        from tui.desk.analytics.positions import build_positions

        day_start = self.clock().astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        inputs = (day_start, self.book.positions, self.book.aggregated)
        legs: list[object] = list(self.book.trade_legs)
        if (made := self._valued) is not None and made[0] == inputs and _same(made[1], legs):
            return made[2]
        # A light trade leg carries every field the realised-P&L walk reads.
        trades = cast("list[Trade]", legs)
        book = build_positions(self.book.positions, self.book.aggregated, trades, day_start)
        self._valued = (inputs, legs, book)
        return book

    def show_history(self) -> None:
        """RFQs or quotes moved (the book's history with them): the History pane (when on
        screen)."""
        if (pane := self.on_screen("history")) is not None:
            self._history_to(cast("HistoryPane", pane))

    def _history_to(self, pane: HistoryPane) -> None:
        from tui.desk.analytics.scorecards import maker_cards, taker_cards

        entries = self.book.history.entries()
        pane.show_history(entries)
        pane.show_scorecards(maker_cards(entries), taker_cards(entries))

    def names_changed(self) -> None:
        """Company names arrived or changed: the panes on screen that show them draw again."""
        if (pools := self.on_screen("pools")) is not None:
            cast("PoolsPane", pools).show_pools()
        for tab in ("blotter", "positions", "history"):
            if (pane := self.on_screen(tab)) is not None:
                cast("Blotter | PositionsPane | HistoryPane", pane).invalidate()

    # -- the panes, once built --------------------------------------------------------------

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

    @property
    def positions(self) -> PositionsPane | None:
        """The positions pane, once built (its tab was shown)."""
        return cast("PositionsPane | None", self._built.get("positions"))

    @property
    def history(self) -> HistoryPane | None:
        """The history pane, once built (its tab was shown)."""
        return cast("HistoryPane | None", self._built.get("history"))

    def restyle(self) -> None:
        """A new theme: the panes on screen are drawn again now, the others when shown."""
        if (pools := self.pools_pane) is not None:
            pools.pools_table.clear_rows()
        for tab in LATER_TABS:
            if self.on_screen(tab) is not None:
                self._behind.discard(tab)
                self.catch_up(tab)


def _same(before: list[object], now: list[object]) -> bool:
    """The same objects in the same order."""
    return len(before) == len(now) and all(map(operator.is_, before, now))
