"""How a virtual table turns a record into a painted line, doing as little as it can.

A record's cells are formatted when its line is drawn, then kept (a few screens' worth) under
the record's stamp, so a cursor move or a scroll back formats nothing, and a record that
changed formats again only the cells whose value changed (a trade booked: its status). A
``live`` column (a countdown) is read again at each drawing and formatted again only when its
value moved. A ``repeats`` column (a status, a side) formats each distinct value once. The
cells become segments in `tui.desk.widgets.common.painting` (neighbouring text of one style
in one segment). A record may take several lines (a bid over an ask): line ``part`` of the
row shows line ``part`` of each cell.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any, Generic, TypeVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.app import App

from tui.desk.widgets.common.columns import (
    CELL_PADDING,
    Cell,
    TableColumn,
    fit_columns,
    widens,
)
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
        self._painter: CellPainter | None = None
        self.grown: dict[int, int] = {}
        """Numeric columns widened for a figure longer than their width: position -> width
        (kept: a figure that wide may come back)."""
        self.on_grown: Callable[[], None] | None = None
        """Called when a figure drawn widened its column: the table fits its columns again."""
        self._show(tuple(range(len(self.columns))), tuple(c.width for c in self.columns))

    def _show(self, shown: tuple[int, ...], widths: tuple[int, ...]) -> None:
        """Paint the columns ``shown`` (positions), at ``widths``."""
        self.shown = shown
        self._size(widths)
        self._shown_columns = tuple(self.columns[i] for i in shown)
        self._shown_memos = tuple(self._memos[i] for i in shown)
        self._live = tuple(n for n, column in enumerate(self._shown_columns) if column.live)
        self._figures = tuple(n for n, column in enumerate(self._shown_columns) if widens(column))
        self._justify = tuple(column.justify for column in self._shown_columns)
        self._rows.clear()

    def _size(self, widths: tuple[int, ...]) -> None:
        """Give the columns shown these text widths; ``table_width`` is then the cells they
        take, padding included (kept, not summed for every line drawn)."""
        self.widths = widths
        self.table_width = sum(widths) + 2 * CELL_PADDING * len(widths)

    @property
    def labels(self) -> list[str]:
        """The header: the labels of the columns shown."""
        return [column.label for column in self._shown_columns]

    def fit(self, available: int) -> bool:
        """Choose and size the columns for a table ``available`` cells wide; True if that
        changed anything."""
        shown, widths = fit_columns(self.columns, available, self.grown)
        if (shown, widths) == (self.shown, self.widths):
            return False
        if shown == self.shown:
            self._size(widths)  # the cells formatted stay good, only their width moved
        else:
            self._show(shown, widths)
        return True

    def cells(self, record: R) -> tuple[Cell, ...]:
        """Every cell of a record, shown or left out, formatted (what ``v`` shows)."""
        values = tuple(column.value(record) for column in self.columns)
        return self._format(self.columns, self._memos, values, None)

    def all_cells(self, slot: int, stamp: int, record: R) -> tuple[Cell, ...]:
        """Every cell of a record, the shown ones as drawn (`cached`), the rest formatted."""
        shown = dict(zip(self.shown, self.cached(slot, stamp, record), strict=True))
        every = self.cells(record) if len(shown) < len(self.columns) else ()
        return tuple(shown[i] if i in shown else every[i] for i in range(len(self.columns)))

    def cached(self, slot: int, stamp: int, record: R) -> tuple[Cell, ...]:
        """The cells of the record in ``slot``: kept while its stamp holds, and after a change
        formatted again only where a value moved."""
        kept = self._rows.get(slot)
        if kept is not None and kept[0] == stamp:
            if not self._live:
                return kept[2]
            values = self._live_values(kept[1], record)
            if values is None:
                return kept[2]
        else:
            values = tuple(column.value(record) for column in self._shown_columns)
        cells = self._format(self._shown_columns, self._shown_memos, values, kept)
        self._widen_for(cells)
        if kept is None and len(self._rows) >= ROW_CACHE:
            del self._rows[next(iter(self._rows))]
        self._rows[slot] = (stamp, values, cells)
        return cells

    def _widen_for(self, cells: tuple[Cell, ...]) -> None:
        """Note each column that `widens` whose figure in ``cells`` is longer than it has
        been (it would be cut: ``101,2…`` reads as another number), and say so (`on_grown`):
        the table fits its columns again, `fit_columns` giving the room."""
        grew = False
        for n in self._figures:
            need = cell_width(cells[n])
            position = self.shown[n]
            if need > max(self._shown_columns[n].width, self.grown.get(position, 0)):
                self.grown[position] = need
                grew = True
        if grew and self.on_grown is not None:
            self.on_grown()

    def live_moved(self, slot: int, stamp: int, record: R) -> bool:
        """Whether the line of the record in ``slot`` would now draw a live cell otherwise
        than it did (a countdown ticked over)."""
        if not self._live:
            return False
        kept = self._rows.get(slot)
        if kept is None or kept[0] != stamp:
            return True
        return self._live_values(kept[1], record) is not None

    def _live_values(self, values: tuple[Any, ...], record: R) -> tuple[Any, ...] | None:
        """``values`` with the live columns read again; None when none of them moved."""
        moved: list[Any] | None = None
        for n in self._live:
            value = self._shown_columns[n].value(record)
            if not _same(values[n], value):
                if moved is None:
                    moved = list(values)
                moved[n] = value
        return None if moved is None else tuple(moved)

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
        part: int | None = None,
    ) -> list[Segment]:
        """One line: the cells at their widths, then the row's colour to ``width``; with
        ``part``, that line of each cell (a row several lines high)."""
        if part is not None:
            cells = [line_of(cell, part) for cell in cells]
        painter = self._painter
        if painter is None:
            painter = self._painter = CellPainter(app.console, app.console_options)
        trail = max(0, width - self.table_width)
        return painter.line(cells, self.widths, self._justify, row_style, post, trail)

    def forget(self) -> None:
        """Format every row again when next drawn (theme switched, a looked-up name came)."""
        self._rows.clear()
        for memo in self._memos:
            if memo is not None:
                memo.clear()

    def restyle(self) -> None:
        """The widget's styles changed: read the console's styles again."""
        self._painter = None


def _same(before: Any, after: Any) -> bool:
    """Whether a cell showing ``before`` shows ``after`` too (``Decimal("1.0")`` equals
    ``Decimal("1.00")`` but may be written otherwise)."""
    if before is after:
        return True
    if type(before) is not type(after) or before != after:
        return False
    return not isinstance(before, Decimal) or str(before) == str(after)


def cell_width(cell: Cell) -> int:
    """The cells the widest line of ``cell`` takes."""
    plain = cell if isinstance(cell, str) else cell.plain
    return max(cell_len(line) for line in plain.split("\n"))


def line_of(cell: Cell, part: int) -> Cell:
    """Line ``part`` of a cell (empty past its last line), keeping its styles."""
    plain = cell if isinstance(cell, str) else cell.plain
    if "\n" not in plain:
        return cell if part == 0 else ""
    if isinstance(cell, str):
        lines = cell.split("\n")
        return lines[part] if part < len(lines) else ""
    pieces = cell.split("\n", allow_blank=True)
    return pieces[part] if part < len(pieces) else ""


def _memo_key(value: Any) -> Any:
    return (Decimal, str(value)) if isinstance(value, Decimal) else value
