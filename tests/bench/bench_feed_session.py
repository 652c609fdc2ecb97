"""Benchmark of the desk's feed over a scripted trading session (issue 11; on demand only).

Run either way (5 minutes and a little; ``--seconds 60`` for a shorter try):

    python tests/bench/bench_feed_session.py [--seconds 300] [--rfq-every 10] [--desk-rfq-every 30]
    python -m pytest tests/bench/bench_feed_session.py -s     (RFQ_BENCH_SESSION_S, default 300)

Issue 11's last target: over a 5-minute session with trading on both sides, the feed meets
no 429 at all, and a new received RFQ is on screen within 1 s of its creation (median).

The setup, as a trader would have it: a sandbox of its own (`feed_session_sandbox`: ``rfq-desk
sandbox`` on a fresh database in a temporary folder, simulated makers and takers on, the
interface's 100-token budget, every 429 it sends counted by whom), and the real `DeskApp` run
headless in this process (``App.run_test``, 140x45) for DESK, with its normal feed and its own
client. Once the desk has its first data and `SETTLE_S` more (its start-up fill of every
pane has left the budget's window), for ``--seconds``:

- a scripted counterparty, ALPHA on a client of its own, sends DESK an RFQ every
  ``--rfq-every`` seconds (jittered +-30 %) and buys every quote DESK makes on one;
- the desk's trader, through the desk's roles (its client, its budget), asks the simulated
  makers for a price every ``--desk-rfq-every`` seconds and buys the best ask, quotes every
  other RFQ of the counterparty as soon as the inbox has it, and answers every last look and
  deposit approval that waits for it (`feed_session_traders`);
- every 20 ms the inbox widget's rows are looked at: the moment an RFQ of the counterparty is
  in them, on the venue's clock as the desk's client estimates it, minus its ``created_at``
  (the venue's clock), is its delay. After the session the last ones get 15 s more to arrive.

Figures: the delays (median, p90, max; the target's ratio is median / 1 s), and what each
was made of (waiting for the next poll of received RFQs, that poll's round trip, answer to
row); the 429s the desk's client met (every HTTP exchange by status) and those the sandbox
sent (per company, and its per-address limits); the poll pace and tokens per 10 s by endpoint
(what the budget went on); what the desk and the counterparty did; the machine's load
(`feed_session_report` prints them).

Two switches help say why a target is missed, without touching the feed: ``--quiet-desk``
(the desk does not trade: the feed's own floor) and ``--try-received-hot S`` /
``--try-received-priority N``, which change the received-RFQs entry of `SPECS` in this process
only (an experiment on a proposed change to ``tui/desk/feed/topics.py``; the report says so).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from textual import on  # noqa: E402

from tests.bench.feed_session_report import Exchange, Figures, report  # noqa: E402
from tests.bench.feed_session_traders import Counterparty, DeskTrader, SentRfq  # noqa: E402
from tui.api.client import CallInfo, ServiceClient  # noqa: E402
from tui.api.endpoints import BUDGET_WINDOW_S  # noqa: E402
from tui.desk.app import DeskApp  # noqa: E402
from tui.desk.feed.topics import SPECS  # noqa: E402
from tui.desk.messages import ActionOutcome, Topic  # noqa: E402
from tui.desk.session import StaticConnector, connection_from_credentials  # noqa: E402
from tui.desk.widgets.rfq_inbox import RfqInbox, row_key  # noqa: E402

WATCH_EVERY_S = 0.02
WRITE_COST = 20
"""What every write of the trading API costs (the interface's table): how a write is told."""
GRACE_S = 15.0
"""After the session, how long the last RFQs sent may take to show before they count missed."""
SIZE = (140, 45)
SETTLE_S = BUDGET_WINDOW_S + 1.0
"""After the first data, before the session starts: a desk that has just started fills every
pane at once, and those tokens take one budget window (and the client's margin) to leave; the
feed's steady state is what the session measures."""
MAKERS = ("ALPHA", "BORE")
"""The simulated makers the desk asks for prices."""


class LoggedClient(ServiceClient):
    """The desk's client, writing down every HTTP exchange before the desk's own hook sees it."""

    def __init__(self, *args: Any, log: list[Exchange], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.exchanges = log
        self._desk_hook: Any = None
        ServiceClient.on_call.fset(self, self._record)  # type: ignore[attr-defined]

    @property
    def on_call(self) -> Any:
        """The desk's hook (the feed's), called after this client's own record."""
        return self._desk_hook

    @on_call.setter
    def on_call(self, hook: Any) -> None:
        self._desk_hook = hook

    def _record(self, info: CallInfo) -> None:
        self.exchanges.append(
            Exchange(self.clock.now_ms(), info.endpoint, info.status, info.latency_ms)
        )
        if self._desk_hook is not None:
            self._desk_hook(info)


class ObservedDesk(DeskApp):
    """The desk as it ships, with the outcome of every action counted (the desk handles it
    too: Textual calls the handlers of every class in the MRO)."""

    CSS_PATH = str(Path(sys.modules[DeskApp.__module__].__file__ or "").with_name("desk.tcss"))
    outcomes: Counter[str]

    @on(ActionOutcome)
    def _count_outcome(self, outcome: ActionOutcome) -> None:
        if not hasattr(self, "outcomes"):
            self.outcomes = Counter()
        word = "ok" if outcome.ok else "failed"
        self.outcomes[f"{outcome.kind.value} {word}"] += 1


def start_sandbox(folder: Path) -> tuple[subprocess.Popen[str], dict[str, Any], Path]:
    """The counting sandbox on a fresh database in ``folder``: process, credentials, counts."""
    credentials, counts = folder / "creds.json", folder / "refused.json"
    helper = Path(__file__).with_name("feed_session_sandbox.py")
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and script
        [sys.executable, str(helper), str(folder / "sandbox.db"), str(credentials), str(counts)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if "sandbox ready at" not in line:
        stop_sandbox(process)
        raise RuntimeError(f"the sandbox did not say it was ready: {line!r}")
    return process, json.loads(credentials.read_text(encoding="utf-8")), counts


def stop_sandbox(process: subprocess.Popen[str]) -> None:
    """SIGTERM (the sandbox writes its counts on the way out), then SIGKILL."""
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# -- the session ----------------------------------------------------------------------------


async def watch_inbox(
    app: DeskApp,
    sent: dict[str, SentRfq],
    sending: asyncio.Event,
    all_shown: asyncio.Event,
    stop: asyncio.Event,
) -> None:
    """Every `WATCH_EVERY_S`: each counterparty RFQ newly in the inbox's rows, and when; once
    ``sending`` is over and every RFQ sent is shown, ``all_shown`` is set."""
    table = app.query_one(RfqInbox).table
    client = app.client
    assert client is not None
    while not stop.is_set():
        now_ms = client.clock.now_ms()
        unseen = [rfq for rfq in list(sent.values()) if rfq.seen_ms is None]
        for rfq in unseen:
            key = row_key("received", rfq.rfq_id)
            if table.has_row(key):
                rfq.seen_ms = now_ms
                rfq.seen_row = table.row_of(key)
        if sending.is_set() and all(rfq.seen_ms is not None for rfq in unseen):
            all_shown.set()
        await asyncio.sleep(WATCH_EVERY_S)


async def wait_first_data(app: DeskApp, timeout_s: float = 60.0) -> None:
    """Until the desk has polled its received RFQs and its pools once."""
    feed = await asyncio.wait_for(app.wait_connected(), timeout_s)
    deadline = time.monotonic() + timeout_s
    while not {Topic.RFQS_RECEIVED, Topic.POOLS} <= set(feed.last_ok):
        if time.monotonic() > deadline:
            raise RuntimeError("the desk had no data within a minute")
        await asyncio.sleep(0.1)


def booked_trades(app: DeskApp) -> int:
    """Trades of mine booked into their pool, both sides, as the desk's book has them."""
    quotes = [*app.book.quotes_sent.values(), *app.book.quotes_received.values()]
    return sum(str(q.clearing_status) == "success_trades_booked_into_pool" for q in quotes)


async def session(document: dict[str, Any], folder: Path, options: argparse.Namespace) -> Figures:
    """Run the desk, the counterparty and the trader for ``options.seconds``; the figures."""
    writers = {c["short_name"]: c for c in document["companies"] if c.get("role") == "writer"}
    ids = {name: entry["id"] for name, entry in writers.items()}
    exchanges: list[Exchange] = []
    app = ObservedDesk(
        StaticConnector(connection_from_credentials(document, "DESK")),
        theme="desk-dark",
        export_dir=folder / "desk" / "exports",
        journal_path=folder / "desk" / "journal.jsonl",
        user_theme_dirs=[],
        client_factory=lambda c: LoggedClient(c.base_url, c.api_key, c.api_secret, log=exchanges),
    )
    app.outcomes = Counter()
    alpha = writers["ALPHA"]
    async with (
        app.run_test(size=SIZE),
        ServiceClient(document["base_url"], alpha["api_key"], alpha["api_secret"]) as other,
    ):
        await wait_first_data(app)
        await asyncio.sleep(SETTLE_S)  # the start-up's fill of every pane leaves the window
        write_waits = time_write_waits(app)
        await other.sync_clock()
        counterparty = Counterparty(other, ids["DESK"], options.rfq_every)
        other.on_call = counterparty.on_call
        trader = DeskTrader(app, [ids[m] for m in MAKERS], counterparty, options.desk_rfq_every)
        stop_sending, stop_all, all_shown = asyncio.Event(), asyncio.Event(), asyncio.Event()
        load_start = os.getloadavg()[0]
        cpu_start = _cpu_s()
        exchanges.clear()  # the session's exchanges only: start-up is not the feed's steady state
        tasks = [
            asyncio.create_task(counterparty.send_rfqs(stop_sending)),
            asyncio.create_task(counterparty.take_quotes(stop_all)),
            *([] if options.quiet_desk else [asyncio.create_task(trader.run(stop_all))]),
            asyncio.create_task(
                watch_inbox(app, counterparty.sent, stop_sending, all_shown, stop_all)
            ),
        ]
        await asyncio.sleep(options.seconds)
        ended_ms = app.client.clock.now_ms() if app.client else None
        stop_sending.set()
        cpu_s = _cpu_s() - cpu_start
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(all_shown.wait(), GRACE_S)
        stop_all.set()
        await asyncio.gather(*tasks)
        load_end = os.getloadavg()[0]
        actions = [w for w in app.workers if w.group == "actions" and not w.is_finished]
        await asyncio.wait_for(asyncio.gather(*(w.wait() for w in actions)), 30)
        booked = booked_trades(app)
    return Figures(
        seconds=options.seconds,
        sent=list(counterparty.sent.values()),
        exchanges=list(exchanges),
        refused={},
        names={entry["id"]: name for name, entry in writers.items()},
        counterparty=counterparty,
        trader=trader.done,
        outcomes=app.outcomes,
        booked=booked,
        load=(load_start, load_end),
        cpu_s=cpu_s,
        write_waits=write_waits,
        ended_ms=ended_ms,
    )


def time_write_waits(app: DeskApp) -> list[float]:
    """How long each of the trader's writes waits for tokens from now on (seconds; the price
    the feed's share of the budget makes the trader pay). A write is a call of 20 tokens or
    more asked with nothing kept free (the feed's polls keep the reserve)."""
    assert app.client is not None
    budget = app.client.budget
    waits: list[float] = []
    wait_and_charge = budget._wait_and_charge  # a probe of the bench, wrapped below

    async def timed(cost: int, keep_free: int) -> Any:
        started = time.monotonic()
        charge = await wait_and_charge(cost, keep_free)
        if cost >= WRITE_COST and keep_free == 0:
            waits.append(time.monotonic() - started)
        return charge

    budget._wait_and_charge = timed  # type: ignore[method-assign]
    return waits


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# -- the report -----------------------------------------------------------------------------


def run(options: argparse.Namespace) -> str:
    """A sandbox, the session, the sandbox's counts; the report."""
    with tempfile.TemporaryDirectory(prefix="rfq-bench-feed-") as tmp:
        folder = Path(tmp)
        for name in ("data", "config", "state", "cache"):
            os.environ[f"XDG_{name.upper()}_HOME"] = str(folder / name)
        experiment = try_received_poll(options)
        process, document, counts = start_sandbox(folder)
        try:
            figures = asyncio.run(session(document, folder, options))
        finally:
            stop_sandbox(process)
        if options.quiet_desk:
            figures.headline.append("QUIET DESK: the desk did not trade (--quiet-desk)")
        if experiment:
            figures.headline.append(experiment)
        if counts.exists():
            figures.refused = json.loads(counts.read_text(encoding="utf-8"))
        else:
            figures.notes.append("(the sandbox wrote no counts: its 429s are not known)")
    return report(figures, each=options.each)


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line (see module docs)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="session length (300)")
    parser.add_argument(
        "--rfq-every", type=float, default=10.0, help="counterparty RFQ to DESK every S (10)"
    )
    parser.add_argument(
        "--desk-rfq-every", type=float, default=30.0, help="desk RFQ to the makers every S (30)"
    )
    parser.add_argument("--each", action="store_true", help="also a line per RFQ sent")
    parser.add_argument(
        "--quiet-desk", action="store_true", help="the desk does not trade (the feed's floor)"
    )
    parser.add_argument(
        "--try-received-hot",
        type=float,
        default=None,
        metavar="S",
        help="experiment: poll received RFQs every S while hot (this process only)",
    )
    parser.add_argument(
        "--try-received-priority",
        type=int,
        default=None,
        metavar="N",
        help="experiment: that poll's priority (lower first; this process only)",
    )
    return parser.parse_args(argv)


def try_received_poll(options: argparse.Namespace) -> str:
    """Apply the ``--try-received-*`` experiment to this process's `SPECS` (the feed reads
    that one dict; ``tui/desk/feed/topics.py`` is not touched); what was changed, in words."""
    spec = SPECS[Topic.RFQS_RECEIVED]
    changes: dict[str, Any] = {}
    if options.try_received_hot is not None:
        changes["hot_s"] = options.try_received_hot
    if options.try_received_priority is not None:
        changes["priority"] = options.try_received_priority
    if not changes:
        return ""
    SPECS[Topic.RFQS_RECEIVED] = dataclasses.replace(spec, **changes)
    said = ", ".join(f"{k} {getattr(spec, k)} -> {v}" for k, v in changes.items())
    return f"EXPERIMENT (this process only, topics.py unchanged): RFQS_RECEIVED {said}"


@pytest.mark.bench
def test_bench_feed_session() -> None:
    """The benchmark as pytest runs it (prints with ``-s``; no timed assertion)."""
    seconds = os.environ.get("RFQ_BENCH_SESSION_S", "300")
    print()
    print(run(parse(["--seconds", seconds])))


if __name__ == "__main__":
    print(run(parse(sys.argv[1:])))
