"""A virtual table of small fills for the table's own tests (``test_virtual_table_*``).

`Fill` is a small trade-like record and `fills` a run of them; `FillTable` sorts them by
price, highest first, noting every line it paints and (through `FORMATTED`) every row whose
cells it formats; `FillsApp` hosts it and keeps the record ids its messages name.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from operator import attrgetter

from rich.text import Text
from textual.app import App, ComposeResult
from textual.strip import Strip

from tui.desk.widgets.common.columns import TableColumn
from tui.desk.widgets.common.virtual_table import VirtualTable


@dataclass(frozen=True)
class Fill:
    """A small trade-like record."""

    id: str
    price: Decimal
    side: str = "buy"
    status: str = "pending"
    note: str = ""


def fills(count: int, start: int = 0) -> list[Fill]:
    """``count`` fills, ids ``f00000``..., the price rising with the number."""
    return [
        Fill(f"f{i:05d}", Decimal(100 + i), "buy" if i % 2 else "sell")
        for i in range(start, start + count)
    ]


FORMATTED: list[str] = []
"""Ids whose cell was formatted, in order (every cell formatting of a row starts there)."""


def format_id(record_id: str) -> str:
    """The id column's cell: the id itself, noted in `FORMATTED`."""
    FORMATTED.append(record_id)
    return record_id


COLUMNS: list[TableColumn[Fill]] = [
    TableColumn("id", "Fill", 6, attrgetter("id"), cell=format_id),
    TableColumn("price", "Price", 8, attrgetter("price"), cell=lambda p: f"{p:,}", numeric=True),
    TableColumn(
        "side",
        "Side",
        4,
        attrgetter("side"),
        cell=lambda s: Text(s.upper(), style="green" if s == "buy" else "red"),
        repeats=True,
    ),
    TableColumn("status", "Status", 8, attrgetter("status"), repeats=True),
    TableColumn("note", "Note", 10, attrgetter("note"), drop=1),
]


class FillTable(VirtualTable[Fill]):
    """Fills by price, highest first, counting what it draws and formats."""

    def __init__(self) -> None:
        super().__init__(
            COLUMNS,
            key=attrgetter("id"),
            version=attrgetter("price", "status", "note"),
            sort="price",
            descending=True,
            id="fills",
        )
        self.lines: dict[int, str] = {}
        self.drawn = 0

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        self.lines[y] = strip.text
        self.drawn += 1
        return strip


class FillsApp(App[None]):
    """A `FillTable` with the focus, keeping the ids its highlight, select and view messages
    name (in order)."""

    def __init__(self) -> None:
        super().__init__()
        self.highlighted: list[str | None] = []
        self.selected: list[str] = []
        self.viewed: list[list[tuple[str, str]]] = []

    def compose(self) -> ComposeResult:
        yield FillTable()

    def on_mount(self) -> None:
        self.query_one(FillTable).focus()

    def on_virtual_table_record_highlighted(self, event: VirtualTable.RecordHighlighted) -> None:
        self.highlighted.append(event.record_id)

    def on_virtual_table_record_selected(self, event: VirtualTable.RecordSelected) -> None:
        self.selected.append(event.record_id)

    def on_virtual_table_view_record(self, event: VirtualTable.ViewRecord) -> None:
        self.viewed.append(event.fields)


SIZE = (80, 12)  # a header and 11 rows


def shown_ids(table: FillTable) -> list[str]:
    """The fill ids on the painted lines, top to bottom."""
    return [table.lines[y].split()[0] for y in sorted(table.lines) if y and table.lines[y].strip()]
