"""The two tables of `bench_blotter`, watched for what they paint, in a small bench app.

`WatchedVirtualTable` (the desk's `VirtualTable`) and `WatchedDataTable` (Textual's own, the
baseline) each note through their `Watch` when a painted line holds the texts waited for;
`BenchApp` shows one of them with the blotter's twelve columns; `until_painted` forces frames
(the screen's update run directly, not the 60 Hz timer) until the watched texts are painted.
"""

from __future__ import annotations

import asyncio
import time
from operator import attrgetter
from typing import Any

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable

from tui.desk.book import DeskBook
from tui.desk.themes import DESK_VARIABLES
from tui.desk.trade_legs import TradeLeg
from tui.desk.widgets.blotter import blotter_columns
from tui.desk.widgets.common.columns import Cell, TableColumn
from tui.desk.widgets.common.virtual_table import VirtualTable

GIVE_UP_S = 600
"""A table that has not painted what it was asked for by then never will (a bench bug)."""


class Watch:
    """What a table is waiting to paint (texts on one line), and whether it did."""

    def __init__(self) -> None:
        self.texts: tuple[str, ...] = ()
        self.seen = False

    def saw(self, strip: Strip) -> Strip:
        if self.texts and not self.seen:
            line = strip.text
            self.seen = all(text in line for text in self.texts)
        return strip


class WatchedVirtualTable(VirtualTable[TradeLeg]):
    """The virtual table, noting when a painted line holds the watched text."""

    lookout = Watch()

    def render_line(self, y: int) -> Strip:
        return self.lookout.saw(super().render_line(y))


class WatchedDataTable(DataTable[Cell]):
    """Textual's DataTable, noting when a painted line holds the watched text."""

    lookout = Watch()

    def render_line(self, y: int) -> Strip:
        return self.lookout.saw(super().render_line(y))


class BenchApp(App[None]):
    """One table of ``kind`` (``virtual`` or ``datatable``) with the blotter's columns, in the
    desk's theme, filling the screen."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.book = DeskBook()

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **DESK_VARIABLES}

    def compose(self) -> ComposeResult:
        columns = blotter_columns(self, self.book)
        table: Widget
        if self.kind == "virtual":
            table = WatchedVirtualTable(
                columns,
                key=attrgetter("id"),
                version=attrgetter("status"),
                sort="when",
                descending=True,
                id="table",
            )
        else:
            table = WatchedDataTable(cursor_type="row", zebra_stripes=True, id="table")
            for column in columns:
                label = Text(column.label, justify="right" if column.numeric else "left")
                table.add_column(label, width=column.width, key=column.key)
        table.styles.height = "1fr"
        yield table

    def on_mount(self) -> None:
        self.query_one("#table").focus()

    @property
    def columns(self) -> list[TableColumn[TradeLeg]]:
        return blotter_columns(self, self.book)


async def until_painted(
    app: App[Any], lookout: Watch, texts: tuple[str, ...], key: str | None
) -> None:
    """Press ``key`` (again now and then, for a table still taking its rows in) and force
    frames until a painted line holds all of ``texts``."""
    lookout.texts, lookout.seen = texts, False
    pressed, started = 0.0, time.perf_counter()
    while not lookout.seen:
        if time.perf_counter() - started > GIVE_UP_S:
            raise TimeoutError(f"{texts} never painted")
        if key is not None and time.perf_counter() - pressed > 0.25:
            app.post_message(events.Key(key, None))
            pressed = time.perf_counter()
        await asyncio.sleep(0)
        app.screen._on_timer_update()  # a frame now, not at the next 60 Hz tick


def datatable_rows(app: BenchApp, trades: list[TradeLeg]) -> list[tuple[str, tuple[Cell, ...]]]:
    """Every cell of every trade, newest first, keyed by trade id: what the DataTable needs."""
    columns = app.columns
    return [(t.id, tuple(c.format(c.value(t)) for c in columns)) for t in reversed(trades)]
