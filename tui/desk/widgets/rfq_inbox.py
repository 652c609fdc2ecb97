"""The RFQ inbox: every RFQ received (to quote) and sent (to trade), newest first.

Each row shows the legs, quantity, a live expiry countdown, status, the structure price and the
best bid and ask quoted so far. An RFQ the feed says has just arrived flashes. Moving the
cursor tells the app which RFQ the ticket should work on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

from tui.api.lifecycle import clearing_is_rejected
from tui.api.models import RFQ, RFQStatus
from tui.desk.book import DeskBook
from tui.desk.messages import Direction
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.keyed_table import Column, KeyedTable, SortText
from tui.desk.widgets.common.palette import right, toned

EMPTY = "No RFQs yet. Press n to request a quote."
"""What the inbox says before any RFQ came or went."""

FLASH_FOR = timedelta(seconds=4)
"""How long a new RFQ stays highlighted."""

COLUMNS = (
    Column("new", "", 1, drop=3),
    Column("dir", "Dir", 3, drop=1),
    Column("when", "Time", 8, drop=6),
    Column("rfq", "RFQ", 8, drop=2),
    Column("who", "Taker", 6),
    Column("structure", "Structure", 26, flex=True, least=12),
    Column("qty", "Qty", 8, numeric=True),
    Column("expires", "Expires", 7, numeric=True),
    Column("status", "Status", 8),
    Column("price", "Struct px", 11, numeric=True, drop=5),
    Column("bid", "Best bid", 10, numeric=True),
    Column("ask", "Best ask", 10, numeric=True),
    Column("quotes", "#Q", 2, numeric=True, drop=4),
)
"""The inbox's columns. A narrow inbox leaves out Time, Struct px and #Q first, then the new
mark, the RFQ id and Dir (Taker says "me" for my own); the prices and the status stay."""


def row_key(direction: Direction, rfq_id: str) -> str:
    """The inbox row key of an RFQ."""
    return f"{direction}:{rfq_id}"


def split_key(key: str) -> tuple[Direction, str]:
    """Direction and RFQ id of a row key."""
    direction, _, rfq_id = key.partition(":")
    return ("sent" if direction == "sent" else "received"), rfq_id


class RfqInbox(Vertical):
    """Received and sent RFQs in one table (see module docs)."""

    BORDER_TITLE = "RFQ inbox"

    BINDINGS = [Binding("o", "toggle_open", "Open only / all")]

    @dataclass
    class Selected(Message):
        """The cursor moved to an RFQ (or to none)."""

        direction: Direction | None
        rfq_id: str | None

    def __init__(
        self, book: DeskBook, clock: Callable[[], datetime], *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.book = book
        self.clock = clock
        self._expiries: dict[str, datetime] = {}
        self._flash_until: dict[str, datetime] = {}
        self._last_selected: str | None = None
        self._rfqs: dict[Direction, list[RFQ]] = {"received": [], "sent": []}
        self._signatures: dict[str, tuple[object, ...]] = {}
        self.open_only = False

    def compose(self) -> ComposeResult:
        """The table and an empty-state hint."""
        yield KeyedTable(COLUMNS, sort_column="when", id="inbox-table")
        yield Static(EMPTY, id="inbox-empty")

    @property
    def table(self) -> KeyedTable:
        """The inbox table."""
        return self.query_one(KeyedTable)

    def on_mount(self) -> None:
        """Start the countdown tick."""
        self.set_interval(1.0, self.tick, name="inbox-countdown")

    # -- data in ----------------------------------------------------------------------------

    def show(self, direction: Direction, rfqs: list[RFQ], arrived: Sequence[str] = ()) -> None:
        """Merge a snapshot of RFQs of one direction into the table; flash the ``arrived``."""
        now = self.clock()
        for rfq_id in arrived:
            self._flash_until[row_key(direction, rfq_id)] = now + FLASH_FOR
        if arrived:
            self.flash()
        self._rfqs[direction] = rfqs
        self.render_rows()

    def render_rows(self) -> None:
        """Merge both directions into the table, rendering only the rows that changed."""
        now = self.clock()
        table = self.table
        rows = []
        keep: set[str] = set()
        for direction, rfqs in self._rfqs.items():
            for rfq in rfqs:
                if self.open_only and rfq.rfq_status != RFQStatus.OPEN:
                    continue
                key = row_key(direction, rfq.rfq_id)
                keep.add(key)
                self._expiries[key] = rfq.rfq_expires_at
                # A settled RFQ's row never changes again (its live structure price is moot),
                # so a long day's hundreds of them cost nothing per poll.
                is_open = rfq.rfq_status == RFQStatus.OPEN
                signature = (
                    str(rfq.rfq_status),
                    str(rfq.clearing_status),
                    rfq.best_bid.quote_price if rfq.best_bid else None,
                    rfq.best_ask.quote_price if rfq.best_ask else None,
                    len(rfq.bids) + len(rfq.asks),
                    rfq.structure_price.price if rfq.structure_price and is_open else None,
                    self.book.company_name(rfq.taker_company),
                    self._flash_until.get(key, now) > now,
                )
                if self._signatures.get(key) == signature and table.has_row(key):
                    continue
                self._signatures[key] = signature
                rows.append((key, self._cells(direction, rfq, now)))
        table.merge(rows)
        table.prune_to(keep)
        self._say_when_empty(total=sum(len(rfqs) for rfqs in self._rfqs.values()))
        self.border_subtitle = "open only (o: all)" if self.open_only else "all (o: open only)"
        self._announce_selection()

    def _say_when_empty(self, total: int) -> None:
        """No rows: no RFQs at all, or none open (with how many there are in all)."""
        empty = self.query_one("#inbox-empty", Static)
        empty.display = self.table.row_count == 0
        if self.open_only and total:
            empty.update(f"No open RFQs ({total} in all): o shows them all.")
        else:
            empty.update(EMPTY)

    def action_toggle_open(self) -> None:
        """Show only open RFQs, or everything."""
        self.open_only = not self.open_only
        self.render_rows()

    def flash(self) -> None:
        """Briefly highlight the whole pane (a new RFQ came in)."""
        self.add_class("flash")
        self.set_timer(FLASH_FOR.total_seconds(), lambda: self.remove_class("flash"))

    def _cells(self, direction: Direction, rfq: RFQ, now: datetime) -> tuple[Text | str, ...]:
        app = self.app
        key = row_key(direction, rfq.rfq_id)
        best_bid = rfq.best_bid
        best_ask = rfq.best_ask
        is_open = rfq.rfq_status == RFQStatus.OPEN
        status_tone = "success" if is_open else "muted"
        if clearing_is_rejected(rfq.clearing_status):
            status_tone = "rejected"
        elif str(rfq.rfq_status) == RFQStatus.CLOSED:
            status_tone = "booked"
        flashing = self._flash_until.get(key, now) > now
        structure_price = rfq.structure_price.price if rfq.structure_price else None
        quote_ids = {q.parent_quote_id for q in rfq.bids + rfq.asks}
        who = self.book.company_name(rfq.taker_company) if direction == "received" else "me"
        return (
            toned(app, "●", "needs-action", bold=True) if flashing else "",
            toned(app, "IN" if direction == "received" else "OUT", "accent"),
            SortText(fmt.clock_time(rfq.created_at), sort_key=rfq.created_at),
            fmt.short_id(rfq.rfq_id),
            who,
            fmt.structure_text(rfq.structure),
            right(fmt.qty(rfq.qty)),
            self._countdown_cell(rfq.rfq_expires_at, now, is_open),
            toned(app, str(rfq.rfq_status), status_tone),
            right(fmt.price(structure_price)),
            right(toned(app, fmt.price(best_bid.quote_price), "bid"))
            if best_bid
            else right(fmt.DASH),
            right(toned(app, fmt.price(best_ask.quote_price), "ask"))
            if best_ask
            else right(fmt.DASH),
            right(str(len(quote_ids)) if quote_ids else ""),
        )

    def _countdown_cell(self, until: datetime, now: datetime, is_open: bool) -> Text:
        if not is_open:
            return right(fmt.DASH)
        text = fmt.countdown(until, now)
        urgent = until - now < timedelta(seconds=30)
        return right(toned(self.app, text, "needs-action" if urgent else "foreground"))

    # -- time -------------------------------------------------------------------------------

    def tick(self) -> None:
        """Advance countdowns and end flashes; touches only cells that changed."""
        now = self.clock()
        table = self.table
        for key, until in self._expiries.items():
            status = table.cell_value(key, "status")
            is_open = status is not None and str(status) == RFQStatus.OPEN.value
            table.set_cell(key, "expires", self._countdown_cell(until, now, is_open))
        for key, until in list(self._flash_until.items()):
            if until <= now:
                table.set_cell(key, "new", "")
                del self._flash_until[key]

    # -- selection --------------------------------------------------------------------------

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Tell the app which RFQ is under the cursor."""
        event.stop()
        self._announce_selection()

    def _announce_selection(self) -> None:
        key = self.table.selected_key
        if key == self._last_selected:
            return
        self._last_selected = key
        if key is None:
            self.post_message(self.Selected(None, None))
            return
        direction, rfq_id = split_key(key)
        self.post_message(self.Selected(direction, rfq_id))

    @property
    def selected(self) -> tuple[Direction, str] | None:
        """Direction and id of the RFQ under the cursor."""
        key = self.table.selected_key
        return split_key(key) if key else None

    def select(self, direction: Direction, rfq_id: str) -> None:
        """Put the cursor on an RFQ."""
        self.table.select_key(row_key(direction, rfq_id))
