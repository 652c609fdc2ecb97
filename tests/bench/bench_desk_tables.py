"""Benchmark of a poll reaching the Trades blotter, against Textual's DataTable (on demand only).

Run either way:

    python tests/bench/bench_desk_tables.py
    python -m pytest tests/bench/bench_desk_tables.py -s

What a trader's desk does all day is receive the same trades snapshot again, with a few trades
new or changed. Measured here is the desk's whole path for one poll of 10,000 trades: the book
files the snapshot (`DeskBook.apply`: the models become light `TradeLeg`s, the unchanged ones
reused) and the blotter merges the legs by trade id into its `VirtualTable`, until the new trade
is painted on the top line. The baselines, measured in the same run on the same app, are
Textual's own `DataTable` holding the same cells (the blotter's `TableColumn`s, formatted up
front as a DataTable needs), newest first:

- cleared and refilled from the snapshot (a DataTable cannot insert a row at the top);
- keyed: the changed trade's status cell updated, the new trade added, the rows sorted newest
  first again (the best a DataTable can do for a new trade on top).

Each figure is the median of a few polls; frames are forced (the screen's update run directly)
rather than waiting for the 60 Hz refresh timer, so the figures are work, not timer latency.
Also measured: parsing a 10,000-trade page into models (what every poll of the blotter pays),
against ``json.loads`` of the same bytes.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from rich.text import Text  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import ContentSwitcher  # noqa: E402

from tests.bench.blotter_tables import Watch, WatchedDataTable, until_painted  # noqa: E402
from tests.desk.kit.venue import booked_trades  # noqa: E402
from tui.api.models import Page, Trade  # noqa: E402
from tui.desk.book import DeskBook  # noqa: E402
from tui.desk.messages import TradesUpdated  # noqa: E402
from tui.desk.themes import DESK_VARIABLES  # noqa: E402
from tui.desk.trade_legs import TradeLeg, TradeLegs  # noqa: E402
from tui.desk.widgets.blotter import Blotter, blotter_columns  # noqa: E402
from tui.desk.widgets.common.columns import Cell  # noqa: E402

ROWS = 10_000
POLLS = 5
"""Polls measured per figure (the median is printed)."""
REJECTED = "rejected_failed_risk_checks"
REFILL = "DataTable, cleared and refilled"
KEYED = "DataTable, keyed: 1 cell + 1 row + sort"


def day_of_trades(count: int = ROWS, start: int = 0) -> list[Trade]:
    """``count`` booked BTC perpetual trades, one a second (the desk tests' own day)."""
    return booked_trades(count, start)


class _BenchApp(App[None]):
    """The blotter and a DataTable of the same cells, one shown at a time."""

    def __init__(self) -> None:
        super().__init__()
        self.book = DeskBook()

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **DESK_VARIABLES}

    def compose(self) -> ComposeResult:
        with ContentSwitcher(initial="blotter"):
            yield Blotter(self.book, id="blotter")
            yield WatchedDataTable(cursor_type="row", zebra_stripes=True, id="datatable")

    def show(self, name: str) -> None:
        self.query_one(ContentSwitcher).current = name


class _Polls:
    """The snapshots of a day of polls: the day, then each poll one trade newer and one
    (older, off screen) trade changed, the unchanged trades the same model objects (as the
    feed hands them)."""

    def __init__(self) -> None:
        self.day = day_of_trades()
        self._next = ROWS

    def next_poll(self) -> list[Trade]:
        """The next snapshot: one new trade on top, one changed deep down."""
        new = day_of_trades(1, self._next)[0]
        self._next += 1
        changed = self.day[len(self.day) // 2]
        status = REJECTED if changed.status != REJECTED else "success_trades_booked_into_pool"
        self.day[len(self.day) // 2] = changed.model_copy(update={"status": status})
        self.day.append(new)
        return list(self.day)


def _top_line(trade: Trade) -> tuple[str, ...]:
    """What the top line shows of the newest trade (its time and short id)."""
    return (trade.created_at.strftime("%H:%M:%S"), trade.id[:8])


def _row_cells(app: _BenchApp, legs: list[TradeLeg]) -> list[tuple[str, tuple[Cell, ...]]]:
    columns = blotter_columns(app, app.book)
    return [(leg.id, tuple(c.format(c.value(leg)) for c in columns)) for leg in legs]


async def _median(polls: int, one_poll: Callable[[], Any]) -> float:
    """The median seconds of ``polls`` runs of ``one_poll`` (a coroutine function)."""
    times = []
    for _ in range(polls):
        started = time.perf_counter()
        await one_poll()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


async def measure_blotter(app: _BenchApp) -> dict[str, float]:
    """The desk's path, until painted: the book files the poll, the blotter merges it."""
    polls = _Polls()
    blotter = app.query_one(Blotter)
    table = blotter.table
    lookout = Watch()
    painted = table.render_line
    table.render_line = lambda y: lookout.saw(painted(y))  # type: ignore[method-assign]

    def file(trades: list[Trade]) -> None:
        app.book.apply(TradesUpdated(at=datetime.now(UTC), trades=trades))
        blotter.show_trades(app.book.trade_legs)

    file(polls.day)
    await until_painted(app, lookout, _top_line(polls.day[-1]), None)

    async def same_again() -> None:
        file(list(polls.day))
        await asyncio.sleep(0)
        app.screen._on_timer_update()

    async def one_new_one_changed() -> None:
        trades = polls.next_poll()
        file(trades)
        await until_painted(app, lookout, _top_line(trades[-1]), None)

    return {
        "blotter, the same snapshot again": await _median(POLLS, same_again),
        "blotter, 1 new + 1 changed": await _median(POLLS, one_new_one_changed),
    }


async def measure_datatable(app: _BenchApp) -> dict[str, float]:
    """Textual's DataTable with the same cells: refilled, and kept by key."""
    app.show("datatable")
    table = app.query_one(WatchedDataTable)
    for column in blotter_columns(app, app.book):
        label = Text(column.label, justify="right" if column.numeric else "left")
        table.add_column(label, width=column.width, key=column.key)
    legs = TradeLegs()
    polls = _Polls()

    async def refill() -> None:
        trades = polls.next_poll()
        table.clear()
        for key, cells in reversed(_row_cells(app, legs.legs(trades))):
            table.add_row(*cells, key=key)
        await until_painted(app, table.lookout, _top_line(trades[-1]), None)

    figures = {REFILL: await _median(POLLS, refill)}
    status = next(c for c in blotter_columns(app, app.book) if c.key == "status")

    async def keyed() -> None:
        before = legs.legs(list(polls.day))
        after = legs.legs(polls.next_poll())
        for old, leg in zip(before, after, strict=False):
            if old.status != leg.status:
                table.update_cell(leg.id, "status", status.format(leg.status))
        key, cells = _row_cells(app, after[-1:])[0]
        table.add_row(*cells, key=key)
        table.sort("when", key=lambda when: when, reverse=True)
        await until_painted(app, table.lookout, _top_line(polls.day[-1]), None)

    figures[KEYED] = await _median(POLLS, keyed)
    return figures


async def measure_tables() -> dict[str, float]:
    """Seconds per poll of 10,000 trades, until painted: the blotter and both baselines."""
    app = _BenchApp()
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        figures = await measure_blotter(app)
        figures.update(await measure_datatable(app))
    return figures


def measure_parsing() -> dict[str, float]:
    """Seconds to parse one 10,000-trade page (the median of a few): json.loads alone, then
    into models."""
    body = json.dumps(
        {
            "result": [t.model_dump(mode="json") for t in day_of_trades()],
            "pagination": {"next_page": None},
        }
    ).encode()
    Page[Trade].model_validate_json(b'{"result": []}')  # build the schema first
    raw, typed = [], []
    for _ in range(POLLS):
        started = time.perf_counter()
        json.loads(body)
        raw.append(time.perf_counter() - started)
        started = time.perf_counter()
        Page[Trade].model_validate_json(body)
        typed.append(time.perf_counter() - started)
    return {
        "json.loads of the page": statistics.median(raw),
        "page parsed into Trade models": statistics.median(typed),
    }


def report(figures: dict[str, float], baselines: list[str]) -> str:
    """One line per figure: milliseconds and the ratio to each baseline."""
    lines = []
    for name, seconds in figures.items():
        ratios = "  ".join(f"x{seconds / figures[base]:7.4f}" for base in baselines)
        lines.append(f"{name:<40} {seconds * 1000:9.2f} ms   {ratios}")
    return "\n".join(lines)


def run() -> str:
    """Both measurements, printed against their baselines."""
    tables = asyncio.run(measure_tables())
    parsing = measure_parsing()
    return (
        f"one poll of {ROWS:,} trades until painted (ratios: vs {REFILL}; vs {KEYED})\n"
        + report(tables, [REFILL, KEYED])
        + f"\n\nparsing a page of {ROWS:,} trades (ratio: vs json.loads)\n"
        + report(parsing, ["json.loads of the page"])
    )


def test_bench_desk_tables() -> None:
    """Pytest entry point: prints the figures (use -s to see them)."""
    print("\n" + run())


if __name__ == "__main__":
    print(run())
