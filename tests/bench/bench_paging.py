"""Benchmark of paging 10,000 trades through the client (issue 11; on demand only).

Run either way:

    python tests/bench/bench_paging.py [--rounds N] [--trades N]
    python -m pytest tests/bench/bench_paging.py -s

Set-up: ``rfq-desk sandbox`` in a subprocess (its own GIL; no simulated counterparties; the
benchmark-only ``--token-budget`` so that no run waits for tokens), then ``--trades`` trades
(default 10,000) written straight into its database for the seeded company ``DESK``: copies of
a trade the sandbox's own seeded history booked, with new ids, times, prices and sizes.

Measured in the same run, rounds interleaved, medians of ``--rounds`` (default 7) after one
uncounted warm-up of each, both clients already connected:

- **ours**: every trade through ``ServiceClient.iterate("portfolio_trades")`` (signed, budgeted,
  the venue's default pages of 1,000), each a `tui.api.models.Trade` (Decimal prices and
  sizes, aware datetimes, enum members or the raw string, the instrument as its model);
- **baseline, the reference SDK's way**: the venue's reference SDK (PyPI ``variational`` 0.6.0,
  not installable here; `/work/shared/spec/contract.md` describes it) reads pages with a plain
  HTTP client and parses them into its own typed records. Rebuilt here as faithfully as the
  contract allows: a synchronous ``httpx.Client`` (kept open) signing every request with the
  same HMAC (`tui.api.signing.ServiceAuth`), ``json.loads`` of each page, then one typed record
  per trade: a frozen, slotted dataclass (``SdkTrade``, its instrument an ``SdkInstrument``)
  with `Decimal` for every ``StrDecimal``, `datetime` for every ``DateTimeRFC3339`` and the
  enum member for every enum field (an unknown value kept as its string, as the contract's
  tolerant reader asks), following ``pagination.next_page`` as query parameters, pages of 1,000.
  No budget, no retries, no clock tracking: the baseline does less than the client.

Printed: wall time of each, and the client process's CPU time (the sandbox runs in another
process, so this is the client's own work), each as a ratio to the baseline; also, for scale,
the floor of the same paging with ``json.loads`` only (untyped dicts). The target of issue 11:
ours at most x1.0 the baseline's wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.bench.bench_sandbox import BENCH_TOKEN_BUDGET, start_sandbox  # noqa: E402
from tui.api.budget import TokenBudget  # noqa: E402
from tui.api.client import ServiceClient  # noqa: E402
from tui.api.models import (  # noqa: E402
    ClearingStatus,
    InstrumentType,
    TradeRole,
    TradeSide,
    TradeType,
)
from tui.api.signing import ServiceAuth  # noqa: E402

TARGET = 1.0
"""Issue 11: paging through the client at most x1.0 the reference SDK's wall time."""
TRADES = 10_000
TRADES_PATH = "/v1/portfolio/trades"

E = TypeVar("E", bound=StrEnum)


# -- the baseline: the reference SDK's way -----------------------------------------------------


def _enum(kind: type[E], value: Any) -> E | str:
    try:
        return kind(value)
    except ValueError:
        return str(value)


def _decimal(value: Any) -> Decimal | None:
    return None if value is None else Decimal(value)


def _when(value: Any) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


@dataclass(frozen=True, slots=True)
class SdkInstrument:
    """The baseline's typed instrument (every kind in one record, by ``instrument_type``)."""

    instrument_type: InstrumentType | str
    underlying: str
    settlement_asset: str
    funding_interval_s: int | None
    expiry: datetime | None
    strike: Decimal | None
    payoff: str | None
    exercise: str | None

    @classmethod
    def of(cls, raw: dict[str, Any]) -> SdkInstrument:
        """The record of one decoded JSON instrument."""
        return cls(
            _enum(InstrumentType, raw["instrument_type"]),
            raw["underlying"],
            raw.get("settlement_asset", "USDC"),
            raw.get("funding_interval_s"),
            _when(raw.get("expiry")),
            _decimal(raw.get("strike")),
            raw.get("payoff"),
            raw.get("exercise"),
        )


@dataclass(frozen=True, slots=True)
class SdkTrade:
    """The baseline's typed trade: the contract's ``Trade`` with its scalars typed."""

    id: str
    source_rfq: str | None
    source_rfq_leg_id: str | None
    source_quote: str | None
    company: str
    counterparty: str | None
    created_at: datetime
    side: TradeSide | str
    instrument: SdkInstrument
    price: Decimal
    qty: Decimal
    pool_location: str | None
    role: TradeRole | str
    trade_type: TradeType | str
    status: ClearingStatus | str

    @classmethod
    def of(cls, raw: dict[str, Any]) -> SdkTrade:
        """The record of one decoded JSON trade."""
        return cls(
            raw["id"],
            raw.get("source_rfq"),
            raw.get("source_rfq_leg_id"),
            raw.get("source_quote"),
            raw["company"],
            raw.get("counterparty"),
            datetime.fromisoformat(raw["created_at"]),
            _enum(TradeSide, raw["side"]),
            SdkInstrument.of(raw["instrument"]),
            Decimal(raw["price"]),
            Decimal(raw["qty"]),
            raw.get("pool_location"),
            _enum(TradeRole, raw["role"]),
            _enum(TradeType, raw.get("trade_type", "trade")),
            _enum(ClearingStatus, raw.get("status", "success_trades_booked_into_pool")),
        )


def sdk_trades(http: httpx.Client, record: Callable[[dict[str, Any]], Any]) -> list[Any]:
    """Every trade, page after page, each made by ``record`` from its decoded JSON."""
    params: dict[str, Any] = {}
    trades: list[Any] = []
    while True:
        response = http.get(TRADES_PATH, params=params)
        response.raise_for_status()
        page = json.loads(response.content)
        trades.extend(record(raw) for raw in page["result"])
        next_page = (page.get("pagination") or {}).get("next_page")
        if not next_page:
            return trades
        params = dict(next_page)


# -- the venue with its trades -----------------------------------------------------------------


def add_trades(database: Path, company_id: str, count: int, seed: int = 11) -> None:
    """``count`` trades of ``company_id``: copies of a seeded trade, each with its own id, time
    (one a second), price and size."""
    rng = random.Random(seed)
    with sqlite3.connect(database, timeout=30) as db:
        row = db.execute(
            "SELECT pool_id, role, underlying, notional, created_ms, data FROM trades "
            "ORDER BY seq LIMIT 1"
        ).fetchone()
        if row is None:
            raise RuntimeError("the sandbox booked no history to copy a trade from")
        pool_id, role, underlying, notional, created_ms, data = row
        template = json.loads(data)
        rows = []
        for n in range(count):
            trade_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            at_ms = created_ms + n * 1000
            price = Decimal(template["price"]) * Decimal(rng.randint(900, 1100)) / 1000
            trade = dict(
                template,
                id=trade_id,
                company=company_id,
                created_at=datetime.fromtimestamp(at_ms / 1000, UTC).strftime(
                    "%Y-%m-%dT%H:%M:%S.%fZ"
                ),
                price=format(price.normalize(), "f"),
                qty=str(rng.randint(1, 5000)),
                side=rng.choice(["buy", "sell"]),
            )
            rows.append(
                (
                    trade_id,
                    company_id,
                    pool_id,
                    role,
                    underlying,
                    notional,
                    at_ms,
                    json.dumps(trade),
                )
            )
        db.executemany(
            "INSERT INTO trades (id, company_id, pool_id, role, underlying, notional, "
            "created_ms, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )


# -- the measurement ---------------------------------------------------------------------------


@dataclass
class Timing:
    """Wall and CPU seconds of every counted round of one way of paging."""

    wall: list[float]
    cpu: list[float]

    @property
    def wall_s(self) -> float:
        """Median wall seconds."""
        return statistics.median(self.wall)

    @property
    def cpu_s(self) -> float:
        """Median CPU seconds of this process."""
        return statistics.median(self.cpu)


async def _timed(run: Callable[[], Any], timing: Timing | None, expected: int) -> None:
    wall, cpu = time.perf_counter(), time.process_time()
    result = run()
    if asyncio.iscoroutine(result):
        result = await result
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if len(result) != expected:
        raise AssertionError(f"paged {len(result)} trades, expected {expected}")
    if timing is not None:
        timing.wall.append(wall)
        timing.cpu.append(cpu)


async def measure(
    base_url: str, entry: dict[str, str], rounds: int, count: int
) -> dict[str, Timing]:
    """Every way of paging, ``rounds`` interleaved rounds each (after one warm-up)."""
    timings = {name: Timing([], []) for name in ("baseline", "ours", "json.loads only")}
    auth = ServiceAuth(entry["api_key"], entry["api_secret"])
    budget = TokenBudget(BENCH_TOKEN_BUDGET)
    with httpx.Client(base_url=base_url, auth=auth, headers={"accept": "application/json"}) as http:
        async with ServiceClient(
            base_url, entry["api_key"], entry["api_secret"], budget=budget
        ) as client:
            await client.sync_clock()

            async def ours() -> list[Any]:
                return [trade async for trade in client.iterate("portfolio_trades")]

            ways: dict[str, Callable[[], Any]] = {
                "baseline": lambda: sdk_trades(http, SdkTrade.of),
                "ours": ours,
                "json.loads only": lambda: sdk_trades(http, lambda raw: raw),
            }
            for round_ in range(rounds + 1):
                for name, run in ways.items():
                    await _timed(run, timings[name] if round_ else None, count)
    return timings


def report(timings: dict[str, Timing]) -> str:
    """Each way's medians and its ratios to the baseline; the verdict on the target."""
    base = timings["baseline"]
    lines = []
    for name, timing in timings.items():
        lines.append(
            f"{name:<16} wall {timing.wall_s * 1000:7.1f} ms  x{timing.wall_s / base.wall_s:.2f}"
            f"   client CPU {timing.cpu_s * 1000:7.1f} ms  x{timing.cpu_s / base.cpu_s:.2f}"
        )
    ratio = timings["ours"].wall_s / base.wall_s
    verdict = "within" if ratio <= TARGET else "OVER"
    lines.append(f"ours / baseline (wall) x{ratio:.2f}: target <= x{TARGET:g}: {verdict}")
    return "\n".join(lines)


def run(rounds: int, count: int) -> dict[str, Timing]:
    """Start a sandbox, give DESK its trades, measure, stop it."""
    with tempfile.TemporaryDirectory(prefix="rfq-paging-") as tmp:
        proc, credentials = start_sandbox(Path(tmp))
        try:
            document = json.loads(credentials.read_text())
            entry = next(c for c in document["companies"] if c["short_name"] == "DESK")
            add_trades(Path(tmp) / "bench.db", entry["id"], count)
            return asyncio.run(measure(document["base_url"], entry, rounds, count))
        finally:
            proc.terminate()
            proc.wait(timeout=30)


@pytest.mark.bench
def test_bench_paging() -> None:
    """The benchmark as a pytest run (prints its figures with ``-s``; no timed assertion)."""
    timings = run(5, TRADES)
    print()
    print(report(timings))
    assert all(timing.wall for timing in timings.values())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="counted rounds of each (median)")
    parser.add_argument("--trades", type=int, default=TRADES, help="trades to page through")
    arguments = parser.parse_args()
    print(report(run(arguments.rounds, arguments.trades)))
