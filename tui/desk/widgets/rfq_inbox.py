"""The RFQ inbox: every RFQ received (to quote) and sent (to trade), newest first.

Each row shows the legs, quantity, a live expiry countdown, status, the structure price and the
best bid and ask quoted so far. An RFQ the feed says has just arrived flashes. Moving the
cursor tells the app which RFQ the ticket should work on.

The rows sit in a `VirtualTable` (`tui.desk.widgets.inbox_columns` says what each cell reads):
a poll merges the RFQs by row key and only an RFQ whose shown state moved is formatted again,
only the lines on screen are drawn, and each second's tick repaints only the countdowns on
screen. "Open only" is a filter of the table, not a rebuild.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message

from tui.desk.book import DeskBook
from tui.desk.messages import Direction
from tui.desk.widgets.common.virtual_table import VirtualTable
from tui.desk.widgets.inbox_columns import (
    InboxRow,
    inbox_columns,
    inbox_row,
    row_key,
    row_version,
    split_key,
)
from tui.desk.widgets.live_text import LiveText
from tui.desk.widgets.one_frame import OneFrame

if TYPE_CHECKING:
    from tui.api.models import RFQ

__all__ = ["EMPTY", "FLASH_FOR", "RfqInbox", "row_key", "split_key"]

EMPTY = "No RFQs yet. Press n to request a quote."
"""What the inbox says before any RFQ came or went."""

FLASH_FOR = timedelta(seconds=4)
"""How long a new RFQ stays highlighted."""


class RfqInbox(Vertical):
    """Received and sent RFQs in one table (see module docs)."""

    BORDER_TITLE = "RFQ inbox"

    BINDINGS = [Binding("o", "toggle_open", "Open only / all", id="inbox.open_only")]

    @dataclass
    class Selected(Message):
        """The cursor moved to an RFQ (or to none)."""

        direction: Direction | None
        rfq_id: str | None
        frame: OneFrame | None = field(default=None, repr=False)

        def shown(self) -> None:
            """The app has shown this RFQ: the cursor and what it shows draw in one frame."""
            if self.frame is not None:
                self.frame.shown()

    def __init__(
        self, book: DeskBook, clock: Callable[[], datetime], *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.book = book
        self.clock = clock
        self._flash_until: dict[str, datetime] = {}
        self._last_selected: str | None = None
        self._rfqs: dict[Direction, list[RFQ]] = {"received": [], "sent": []}
        self.open_only = False
        self.frame = OneFrame(self)
        """A cursor move and the ticket or board it shows, drawn in one frame."""

    def compose(self) -> ComposeResult:
        """The table and an empty-state hint."""
        table = InboxTable(
            inbox_columns(self.app, self.book, self.clock, self._flashing),
            key=lambda row: row.key,
            version=row_version(self.book),
            sort="when",
            descending=True,
            id="inbox-table",
        )
        table.frame = self.frame
        yield table
        yield LiveText(EMPTY, id="inbox-empty")

    @property
    def table(self) -> VirtualTable[InboxRow]:
        """The inbox table."""
        table: VirtualTable[InboxRow] = self.query_one("#inbox-table", VirtualTable)
        return table

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
        """Merge both directions into the table: only RFQs whose shown state moved are
        formatted again, and only if on screen."""
        table = self.table
        table.merge(
            [inbox_row(direction, rfq) for direction, rfqs in self._rfqs.items() for rfq in rfqs]
        )
        self._say_when_empty(total=table.record_count)
        subtitle = "open only (o: all)" if self.open_only else "all (o: open only)"
        if self.border_subtitle != subtitle:  # setting it repaints the whole pane
            self.border_subtitle = subtitle
        self._announce_selection()

    def _say_when_empty(self, total: int) -> None:
        """No rows: no RFQs at all, or none open (with how many there are in all)."""
        empty = self.query_one("#inbox-empty", LiveText)
        shown = self.table.row_count == 0
        if empty.display != shown:  # set only when it moves: setting it lays the pane out
            empty.display = shown
        if self.open_only and total:
            empty.update(f"No open RFQs ({total} in all): o shows them all.")
        else:
            empty.update(EMPTY)

    def action_toggle_open(self) -> None:
        """Show only open RFQs, or everything."""
        self.open_only = not self.open_only
        self.table.filter_by(_still_open if self.open_only else None)
        self.render_rows()

    def flash(self) -> None:
        """Briefly highlight the whole pane (a new RFQ came in)."""
        self.add_class("flash")
        self.set_timer(FLASH_FOR.total_seconds(), lambda: self.remove_class("flash"))

    def invalidate(self) -> None:
        """Draw the rows again (a new theme)."""
        self.table.invalidate()

    # -- time -------------------------------------------------------------------------------

    def _flashing(self, key: str, now: datetime) -> bool:
        until = self._flash_until.get(key)
        return until is not None and until > now

    def tick(self) -> None:
        """Advance the countdowns and end the flashes of the rows on screen; nothing else is
        read or drawn (the desk's second, `tui.desk.panes.DeskPanes.tick`)."""
        now = self.clock()
        for key in [key for key, until in self._flash_until.items() if until <= now]:
            del self._flash_until[key]
        self.table.refresh_live()

    # -- selection --------------------------------------------------------------------------

    def on_virtual_table_record_highlighted(self, event: VirtualTable.RecordHighlighted) -> None:
        """Tell the app which RFQ is under the cursor."""
        event.stop()
        self._announce_selection()

    def _announce_selection(self) -> None:
        key = self.table.cursor_id
        if key == self._last_selected:
            return
        self._last_selected = key
        if key is None:
            self.post_message(self.Selected(None, None, self.frame))
            return
        direction, rfq_id = split_key(key)
        self.post_message(self.Selected(direction, rfq_id, self.frame))

    @property
    def selected(self) -> tuple[Direction, str] | None:
        """Direction and id of the RFQ under the cursor."""
        key = self.table.cursor_id
        return split_key(key) if key else None

    def select(self, direction: Direction, rfq_id: str) -> None:
        """Put the cursor on an RFQ."""
        self.table.move_cursor_to(row_key(direction, rfq_id))


class InboxTable(VirtualTable[InboxRow]):
    """The inbox's table: a cursor move holds the drawing until the app has shown the RFQ
    now under the cursor (`OneFrame`)."""

    frame: OneFrame | None = None

    def cursor_moved(self, record_id: str | None) -> None:
        """Hold the drawing, then say that the cursor is on another record."""
        if self.frame is not None:
            self.frame.hold()
        super().cursor_moved(record_id)


def _still_open(row: InboxRow) -> bool:
    return row.is_open
