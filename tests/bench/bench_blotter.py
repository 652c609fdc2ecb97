"""Benchmark of the virtual table (issue 11) against Textual's DataTable, up to 100,000 trades.

Run on demand either way (the 100,000-row DataTable baseline alone takes about a minute):

    python tests/bench/bench_blotter.py
    python -m pytest tests/bench/bench_blotter.py -s

Both tables get the blotter's twelve columns (`blotter_columns`, the blotter's own
`TableColumn`s) with the same cells: the `VirtualTable` is handed the trades and
formats the rows on screen only; the baseline, Textual's own `DataTable`, needs every cell of
every trade up front (as the blotter did before issue 11), added in display order, newest first,
each row keyed by trade id. Measured, in the same run:

(a) load 10,000 and 100,000 trades until the End key shows the oldest (every row reachable):
    from handing the trades over until a painted line of the table holds the oldest trade
    (each kind in fresh apps, after one app of 100 trades that warms the process up);
(b) 100 trades changing status on 100,000, until painted (median of 15 rounds): the newest 100
    (every line on screen changes) and 100 spread over the day (one on screen); the virtual
    table's delta (`upsert`) and whole-snapshot merge (`merge`), the DataTable's `update_cell`;
(c) peak RSS with 100,000 trades, each table in its own process (VmHWM of /proc/self/status),
    and the table's share: that peak minus the process's peak before the table got the trades.
    The trades come as the desk holds them: pages of 10,000 `Trade` models (the feed's page
    size, ids shaped like the venue's UUIDs) each turned into light `TradeLeg`s as it comes
    (`tui.desk.trade_legs`; 100,000 models held at once weigh about 240 MB), for both tables.

Frames are forced (the screen's update is run directly after each step) rather than waiting
for the 60 Hz refresh timer, so the figures are work, not timer latency, for both tables.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from textual.widget import Widget  # noqa: E402

from tests.bench.blotter_tables import (  # noqa: E402
    BenchApp,
    WatchedDataTable,
    WatchedVirtualTable,
    datatable_rows,
    until_painted,
)
from tests.bench.blotter_trades import PENDING, day_of_trades  # noqa: E402
from tui.desk.trade_legs import TradeLeg  # noqa: E402
from tui.desk.widgets.common import fmt  # noqa: E402

SIZES = (10_000, 100_000)
WARM_UP = 100
BOOKED = "success_trades_booked_into_pool"
REJECTED = "rejected_failed_risk_checks"
CHANGED = 100
ROUNDS = 15
"""Rounds of each change measured (the median is printed): a few milliseconds each, so enough
of them that one garbage collection or a neighbour's burst does not move the figure."""
TARGETS = {
    "load 10,000": 0.050,
    "load 100,000": 0.300,
    "100 changed rows": 0.005,
}
"""Issue 11's targets, in seconds."""
RSS_TARGET_MB = 150


async def _load(app: BenchApp, trades: list[TradeLeg]) -> float:
    """Seconds from handing ``trades`` over until End shows the oldest."""
    table = app.query_one("#table")
    oldest = (fmt.clock_time(trades[0].created_at) + "  " + trades[0].id[:8],)
    started = time.perf_counter()
    if isinstance(table, WatchedVirtualTable):
        table.merge(trades)
        await until_painted(app, table.lookout, oldest, "end")
    else:
        assert isinstance(table, WatchedDataTable)
        for key, cells in datatable_rows(app, trades):
            table.add_row(*cells, key=key)
        await until_painted(app, table.lookout, oldest, "ctrl+end")  # DataTable's bottom key
    return time.perf_counter() - started


async def measure_loads(kind: str, trades: list[TradeLeg]) -> dict[str, float]:
    """Load times for each size, one fresh app per size, after a first app that loads a
    screenful (the process's first table pays Textual's own first-use work, its style and
    colour caches, some 100 ms that a desk pays once at start-up: not counted, either kind)."""
    figures = {}
    for size in (WARM_UP, *SIZES):
        app = BenchApp(kind)
        async with app.run_test(size=(140, 45)) as pilot:
            await pilot.pause()
            figures[f"load {size:,}"] = await _load(app, trades[:size])
    del figures[f"load {WARM_UP:,}"]
    return figures


async def measure_changes(kind: str, trades: list[TradeLeg]) -> dict[str, float]:
    """Seconds to apply 100 trades changing status on 100,000, until painted (the median of
    a few rounds, the status going back and forth): the newest 100 (every line on screen
    changes) and 100 spread over the day (one of them on screen)."""
    newest = trades[-CHANGED:]
    spread = trades[-20 :: -(len(trades) // CHANGED)][:CHANGED]  # the first on screen
    figures: dict[str, float] = {}
    app = BenchApp(kind)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        await _load(app, trades)
        await pilot.press("home" if kind == "virtual" else "ctrl+home")
        await pilot.pause()
        table = app.query_one("#table")
        current = {trade.id: trade for trade in trades}
        cases = [
            ("100 changed rows, all on screen", newest, BOOKED),
            ("100 changed rows, spread", spread, REJECTED),
        ]
        if isinstance(table, WatchedVirtualTable):
            cases.append(("100 changed rows, in a whole snapshot", newest, PENDING))
        for name, chosen, first in cases:
            rounds, applied = [], []
            other = BOOKED if first != BOOKED else REJECTED
            for status in [first, other] * (ROUNDS // 2) + [first]:
                changed = [trade.replaced(status=status) for trade in chosen]
                current.update((trade.id, trade) for trade in changed)
                top = max(chosen, key=lambda trade: trade.created_at)  # the one on screen
                watched = (top.id[:8], _status_word(status))
                snapshot = [*current.values()] if "snapshot" in name else []
                started = time.perf_counter()
                _apply(app, table, changed, snapshot)
                applied.append(time.perf_counter() - started)
                await until_painted(app, table.lookout, watched, None)  # type: ignore[attr-defined]
                rounds.append(time.perf_counter() - started)
                await pilot.pause()
            figures[name] = statistics.median(rounds)
            figures[name + " (apply only)"] = statistics.median(applied)
    return figures


def _status_word(status: str) -> str:
    return {BOOKED: "booked", REJECTED: "rejected"}.get(status, status[:8])


def _apply(app: BenchApp, table: Widget, changed: list[TradeLeg], snapshot: list[TradeLeg]) -> None:
    """Hand the changes to the table, its own way (the whole snapshot when given)."""
    if isinstance(table, WatchedVirtualTable):
        if snapshot:
            table.merge(snapshot)
        else:
            table.upsert(changed)
        return
    assert isinstance(table, WatchedDataTable)
    column = next(c for c in app.columns if c.key == "status")
    for trade in changed:
        table.update_cell(
            trade.id, "status", column.format(column.value(trade)), update_width=False
        )


# -- peak memory, one process per table ------------------------------------------------------


def _vm(field: str) -> int:
    """A ``/proc/self/status`` figure, in kB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


async def _rss_child(kind: str, count: int) -> dict[str, int]:
    trades = day_of_trades(count)
    app = BenchApp(kind)
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        before = _vm("VmHWM")
        await _load(app, trades)
        await pilot.pause()
        return {"before": before, "peak": _vm("VmHWM")}


def peak_rss(kind: str, count: int) -> dict[str, int]:
    """Peak RSS (kB) of a process showing ``count`` trades in a ``kind`` table, and its peak
    before the table got them."""
    done = subprocess.run(  # noqa: S603 -- our own script, our own interpreter
        [sys.executable, __file__, "--rss", kind, str(count)],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    figures: dict[str, int] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


# -- the report ------------------------------------------------------------------------------


def _line(name: str, mine: float, base: float | None, target: float | None) -> str:
    text = f"{name:<52} {mine * 1000:9.1f} ms"
    if base is not None:
        text += f"  DataTable {base * 1000:9.1f} ms  x{mine / base:.4f}"
    if target is not None:
        text += f"  target {target * 1000:3.0f} ms: x{mine / target:.2f}"
    return text


def _target(name: str) -> float | None:
    if "apply only" in name or "snapshot" in name:
        return None
    return next((seconds for key, seconds in TARGETS.items() if name.startswith(key)), None)


def _memory_lines(memory: dict[str, dict[str, int]]) -> list[str]:
    lines = []
    for kind, kb in memory.items():
        peak, before = kb["peak"] / 1024, kb["before"] / 1024
        lines.append(
            f"{kind:<10} peak {peak:7.1f} MB   before the table {before:7.1f} MB"
            f"   the table's share {peak - before:7.1f} MB"
        )
    mine, base = memory["virtual"], memory["datatable"]
    share = (mine["peak"] - mine["before"]) / 1024
    base_share = max(1.0, (base["peak"] - base["before"]) / 1024)
    lines.append(
        f"virtual vs DataTable: peak x{mine['peak'] / base['peak']:.3f},"
        f" table's share x{share / base_share:.3f}"
    )
    lines.append(
        f"against the {RSS_TARGET_MB} MB target: peak x{mine['peak'] / 1024 / RSS_TARGET_MB:.2f},"
        f" table's share x{share / RSS_TARGET_MB:.2f}"
    )
    return lines


def run() -> str:
    """Every measurement, printed against the DataTable baseline and the targets."""
    trades = day_of_trades(max(SIZES))
    lines = ["(a) load until End shows the oldest trade"]
    mine = asyncio.run(measure_loads("virtual", trades))
    base = asyncio.run(measure_loads("datatable", trades))
    lines += [_line(name, mine[name], base[name], _target(name)) for name in mine]
    lines.append(f"\n(b) {CHANGED} trades change status on {len(trades):,}, until painted")
    mine = asyncio.run(measure_changes("virtual", trades))
    base = asyncio.run(measure_changes("datatable", trades))
    lines += [_line(name, mine[name], base.get(name), _target(name)) for name in mine]
    lines.append(f"\n(c) peak RSS with {len(trades):,} trades, one process per table")
    lines += _memory_lines({kind: peak_rss(kind, len(trades)) for kind in ("virtual", "datatable")})
    return "\n".join(lines)


def test_bench_blotter() -> None:
    """Pytest entry point: prints the figures (use -s to see them)."""
    print("\n" + run())


if __name__ == "__main__":
    if sys.argv[1:2] == ["--rss"]:
        print(json.dumps(asyncio.run(_rss_child(sys.argv[2], int(sys.argv[3])))))
    else:
        print(run())
