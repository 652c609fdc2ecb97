"""Benchmark of the keys in the RFQ inbox with 1,000 RFQs, in a pty (issue 11; on demand only).

Run either way (about 2 minutes):

    python tests/bench/bench_inbox_keys.py [down up pagedown]
    python -m pytest tests/bench/bench_inbox_keys.py -s

The setup is `tests.bench.bench_desk_pty`'s (this file only adds keys and reports them; that
bench belongs to the start-up and idle work): a quiet sandbox seeded over HTTP with 1,000
RFQs addressed to DESK (``RFQ_BENCH_OPEN_RFQS`` of them open, default all: every countdown
ticks), the desk attached in a 140x45 pty. Each figure is the median of ``RFQ_BENCH_KEYS``
presses (default 30) from writing the key to the last byte of output before 0.1 s of silence,
as a ratio to the same key in the bare app (a Header, a 1,000-row DataTable, a Footer) running
alongside in a pty of its own: the two take turns, a press each, so a load that comes and goes
on the machine (other work runs on it) weighs on both alike. Issue 11's target: ``down`` at
most x1.5 the bare app.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.bench.bench_desk_pty import (  # noqa: E402
    BENCH_TOKEN_BUDGET,
    FIRST_DATA,
    INBOX_RFQS,
    KEY_QUIET_S,
    KEY_SETTLE_S,
    PAINT,
    TIMEOUT_S,
    Bench,
    Sandbox,
    seed_inbox,
)
from tests.bench.pty_harness import KEYS, PtySession  # noqa: E402

KEY_BYTES = {"pagedown": b"\x1b[6~", "pageup": b"\x1b[5~"}
"""Keys this bench presses beyond the harness's own."""
TARGET = 1.5


def _presses(session: PtySession, key: str, count: int) -> list[float]:
    KEYS.update(KEY_BYTES)  # the harness looks keys up by name
    return [session.press(key, quiet_s=KEY_QUIET_S, settle_s=KEY_SETTLE_S) for _ in range(count)]


def measure(keys: list[str], presses: int, open_rfqs: int) -> dict[str, dict[str, list[float]]]:
    """Seconds from each key to the end of its output, the bare app's and the desk's presses
    taking turns (both running), so a load that comes and goes on the machine falls on both."""
    figures: dict[str, dict[str, list[float]]] = {"bare": {}, "desk": {}}
    with tempfile.TemporaryDirectory(prefix="rfq-bench-keys-") as tmp:
        bench = Bench(Path(tmp))
        with bench.bare(bench.home("bare-warm"), rows=INBOX_RFQS) as warm:  # the bytecode cache
            warm.wait_for(PAINT, TIMEOUT_S)
        home = bench.home("desk")
        quiet = ("--no-actors", "--no-history", "--token-budget", str(BENCH_TOKEN_BUDGET))
        with Sandbox(bench, home, *quiet) as sandbox:
            credentials = json.loads(sandbox.credentials.read_text(encoding="utf-8"))
            newest = asyncio.run(seed_inbox(credentials, INBOX_RFQS, open_rfqs))
            with bench.desk(home) as desk, bench.bare(bench.home("bare"), rows=INBOX_RFQS) as bare:
                desk.wait_for(re.escape(newest), TIMEOUT_S)
                desk.wait_for(FIRST_DATA, TIMEOUT_S)
                bare.wait_for(PAINT, TIMEOUT_S)
                desk.wait_quiet(0.5)
                bare.wait_quiet(0.5)
                for key in keys:
                    turns = [
                        (_presses(bare, key, 1), _presses(desk, key, 1)) for _ in range(presses)
                    ]
                    figures["bare"][key] = [mine for (mine,), _ in turns]
                    figures["desk"][key] = [mine for _, (mine,) in turns]
    return figures


def report(figures: dict[str, dict[str, list[float]]]) -> str:
    """One line per key: the desk's median, the bare app's, the ratio and the target."""
    head = f"{'key, 1,000 RFQs':<20} {'desk':>10} {'bare app':>10} {'ratio':>8}   target"
    lines = [f"{head}      desk quartiles"]
    for key, values in figures["desk"].items():
        mine = statistics.median(values)
        base = statistics.median(figures["bare"][key])
        ratio = f"x{mine / base:.2f}" if base else "n/a"
        wanted = f"<= x{TARGET:g}" if key == "down" else ""
        # The presses are not alike (a move to another taker's RFQ refills the ticket's pool
        # choices): the quartiles say how the median sits between them.
        low, _, high = statistics.quantiles(values, n=4) if len(values) > 1 else (mine, 0, mine)
        lines.append(
            f"{key:<20} {mine * 1000:8.1f} ms {base * 1000:8.1f} ms {ratio:>8}   {wanted:<8}"
            f"  {low * 1000:.1f}-{high * 1000:.1f} ms"
        )
    return "\n".join(lines)


def run(keys: list[str]) -> str:
    """The keys measured and reported."""
    presses = int(os.environ.get("RFQ_BENCH_KEYS", "30"))
    open_rfqs = int(os.environ.get("RFQ_BENCH_OPEN_RFQS", str(INBOX_RFQS)))
    return report(measure(keys, presses, open_rfqs))


@pytest.mark.bench
def test_bench_inbox_keys() -> None:
    """The benchmark as pytest runs it (prints with ``-s``; no timed assertion)."""
    print()
    print(run(["down", "up", "pagedown"]))


if __name__ == "__main__":
    print(run(sys.argv[1:] or ["down", "up", "pagedown"]))
