"""The seeded history written in bulk leaves the very rows the engine leaves playing it.

The reference is the history played through the engine call by call
(`tests.sandbox.kit.history_replay`). Two copies of one seeded sandbox, on the same frozen
clock, write the same short history each way; every table must then hold the same rows (ids,
``seq`` numbers, ``sqlite_sequence`` and the timers still due included). The one row allowed to
differ is the stored market snapshot, a memo of the price walk that the replay's own market
saved (restoring either gives the same marks).

The configurations take every way a history trade can go: straight to booking, through the
taker's and the maker's deposit approvals (with and without an allowance left), failing for
want of money at the atomic deposit, refused at accept by the risk checks; positions that go
flat (their ``seq`` is not handed out again) and timers still due when the history ends.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.sandbox.kit.common import open_sandbox
from tests.sandbox.kit.history_replay import replay_history
from tui.sandbox.engine import history
from tui.sandbox.engine.history import seed_history
from tui.sandbox.engine.history_plan import HistoryConfig

D = Decimal
CONFIGS = {
    "plain": HistoryConfig(hours=2),
    "deposit approvals": HistoryConfig(hours=3, taker_deposit=D(20_000), maker_deposit=D(30_000)),
    "funding failures": HistoryConfig(
        hours=3,
        taker_deposit=D(499_000),
        maker_deposit=D(30_000),
        major_size=(D(3_000_000), D(8_000_000)),
    ),
    "risk refusals": HistoryConfig(hours=1, major_size=(D(120_000_000), D(150_000_000))),
    # One tick a trade, either way at random: positions go flat and reopen.
    "positions closing": HistoryConfig(
        hours=3, scale=1e-5, major_size=(D(1), D(2)), alt_size=(D(1), D(2))
    ),
}
QUIET_END_S = {"timers still due": 0}
"""Configurations whose trades run up to the end of the history (no quiet minutes): their
expiries and deadlines are still due when it ends."""
CONFIGS["timers still due"] = HistoryConfig(hours=0.2, scale=20, taker_deposit=D(20_000))
UNCOMPARED_META = {"market_snapshot"}


def _dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table (in rowid order), but the market snapshot."""
    conn = sqlite3.connect(path)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        dump = {}
        for table in tables:
            rows = conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()  # noqa: S608
            if table == "meta":
                rows = [row for row in rows if row[0] not in UNCOMPARED_META]
            dump[table] = rows
        return dump
    finally:
        conn.close()


def _twin_sandboxes(tmp_path: Path, seed: int) -> tuple[Path, Path]:
    """Two copies of one freshly seeded sandbox file (the same wallets and keys)."""
    _, ex = open_sandbox(tmp_path / "base.db", seed=seed)
    ex.close()
    copies = []
    for name in ("replayed.db", "bulk.db"):
        shutil.copy(tmp_path / "base.db", tmp_path / name)
        copies.append(tmp_path / name)
    return copies[0], copies[1]


def _history_both_ways(tmp_path: Path, config: HistoryConfig, seed: int = 7) -> tuple[Any, Any]:
    replayed_path, bulk_path = _twin_sandboxes(tmp_path, seed)
    _, replayed = open_sandbox(replayed_path, seed=seed)
    _, bulk = open_sandbox(bulk_path, seed=seed)
    try:
        reference = replay_history(replayed, config)
        report = seed_history(bulk, config)
    finally:
        replayed.close()
        bulk.close()
    assert report is not None
    assert (report.planned, report.booked, report.failed, report.volume) == (
        reference.planned,
        reference.booked,
        reference.failed,
        reference.volume,
    )
    assert report.failures == reference.failures
    assert (report.start_ms, report.end_ms) == (reference.start_ms, reference.end_ms)
    return _dump(replayed_path), _dump(bulk_path)


@pytest.fixture(scope="module")
def both_ways(tmp_path_factory):
    """``(reference dump, bulk dump)`` of the history of a configuration named in `CONFIGS`
    (each computed once for the module)."""
    done: dict[str, tuple[Any, Any]] = {}

    def run(name: str) -> tuple[Any, Any]:
        if name not in done:
            with pytest.MonkeyPatch.context() as patch:
                if name in QUIET_END_S:
                    patch.setattr(history, "_QUIET_END_S", QUIET_END_S[name])
                done[name] = _history_both_ways(tmp_path_factory.mktemp("history"), CONFIGS[name])
        return done[name]

    return run


@pytest.mark.parametrize("name", list(CONFIGS))
def test_the_bulk_history_equals_the_history_played_through_the_engine(both_ways, name):
    reference, bulk = both_ways(name)
    assert reference.keys() == bulk.keys()
    for table in reference:
        assert bulk[table] == reference[table], table
    assert reference["trades"]  # the history did trade


def test_the_default_day_equals_the_day_played_through_the_engine(tmp_path):
    """The history every new sandbox gets (`rfq-desk sandbox`'s default seed, 26 hours)."""
    reference, bulk = _history_both_ways(tmp_path, HistoryConfig(), seed=1)
    assert bulk == reference
    assert len(reference["trades"]) > 500


def test_the_configurations_take_every_way_a_trade_can_go(both_ways):
    """Guards the test above: its configurations really exercise each path."""
    seen: set[str] = set()
    closed_positions = timers_due = False
    for name in CONFIGS:
        reference, _ = both_ways(name)
        for row in reference["quotes"]:
            seen.update(event["status"] for event in json.loads(row[-1])["clearing_events"])
        last_seq = dict(reference["sqlite_sequence"])
        closed_positions |= last_seq["positions"] > len(reference["positions"])
        timers_due |= bool(reference["timers"])
    assert closed_positions and timers_due
    assert {
        "pending_taker_deposit_approval",
        "pending_maker_deposit_approval",
        "pending_atomic_deposit",
        "success_trades_booked_into_pool",
        "rejected_failed_taker_funding",
        "rejected_failed_risk_checks",
    } <= seen


def test_a_pair_named_twice_is_refused():
    """Each (maker, taker) pair has one history pool: a pair named twice would ask the venue
    for a second pool of the same name (which it refuses), so the configuration is refused."""
    with pytest.raises(ValueError, match="pairs must not repeat"):
        HistoryConfig(pairs=(("ALPHA", "EMBR"), ("BORE", "FJRD"), ("ALPHA", "EMBR")))
    assert HistoryConfig(pairs=(("ALPHA", "EMBR"), ("EMBR", "ALPHA"))).pairs
