"""The drawing half of a virtual table: a scroll view that paints records line by line.

It holds a `RecordIndex` and paints, for the lines on screen only, the header and the records
there (`RowPainter` formats and paints them). After every change to the records it puts the
cursor back on its record (or on the one that took its place), keeps a scrolled view on what
it showed, and repaints only the lines that now show something else. A clock tick repaints
only the lines on screen whose live cells moved (`refresh_live`). A record takes
``row_height`` lines (one, or a bid over an ask). The public face, keys and messages are
`VirtualTable`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, Self, TypeVar

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Offset, Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.desk.widgets.common.columns import Cell, TableColumn
from tui.desk.widgets.common.record_index import RecordIndex
from tui.desk.widgets.common.table_rows import RowPainter

R = TypeVar("R")

HEADER = 1
"""Lines the header takes at the top."""


class TableView(ScrollView, Generic[R]):
    """Paints a record index and keeps its cursor on a record (see module docs)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "virtual-table--header",
        "virtual-table--cursor",
        "virtual-table--even-row",
        "virtual-table--odd-row",
    }

    def __init__(
        self,
        columns: Sequence[TableColumn[R]],
        index: RecordIndex[R],
        *,
        zebra_stripes: bool,
        row_height: int = 1,
        name: str | None,
        id: str | None,
        classes: str | None,
    ) -> None:
        """A view of ``index`` in ``columns`` (the index is the view's own from then on)."""
        super().__init__(name=name, id=id, classes=classes)
        self.columns: tuple[TableColumn[R], ...] = tuple(columns)
        self.zebra_stripes = zebra_stripes
        self.row_height = row_height
        self._index = index
        self._rows: RowPainter[R] = RowPainter(self.columns)
        self._cursor_id: str | None = None
        self._cursor_row = -1
        self._painted: dict[int, tuple[int, int, bool, int]] = {}
        self._palette: dict[str, Style] = {}
        self._width = 0
        self._scroll = Offset(0, 0)
        self._update_virtual_size()

    @property
    def cursor_id(self) -> str | None:
        """The id of the record under the cursor."""
        return self._cursor_id

    @property
    def cursor_row(self) -> int:
        """The display row of the cursor (-1 when the table shows nothing)."""
        return self._cursor_row

    def cells_of(self, record: R, slot: int | None = None) -> tuple[Cell, ...]:
        """Every cell of a record, formatted (with its ``slot``, the cells drawn on screen are
        the ones given, shown columns being formatted once)."""
        if slot is None:
            return self._rows.cells(record)
        return self._rows.all_cells(slot, self._index.stamp(slot), record)

    def cursor_moved(self, record_id: str | None) -> None:
        """The cursor is on another record (None: nothing shown); a subclass says so."""

    def on_resize(self) -> None:
        """Give the flex columns the width the fixed ones leave."""
        self._fit()

    def watch_show_vertical_scrollbar(self) -> None:
        """The vertical scrollbar came or went (rows filled the view, or left it): fit the
        columns to the width it leaves, or they would reach under it and need a horizontal
        scrollbar, cropping every line."""
        self._fit()

    def _fit(self) -> None:
        if self._rows.fit(self.scrollable_content_region.width):
            self._update_virtual_size()
            self.refresh()

    def notify_style_update(self) -> None:
        """Styles changed (theme, focus): forget the painted styles."""
        super().notify_style_update()
        self._rows.restyle()
        self._palette.clear()

    def refresh(self, *regions: Region, **options: Any) -> Self:
        """Redraw (see `Widget.refresh`); a whole-widget redraw also looks the styles up again.

        The component styles change only with the styles (`notify_style_update`) or with a
        pseudo-class, when Textual redraws the whole widget; a line's redraw (a countdown)
        keeps them, so a second's frame does not walk the ancestors' styles for them again."""
        if not regions:
            self._palette.clear()
        return super().refresh(*regions, **options)

    def render_lines(self, crop: Region) -> list[Strip]:
        """Draw the lines in ``crop`` (the size and scroll are read once per pass)."""
        # Asked once a pass: each is a lookup on the screen or the reactives.
        self._width = self.size.width
        self._scroll = self.scroll_offset
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the widget: the header, a record, or blank below the last one."""
        if not self._palette:
            self._palette = {
                name: self.get_component_rich_style(f"virtual-table--{name}")
                for name in ("header", "cursor", "even-row", "odd-row")
            }
            self._palette["base"] = self.rich_style
        if not self._width:  # drawn outside a pass (a test's look at one line)
            self._width, self._scroll = self.size.width, self.scroll_offset
        width = self._width
        scroll_x, scroll_y = self._scroll
        if y < HEADER:
            header = self._palette["header"]
            segments = self._rows.line(self.app, self._rows.labels, header, None, width)
        else:
            row, part = divmod(y - HEADER + scroll_y, self.row_height)
            if row >= len(self._index):
                self._painted.pop(y, None)
                return Strip.blank(width, self._palette["base"])
            slot = self._index.slot_at(row)
            segments = self._row_segments(row, slot, width, part)
            self._painted[y] = (slot, self._index.stamp(slot), row == self._cursor_row, part)
        table_width = self._rows.table_width
        strip = Strip(segments, max(table_width, width))
        if scroll_x or table_width > width:
            strip = strip.crop(scroll_x, scroll_x + width).adjust_cell_length(
                width, self._palette["base"]
            )
        return strip

    def _row_segments(self, row: int, slot: int, width: int, part: int) -> list[Segment]:
        index, rows, palette = self._index, self._rows, self._palette
        cells = rows.cached(slot, index.stamp(slot), index.record_in(slot))
        line = part if self.row_height > 1 else None
        if self.zebra_stripes:
            row_style = palette["odd-row" if row % 2 else "even-row"]
        else:
            row_style = palette["base"]
        if row == self._cursor_row:
            cursor = palette["cursor"]
            row_style += cursor
            post = Style.from_color(cursor.color)
            return rows.line(self.app, cells, row_style, post, width, line)
        return rows.line(self.app, cells, row_style, None, width, line)

    def refresh_live(self) -> None:
        """Repaint the lines on screen whose live cells (a countdown) moved; nothing else is
        read or drawn, whatever the size of the table."""
        index, rows = self._index, self._rows
        moved = [
            y
            for y, (slot, stamp, _, _) in self._painted.items()
            # a line whose record changed or went is repainted anyway
            if index.stamp(slot) == stamp
            and (record := index.record_in(slot)) is not None
            and rows.live_moved(slot, stamp, record)
        ]
        if moved:  # one refresh for all: each asks the app for a frame
            width = max(self.virtual_size.width, self.size.width)
            self.refresh(*(Region(0, y, width, 1) for y in moved))

    # -- keeping the cursor and the view ----------------------------------------------------

    def _page(self) -> int:
        return max(1, (self.scrollable_content_region.height - HEADER) // self.row_height)

    def _top_row(self) -> int:
        return round(self.scroll_y) // self.row_height

    def _change(self, change: Callable[[], Any], *, reorder: bool = False) -> Any:
        """Apply a change to the records, then put the cursor and the view back in place:
        after new data the view keeps its first record; after a re-sort or a filter (the
        trader's own ``reorder``) it follows the cursor's record."""
        index = self._index
        cursor_id = self._cursor_id
        cursor_key = index.sort_key(cursor_id) if cursor_id is not None else None
        top = self._top_row()
        anchor_id = index.id_at(top) if 0 < top < len(index) and not reorder else None
        anchor_key = index.sort_key(anchor_id) if anchor_id is not None else None
        result = change()
        if cursor_id is not None and cursor_key is not None:
            row = index.row_of(cursor_id)
            if row is None:
                row = index.row_near(cursor_key)
        else:
            row = 0 if len(index) else None
        self._update_virtual_size()
        if anchor_id is not None and anchor_key is not None:
            new_top = index.row_of(anchor_id)
            if new_top is None:
                new_top = index.row_near(anchor_key)
            if new_top is not None and new_top != top:
                self.scroll_to(y=new_top * self.row_height, animate=False, force=True)
        self._set_cursor(-1 if row is None else row, scroll=reorder)
        self._refresh_changed_lines()
        return result

    def _refresh_changed_lines(self) -> None:
        """Repaint only the lines whose record, version or cursor differ from what they show
        (100 changed records off screen cost no drawing at all)."""
        index, painted, high = self._index, self._painted, self.row_height
        top, height = round(self.scroll_y), self.scrollable_content_region.height
        changed = []
        for y in range(HEADER, height):
            row, part = divmod(top + y - HEADER, high)
            if row < len(index):
                slot = index.slot_at(row)
                now: tuple[int, int, bool, int] | None = (
                    slot,
                    index.stamp(slot),
                    row == self._cursor_row,
                    part,
                )
            else:
                now = None
            if painted.get(y) != now:
                changed.append(top + y - HEADER)
        if changed:  # one region: many small ones cost the compositor more than they save
            self.refresh_lines(changed[0] + HEADER, changed[-1] - changed[0] + 1)

    def _set_cursor(self, row: int, *, scroll: bool) -> None:
        """Put the cursor on display row ``row`` (clamped) and say so if its record changed."""
        size = len(self._index)
        old_row = self._cursor_row
        if size == 0:
            row, record_id = -1, None
        else:
            row = min(max(row, 0), size - 1)
            record_id = self._index.id_at(row)
        self._cursor_row = row
        if row != old_row:
            for line in (old_row, row):
                if line >= 0:
                    self.refresh_lines(line * self.row_height + HEADER, self.row_height)
        if scroll and row >= 0:
            self._scroll_into_view(row)
        if record_id != self._cursor_id:
            self._cursor_id = record_id
            self.cursor_moved(record_id)

    def _scroll_into_view(self, row: int) -> None:
        if not self.scrollable_content_region.height:
            return  # not laid out yet: nothing is on screen to keep the cursor in
        top, page, high = self._top_row(), self._page(), self.row_height
        if row < top:
            self.scroll_to(y=row * high, animate=False, force=True)
        elif row >= top + page:
            self.scroll_to(y=(row - page + 1) * high, animate=False, force=True)

    def _update_virtual_size(self) -> None:
        height = len(self._index) * self.row_height + HEADER
        self.virtual_size = Size(self._rows.table_width, height)
