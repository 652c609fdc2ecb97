"""The columns of a virtual table: what a column reads from a record, how wide it is.

A column reads a *value* from a record (cheap: what sorting and searching use) and, only for
the rows on screen, turns that value into a *cell* (a string, or a Rich `Text` carrying its
colour and alignment). Widths are fixed up front; a ``flex`` column takes the width the others
leave, so a wide terminal shows whole instrument names, and a narrow table leaves out its most
droppable columns rather than scroll sideways (the same rules as the keyed table's). A figure
is never cut: a numeric column widens for one longer than its width (``grown``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from rich.text import Text

R = TypeVar("R")
Cell = str | Text
"""What a cell shows: plain text (never parsed as markup) or Rich text with its own style."""

CELL_PADDING = 1
"""Blank cells on each side of a column's text."""


@dataclass(frozen=True)
class TableColumn(Generic[R]):
    """One column of a virtual table (see module docs).

    ``value`` reads the raw value of a record (sorting, searching and drawing start from it,
    so it must be cheap); ``cell`` formats that value for display, called only for rows on
    screen (default: ``str``); ``sort`` orders the rows by something else than the value (a
    record's sort key); ``search`` gives the text a search looks into (default: ``str`` of the
    value). ``numeric`` aligns right; ``flex`` grows with the table (down to ``least`` when it
    is narrow); ``repeats`` says the column holds few distinct (hashable) values, a status, a
    side: each is formatted once. ``drop`` says how readily a narrow table leaves the column
    out: 0 never, the highest first (``v`` still shows it). ``live`` says the value moves with
    the clock (a countdown, an age) rather than with the record: it is read again whenever its
    line is drawn, and `VirtualTable.refresh_live` repaints the lines on screen where it moved.
    """

    key: str
    label: str
    width: int
    value: Callable[[R], Any]
    cell: Callable[[Any], Cell] | None = None
    sort: Callable[[R], Any] | None = None
    search: Callable[[Any], str] | None = None
    numeric: bool = False
    flex: bool = False
    repeats: bool = False
    drop: int = 0
    least: int | None = None
    live: bool = False

    @property
    def narrowest(self) -> int:
        """The fewest cells the column's text may get (a flex column's ``least``)."""
        return self.least if self.flex and self.least is not None else self.width

    def format(self, value: Any) -> Cell:
        """The cell showing ``value``."""
        if self.cell is not None:
            return self.cell(value)
        return "" if value is None else str(value)

    def sort_value(self, record: R) -> Any:
        """The value ``record`` is ordered by in this column."""
        return (self.sort or self.value)(record)

    def search_text(self, record: R) -> str:
        """The text of ``record`` a search looks into, case-folded."""
        value = self.value(record)
        if self.search is not None:
            return self.search(value).casefold()
        return "" if value is None else str(value).casefold()

    @property
    def justify(self) -> str:
        """How a cell without its own alignment sits in the column."""
        return "right" if self.numeric else "default"


class Fitted(Protocol):
    """What the fitting rule reads of a column: a virtual table's `TableColumn` or a keyed
    table's `Column` alike, so both tables lay out by one rule."""

    @property
    def width(self) -> int: ...
    @property
    def flex(self) -> bool: ...
    @property
    def drop(self) -> int: ...
    @property
    def numeric(self) -> bool: ...
    @property
    def narrowest(self) -> int: ...


def widens(column: Fitted) -> bool:
    """Whether ``column`` widens for a figure longer than its width rather than cut it (a
    cut ``101,2…`` reads as another number): a fixed-width numeric column."""
    return column.numeric and not column.flex


def fit_columns(
    columns: Sequence[Fitted],
    available: int,
    grown: Mapping[int, int] | None = None,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Which columns a table ``available`` cells wide shows, and their text widths.

    The most droppable columns are left out until the rest fit; fixed columns keep their
    width and flex ones share what is left (never below their ``narrowest``), one cell kept
    for the vertical scrollbar. ``grown`` (position -> width) widens the columns whose figures
    need more than their width (`widens`): a figure is never cut while a droppable column can
    make the room. When none can, the growth is given back (the widest first) until the
    table fits: a figure then ends in "…" rather than run past the pane's edge, where it
    would be cut with no mark at all. Not laid out yet (``available`` 0): every column, as
    declared, grown.
    """
    grown = dict(grown or {})

    def width(i: int) -> int:
        """The column's own width, or what its figures grew it to."""
        return max(columns[i].width, grown.get(i, 0))

    def narrowest(i: int) -> int:
        return columns[i].narrowest if columns[i].flex else width(i)

    shown = list(range(len(columns)))
    if available <= 0:
        return tuple(shown), tuple(width(i) for i in shown)
    padding = 2 * CELL_PADDING

    def over() -> int:
        return sum(narrowest(i) + padding for i in shown) + 1 - available

    while over() > 0:
        droppable = [i for i in shown if columns[i].drop]
        if not droppable:
            break
        shown.remove(max(droppable, key=lambda i: columns[i].drop))
    for i in sorted(shown, key=lambda i: columns[i].width - width(i)):
        excess = over()
        if excess <= 0:
            break
        grown[i] = max(columns[i].width, width(i) - excess)
    flexible = [i for i in shown if columns[i].flex]
    fixed = sum(width(i) + padding for i in shown if not columns[i].flex)
    spare = available - fixed - padding * len(flexible) - 1
    share = max(0, spare) // len(flexible) if flexible else 0
    widths = (max(narrowest(i), share) if columns[i].flex else width(i) for i in shown)
    return tuple(shown), tuple(widths)


def column_index(columns: Sequence[TableColumn[Any]], key: str) -> int:
    """The position of the column ``key`` (KeyError when there is none)."""
    for index, column in enumerate(columns):
        if column.key == key:
            return index
    raise KeyError(key)


def column_named(columns: Sequence[TableColumn[R]], key: str) -> TableColumn[R]:
    """The column ``key`` (KeyError when there is none)."""
    return columns[column_index(columns, key)]
