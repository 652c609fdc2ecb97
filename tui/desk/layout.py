"""The desk's widget tree: header, the six tabs, status bar and footer (`DeskApp.compose`).

Only the Trade tab is built at start; the other tabs are empty until first shown, when
`DeskPanes.show_tab` builds their pane (`tab_pane`) and hands it the book's data. The first
frame then waits for no more than it shows, and their modules are not even imported until a
trader looks at them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import ContentSwitcher, Footer, TabbedContent, TabPane

from tui.desk.widgets.attention import Attention
from tui.desk.widgets.portfolio_header import PortfolioHeader
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.status_bar import StatusBar
from tui.desk.widgets.trade_tracker import TradeTracker

if TYPE_CHECKING:
    from textual.widget import Widget

    from tui.desk.book import DeskBook

LATER_TABS = ("pools", "blotter", "market", "positions", "history")
"""The tabs built when first shown, not at start."""


def desk_layout(book: DeskBook, clock: Callable[[], datetime]) -> ComposeResult:
    """Header (and what waits for me next to it), the six tabs, status bar, footer."""
    with Horizontal(id="top"):
        yield PortfolioHeader(id="header")
        yield Attention(book, clock, id="attention")
    with TabbedContent(initial="trade", id="tabs"):
        with TabPane("1 Trade", id="trade"):
            yield RfqInbox(book, clock, id="inbox")
            with Horizontal(id="trade-lower"):
                yield TradeTracker(book, clock, id="tracker")
                with ContentSwitcher(initial="ticket", id="right"):
                    yield QuoteTicket(book, clock, id="ticket")
                    yield QuoteBoard(book, clock, id="board")
        yield TabPane("2 Pools", id="pools")
        yield TabPane("3 Trades", id="blotter")
        yield TabPane("4 Market", id="market")
        yield TabPane("5 Positions", id="positions")
        yield TabPane("6 History", id="history")
    yield StatusBar(id="status")
    yield Footer()


def tab_pane(tab: str, book: DeskBook, clock: Callable[[], datetime]) -> Widget:
    """The pane of one of `LATER_TABS`, built (and its module imported) when first shown."""
    if tab == "pools":
        from tui.desk.widgets.pools import PoolsPane

        return PoolsPane(book, clock, id="pools-pane")
    if tab == "blotter":
        from tui.desk.widgets.blotter import Blotter

        return Blotter(book, id="blotter-pane")
    if tab == "market":
        from tui.desk.widgets.market_stats import MarketStatsPane

        return MarketStatsPane(clock, marks=book.market_history.marks, id="market-pane")
    if tab == "positions":
        from tui.desk.widgets.positions import PositionsPane

        return PositionsPane(book, id="positions-pane")
    if tab == "history":
        from tui.desk.widgets.history import HistoryPane

        return HistoryPane(book, id="history-pane")
    raise ValueError(f"no tab {tab!r} is built later")
