"""How a virtual table turns a record into a painted line, doing as little as it can.

A record's cells are formatted when its line is drawn, then kept (a few screens' worth) under
the record's stamp, so a cursor move or a scroll back formats nothing, and a record that
changed formats again only the cells whose value changed (a trade booked: its status). A
``repeats`` column (a status, a side) formats each distinct value once. The row's styles under
each column are combined once per row style, not per cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any, Generic, TypeVar

from rich.segment import Segment
from rich.style import Style
from textual.app import App

from tui.desk.widgets.common.columns import CELL_PADDING, Cell, TableColumn, fit_columns
from tui.desk.widgets.common.painting import CellPainter

R = TypeVar("R")

ROW_CACHE = 1024
"""Formatted rows kept (a few screens' worth), oldest dropped first."""

MEMO = 256
"""Distinct values whose cell a ``repeats`` column keeps."""


class RowPainter(Generic[R]):
    """Formats and paints the rows of a virtual table (see module docs)."""

    def __init__(self, columns: Sequence[TableColumn[R]]) -> None:
        self.columns = tuple(columns)
        self._memos: list[dict[Any, Cell] | None] = [
            {} if column.repeats else None for column in self.columns
        ]
        self._rows: dict[int, tuple[int, tuple[Any, ...], tuple[Cell, ...]]] = {}
        self._under: dict[Style, tuple[Style, ...]] = {}
        self._painter: CellPainter | None = None
        self._show(tuple(range(len(self.columns))), tuple(c.width for c in self.columns))

    def _show(self, shown: tuple[int, ...], widths: tuple[int, ...]) -> None:
        """Paint the columns ``shown`` (positions), at ``widths``."""
        self.shown, self.widths = shown, widths
        self._shown_columns = tuple(self.columns[i] for i in shown)
        self._shown_memos = tuple(self._memos[i] for i in shown)
        self._justify = tuple(column.justify for column in self._shown_columns)
        # A meta per column keeps each cell its own segment, as in a DataTable.
        self._meta = tuple(Style.from_meta({"column": i}) for i in range(len(shown)))
        self._under.clear()
        self._rows.clear()

    @property
    def table_width(self) -> int:
        """Cells the columns take, padding included."""
        return sum(self.widths) + 2 * CELL_PADDING * len(self.widths)

    @property
    def labels(self) -> list[str]:
        """The header: the labels of the columns shown."""
        return [column.label for column in self._shown_columns]

    def fit(self, available: int) -> bool:
        """Choose and size the columns for a table ``available`` cells wide; True if that
        changed anything."""
        shown, widths = fit_columns(self.columns, available)
        if (shown, widths) == (self.shown, self.widths):
            return False
        if shown == self.shown:
            self.widths = widths  # the cells formatted stay good, only their width moved
        else:
            self._show(shown, widths)
        return True

    def cells(self, record: R) -> tuple[Cell, ...]:
        """Every cell of a record, shown or left out, formatted (what ``v`` shows)."""
        values = tuple(column.value(record) for column in self.columns)
        return self._format(self.columns, self._memos, values, None)

    def cached(self, slot: int, stamp: int, record: R) -> tuple[Cell, ...]:
        """The cells of the record in ``slot``: kept while its stamp holds, and after a change
        formatted again only where a value moved."""
        kept = self._rows.get(slot)
        if kept is not None and kept[0] == stamp:
            return kept[2]
        values = tuple(column.value(record) for column in self._shown_columns)
        cells = self._format(self._shown_columns, self._shown_memos, values, kept)
        if kept is None and len(self._rows) >= ROW_CACHE:
            del self._rows[next(iter(self._rows))]
        self._rows[slot] = (stamp, values, cells)
        return cells

    def _format(
        self,
        columns: Sequence[TableColumn[R]],
        memos: Sequence[dict[Any, Cell] | None],
        values: tuple[Any, ...],
        kept: tuple[int, tuple[Any, ...], tuple[Cell, ...]] | None,
    ) -> tuple[Cell, ...]:
        cells = []
        for i, (column, memo, value) in enumerate(zip(columns, memos, values, strict=True)):
            if kept is not None and _same(kept[1][i], value):
                cells.append(kept[2][i])
            elif memo is None:
                cells.append(column.format(value))
            else:
                key = _memo_key(value)
                cell = memo.get(key)
                if cell is None:
                    if len(memo) >= MEMO:
                        memo.clear()
                    cell = memo[key] = column.format(value)
                cells.append(cell)
        return tuple(cells)

    def line(
        self,
        app: App[Any],
        cells: Sequence[Cell],
        row_style: Style,
        post: Style | None,
        width: int,
    ) -> list[Segment]:
        """One line: the cells at their widths, then the row's colour to ``width``."""
        under = self._under.get(row_style)
        if under is None:
            under = self._under[row_style] = tuple(row_style + meta for meta in self._meta)
        painter = self._painter
        if painter is None:
            painter = self._painter = CellPainter(app.console, app.console_options)
        segments = painter.line(cells, self.widths, self._justify, under, post)
        # Always there, even zero cells wide, as in a DataTable (a screenshot shows the same).
        segments.append(painter.blank(max(0, width - self.table_width), row_style))
        return segments

    def forget(self) -> None:
        """Format every row again when next drawn (theme switched, a looked-up name came)."""
        self._rows.clear()
        for memo in self._memos:
            if memo is not None:
                memo.clear()

    def restyle(self) -> None:
        """The widget's styles changed: combine the row styles again."""
        self._under.clear()


def _same(before: Any, after: Any) -> bool:
    """Whether a cell showing ``before`` shows ``after`` too (``Decimal("1.0")`` equals
    ``Decimal("1.00")`` but may be written otherwise)."""
    if before is after:
        return True
    if type(before) is not type(after) or before != after:
        return False
    return not isinstance(before, Decimal) or str(before) == str(after)


def _memo_key(value: Any) -> Any:
    return (Decimal, str(value)) if isinstance(value, Decimal) else value
