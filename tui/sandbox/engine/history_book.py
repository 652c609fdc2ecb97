"""The seeded history's books in memory, written to the store in bulk at the end.

The seeded past (`tui.sandbox.engine.history`) is booked by the engine's own rules (`Risk`,
`write_trades`, `deposit_for_trade`, the record builders of each room), but not through the
store call by call: its positions and pool balances live in a `HistoryPortfolio`, its new
records in `HistoryRecords`, and `HistoryRecords.write` inserts them all at once (one
``executemany`` per table, inside the caller's transaction).

What goes to the store at once instead: what the chain keeps (wallets, allowances, permit
nonces, transaction ids), through `Chain` itself; there are a few dozen of those in a day.

The rows written are the rows the engine would have written trade by trade: the same ids (one
counter, taken in the same order), the same ``seq`` of every table (``sqlite_sequence``
included, for the positions that closed and the timers that ran), and the timers still due
after the history's end.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from tui.api.models import USDC, RFQStatus
from tui.sandbox.engine.fills import fill_position
from tui.sandbox.engine.margin import Holding
from tui.sandbox.engine.market_api import ValuationSource
from tui.sandbox.engine.pools import pool_row
from tui.sandbox.engine.portfolio import Portfolio, position_row
from tui.sandbox.engine.quotes import quote_row
from tui.sandbox.engine.records import instrument_key, parse_instrument
from tui.sandbox.engine.rfqs import rfq_row
from tui.sandbox.engine.store import Store, deterministic_uuid

__all__ = ["HistoryPortfolio", "HistoryRecords"]

_ZERO = Decimal(0)
_BALANCE_UPSERT = "ON CONFLICT (pool_id, company_id, asset) DO UPDATE SET qty = excluded.qty"


class HistoryPortfolio(Portfolio):
    """Pool balances and positions of the history's pools, in memory.

    Overrides what the clearing rules read and write (`balance`, `move_balance`, `holdings`,
    `book_fill`), so `Portfolio.state`, `Portfolio.shortfall` and every rule built on them work
    unchanged. Values are kept exactly as the store would give them back (decimal text
    parsed again), so every figure is the one the store-backed portfolio computes. The
    history's pools are new: nothing of them is in the store yet.
    """

    def __init__(self, store: Store, market: ValuationSource) -> None:
        super().__init__(store, market)
        self._balances: dict[tuple[str, str], str] = {}
        self._positions: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        # The same positions as holdings, kept with them (a holding reads its key once).
        self._held: dict[tuple[str, str], dict[str, Holding]] = {}
        self._instruments: dict[str, Any] = {}
        self.last_seq = store.last_seq("positions")

    def balance(self, pool_id: str, company_id: str, asset: str = USDC) -> Decimal:
        """A company's balance in a history pool (0 before its first deposit)."""
        value = self._balances.get((pool_id, company_id))
        return Decimal(value) if value is not None else _ZERO

    def move_balance(
        self, pool_id: str, company_id: str, delta: Decimal, asset: str = USDC
    ) -> None:
        """Add ``delta`` to a balance (rows keep the order they were first touched in)."""
        new = self.balance(pool_id, company_id) + delta
        self._balances[(pool_id, company_id)] = format(new, "f")

    def holdings(self, pool_id: str, company_id: str) -> list[Holding]:
        """A company's open positions in a history pool, oldest first."""
        return list(self._held.get((pool_id, company_id), {}).values())

    def _holding(self, row: dict[str, Any]) -> Holding:
        """A position row as `Portfolio.holdings` reads it back from the store."""
        key = row["instrument"]
        instrument = self._instruments.get(key)
        if instrument is None:
            instrument = self._instruments[key] = parse_instrument(json.loads(key))
        return Holding(
            instrument, Decimal(row["qty"]), Decimal(row["avg_entry_price"]), Decimal(row["cost"])
        )

    def book_fill(
        self,
        pool_id: str,
        company_id: str,
        instrument: Any,
        signed_qty: Decimal,
        price: Decimal,
        *,
        as_taker: bool,
        now_ms: int,
        realized: Decimal | None = None,
    ) -> Decimal:
        """`Portfolio.book_fill` on the positions in memory: a new position takes the next
        ``seq``, a closed one is dropped (its ``seq`` is not handed out again)."""
        key = instrument_key(instrument)
        positions = self._positions.setdefault((pool_id, company_id), {})
        held = self._held.setdefault((pool_id, company_id), {})
        row = positions.get(key)
        new_qty, columns, booked = fill_position(
            row, signed_qty, price, as_taker=as_taker, now_ms=now_ms, realized=realized
        )
        if new_qty == 0:
            positions.pop(key, None)
            held.pop(key, None)
        else:
            if row is None:
                self.last_seq += 1
                row = positions[key] = {
                    "seq": self.last_seq,
                    **position_row(pool_id, company_id, instrument, columns),
                }
            else:
                row.update(columns)
            held[key] = self._holding(row)
        if booked:
            self.move_balance(pool_id, company_id, booked)
        return booked

    def balance_rows(self) -> list[dict[str, Any]]:
        """The ``balances`` rows, in the order they were first touched."""
        return [
            {"pool_id": pool_id, "company_id": company_id, "asset": USDC, "qty": qty}
            for (pool_id, company_id), qty in self._balances.items()
        ]

    def position_rows(self) -> list[dict[str, Any]]:
        """The ``positions`` rows still open, in ``seq`` order."""
        rows = [row for book in self._positions.values() for row in book.values()]
        return sorted(rows, key=lambda row: row["seq"])


class HistoryRecords:
    """The history's new records (a `RecordSink`), kept until `write` stores them at once.

    Ids come from the store's own counter (read once, written back at the end), in the order
    the engine would take them. RFQs, quotes and pools stay dicts the history moves along
    (their rows are made when written); trades and transfers are final when inserted.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self._seed = store.meta_get("seed") or "0"
        self._first_id = int(store.meta_get("counter:ids") or 0)
        self._ids = self._first_id
        self._first_timer = store.last_seq("timers")
        self.pools: dict[str, dict[str, Any]] = {}
        self.rfqs: dict[str, dict[str, Any]] = {}
        self.live_quote: dict[str, str | None] = {}
        self.quotes: list[tuple[dict[str, Any], str]] = []
        self.timers: list[tuple[int, str, str]] = []
        self._rows: dict[str, list[dict[str, Any]]] = {"trades": [], "transfers": []}

    # -- as a RecordSink ------------------------------------------------------------------

    def new_id(self) -> str:
        """The next record id of the store's counter."""
        self._ids += 1
        return deterministic_uuid(self._seed, self._ids)

    def insert(self, table: str, columns: dict[str, Any]) -> int:
        """Keep a final row of ``trades`` or ``transfers`` (its ``seq`` comes when written)."""
        self._rows[table].append(columns)
        return 0

    # -- records the history moves along --------------------------------------------------

    def add_timer(self, due_ms: int, kind: str, ref: str) -> None:
        """A timer the engine would have scheduled (it keeps its id, and its row if still due
        when the history ends)."""
        self.timers.append((due_ms, kind, ref))

    def add_pool(self, pool: dict[str, Any]) -> None:
        """A history pool (its record is final once its creation block confirmed it)."""
        self.pools[pool["pool_id"]] = pool

    def add_rfq(self, rfq: dict[str, Any]) -> None:
        """A new RFQ, with no trade clearing on it yet."""
        self.rfqs[rfq["rfq_id"]] = rfq
        self.live_quote[rfq["rfq_id"]] = None

    def add_quote(self, quote: dict[str, Any], taker: str) -> None:
        """A new quote on an RFQ of ``taker``."""
        self.quotes.append((quote, taker))

    # -- the bulk write -------------------------------------------------------------------

    def write(self, portfolio: HistoryPortfolio, end_ms: int) -> None:
        """Insert everything, as the engine's store would hold it at ``end_ms``.

        Timers due by then have run: an RFQ left open with no trade clearing on it (its trade
        failed) has expired; every other timer of the past had nothing left to do. The ones
        still due keep their rows.
        """
        store = self.store
        for rfq_id, rfq in self.rfqs.items():
            expired = rfq["_expires_ms"] <= end_ms and self.live_quote[rfq_id] is None
            if rfq["rfq_status"] == RFQStatus.OPEN and expired:
                rfq["rfq_status"] = RFQStatus.EXPIRED.value
        # Tables in the order the engine first writes them (so even ``sqlite_sequence`` lists
        # them alike): pools, timers, transfers, RFQs, quotes, trades, positions.
        store.insert_many("pools", [pool_row(pool) for pool in self.pools.values()])
        store.insert_many(
            "timers",
            [
                {"id": timer_id, "due_ms": due_ms, "kind": kind, "ref": ref}
                for timer_id, (due_ms, kind, ref) in enumerate(
                    self.timers, start=self._first_timer + 1
                )
                if due_ms > end_ms
            ],
        )
        store.set_last_seq("timers", self._first_timer + len(self.timers))
        store.insert_many("transfers", self._rows["transfers"])
        first_rfq = store.last_seq("rfqs")
        rfq_rows, targets = [], []
        for seq, (rfq_id, rfq) in enumerate(self.rfqs.items(), start=first_rfq + 1):
            rfq_rows.append({"seq": seq, **rfq_row(rfq, self.live_quote[rfq_id])})
            targets += [
                {"rfq_seq": seq, "rfq_id": rfq_id, "company_id": target}
                for target in rfq["_targets"]
            ]
        store.insert_many("rfqs", rfq_rows)
        store.insert_many("rfq_targets", targets)
        store.insert_many("quotes", [quote_row(quote, taker) for quote, taker in self.quotes])
        store.insert_many("trades", self._rows["trades"])
        store.insert_many("positions", portfolio.position_rows())
        store.set_last_seq("positions", portfolio.last_seq)
        store.insert_many("balances", portfolio.balance_rows(), upsert=_BALANCE_UPSERT)
        if self._ids != self._first_id:
            store.meta_set("counter:ids", str(self._ids))
