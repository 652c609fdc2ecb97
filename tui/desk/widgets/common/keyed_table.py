"""A DataTable that stays fast with 10,000 rows: keyed rows, fixed widths, in-place updates.

A snapshot from the feed is merged, not redrawn: rows are keyed by record id, new records are
added, changed cells are updated in place (without re-measuring the column), and unchanged
cells are not touched at all. Column widths are fixed up front, so no update is O(rows).
Rows are ordered by a sort value carried by the row's `SortText` cell; the table re-sorts
only when rows were added.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable

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
    """A column: key, header label, fixed width, and whether numbers align right."""

    key: str
    label: str
    width: int
    numeric: bool = False


class KeyedTable(DataTable[Cell]):
    """A DataTable of records keyed by id, merged from snapshots (see module docs)."""

    BINDINGS = [
        Binding("home", "scroll_top", "Top", show=False),
        Binding("end", "scroll_bottom", "Bottom", show=False),
    ]

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
        self._sort_column = sort_column
        self._newest_first = newest_first
        self._row_height = row_height
        self._cells: dict[str, tuple[Cell, ...]] = {}
        self._backlog: dict[str, tuple[Cell, ...]] = {}
        self._columns_added = False

    def on_mount(self) -> None:
        """Add the fixed-width columns."""
        self._ensure_columns()

    def _ensure_columns(self) -> None:
        if self._columns_added:
            return
        for column in self._columns:
            label = Text(column.label, justify="right" if column.numeric else "left")
            self.add_column(label, width=column.width, key=column.key)
        self._columns_added = True

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
        seen: set[str] = set()
        added: list[tuple[str, tuple[Cell, ...]]] = []
        keys = [c.key for c in self._columns]
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
            for column_key, before, after in zip(keys, old, values, strict=True):
                if not _same(before, after):
                    self.update_cell(key, column_key, after, update_width=False)
                    changed = True
            if not changed:
                continue
            self._cells[key] = values
        if prune:
            self.prune_to(seen)
        # A big batch (the first load of a long day) goes in by chunks, one per frame, so the
        # desk stays responsive while the table fills.
        now, later = added[:CHUNK_ROWS], added[CHUNK_ROWS:]
        self._backlog.update(later)
        self._add(now)
        if self._backlog:
            self.call_after_refresh(self._drain)
        return len(added)

    def _add(self, rows: list[tuple[str, tuple[Cell, ...]]]) -> None:
        had_rows = bool(self._cells)
        for key, values in rows:
            self.add_row(*values, key=key, height=self._row_height)
            self._cells[key] = values
        if rows and self._sort_column is not None:
            # The cursor stays on the record it was on, not on the row number: a trader's
            # selection must never change under them because a new row arrived.
            selected = self.selected_key if had_rows else None
            self.sort(self._sort_column, key=_sort_key, reverse=self._newest_first)
            if selected is not None and selected in self._cells:
                self.move_cursor(row=self.get_row_index(selected), scroll=False)

    def _drain(self) -> None:
        keys = list(self._backlog)[:CHUNK_ROWS]
        self._add([(key, self._backlog.pop(key)) for key in keys])
        if self._backlog:
            self.call_after_refresh(self._drain)

    @property
    def pending_rows(self) -> int:
        """Rows still queued to be added (a big first load fills in over a few frames)."""
        return len(self._backlog)

    def prune_to(self, keys: set[str]) -> None:
        """Drop every row whose key is not in ``keys``."""
        for key in [k for k in self._cells if k not in keys]:
            self.remove_row(key)
            del self._cells[key]
        for key in [k for k in self._backlog if k not in keys]:
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
        self.update_cell(key, column_key, value, update_width=False)

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


def _sort_key(cell: Any) -> Any:
    return getattr(cell, "sort_key", None) if isinstance(cell, SortText) else str(cell)


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
