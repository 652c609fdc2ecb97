"""The blotter: every booked trade leg of the company, newest first, fast at 10,000 rows.

Rows are keyed by trade id; a snapshot adds only the trades not shown yet and updates a cell
only when its value changed (a status moving on), with fixed column widths, so a poll of
10,000 trades costs a dictionary walk, not a redraw.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from tui.api.lifecycle import clearing_is_booked, clearing_is_rejected
from tui.api.models import Trade, instrument_label
from tui.desk.book import DeskBook
from tui.desk.clearing import gross_notional
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.keyed_table import Column, KeyedTable, SortText
from tui.desk.widgets.common.palette import right, toned

COLUMNS = (
    Column("when", "Time", 8, drop=1),
    Column("trade", "Trade", 8, drop=6),
    Column("rfq", "RFQ", 8, drop=5),
    Column("role", "Role", 5, drop=3),
    Column("side", "Side", 4),
    Column("instrument", "Instrument", 21, flex=True, least=14),
    Column("qty", "Qty", 9, numeric=True),
    Column("price", "Price", 12, numeric=True),
    Column("notional", "Notional", 13, numeric=True, drop=2),
    Column("cpty", "Cpty", 6),
    Column("pool", "Pool", 12, drop=4),
    Column("status", "Status", 8),
)
"""The blotter's columns; at 80 columns ids, pool, role and notional are left out first."""


class Blotter(Vertical):
    """All trades of the company (see module docs)."""

    BORDER_TITLE = "Trades"

    BINDINGS = [Binding("escape", "app.show_tab('trade')", "Back to Trade")]

    def __init__(self, book: DeskBook, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.book = book
        self._shown: dict[str, tuple[str, str, str]] = {}

    def compose(self) -> ComposeResult:
        """A count line and the trades table."""
        yield Static("", id="blotter-count")
        yield KeyedTable(COLUMNS, id="blotter-table", sort_column="when")

    def show_trades(self, trades: list[Trade]) -> None:
        """Merge a snapshot of trades (add new rows, update changed cells)."""
        table = self.query_one(KeyedTable)
        rows = []
        for trade in trades:
            # Only a trade that is new, or whose status or names changed, is rendered at all.
            shown = (
                str(trade.status),
                self.book.company_name(trade.counterparty),
                self.book.pool_name(trade.pool_location),
            )
            if self._shown.get(trade.id) != shown:
                self._shown[trade.id] = shown
                rows.append((trade.id, self.cells(trade)))
        table.merge(rows)
        self.query_one("#blotter-count", Static).update(
            f"{len(trades):,} trade legs  notional {fmt.money(gross_notional(trades))}"
        )

    def restyle(self) -> None:
        """Forget the rendered rows, so the next snapshot draws them in the new theme."""
        self._shown.clear()
        self.query_one(KeyedTable).clear_rows()

    def cells(self, trade: Trade) -> tuple[Text | str, ...]:
        """The row of one trade."""
        app = self.app
        side = str(trade.side)
        status = str(trade.status)
        if clearing_is_booked(status):
            status_cell = toned(app, "booked", "booked")
        elif clearing_is_rejected(status):
            status_cell = toned(app, "rejected", "rejected")
        else:
            status_cell = toned(app, status[:8], "pending")
        return (
            SortText(fmt.clock_time(trade.created_at), sort_key=(trade.created_at, trade.id)),
            fmt.short_id(trade.id),
            fmt.short_id(trade.source_rfq),
            str(trade.role),
            toned(app, side.upper(), "bid" if side == "buy" else "ask"),
            instrument_label(trade.instrument),
            right(fmt.qty(trade.qty)),
            right(fmt.price(trade.price)),
            right(fmt.money(gross_notional([trade]))),
            self.book.company_name(trade.counterparty),
            self.book.pool_name(trade.pool_location)[:12],
            status_cell,
        )
