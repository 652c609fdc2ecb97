"""The desk's widget tree: header, the six tabs, status bar and footer (`DeskApp.compose`).

The first frame is built from what it shows and nothing more: the header, the tab bar, the
inbox, the tracker, the ticket's empty frame, the status bar and the footer. The parts it does
not show are built right after it (`later_parts`, mounted by `tui.desk.start_up`): the quote
ticket's form (hidden until a received RFQ is selected; `TicketFrame` stands in for it, drawn
as the empty ticket is) and the quote board (hidden until a sent RFQ is selected).

Only the Trade tab is built at start; the other tabs are empty until first shown, when
`DeskPanes.show_tab` builds their pane (`tab_pane`) and hands it the book's data. Their modules
are not even imported until a trader looks at them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import ContentSwitcher, Footer, Static, TabbedContent, TabPane
from textual.widgets._footer import FooterKey

from tui.desk.widgets.attention import Attention
from tui.desk.widgets.portfolio_header import PortfolioHeader
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.status_bar import StatusBar
from tui.desk.widgets.trade_tracker import TradeTracker

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.screen import Screen
    from textual.widget import Widget

    from tui.desk.book import DeskBook
    from tui.desk.widgets.quote_board import QuoteBoard
    from tui.desk.widgets.quote_ticket import QuoteTicket

LATER_TABS = ("pools", "blotter", "market", "positions", "history")
"""The tabs built when first shown, not at start."""

TICKET_FRAME = "ticket-frame"
"""The id of the ticket's stand-in in the first frame (`TicketFrame`)."""
TICKET = "ticket"
"""The id of the quote ticket (`later_parts`)."""
BOARD = "board"
"""The id of the quote board (`later_parts`)."""


class TicketFrame(Vertical):
    """The empty quote ticket as the first frame shows it: its frame and its one line.

    The ticket's form is never on screen before a received RFQ is selected, so the first frame
    draws this instead and the ticket is built right after (`later_parts`).
    """

    BORDER_TITLE = "Quote ticket"

    def compose(self) -> ComposeResult:
        """The line the empty ticket shows."""
        yield Static("Select a received RFQ to quote it.", id="ticket-frame-head")


class DeskFooter(Footer):
    """Textual's footer, composed again only when the keys it shows changed.

    Textual's footer builds its keys anew after every change of the bindings (each focus
    move, each check of what is offered): five times over before the desk's first frame was
    out. This one coalesces the changes of one refresh and keeps its keys when they are the
    same. ``keys_shown`` is set once its keys were first composed (or when nothing will be
    composed for now: the terminal does not have the focus).
    """

    def __init__(self) -> None:
        super().__init__()
        self.keys_shown = asyncio.Event()
        self._composing = False
        self._shown: tuple[object, ...] | None = None

    def bindings_changed(self, screen: Screen[Any]) -> None:
        """The bindings changed: compose the keys after the next refresh, once."""
        self._bindings_ready = True
        if not screen.app.app_focus:
            self.keys_shown.set()  # drawn when the terminal has the focus again
            return
        if self.is_attached and screen is self.screen and not self._composing:
            self._composing = True
            self.call_after_refresh(self._compose_keys)

    async def _compose_keys(self) -> None:
        self._composing = False
        shown = self._keys()
        if shown != self._shown:
            self._shown = shown
            await self.recompose()
        self.keys_shown.set()

    def compose(self) -> ComposeResult:
        """Textual's keys with the help key first: the footer is cut at the right on a narrow
        terminal, and `?` must show on every tab."""
        widgets = list(super().compose())
        first = [w for w in widgets if isinstance(w, FooterKey) and w.action == "help"][:1]
        yield from first
        yield from (w for w in widgets if w not in first)

    def _keys(self) -> tuple[object, ...]:
        """Everything the footer's keys are composed from."""
        app = self.app
        bindings = self.screen.active_bindings
        palette = bindings.get(app.COMMAND_PALETTE_BINDING)
        return (
            self.show_command_palette and app.ENABLE_COMMAND_PALETTE,
            palette[1:] if palette is not None else None,
            *(
                (binding, enabled, tooltip, app.get_key_display(binding))
                for _node, binding, enabled, tooltip in bindings.values()
                if binding.show
            ),
        )


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
                with ContentSwitcher(initial=TICKET_FRAME, id="right"):
                    yield TicketFrame(id=TICKET_FRAME)
        yield TabPane("2 Pools", id="pools")
        yield TabPane("3 Trades", id="blotter")
        yield TabPane("4 Market", id="market")
        yield TabPane("5 Positions", id="positions")
        yield TabPane("6 History", id="history")
    yield StatusBar(id="status")
    yield DeskFooter()


def later_parts(book: DeskBook, clock: Callable[[], datetime]) -> list[Widget]:
    """The Trade tab's parts the first frame does not show, for the ``#right`` switcher: the
    quote ticket (``#ticket``, in place of `TicketFrame`) and the quote board (``#board``)."""
    from tui.desk.widgets.quote_board import QuoteBoard
    from tui.desk.widgets.quote_ticket import QuoteTicket

    return [QuoteTicket(book, clock, id=TICKET), QuoteBoard(book, clock, id=BOARD)]


def quote_ticket(desk: DOMNode) -> QuoteTicket:
    """The desk's quote ticket, found by its id: its module is not loaded before the first
    frame, so neither is it imported by those who look for it."""
    return cast("QuoteTicket", desk.query_one(f"#{TICKET}"))


def quote_board(desk: DOMNode) -> QuoteBoard:
    """The desk's quote board, found by its id (see `quote_ticket`)."""
    return cast("QuoteBoard", desk.query_one(f"#{BOARD}"))


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
