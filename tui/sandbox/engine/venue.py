"""The machinery under the endpoint facade: the rooms wired together, time, transactions.

`Venue` builds every room of the engine over one store, chain, portfolio and market; opens and
closes the sandbox file (seeding a fresh one, rescuing trades an older version left hanging);
runs the timers sandbox time has made due (`tick`); and keeps the transaction discipline every
endpoint follows: a write is ONE transaction after the due timers ran (`_write`), a read runs
after them too (`_read`). `tui.sandbox.engine.exchange.Exchange` adds one method per endpoint.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from tui.api.models import ApiRole
from tui.sandbox.engine import companies
from tui.sandbox.engine.accepts import Accepts
from tui.sandbox.engine.chain import Chain
from tui.sandbox.engine.clearing import Clearing
from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.engine.market_api import MarketApi
from tui.sandbox.engine.pools import Pools
from tui.sandbox.engine.portfolio import Portfolio
from tui.sandbox.engine.quotes import Quotes
from tui.sandbox.engine.rfqs import Rfqs
from tui.sandbox.engine.risk import Risk
from tui.sandbox.engine.seed import seed_exchange
from tui.sandbox.engine.statements import Statements
from tui.sandbox.engine.store import Store
from tui.sandbox.engine.timers import Timers
from tui.sandbox.engine.transfers import Transfers
from tui.sandbox.engine.views import Views
from tui.sandbox.market.marks import Market

__all__ = ["SNAPSHOT_EVERY_MS", "ApiKey", "Venue"]

log = logging.getLogger(__name__)

SNAPSHOT_EVERY_MS = 30_000
"""How often (sandbox time) `Venue.tick` saves the market's state into the database."""


@dataclass(frozen=True)
class ApiKey:
    """A stored API key, as authentication needs it. The API key string *is* ``key_id``."""

    key_id: str
    company_id: str
    role: ApiRole
    secret: bytes = field(repr=False)


class Venue:
    """The running engine of one sandbox file: its rooms, its clock's timers, its transactions."""

    def __init__(
        self,
        store: Store,
        clock: SandboxClock,
        market: MarketApi,
        *,
        block_delay_s: float = 2.0,
    ) -> None:
        self.store = store
        self.clock = clock
        self.market = market
        self.chain = Chain(store, block_delay_s=block_delay_s)
        self.portfolio = Portfolio(store, market)
        self.risk = Risk(store, self.portfolio)
        self.clearing = Clearing(store, self.chain, self.portfolio, self.risk)
        self.views = Views(
            store, self.chain, self.portfolio, market, reserved=self.risk.reserved_for
        )
        self._statements = Statements(store, self.portfolio, market)
        self._rfqs = Rfqs(store, market, self.portfolio, self.views)
        self._quotes = Quotes(store, market, self.views)
        self._accepts = Accepts(store, market, self.clearing)
        self._pools = Pools(store, self.chain, self.views)
        self._transfers = Transfers(store, self.chain, self.portfolio, self.risk, self.clearing)
        self._timers = Timers(store, self.clearing)
        self._lock = threading.RLock()
        self._next_snapshot_ms = clock.now_ms() + SNAPSHOT_EVERY_MS
        self._closed = False

    # -- lifecycle ----------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        db_path: Path | str,
        *,
        seed: int,
        clock: SandboxClock,
        block_delay_s: float = 2.0,
    ) -> Self:
        """Open (creating, migrating and seeding on first use) the sandbox in ``db_path``.

        The seed is stored on first open; a later open of the same file keeps the stored seed
        whatever ``seed`` says, so ids stay reproducible and never repeat. A trade a former
        version left hanging without a timer is given one (`Timers.rescue`). The market resumes
        from its stored snapshot (or starts from the seed).
        """
        store = Store(db_path)
        try:
            stored_seed = store.meta_get("seed")
            fresh = stored_seed is None
            seed_value = seed if stored_seed is None else int(stored_seed)
            market: Any = None
            snapshot = store.meta_get("market_snapshot")
            if snapshot:
                try:
                    market = Market.restore(json.loads(snapshot), clock)
                except ValueError:
                    log.warning("stored market snapshot unusable; starting the market afresh")
            if market is None:
                market = Market(seed_value, clock)
            venue = cls(store, clock, market, block_delay_s=block_delay_s)
            with store.transaction():
                if fresh:
                    store.meta_set("seed", str(seed_value))
                    store.meta_set("created_ms", str(clock.now_ms()))
                    seed_exchange(store, venue.chain, venue.portfolio, clock.now())
                    venue._save_market()
                else:
                    venue._timers.rescue(clock.now_ms())
            return venue
        except BaseException:
            store.close()
            raise

    def close(self) -> None:
        """Save the market's state and close the database (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                with self.store.transaction():
                    self._save_market()
            finally:
                self.store.close()

    def _save_market(self) -> None:
        self.store.meta_set("market_snapshot", json.dumps(self.market.snapshot()))

    # -- time ---------------------------------------------------------------------------------

    def tick(self) -> None:
        """Apply everything sandbox time has made due (expiries, blocks, deadlines).

        Timers run in due order, each at its own due time (so a big clock jump replays the
        same history as many small ticks would); one that fails is logged and dropped without
        undoing the others. Cheap when nothing is due: one indexed ``MIN(due_ms)`` query (read
        from the file every time, so another `Exchange` over the same store, such as the
        seeded-history player, can add timers this one will run).
        """
        with self._lock:
            now = self.clock.now_ms()
            due = self.store.next_due_ms()
            if (due is None or now < due) and now < self._next_snapshot_ms:
                return
            with self.store.transaction():
                self.portfolio.fresh()
                self._run_timers(now)
                if now >= self._next_snapshot_ms:
                    self._save_market()
                    self._next_snapshot_ms = now + SNAPSHOT_EVERY_MS

    def _run_timers(self, now: int) -> None:
        for _ in range(10_000):
            timers = self.store.due_timers(now)
            if not timers:
                return
            for timer in timers:
                self.store.delete_timer(timer["id"])
                kind, ref, due_ms = timer["kind"], timer["ref"], int(timer["due_ms"])
                try:
                    with self.store.savepoint():
                        if kind == "transfer_confirm":
                            self._confirm_transfer(ref)
                        elif not self._timers.run(kind, ref, due_ms):
                            log.warning("unknown sandbox timer kind %s", kind)
                except Exception:
                    log.exception("sandbox timer %s for %s failed", kind, ref)
                    self._after_failed_timer(kind, ref, due_ms)

    def _confirm_transfer(self, transfer_id: str) -> None:
        """A pending transfer's block (`Transfers.confirm`); a method of its own so that a
        test can make one block fail and see the transfer end ``failed``."""
        self._transfers.confirm(transfer_id)

    def _after_failed_timer(self, kind: str, ref: str, at_ms: int) -> None:
        """End what a failed timer leaves hanging: its trade moves to a final ``rejected_*``
        status (in a fresh savepoint), a pending transfer fails; never silently dropped."""
        try:
            with self.store.savepoint():
                if kind == "transfer_confirm":
                    self._transfers.fail(ref)
                else:
                    self._timers.abandon(kind, ref, at_ms)
        except Exception:
            log.exception("could not end the work of the failed timer %s for %s", kind, ref)

    @contextmanager
    def request_transaction(self) -> Iterator[None]:
        """One transaction around a whole request: the engine call and the rendering of its
        answer (the HTTP layer's unit of work for writes).

        Runs what is due first, in its own commit. The engine's own write transactions nest
        inside as savepoints; the caller decides whether everything commits.
        """
        self.tick()
        with self._lock, self.store.transaction():
            yield

    @contextmanager
    def _write(self) -> Iterator[int]:
        """One write transaction at the current time (after running what is due)."""
        self.tick()
        with self._lock, self.store.transaction():
            self.portfolio.fresh()
            yield self.clock.now_ms()

    def _read(self) -> None:
        self.tick()
        self.portfolio.fresh()

    # -- keys and credentials -----------------------------------------------------------------

    def api_key(self, api_key: str) -> ApiKey | None:
        """The stored key whose API key string is ``api_key`` (the key's id), or None."""
        row = self.store.one(
            "SELECT key_id, company_id, role, secret FROM api_keys WHERE key_id = ?",
            (api_key.strip().lower(),),
        )
        if row is None:
            return None
        return ApiKey(row["key_id"], row["company_id"], ApiRole(row["role"]), bytes(row["secret"]))

    def credentials(self) -> list[dict[str, Any]]:
        """One entry per API key, for the sandbox's credentials file (mode 0600); see
        `tui.sandbox.engine.companies.credentials` for its shape."""
        return companies.credentials(self.store, self.chain)

    def company_id(self, short_name: str) -> str:
        """The id of a company by its short name (tests, demos and simulated actors)."""
        return companies.company_id(self.store, short_name)
