"""Benchmark of the desk's trade blotter at 10,000 trades (on demand only).

Run either way:

    python tests/bench/bench_desk_tables.py
    python -m pytest tests/bench/bench_desk_tables.py -s

What a trader's desk does all day is receive the same trades snapshot again, with a few rows
new or changed. The blotter merges it by trade id into a `VirtualTable`: unchanged trades are
not formatted again and only the lines on screen are drawn. The baseline, measured in
the same run, is the naive way: a plain `DataTable` cleared and refilled from the snapshot on
every poll. Figures print as ratios to that baseline.

Also measured: parsing a 10,000-trade page into models (what every poll of the blotter pays),
against ``json.loads`` of the same bytes.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import DataTable  # noqa: E402

from tests.desk.kit.venue import booked_trades  # noqa: E402
from tui.api.models import Page, Trade  # noqa: E402
from tui.desk.book import DeskBook  # noqa: E402
from tui.desk.themes import DESK_VARIABLES  # noqa: E402
from tui.desk.widgets.blotter import Blotter  # noqa: E402

ROWS = 10_000


def day_of_trades(count: int = ROWS) -> list[Trade]:
    """``count`` booked BTC perpetual trades, one a second (the desk tests' own day)."""
    return booked_trades(count)


class _BenchApp(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **DESK_VARIABLES}

    def compose(self) -> ComposeResult:
        yield Blotter(DeskBook(), id="blotter")
        yield DataTable(id="naive")


def _naive_refill(table: DataTable[Any], trades: list[Trade]) -> None:
    """The baseline: clear the table and add every row again, widths measured per cell."""
    table.clear()
    for trade in trades:
        table.add_row(
            trade.created_at.strftime("%H:%M:%S"),
            trade.id,
            str(trade.side),
            "BTC-PERP",
            format(trade.qty, "f"),
            format(trade.price, ",f"),
            str(trade.status),
            key=trade.id,
        )


async def measure_tables() -> dict[str, float]:
    """Seconds per poll for the naive refill and the blotter's merge, on 10,000 trades."""
    day = day_of_trades()
    changed = [*day, *day_of_trades(1)]
    changed[-1] = changed[-1].model_copy(update={"id": "t-new"})
    changed[5000] = changed[5000].model_copy(update={"status": "rejected_failed_risk_checks"})
    app = _BenchApp()
    figures: dict[str, float] = {}
    async with app.run_test(size=(140, 45)) as pilot:
        naive: DataTable[Any] = app.query_one("#naive", DataTable)
        naive.add_columns("time", "trade", "side", "instrument", "qty", "price", "status")
        started = time.perf_counter()
        for _ in range(3):
            _naive_refill(naive, day)
            await pilot.pause()
        figures["naive refill per poll"] = (time.perf_counter() - started) / 3

        blotter = app.query_one(Blotter)
        blotter.show_trades(day)
        await pilot.pause()
        started = time.perf_counter()
        for _ in range(3):
            blotter.show_trades(day)
            await pilot.pause()
        figures["blotter merge, nothing changed"] = (time.perf_counter() - started) / 3
        started = time.perf_counter()
        blotter.show_trades(changed)
        await pilot.pause()
        figures["blotter merge, 1 new + 1 changed"] = time.perf_counter() - started
    return figures


def measure_parsing() -> dict[str, float]:
    """Seconds to parse one 10,000-trade page: json.loads alone, then into models."""
    body = json.dumps(
        {
            "result": [t.model_dump(mode="json") for t in day_of_trades()],
            "pagination": {"next_page": None},
        }
    ).encode()
    Page[Trade].model_validate_json(b'{"result": []}')  # build the schema first
    started = time.perf_counter()
    json.loads(body)
    raw = time.perf_counter() - started
    started = time.perf_counter()
    Page[Trade].model_validate_json(body)
    return {
        "json.loads of the page": raw,
        "page parsed into Trade models": time.perf_counter() - started,
    }


def report(figures: dict[str, float], baseline: str) -> str:
    """One line per figure: milliseconds and the ratio to ``baseline``."""
    base = figures[baseline]
    return "\n".join(
        f"{name:<36} {seconds * 1000:9.1f} ms   x{seconds / base:6.3f} of baseline"
        for name, seconds in figures.items()
    )


def run() -> str:
    """Both measurements, printed against their baselines."""
    tables = asyncio.run(measure_tables())
    parsing = measure_parsing()
    return (
        f"blotter with {ROWS:,} trades (baseline: naive refill per poll)\n"
        + report(tables, "naive refill per poll")
        + f"\n\nparsing a page of {ROWS:,} trades (baseline: json.loads)\n"
        + report(parsing, "json.loads of the page")
    )


def test_bench_desk_tables() -> None:
    """Pytest entry point: prints the figures (use -s to see them)."""
    print("\n" + run())


if __name__ == "__main__":
    print(run())
