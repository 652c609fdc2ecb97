"""A table that stays fast at 100,000 live records: it draws only the lines on screen.

Records are held by a `RecordIndex` (by id, in slots; sorting and filtering are index
operations) and never become widgets, rows or cell objects: a line is drawn on demand from its
record by the columns' formatters, for the rows on screen only, with a small cache of
formatted rows keyed by the record's stamp (a record that changed is formatted again, one that
did not is not). A snapshot is merged by id: new records are added, changed ones replaced,
missing ones dropped, at the cost of a few list passes for 100,000 records.

The cursor is bound to a record id, never to a row number. Through a re-sort, a record added
above it or a filter that keeps its record, it stays on that record. When its record is
removed or filtered out, it moves to the record that took its place in display order (the one
that followed it; the new last one if it was last). When the view is scrolled down, records
added above the first line shown do not move what the trader is reading.

It looks like Textual's `DataTable` (same padding, header, zebra stripes and cursor colours),
so it sits among the desk's other tables unnoticed; unlike it, it takes the height it is given
(``1fr``) rather than its content's, since its content may be 100,000 lines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, TypeVar

from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message

from tui.desk.widgets.common.columns import Cell, TableColumn, column_index, column_named
from tui.desk.widgets.common.record_index import Merged, RecordIndex
from tui.desk.widgets.common.table_view import HEADER, TableView

R = TypeVar("R")


class VirtualTable(TableView[R], can_focus=True):
    """A virtual table of records keyed by id (see module docs)."""

    DEFAULT_CSS = """
    VirtualTable {
        background: $surface;
        color: $foreground;
        height: 1fr;
        &:focus {
            background-tint: $foreground 5%;
            & > .virtual-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .virtual-table--header {
                background-tint: $foreground 5%;
            }
        }
        &:dark > .virtual-table--even-row {
            background: $surface-darken-1 40%;
        }
        & > .virtual-table--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
        &:ansi > .virtual-table--header {
            background: ansi_bright_blue;
            color: ansi_default;
        }
        & > .virtual-table--even-row {
            background: $surface-lighten-1 50%;
        }
        & > .virtual-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Up", show=False, id="table.up"),
        Binding("down", "cursor_down", "Down", show=False, id="table.down"),
        Binding("pageup", "page_up", "Page up", show=False, id="table.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="table.page_down"),
        Binding("home,ctrl+home", "cursor_first", "Top", show=False, id="table.top"),
        Binding("end,ctrl+end", "cursor_last", "Bottom", show=False, id="table.bottom"),
        Binding("left", "scroll_left", "Left", show=False, id="table.left"),
        Binding("right", "scroll_right", "Right", show=False, id="table.right"),
        Binding("enter", "select", "Select", show=False, id="table.select"),
        Binding("v", "view_record", "View row", show=False, id="table.view"),
    ]

    class RecordHighlighted(Message):
        """The cursor is on another record (``record_id`` None: the table is empty)."""

        def __init__(self, table: VirtualTable[Any], record_id: str | None) -> None:
            super().__init__()
            self.table = table
            self.record_id = record_id

        @property
        def control(self) -> VirtualTable[Any]:
            """The table the cursor moved in."""
            return self.table

    class RecordSelected(Message):
        """Enter (or a click) on the record under the cursor."""

        def __init__(self, table: VirtualTable[Any], record_id: str) -> None:
            super().__init__()
            self.table = table
            self.record_id = record_id

        @property
        def control(self) -> VirtualTable[Any]:
            """The table the record was chosen in."""
            return self.table

    class ViewRecord(Message):
        """The trader wants every cell of a record in full (``v``): labels and texts."""

        def __init__(
            self, table: VirtualTable[Any], record_id: str, fields: list[tuple[str, str]]
        ) -> None:
            super().__init__()
            self.table = table
            self.record_id = record_id
            self.fields = fields

        @property
        def control(self) -> VirtualTable[Any]:
            """The table the record is in."""
            return self.table

    def __init__(
        self,
        columns: Sequence[TableColumn[R]],
        *,
        key: Callable[[R], str],
        version: Callable[[R], object] | None = None,
        sort: str | None = None,
        descending: bool = False,
        zebra_stripes: bool = True,
        row_height: int = 1,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """``key`` gives a record's id; ``version`` what can change in it (a record whose
        version is unchanged is not formatted again; default: the record itself, by ``==``);
        ``sort`` the column the rows are ordered by (record id when None); ``row_height`` the
        lines each record takes (a cell's lines are drawn one under the other)."""
        sort_value = column_named(columns, sort).sort_value if sort is not None else None
        index = RecordIndex(key, version=version, sort_value=sort_value, descending=descending)
        super().__init__(
            columns,
            index,
            zebra_stripes=zebra_stripes,
            row_height=row_height,
            name=name,
            id=id,
            classes=classes,
        )
        self.sort_column = sort
        self._rows.on_grown = self._regrow
        self._regrowing = False

    def _regrow(self) -> None:
        """A figure drawn widened its column: fit the columns again once this frame is out
        (its line was drawn at the old width; the refit redraws the table)."""
        if not self._regrowing:
            self._regrowing = True
            self.call_after_refresh(self._refit)

    def _refit(self) -> None:
        self._regrowing = False
        self._fit()

    # -- the records ------------------------------------------------------------------------

    def merge(self, records: Iterable[R], *, prune: bool = True) -> Merged:
        """Merge a snapshot by id: add new records, take changed ones and (with ``prune``)
        drop the ones not in it. What changed is counted in the result."""
        return self._change(lambda: self._index.merge(records, prune=prune))

    def upsert(self, records: Iterable[R]) -> Merged:
        """Add or replace these records only (a delta: nothing is dropped)."""
        return self._change(lambda: self._index.merge(records, prune=False))

    def remove_records(self, record_ids: Iterable[str]) -> Merged:
        """Drop these records (`Widget.remove` removes the table itself)."""
        return self._change(lambda: Merged(removed=self._index.remove(record_ids)))

    def clear(self) -> None:
        """Drop every record (columns, sort and filter stay)."""
        self._change(self._cleared)

    def invalidate(self) -> None:
        """Format the rows on screen again (the theme changed, a looked-up name arrived)."""
        self._rows.forget()
        self.refresh()

    def sort_by(self, column: str | None, *, descending: bool = False) -> None:
        """Order the rows by a column (by record id when None); the cursor keeps its record."""
        sort_value = self._column(column).sort_value if column is not None else None
        self.sort_column = column
        self._change(lambda: self._index.sort_by(sort_value, descending=descending), reorder=True)

    def filter_by(self, predicate: Callable[[R], bool] | None) -> None:
        """Show only the records ``predicate`` keeps (every record when None)."""
        self._change(lambda: self._index.filter_by(predicate), reorder=True)

    def search(self, text: str, columns: Sequence[str] | None = None) -> None:
        """Show only records whose ``columns`` (all when None) contain ``text``, any case;
        an empty ``text`` shows every record."""
        needle = text.strip().casefold()
        if not needle:
            self.filter_by(None)
            return
        chosen = [self._column(key) for key in columns] if columns else list(self.columns)

        def matches(record: R) -> bool:
            return any(needle in column.search_text(record) for column in chosen)

        self.filter_by(matches)

    # -- reading ----------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        """How many records are shown (the ones passing the filter)."""
        return len(self._index)

    @property
    def record_count(self) -> int:
        """How many records are held, shown or filtered out."""
        return self._index.total

    def has_record(self, record_id: str) -> bool:
        """True when the table holds this record (shown or filtered out)."""
        return record_id in self._index

    def has_row(self, record_id: str) -> bool:
        """True when the table holds this record (the keyed table's name for it)."""
        return record_id in self._index

    @property
    def row_keys(self) -> list[str]:
        """Ids of the shown records, in display order (the keyed table's name for it)."""
        return self._index.ids()

    def record(self, record_id: str) -> R | None:
        """The record with this id."""
        return self._index.record(record_id)

    def record_at(self, row: int) -> R:
        """The record on display row ``row``."""
        return self._index.record_at(row)

    def row_ids(self) -> list[str]:
        """Ids of the shown records, in display order."""
        return self._index.ids()

    def row_of(self, record_id: str) -> int | None:
        """The display row of a record (None when absent or filtered out)."""
        return self._index.row_of(record_id)

    def move_cursor_to(self, record_id: str) -> bool:
        """Put the cursor on this record and scroll it into view; False when not shown."""
        row = self._index.row_of(record_id)
        if row is None:
            return False
        self._set_cursor(row, scroll=True)
        return True

    def row_fields(self, record_id: str) -> list[tuple[str, str]]:
        """Every cell of a record in full, with its column's label (what ``v`` shows)."""
        record = self._index.record(record_id)
        if record is None:
            return []
        cells = self.cells_of(record)
        return [
            (column.label or column.key, str(cell).strip())
            for column, cell in zip(self.columns, cells, strict=True)
        ]

    def cell_value(self, record_id: str, key: str) -> Cell | None:
        """What the cell of column ``key`` shows for a record (None when there is none):
        the cell drawn when its line is on screen, else formatted now."""
        record = self._index.record(record_id)
        if record is None:
            return None
        position = column_index(self.columns, key)
        return self.cells_of(record, self._index.slot_of(record_id))[position]

    def column_width(self, key: str) -> int:
        """The text width a column has now (a flex column grows with the table; 0 for a
        column a narrow table leaves out)."""
        position = column_index(self.columns, key)
        shown = self._rows.shown
        return self._rows.widths[shown.index(position)] if position in shown else 0

    # -- keys and mouse ---------------------------------------------------------------------

    def action_cursor_up(self) -> None:
        """One record up."""
        self._set_cursor(self._cursor_row - 1, scroll=True)

    def action_cursor_down(self) -> None:
        """One record down."""
        self._set_cursor(self._cursor_row + 1, scroll=True)

    def action_page_up(self) -> None:
        """One screen up."""
        self._set_cursor(self._cursor_row - self._page(), scroll=True)

    def action_page_down(self) -> None:
        """One screen down."""
        self._set_cursor(self._cursor_row + self._page(), scroll=True)

    def action_cursor_first(self) -> None:
        """The first record."""
        self._set_cursor(0, scroll=True)

    def action_cursor_last(self) -> None:
        """The last record (the oldest trade of a newest-first blotter)."""
        self._set_cursor(len(self._index) - 1, scroll=True)

    def action_select(self) -> None:
        """Say which record was chosen."""
        if self._cursor_id is not None:
            self.post_message(self.RecordSelected(self, self._cursor_id))

    def action_view_record(self) -> None:
        """Ask to see the record under the cursor in full (its cells may be clipped)."""
        if self._cursor_id is not None:
            fields = self.row_fields(self._cursor_id)
            self.post_message(self.ViewRecord(self, self._cursor_id, fields))

    def on_click(self, event: events.Click) -> None:
        """A click on a record puts the cursor there and chooses it (as in a DataTable)."""
        offset = event.get_content_offset(self)
        if offset is None or offset.y < HEADER:
            return
        row = (offset.y - HEADER + round(self.scroll_y)) // self.row_height
        if 0 <= row < len(self._index):
            self._set_cursor(row, scroll=True)
            self.action_select()

    def cursor_moved(self, record_id: str | None) -> None:
        """Say that the cursor is on another record."""
        self.post_message(self.RecordHighlighted(self, record_id))

    # -- inside -----------------------------------------------------------------------------

    def _column(self, key: str) -> TableColumn[R]:
        return column_named(self.columns, key)

    def _cleared(self) -> Merged:
        removed = self._index.total
        self._index.clear()
        self._rows.forget()
        return Merged(removed=removed)
