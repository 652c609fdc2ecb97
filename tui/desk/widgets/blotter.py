"""The blotter: every booked trade leg of the company, newest first, fast at 100,000 legs.

The trades sit in a `VirtualTable`: a poll merges the snapshot by trade id (a trade whose
status did not move on is not formatted again) and only the lines on screen are ever drawn.
``/`` opens a one-line search above the table that keeps the legs whose cells contain the text
(a counterparty, an instrument, a status); Escape clears and closes it. The line above the
table counts the legs and totals their notional per underlying (never one sum across them);
while searched, of the legs shown, and it says so. Notional is exact: a leg's qty x price with
every decimal they give it, in the column and in the total.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from operator import attrgetter
from typing import Any

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from tui.api.lifecycle import clearing_is_booked, clearing_is_rejected
from tui.desk.book import DeskBook
from tui.desk.clearing import gross_notional, notional_by_underlying
from tui.desk.trade_legs import TradeLeg
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.columns import Cell, TableColumn
from tui.desk.widgets.common.palette import toned
from tui.desk.widgets.common.record_index import Merged
from tui.desk.widgets.common.virtual_table import VirtualTable


def exact_money(value: Decimal | None) -> str:
    """A notional as the blotter shows it: exact, at least 2 places (never rounded)."""
    return fmt.exact(value, 2)


def notional_words(legs: Iterable[TradeLeg]) -> str:
    """``BTC 11,086.106625 · ETH 1,130.8745 USDC``: the gross notional of ``legs`` per
    underlying, exact."""
    notionals = notional_by_underlying((leg.instrument, leg) for leg in legs)
    words = " · ".join(f"{name} {exact_money(value)}" for name, value in notionals.items())
    return (words or exact_money(Decimal(0))) + " USDC"


def blotter_columns(app: App[Any], book: DeskBook) -> list[TableColumn[TradeLeg]]:
    """The blotter's columns; at 80 columns ids, pool, role and notional are left out first.

    Names are read from the book when a line is drawn, so a name that arrives later shows
    once the table is told to `invalidate`.
    """

    def status(value: str) -> Cell:
        if clearing_is_booked(value):
            return toned(app, "booked", "booked")
        if clearing_is_rejected(value):
            return toned(app, "rejected", "rejected")
        return toned(app, value[:8], "pending")

    def side(value: str) -> Cell:
        return toned(app, value.upper(), "bid" if value == "buy" else "ask")

    return [
        TableColumn("when", "Time", 8, attrgetter("created_at"), cell=fmt.clock_time, drop=1),
        TableColumn("trade", "Trade", 8, attrgetter("id"), cell=fmt.short_id, drop=6),
        TableColumn("rfq", "RFQ", 8, attrgetter("source_rfq"), cell=fmt.short_id, drop=5),
        TableColumn("role", "Role", 5, attrgetter("role"), cell=str, repeats=True, drop=3),
        TableColumn("side", "Side", 4, lambda t: str(t.side), cell=side, repeats=True),
        TableColumn(
            "instrument",
            "Instrument",
            21,
            attrgetter("label"),
            flex=True,
            least=14,
            repeats=True,
        ),
        TableColumn("qty", "Qty", 9, attrgetter("qty"), cell=fmt.qty, numeric=True, repeats=True),
        TableColumn("price", "Price", 12, attrgetter("price"), cell=fmt.price, numeric=True),
        TableColumn(
            "notional",
            "Notional",
            15,
            lambda t: gross_notional([t]),
            cell=exact_money,
            numeric=True,
            drop=2,
        ),
        TableColumn("cpty", "Cpty", 6, lambda t: book.company_name(t.counterparty), repeats=True),
        TableColumn(
            "pool", "Pool", 12, lambda t: book.pool_name(t.pool_location)[:12], repeats=True, drop=4
        ),
        TableColumn("status", "Status", 8, lambda t: str(t.status), cell=status, repeats=True),
    ]


class Blotter(Vertical):
    """All trades of the company (see module docs)."""

    DEFAULT_CSS = """
    Blotter > #blotter-search {
        display: none;
        height: 1;
        border: none;
        padding: 0 1;
        &.-open {
            display: block;
        }
    }
    """

    BORDER_TITLE = "Trades"

    BINDINGS = [
        Binding("escape", "back", "Back to Trade", id="blotter.back"),
        Binding("slash", "open_search", "Search", id="blotter.search"),
    ]

    def __init__(self, book: DeskBook, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.book = book
        self._notional = ""
        self._counted = False

    def compose(self) -> ComposeResult:
        """A count line, the (closed) search and the trades table."""
        yield Static("", id="blotter-count")
        yield Input(placeholder="search trades  (Esc closes)", id="blotter-search")
        yield VirtualTable(
            blotter_columns(self.app, self.book),
            key=attrgetter("id"),
            version=attrgetter("status"),
            sort="when",
            descending=True,
            id="blotter-table",
        )

    @property
    def table(self) -> VirtualTable[TradeLeg]:
        """The trades table."""
        table: VirtualTable[TradeLeg] = self.query_one("#blotter-table", VirtualTable)
        return table

    def show_trades(self, trades: list[TradeLeg]) -> Merged:
        """Merge a snapshot of trades (add new legs, take those whose status moved on, drop
        the gone); says how many legs were added, changed and dropped."""
        merged = self.table.merge(trades)
        # The notional walks every trade, so it is summed again only when something changed.
        if merged or not self._counted:
            self._counted = True
            self._notional = notional_words(trades)
            self._show_count()
        return merged

    def invalidate(self) -> None:
        """Draw the lines again (a new theme, a company or pool name arrived)."""
        self.table.invalidate()

    def action_open_search(self) -> None:
        """Open the search line above the table."""
        search = self.query_one("#blotter-search", Input)
        search.add_class("-open")
        search.focus()

    async def action_back(self) -> None:
        """Escape: clear and close an open search, else back to the Trade tab."""
        search = self.query_one("#blotter-search", Input)
        if not search.has_class("-open"):
            await self.run_action("app.show_tab('trade')")
            return
        search.remove_class("-open")
        search.value = ""
        self._search("")
        self.table.focus()

    @on(Input.Changed, "#blotter-search")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self._search(event.value)

    @on(Input.Submitted, "#blotter-search")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.table.focus()

    def _search(self, text: str) -> None:
        self.table.search(text)
        self._show_count()

    def _show_count(self) -> None:
        table = self.table
        total, shown = table.record_count, table.row_count
        legs = "trade leg" if total == 1 else "trade legs"
        if shown == total:
            line = f"{total:,} {legs}  notional {self._notional}"
        else:
            # Searched: the total of the legs shown, not of every leg.
            found = (table.record_at(row) for row in range(shown))
            line = (
                f"{shown:,} of {total:,} {legs}  notional of the {shown:,} shown "
                + notional_words(found)
            )
        self.query_one("#blotter-count", Static).update(line)
