"""Benchmark of the desk in a terminal, against a bare Textual app (issue 11; on demand only).

Run either way (about 5 minutes; ``RFQ_BENCH_IDLE_S=10`` shortens the two idle windows):

    python tests/bench/bench_desk_pty.py [paint] [idle] [keys]
    python -m pytest tests/bench/bench_desk_pty.py -s

Everything is measured from outside, the way a trader's terminal sees it: each program runs in
a 140x45 pty of its own (`tests.bench.pty_harness`), with its own XDG folders and bytecode
caching on (into a temporary ``PYTHONPYCACHEPREFIX``; each program is run once first, not
counted). Each figure prints with its ratio to the baseline run in the same session, medians
of ``RFQ_BENCH_RUNS`` runs (default 5). The baseline is a bare Textual app: a Header, an empty
DataTable and a Footer (`BARE_APP`).

- ``paint``: process start to the first full frame (the footer's ``^p palette``, the last
  thing a frame writes) and to the first data (the header's ``In pools 1,234.00``), for the
  desk attached to a sandbox already running on its data folder (`Sandbox`, started by the
  bench with ``--port 0 --db ... --credentials ...`` where the desk looks: the desk attaches
  when the credentials file names a sandbox that answers; each attached run starts a budget
  window after the last one closed, since the venue counts the company's tokens per window),
  and for a fresh data folder (the desk starts its own sandbox, which seeds a new database and
  its day of history). Both data figures are ratios to the bare app's *paint*.
- ``idle``: CPU (utime+stime of the desk's own process, ``/proc/<pid>/stat``; a sandbox is a
  process of its own and not counted) and bytes written to the terminal per second, over
  ``RFQ_BENCH_IDLE_S`` seconds (default 60) of no keys, after the first data and
  `SETTLE_S` more; the desk on a live sandbox (simulated market on), the bare app as is;
  ``RFQ_BENCH_IDLE_RUNS`` times (default 1), bare app and desk in turn, medians reported.
- ``keys``: ``down`` in the RFQ inbox with 1,000 RFQs, from writing the key to the last byte
  of output before `KEY_QUIET_S` of silence (each press after `KEY_SETTLE_S` of silence),
  median of ``RFQ_BENCH_KEYS`` presses (default 30); the baseline is the bare app with a
  1,000-row DataTable. The RFQs are seeded over HTTP (`seed_inbox`) by the other seeded
  companies, addressed to DESK, on a quiet sandbox (``--no-actors --no-history``, the token
  budget raised for the seeding; the desk's own client keeps its 100-token budget):
  the newest ``RFQ_BENCH_OPEN_RFQS`` of them (default all 1,000) open for 59 minutes (the
  venue allows an hour at most), the older rest already expired (created to expire in 3 s;
  the bench waits until they have). An open RFQ's countdown ticks every second, so the
  default is the busiest inbox; ``RFQ_BENCH_OPEN_RFQS=20`` is a long day's inbox.

To see where the desk's time goes, profile it in the same setup: ``pip install py-spy`` into
the venv (not a project dependency), hold a scenario where it stands (a ``time.sleep`` after
its ``wait_for``) and record the desk's pid (`PtySession.pid`), e.g. ``py-spy record --pid PID
--duration 45 --rate 200 --nonblocking --format raw -o idle.txt`` (collapsed stacks); for the
first paint, start ``py-spy record --format raw -o paint.txt -- python -m tui`` as the program
in the pty and send ``ctrl+q`` as soon as `PAINT` is seen.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.bench.pty_harness import PtySession, terminal_environment  # noqa: E402
from tui.api.budget import TokenBudget  # noqa: E402
from tui.api.client import ServiceClient  # noqa: E402
from tui.api.endpoints import BUDGET_WINDOW_S  # noqa: E402
from tui.api.models import NewRfqRequest, PerpetualFutureInstrument, Structure  # noqa: E402
from tui.paths import APP_NAME, sandbox_credentials_path, sandbox_db_path  # noqa: E402

PAINT = re.compile(r"\^p palette")
"""The first full frame: the footer's command-palette key, the last text a frame writes."""
FIRST_DATA = re.compile(r"In pools\s*[-+]?[\d,]+\.\d")
"""The first data: the header's "In pools" figure with a number."""
READY = re.compile(r"sandbox ready at (http://\S+)")
SETTLE_S = 5.0
"""After the first data, before an idle window starts (the first polls are still landing)."""
KEY_SETTLE_S = 0.2
KEY_QUIET_S = 0.1
INBOX_RFQS = 1000
BENCH_TOKEN_BUDGET = 1_000_000_000
TIMEOUT_S = 90.0

TARGETS = {
    "first paint, sandbox running": 1.3,
    "first data, sandbox running": 2.0,
    "first data, fresh data dir": 3.0,
    "idle CPU": 0.5,
    "down arrow, 1,000 RFQs": 1.5,
}
"""Issue 11's targets: a ratio to the baseline, except idle CPU (% of a core, absolute)."""

BARE_APP = textwrap.dedent(
    """
    import sys
    from textual.app import App
    from textual.widgets import DataTable, Footer, Header

    class Bare(App):
        def compose(self):
            yield Header()
            yield DataTable(cursor_type="row")
            yield Footer()

        def on_mount(self):
            table = self.query_one(DataTable)
            rows = int(sys.argv[1]) if len(sys.argv) > 1 else 0
            if rows:
                table.add_columns("Time", "RFQ", "Taker", "Structure", "Qty", "Status", "Bid")
                for n in range(rows):
                    table.add_row(f"12:{n // 60 % 60:02}:{n % 60:02}", f"{n:08x}", "ALPHA",
                                  "B BTC-PERP", f"{n + 1}.5", "open", f"{98_000 + n:,}.00")
            table.focus()

    Bare().run()
    """
)


# -- the programs ---------------------------------------------------------------------------


@dataclass
class Bench:
    """One benchmark session's temporary folder and bytecode cache."""

    root: Path

    def home(self, name: str) -> Path:
        """A new folder for one program's XDG dirs (a fresh data dir, config, cache)."""
        folder = self.root / name
        folder.mkdir(parents=True, exist_ok=False)
        return folder

    def env(self, home: Path) -> dict[str, str]:
        """The environment of a program with ``home`` for its XDG dirs."""
        env = terminal_environment(home, self.root / "pycache")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
        return env

    def bare(self, home: Path, rows: int = 0) -> PtySession:
        """The baseline app in a pty (a DataTable of ``rows`` rows)."""
        return PtySession([sys.executable, "-c", BARE_APP, str(rows)], self.env(home), cwd=REPO)

    def desk(self, home: Path) -> PtySession:
        """``rfq-desk`` (the sandbox profile) in a pty."""
        return PtySession([sys.executable, "-m", "tui"], self.env(home), cwd=REPO)


def data_folder(home: Path) -> Path:
    """The desk's data folder under a program's XDG data home."""
    return home / "data" / APP_NAME


class Sandbox:
    """``rfq-desk sandbox`` serving the data folder of ``home``, where a desk will attach."""

    def __init__(self, bench: Bench, home: Path, *extra: str) -> None:
        db = sandbox_db_path(data_folder(home))
        db.parent.mkdir(parents=True, exist_ok=True)
        self.credentials = sandbox_credentials_path(db)
        command = [sys.executable, "-m", "tui", "sandbox", "--port", "0", "--db", str(db)]
        self.process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [*command, "--credentials", str(self.credentials), *extra],
            cwd=REPO,
            env=bench.env(home),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        found = READY.search(line)
        if found is None:
            self.stop()
            raise RuntimeError(f"the sandbox did not say it was ready: {line!r}")
        self.base_url = found.group(1)

    def stop(self) -> None:
        """Stop the sandbox (SIGTERM, then SIGKILL)."""
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


async def seed_inbox(credentials: dict[str, Any], count: int, open_count: int) -> str:
    """``count`` RFQs for BTC-PERP addressed to DESK by the other companies, round robin; the
    newest ``open_count`` open for 59 minutes, the older rest expiring 3 s after creation
    (this waits until they have). The short id of the newest RFQ, created last."""
    writers = [c for c in credentials["companies"] if c.get("role") == "writer"]
    desk_id = next(c["id"] for c in writers if c["short_name"] == "DESK")
    takers = [c for c in writers if c["short_name"] != "DESK"]
    clients = [
        ServiceClient(
            credentials["base_url"],
            c["api_key"],
            c["api_secret"],
            budget=TokenBudget(BENCH_TOKEN_BUDGET),
        )
        for c in takers
    ]
    leg = {"side": "buy", "ratio": 1, "instrument": PerpetualFutureInstrument(underlying="BTC")}
    structure = Structure.model_validate({"legs": [leg]})

    async def send(n: int) -> str:
        stays_open = n >= count - open_count
        lifetime = timedelta(minutes=59) if stays_open else timedelta(seconds=3)
        rfq = await clients[n % len(clients)].rfqs_new(
            NewRfqRequest(
                structure=structure,
                qty=f"{1 + n % 50}.5",
                expires_at=datetime.now(UTC) + lifetime,
                target_companies=[desk_id],
            )
        )
        return rfq.rfq_id

    try:
        for client in clients:
            await client.sync_clock()
        for start in range(0, count - 1, 8):  # 8 in flight, oldest first
            await asyncio.gather(*(send(n) for n in range(start, min(start + 8, count - 1))))
        newest = await send(count - 1)
        if open_count < count:
            await asyncio.sleep(4.0)  # the short-lived ones expire
    finally:
        for client in clients:
            await client.aclose()
    return newest[:8]


# -- the measurements -----------------------------------------------------------------------


Figures = dict[str, list[float]]


def measure_paint(bench: Bench, runs: int) -> Figures:
    """Seconds to the first frame and to the first data: bare app, desk attached, desk fresh."""
    figures: Figures = {
        "bare app: first paint": [],
        "first paint, sandbox running": [],
        "first data, sandbox running": [],
        "first paint, fresh data dir": [],
        "first data, fresh data dir": [],
    }
    attached_home = bench.home("paint-attached")
    attached_at = -BUDGET_WINDOW_S  # when the last attached desk closed
    with Sandbox(bench, attached_home):
        for run in range(runs + 1):  # the first of each warms the bytecode cache
            with bench.bare(bench.home(f"paint-bare-{run}")) as bare:
                paint = bare.wait_for(PAINT, TIMEOUT_S)
            # The venue counts DESK's tokens per window: a desk started again within the window
            # of the last one would wait for the tokens its predecessor spent.
            time.sleep(max(0.0, attached_at + BUDGET_WINDOW_S - time.perf_counter()))
            with bench.desk(attached_home) as desk:
                attached = desk.wait_for(PAINT, TIMEOUT_S), desk.wait_for(FIRST_DATA, TIMEOUT_S)
            attached_at = time.perf_counter()
            with bench.desk(bench.home(f"paint-fresh-{run}")) as desk:
                fresh = desk.wait_for(PAINT, TIMEOUT_S), desk.wait_for(FIRST_DATA, TIMEOUT_S)
            if run:
                for name, value in zip(figures, (paint, *attached, *fresh), strict=True):
                    figures[name].append(value)
    return figures


def _idle_window(session: PtySession, seconds: float) -> tuple[float, float, float]:
    """CPU % of a core, bytes per second written, and peak RSS in MB over ``seconds``."""
    cpu, start = session.cpu_seconds(), time.perf_counter()
    time.sleep(seconds)
    cpu_end, end = session.cpu_seconds(), time.perf_counter()
    written = session.bytes_between(start, end)
    elapsed = end - start
    return 100 * (cpu_end - cpu) / elapsed, written / elapsed, session.memory().peak_mb


def measure_idle(bench: Bench, seconds: float, runs: int = 1) -> Figures:
    """Idle CPU, bytes/s and peak RSS: the bare app, then the desk on a live sandbox, ``runs``
    times in turn (each desk on a sandbox of its own)."""
    figures: Figures = {}
    for run in range(runs):
        with bench.bare(bench.home(f"idle-bare-{run}")) as bare:
            bare.wait_for(PAINT, TIMEOUT_S)
            time.sleep(SETTLE_S)
            bare_figures = _idle_window(bare, seconds)
        home = bench.home(f"idle-desk-{run}")
        with Sandbox(bench, home), bench.desk(home) as desk:
            desk.wait_for(FIRST_DATA, TIMEOUT_S)
            time.sleep(SETTLE_S)
            desk_figures = _idle_window(desk, seconds)
        for name, value in zip(IDLE_FIGURES, (*bare_figures, *desk_figures), strict=True):
            figures.setdefault(name, []).append(value)
    return figures


IDLE_FIGURES = ("bare app: idle CPU", "bare app: bytes/s", "bare app: peak RSS MB")
IDLE_FIGURES += ("idle CPU", "desk: bytes/s", "desk: peak RSS MB")


def _presses(session: PtySession, count: int) -> list[float]:
    return [session.press("down", quiet_s=KEY_QUIET_S, settle_s=KEY_SETTLE_S) for _ in range(count)]


def measure_keys(bench: Bench, presses: int, open_rfqs: int) -> Figures:
    """Seconds from ``down`` to the end of its output: bare 1,000-row DataTable, desk inbox."""
    figures: Figures = {}
    for run in range(2):  # the first warms the bytecode cache
        with bench.bare(bench.home(f"keys-bare-{run}"), rows=INBOX_RFQS) as bare:
            bare.wait_for(PAINT, TIMEOUT_S)
            bare.wait_quiet(1.0)
            figures["bare app: down, 1,000 rows"] = _presses(bare, presses)
    home = bench.home("keys-desk")
    quiet = ("--no-actors", "--no-history", "--token-budget", str(BENCH_TOKEN_BUDGET))
    with Sandbox(bench, home, *quiet) as sandbox:
        credentials = json.loads(sandbox.credentials.read_text(encoding="utf-8"))
        newest = asyncio.run(seed_inbox(credentials, INBOX_RFQS, open_rfqs))
        with bench.desk(home) as desk:
            desk.wait_for(re.escape(newest), TIMEOUT_S)  # one page: all 1,000 came together
            desk.wait_for(FIRST_DATA, TIMEOUT_S)
            desk.wait_quiet(0.5)
            figures["down arrow, 1,000 RFQs"] = _presses(desk, presses)
    return figures


# -- the report -----------------------------------------------------------------------------

ROWS = (
    # row, figure, baseline figure, unit
    ("first paint, sandbox running", "bare app: first paint", "s"),
    ("first data, sandbox running", "bare app: first paint", "s"),
    ("first paint, fresh data dir", "bare app: first paint", "s"),
    ("first data, fresh data dir", "bare app: first paint", "s"),
    ("idle CPU", "bare app: idle CPU", "%"),
    ("desk: bytes/s", "bare app: bytes/s", "B/s"),
    ("desk: peak RSS MB", "bare app: peak RSS MB", "MB"),
    ("down arrow, 1,000 RFQs", "bare app: down, 1,000 rows", "ms"),
)


def _shown(value: float, unit: str) -> str:
    if unit == "s":
        return f"{value:.3f} s"
    if unit == "ms":
        return f"{value * 1000:.1f} ms"
    if unit == "%":
        return f"{value:.2f} %"
    return f"{value:,.0f} {unit}"


def report(figures: Figures) -> str:
    """The issue's table: each figure, its baseline, the ratio and the target (medians)."""
    lines = [f"{'what':<32} {'desk':>12} {'baseline':>12} {'ratio':>8}   target"]
    for name, base_name, unit in ROWS:
        if name not in figures:
            continue
        value = statistics.median(figures[name])
        base = statistics.median(figures[base_name])
        ratio = f"x{value / base:.1f}" if base else "n/a"
        target = TARGETS.get(name)
        wanted = "" if target is None else f"<= {target:g} %" if unit == "%" else f"<= x{target:g}"
        lines.append(
            f"{name:<32} {_shown(value, unit):>12} {_shown(base, unit):>12} {ratio:>8}   {wanted}"
        )
    lines.append("")
    for name, values in figures.items():
        unit = next((u for n, b, u in ROWS if name in (n, b)), "")
        shown = " ".join(_shown(v, unit) for v in values)
        lines.append(f"  {name}: {shown}")
    return "\n".join(lines)


def run(parts: set[str]) -> str:
    """The chosen parts (paint, idle, keys), measured and reported."""
    figures: Figures = {}
    with tempfile.TemporaryDirectory(prefix="rfq-bench-") as tmp:
        bench = Bench(Path(tmp))
        if "paint" in parts:
            figures.update(measure_paint(bench, int(os.environ.get("RFQ_BENCH_RUNS", "5"))))
        if "idle" in parts:
            seconds = float(os.environ.get("RFQ_BENCH_IDLE_S", "60"))
            runs = int(os.environ.get("RFQ_BENCH_IDLE_RUNS", "1"))
            figures.update(measure_idle(bench, seconds, runs))
        if "keys" in parts:
            presses = int(os.environ.get("RFQ_BENCH_KEYS", "30"))
            open_rfqs = int(os.environ.get("RFQ_BENCH_OPEN_RFQS", str(INBOX_RFQS)))
            figures.update(measure_keys(bench, presses, open_rfqs))
    return report(figures)


@pytest.mark.bench
@pytest.mark.parametrize("part", ["paint", "idle", "keys"])
def test_bench_desk_pty(part: str) -> None:
    """The benchmark as pytest runs, one part each (prints with ``-s``; no timed assertion)."""
    print()
    print(run({part}))


if __name__ == "__main__":
    chosen = set(sys.argv[1:]) or {"paint", "idle", "keys"}
    print(run(chosen))
