"""The RFQ inbox: every RFQ received (to quote) and sent (to trade), newest first.

Each row shows the legs, quantity, a live expiry countdown, status, the structure price and the
best bid and ask quoted so far. An RFQ the feed says has just arrived flashes: its row, and
only its row, is coloured for `FLASH_FOR` (a class on the pane restyled and repainted all of
it, twice per arrival). Moving the cursor tells the app which RFQ the ticket should work on
(the app shows the RFQ under the cursor when it gets to it, so keys faster than it build only
the ticket of the RFQ the cursor is on by then).

The rows sit in a `VirtualTable` (`tui.desk.widgets.inbox_columns` says what each cell reads):
a poll merges the RFQs by row key and only an RFQ whose shown state moved is formatted again,
only the lines on screen are drawn, and each second's tick repaints only the countdowns on
screen. "Open only" is a filter of the table, not a rebuild.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip

from tui.desk.book import DeskBook
from tui.desk.messages import Direction
from tui.desk.widgets.common.table_view import HEADER
from tui.desk.widgets.common.virtual_table import VirtualTable
from tui.desk.widgets.inbox_columns import (
    InboxRow,
    QuotedNow,
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
        self._now: datetime | None = None  # the clock's reading while the table draws
        self._last_selected: str | None = None
        self._rfqs: dict[Direction, list[RFQ]] = {"received": [], "sent": []}
        self.open_only = False
        self.frame = OneFrame(self)
        """A cursor move and the ticket or board it shows, drawn in one frame."""

    def compose(self) -> ComposeResult:
        """The table and an empty-state hint."""
        quoted = QuotedNow(self.book, self.clock)
        table = InboxTable(
            inbox_columns(self.app, self.book, self._drawing_clock, self.is_new, quoted),
            key=lambda row: row.key,
            version=row_version(self.book, quoted),
            sort="when",
            descending=True,
            id="inbox-table",
        )
        table.frame = self.frame
        table.flashing = self.is_new
        table.drawing = self._drawing
        yield table
        yield LiveText(EMPTY, id="inbox-empty")

    @property
    def table(self) -> InboxTable:
        """The inbox table."""
        return self.query_one("#inbox-table", InboxTable)

    # -- data in ----------------------------------------------------------------------------

    def show(self, direction: Direction, rfqs: list[RFQ], arrived: Sequence[str] = ()) -> None:
        """Merge a snapshot of RFQs of one direction into the table; flash the ``arrived``."""
        now = self.clock()
        for rfq_id in arrived:
            self._flash_until[row_key(direction, rfq_id)] = now + FLASH_FOR
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

    def invalidate(self) -> None:
        """Draw the rows again (a new theme)."""
        self.table.invalidate()

    # -- time -------------------------------------------------------------------------------

    def is_new(self, key: str) -> bool:
        """Whether the row of ``key`` is a newly arrived RFQ, still flashing."""
        until = self._flash_until.get(key)  # the clock is read for flashing rows only
        return until is not None and until > self._drawing_clock()

    def _drawing(self, drawing: bool) -> None:
        """A drawing of the table starts or ends: its lines share one reading of the clock
        (asked per countdown, it is most of a line's cost)."""
        self._now = self.clock() if drawing else None

    def _drawing_clock(self) -> datetime:
        return self._now or self.clock()

    def tick(self) -> None:
        """Advance the countdowns and end the flashes of the rows on screen; nothing else is
        read or drawn (the desk's second, `tui.desk.panes.DeskPanes.tick`)."""
        now = self.clock()
        table = self.table
        for key in [key for key, until in self._flash_until.items() if until <= now]:
            del self._flash_until[key]
            table.refresh_record(key)  # its colour goes, whichever columns show
        table.refresh_live()

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
        # Straight to the app, the one that shows it: bubbling up five containers cost a
        # down arrow half a millisecond.
        if key is None:
            self.app.post_message(self.Selected(None, None, self.frame))
            return
        direction, rfq_id = split_key(key)
        self.app.post_message(self.Selected(direction, rfq_id, self.frame))

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
    now under the cursor (`OneFrame`), and a newly arrived RFQ's row is coloured."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {*VirtualTable.COMPONENT_CLASSES, "inbox-table--new"}

    DEFAULT_CSS = """
    InboxTable > .inbox-table--new {
        background: $flash;
    }
    """

    frame: OneFrame | None = None
    flashing: Callable[[str], bool] = staticmethod(lambda key: False)
    """Whether the row of this key is newly arrived (read for the lines drawn only)."""
    drawing: Callable[[bool], None] = staticmethod(lambda drawing: None)
    """Told when a drawing (or a tick's look at the countdowns) starts and ends."""

    _new_style: Style | None = None

    def cursor_moved(self, record_id: str | None) -> None:
        """Hold the drawing, then say that the cursor is on another record."""
        if self.frame is not None:
            self.frame.hold()
        super().cursor_moved(record_id)

    def notify_style_update(self) -> None:
        """Styles changed (theme, focus): look the new rows' colour up again."""
        super().notify_style_update()
        self._new_style = None

    def render_lines(self, crop: Region) -> list[Strip]:
        """Draw the lines in ``crop``, all at one reading of the clock."""
        self.drawing(True)
        try:
            return super().render_lines(crop)
        finally:
            self.drawing(False)

    def refresh_live(self) -> None:
        """Repaint the lines whose countdowns moved, all read at one reading of the clock."""
        self.drawing(True)
        try:
            super().refresh_live()
        finally:
            self.drawing(False)

    def render_line(self, y: int) -> Strip:
        """A line as the table draws it; a newly arrived RFQ's under the flash colour (the
        cursor's colour stays on top)."""
        strip = super().render_line(y)
        row = (y - HEADER + round(self.scroll_y)) // self.row_height
        if y < HEADER or row == self.cursor_row or not 0 <= row < self.row_count:
            return strip
        if not self.flashing(self.record_at(row).key):
            return strip
        if self._new_style is None:
            colour = self.get_component_rich_style("inbox-table--new").bgcolor
            self._new_style = Style(bgcolor=colour)
        new = self._new_style
        return Strip(
            [
                Segment(text, style + new if style else new, control)
                for text, style, control in strip
            ],
            strip.cell_length,
        )

    def refresh_record(self, record_id: str) -> None:
        """Draw a record's lines again (when on screen)."""
        row = self.row_of(record_id)
        if row is not None:
            self.refresh_lines(row * self.row_height + HEADER, self.row_height)


def _still_open(row: InboxRow) -> bool:
    return row.is_open
