"""A DataTable that stays fast with 10,000 rows: keyed rows, fixed widths, in-place updates.

A snapshot from the feed is merged, not redrawn: rows are keyed by record id, new records are
added, changed cells are updated in place (without re-measuring the column), and unchanged
cells are not touched at all. Column widths are fixed up front (a figure too long for its
column widens it, once), so no cell's update is O(rows); a ``flex`` column takes the width the
others leave (a wide terminal shows whole instrument names), and text too long for its column
ends in an ellipsis, the whole row one key away (``v``). A figure is never cut while a
droppable column can make room: a ``numeric`` column widens for one longer than its width (a
cut ``101,2…`` reads as another number), and keeps that width (`fit_columns` has the rule). A
narrow table leaves columns out rather than scroll sideways: each column may carry a drop
priority, and the most droppable go first until the rest fit (a flex column squeezed down to
its ``least`` width); what is left out is still in ``v``. Rows are ordered by a sort value
carried by the row's `SortText` cell; the table re-sorts only when rows were added or a sort
value changed.

The cursor is bound to a record, never to a row number: through a re-sort, a row added above
it or a row dropped above it, it stays on the record it was on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual._two_way_dict import TwoWayDict
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

from tui.desk.widgets.common.columns import fit_columns, widens

Cell = str | Text
CHUNK_ROWS = 1000
"""Rows added per frame when a snapshot brings many new records at once."""


class SortText(Text):
    """A cell whose text is shown and whose ``sort_key`` orders the rows."""

    def __init__(self, text: str, sort_key: Any, **kwargs: Any) -> None:
        super().__init__(text, end="", **kwargs)
        self.sort_key = sort_key

    def copy(self) -> SortText:
        """A copy that keeps the sort key (Rich copies text when rendering)."""
        clone = SortText(self.plain, self.sort_key, style=self.style, justify=self.justify)
        clone._spans[:] = self._spans
        return clone


@dataclass(frozen=True)
class Column:
    """A column: key, header label, width, whether numbers align right, whether it grows.

    A ``flex`` column shares what the table's width leaves; it is ``width`` wide at least, or
    ``least`` wide when given and the table is narrow. ``drop`` says how readily a narrow table
    leaves the column out: 0 never, the highest first. A ``numeric`` column aligns right and
    widens for a figure longer than its width rather than cut it (`columns.widens`).
    """

    key: str
    label: str
    width: int
    numeric: bool = False
    flex: bool = False
    drop: int = 0
    least: int | None = None

    @property
    def narrowest(self) -> int:
        """The fewest cells the column's text may get."""
        return self.least if self.flex and self.least is not None else self.width


class KeyedTable(DataTable[Cell]):
    """A DataTable of records keyed by id, merged from snapshots (see module docs)."""

    BINDINGS = [
        Binding("home", "scroll_top", "Top", show=False, id="table.top"),
        Binding("end", "scroll_bottom", "Bottom", show=False, id="table.bottom"),
        Binding("v", "view_row", "View row", show=False, id="table.view"),
    ]

    @dataclass
    class ViewRow(Message):
        """The trader wants every cell of a row in full (``v``): column labels and texts."""

        table: KeyedTable
        key: str
        fields: list[tuple[str, str]]

    def __init__(
        self,
        columns: Sequence[Column],
        *,
        sort_column: str | None = None,
        newest_first: bool = True,
        row_height: int = 1,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("cursor_type", "row")
        kwargs.setdefault("zebra_stripes", True)
        super().__init__(**kwargs)
        self._columns = tuple(columns)
        self._shown = self._columns
        self._sort_column = sort_column
        self._newest_first = newest_first
        self._row_height = row_height
        self._cells: dict[str, tuple[Cell, ...]] = {}
        self._backlog: dict[str, tuple[Cell, ...]] = {}
        self._columns_added = False
        self._widths: dict[str, int] = {}
        """The width of each column shown, as last laid out (`fit_width`)."""
        self._refitting = False
        self._grown: dict[str, int] = {}
        """Numeric columns widened for a figure longer than their width: key -> width."""

    def on_mount(self) -> None:
        """Add the fixed-width columns."""
        self._ensure_columns()

    def _ensure_columns(self) -> None:
        if self._columns_added:
            return
        for column in self._shown:
            label = Text(column.label, justify="right" if column.numeric else "left")
            self.add_column(label, width=self._width_of(column), key=column.key)
        self._columns_added = True

    def _width_of(self, column: Column) -> int:
        """The cells a fixed column takes: its width, or more for a figure that needs it."""
        return max(column.width, self._grown.get(column.key, 0))

    def _fit_figure(self, column: Column, cell: Cell) -> Cell:
        """`_fit` a cell of ``column``; a figure longer than a column that `widens` grows it,
        laid out once this frame is out (one refit for every figure of the frame)."""
        fitted = _fit(cell)
        if widens(column) and fitted.cell_len > self._width_of(column):
            self._grown[column.key] = fitted.cell_len
            if not self._refitting:
                self._refitting = True
                self.call_after_refresh(self._refit)
        return fitted

    def _refit(self) -> None:
        """A column grew: lay the columns out again at the table's width."""
        self._refitting = False
        self.fit_width(self.scrollable_content_region.width)

    def _candidates(self) -> tuple[Column, ...]:
        """The columns the table may show (a quote board leaves the IV ones out for a
        structure without options); which of them fit is `fit_width`'s."""
        return self._columns

    def _show_columns(self, shown: tuple[Column, ...]) -> None:
        """Redraw the table with only ``shown`` (a resize across a column's drop point)."""
        selected = self.selected_key
        rows = list(self._cells.items())
        self._shown = shown
        self._widths = {}
        self.clear(columns=True)
        self._cells.clear()
        self._columns_added = False
        self._ensure_columns()
        self._add(rows, resort=True)
        self._keep_cursor_on(selected)

    def on_resize(self) -> None:
        """Give the flex columns the width the fixed ones leave."""
        self.fit_width(self.scrollable_content_region.width)

    def fit_width(self, width: int) -> None:
        """Choose the columns for a table ``width`` cells wide, and size them: the virtual
        table's rule (`fit_columns`), with the widths figures grew columns to."""
        if width <= 0:
            return
        self._ensure_columns()
        candidates = self._candidates()
        grown = {i: self._grown[c.key] for i, c in enumerate(candidates) if c.key in self._grown}
        positions, widths = fit_columns(candidates, width, grown)
        shown = tuple(candidates[i] for i in positions)
        if shown != self._shown:
            self._show_columns(shown)
        sized = {c.key: w for c, w in zip(shown, widths, strict=True)}
        if sized == self._widths:
            return
        self._widths = sized
        for key, column_width in sized.items():
            self.columns[ColumnKey(key)].width = column_width
        self._require_update_dimensions = True
        self._clear_caches()
        self.refresh()

    @property
    def row_keys(self) -> list[str]:
        """Keys of the rows, in display order."""
        return [str(row.key.value) for row in self.ordered_rows]

    def has_row(self, key: str) -> bool:
        """True when a row with this key is shown (or queued to be)."""
        return key in self._cells or key in self._backlog

    def merge(self, rows: Iterable[tuple[str, Sequence[Cell]]], *, prune: bool = False) -> int:
        """Add new rows, update changed cells in place; with ``prune``, drop rows not given.

        Returns how many rows were added.
        """
        self._ensure_columns()
        selected = self.selected_key
        seen: set[str] = set()
        added: list[tuple[str, tuple[Cell, ...]]] = []
        shown = {c.key for c in self._shown}
        reordered = False
        for key, cells in rows:
            values = tuple(cells)
            seen.add(key)
            old = self._cells.get(key)
            if old is None:
                if key in self._backlog:
                    self._backlog[key] = values
                else:
                    added.append((key, values))
                continue
            changed = False
            for column, before, after in zip(self._columns, old, values, strict=True):
                if not _same(before, after):
                    column_key = column.key
                    if column_key in shown:
                        fitted = self._fit_figure(column, after)
                        self.update_cell(key, column_key, fitted, update_width=False)
                    changed = True
                    reordered = reordered or column_key == self._sort_column
            if not changed:
                continue
            self._cells[key] = values
        if prune:
            self._drop([k for k in self._cells if k not in seen], seen)
        # A big batch (the first load of a long day) goes in by chunks, one per frame, so the
        # desk stays responsive while the table fills.
        now, later = added[:CHUNK_ROWS], added[CHUNK_ROWS:]
        self._backlog.update(later)
        self._add(now, resort=reordered)
        self._keep_cursor_on(selected)
        if self._backlog:
            self.call_after_refresh(self._drain)
        return len(added)

    def _add(self, rows: list[tuple[str, tuple[Cell, ...]]], *, resort: bool = False) -> None:
        drawn = [(self._columns.index(c), c) for c in self._shown]
        for key, values in rows:
            cells = (self._fit_figure(column, values[i]) for i, column in drawn)
            self.add_row(*cells, key=key, height=self._row_height)
            self._cells[key] = values
        if (rows or resort) and self._sort_column is not None:
            self._sort(self._sort_column)

    def _sort(self, column_key: str) -> None:
        """Order the rows by the column's sort values, shown or left out."""
        index = next(i for i, c in enumerate(self._columns) if c.key == column_key)
        ranks = {key: _rank(cells[index]) for key, cells in self._cells.items()}
        # DataTable.sort reads only the columns drawn; the sort column may be left out.
        order = sorted(
            self._data, key=lambda row: ranks[str(row.value)], reverse=self._newest_first
        )
        self._row_locations = TwoWayDict({row: place for place, row in enumerate(order)})
        self._update_count += 1
        self.refresh()

    def _keep_cursor_on(self, key: str | None) -> None:
        """Put the cursor back on the record it was on (a trader's selection must never
        change under them because rows arrived, went, or changed places)."""
        if key is not None and key in self._cells and self.selected_key != key:
            self.move_cursor(row=self.get_row_index(key), scroll=False)

    def _drain(self) -> None:
        selected = self.selected_key
        keys = list(self._backlog)[:CHUNK_ROWS]
        self._add([(key, self._backlog.pop(key)) for key in keys])
        self._keep_cursor_on(selected)
        if self._backlog:
            self.call_after_refresh(self._drain)

    @property
    def pending_rows(self) -> int:
        """Rows still queued to be added (a big first load fills in over a few frames)."""
        return len(self._backlog)

    def prune_to(self, keys: set[str]) -> None:
        """Drop every row whose key is not in ``keys`` (the cursor stays on its record)."""
        selected = self.selected_key
        self._drop([k for k in self._cells if k not in keys], keys)
        self._keep_cursor_on(selected)

    def _drop(self, gone: list[str], keep: set[str]) -> None:
        for key in gone:
            self.remove_row(key)
            del self._cells[key]
        for key in [k for k in self._backlog if k not in keep]:
            del self._backlog[key]

    def set_cell(self, key: str, column_key: str, value: Cell) -> None:
        """Update one cell in place (a countdown tick, a flash ending)."""
        cells = self._cells.get(key)
        if cells is None:
            return
        index = next(i for i, c in enumerate(self._columns) if c.key == column_key)
        if _same(cells[index], value):
            return
        self._cells[key] = (*cells[:index], value, *cells[index + 1 :])
        if self._columns[index] in self._shown:
            fitted = self._fit_figure(self._columns[index], value)
            self.update_cell(key, column_key, fitted, update_width=False)

    def cell_value(self, key: str, column_key: str) -> Cell | None:
        """What a cell currently shows."""
        cells = self._cells.get(key)
        if cells is None:
            return None
        index = next(i for i, c in enumerate(self._columns) if c.key == column_key)
        return cells[index]

    def clear_rows(self) -> None:
        """Drop every row (the columns stay)."""
        self.clear()
        self._cells.clear()
        self._backlog.clear()

    @property
    def selected_key(self) -> str | None:
        """The key of the row under the cursor."""
        if self.row_count == 0:
            return None
        try:
            row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        except Exception:
            return None
        return str(row_key.value) if row_key.value is not None else None

    def select_key(self, key: str) -> None:
        """Move the cursor to the row with this key."""
        if key in self._cells:
            self.move_cursor(row=self.get_row_index(key))

    def row_fields(self, key: str) -> list[tuple[str, str]]:
        """Every cell of a row in full, with its column's label (what ``v`` shows)."""
        cells = self._cells.get(key, ())
        return [
            (column.label or column.key, str(cell).strip())
            for column, cell in zip(self._columns, cells, strict=False)
        ]

    def action_view_row(self) -> None:
        """Ask to see the row under the cursor in full (its cells may be clipped)."""
        key = self.selected_key
        if key is not None:
            self.post_message(self.ViewRow(self, key, self.row_fields(key)))


def _fit(cell: Cell) -> Text:
    """What the table draws: one line, and text too long for its column ends in "…"."""
    # A plain string may carry markup, as DataTable reads it.
    text = Text.from_markup(cell, end="") if isinstance(cell, str) else cell.copy()
    text.overflow = "ellipsis"
    text.no_wrap = "\n" not in text.plain
    return text


def _sort_key(cell: Any) -> Any:
    return getattr(cell, "sort_key", None) if isinstance(cell, SortText) else str(cell)


def _rank(cell: Cell) -> Any:
    """Where a cell sorts: its sort key, else the text the table draws."""
    return cell.sort_key if isinstance(cell, SortText) else _sort_key(_fit(cell))


def _same(before: Any, after: Any) -> bool:
    """Whether two cells look the same (Rich's Text equality ignores the base style)."""
    if isinstance(before, Text) and isinstance(after, Text):
        return (
            before.plain == after.plain
            and before.style == after.style
            and before.spans == after.spans
            and before.justify == after.justify
            and _sort_key(before) == _sort_key(after)
        )
    return bool(before == after)
