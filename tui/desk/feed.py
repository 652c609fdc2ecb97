"""The live data engine: one scheduler polls the venue through the shared client and budget.

What the user looks at, and what waits for the user's action, is *hot* and polls fastest; the
rest polls slower. Every poll first asks the shared `TokenBudget` whether its cost fits while
leaving `DESK_RESERVE_TOKENS` free, so the user's own actions (a quote, an accept, the kill
switch) never wait behind background polling. When the most urgent due poll does not fit, the
scheduler waits for it rather than letting cheaper polls starve it.

Results leave as messages (`tui.desk.messages`) through ``post``; a failure becomes a `PollFailed`
(the pane is marked stale, the app shows a toast) and never an exception. A topic never has two
polls in flight. In tests the scheduler need not run at all: ``await feed.refresh(...)`` and
``await feed.refresh_all()`` poll on demand, deterministically.

Money moves show at once: when a poll sees a trade booked into its pool (a quote reaching
``success_trades_booked_into_pool``, a new trade leg) or a transfer confirmed, the portfolio
summary, pools and positions (`MONEY_TOPICS`) are kicked instead of waiting for their slow
poll; a user action that moves money schedules them a few seconds later, when the chain has
confirmed it (`Feed.kick_money`). Kicked polls go ahead of routine ones but obey the same
budget: they too leave the reserve.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from textual.message import Message

from tui.api.budget import DESK_RESERVE_TOKENS, TokenBudget
from tui.api.client import ServiceClient
from tui.api.endpoints import BUDGET_TOKENS, endpoint_named
from tui.api.errors import ApiError, AuthError, ConnectionLost
from tui.api.lifecycle import (
    clearing_is_booked,
    clearing_is_final,
    quote_state_is_final,
    rfq_is_final,
    transfer_is_final,
)
from tui.api.models import MarketStats, TransferStatus
from tui.desk.messages import (
    AssetsUpdated,
    BudgetChanged,
    ClockSynced,
    CompaniesUpdated,
    ConnectionChanged,
    ConnectionState,
    PollFailed,
    PoolsUpdated,
    PositionsUpdated,
    QuotesUpdated,
    RfqsUpdated,
    StatsUpdated,
    SummaryUpdated,
    Topic,
    TradesUpdated,
    TransfersUpdated,
)

_log = logging.getLogger(__name__)


class StatsSource(Protocol):
    """Anything that fetches the public market statistics."""

    async def stats(self) -> MarketStats:
        """One statistics record."""
        ...


@dataclass(frozen=True)
class PollSpec:
    """How one topic is polled: which endpoint (for its cost) and how often, hot and cold."""

    topic: Topic
    endpoint: str | None
    hot_s: float
    cold_s: float
    priority: int
    """Lower polls first when several are due at once."""

    @property
    def cost(self) -> int:
        """Request tokens one page of this poll costs (0: not the trading API)."""
        return endpoint_named(self.endpoint).cost if self.endpoint else 0


SPECS: dict[Topic, PollSpec] = {
    spec.topic: spec
    for spec in (
        PollSpec(Topic.QUOTES_SENT, "quotes_sent", 2.0, 6.0, 0),
        PollSpec(Topic.QUOTES_RECEIVED, "quotes_received", 2.0, 6.0, 0),
        PollSpec(Topic.RFQS_RECEIVED, "rfqs_received", 5.0, 12.0, 1),
        # The board's prices come from the quotes poll; the sent RFQs poll adds only their
        # status and structure price, so it need not be as quick (and costs 10).
        PollSpec(Topic.RFQS_SENT, "rfqs_sent", 8.0, 20.0, 1),
        PollSpec(Topic.STATUS, "status", 5.0, 10.0, 2),
        # Bookings and money actions kick these (`MONEY_TOPICS`): the slow poll is a backstop.
        PollSpec(Topic.SUMMARY, "portfolio_summary", 10.0, 30.0, 3),
        PollSpec(Topic.POOLS, "settlement_pools", 8.0, 45.0, 3),
        PollSpec(Topic.TRANSFERS, "transfers", 5.0, 20.0, 4),
        PollSpec(Topic.POSITIONS, "portfolio_positions", 5.0, 20.0, 4),
        PollSpec(Topic.TRADES, "portfolio_trades", 5.0, 20.0, 4),
        PollSpec(Topic.STATS, None, 15.0, 30.0, 5),
        PollSpec(Topic.COMPANIES, "companies", 120.0, 300.0, 0),
        PollSpec(Topic.ASSETS, "supported_assets", 300.0, 600.0, 2),
    )
}
"""Every topic the desk polls.

On the busiest view (the Trade tab, an RFQ of mine open, a trade in clearing) the steady
schedule asks for about 50 tokens per 10 s window, under the 60 the polls may use: a write
(20 tokens) then delays the next polls by a second or so, not by a whole window.
"""

PAGE_LIMITS: dict[Topic, int] = {
    Topic.TRADES: 10_000,
    Topic.TRANSFERS: 10_000,
    Topic.POSITIONS: 10_000,
    Topic.COMPANIES: 10_000,
}
"""Big pages for the cheap (1 token) list endpoints: one page, one token."""

MONEY_FOLLOW_UP_S = 4.0
"""After a money-moving action, the second look: a chain block (2 s in the sandbox) and a poll."""
QUIET_AFTER_EXPIRY = timedelta(minutes=2)
"""An unaccepted quote this long past its expiry will not change any more."""

MONEY_TOPICS: tuple[Topic, ...] = (Topic.SUMMARY, Topic.POOLS, Topic.POSITIONS)
"""What a booked trade, a confirmed transfer or a money-moving action changes."""


def money_moved(topic: Topic, records: list[Any]) -> dict[str, str] | None:
    """The records of ``topic`` that mean money has moved, id -> the quote they belong to.

    A quote booked into its pool, a trade leg (trades are listed once booked), a transfer
    confirmed on chain. None: not a topic that shows money moving.
    """
    if topic in (Topic.QUOTES_SENT, Topic.QUOTES_RECEIVED):
        return {
            q.parent_quote_id: q.parent_quote_id
            for q in records
            if clearing_is_booked(q.clearing_status)
        }
    if topic is Topic.TRADES:
        return {trade.id: trade.source_quote for trade in records}
    if topic is Topic.TRANSFERS:
        return {
            transfer.id: transfer.parent_quote_id or ""
            for transfer in records
            if str(transfer.status) == TransferStatus.CONFIRMED
        }
    return None


def record_is_final(topic: Topic, record: Any, now: datetime) -> bool:
    """Whether a listed record can no longer change (so later polls may skip it)."""
    if topic in (Topic.RFQS_RECEIVED, Topic.RFQS_SENT):
        return rfq_is_final(record.rfq_status, record.clearing_status)
    if topic in (Topic.QUOTES_SENT, Topic.QUOTES_RECEIVED):
        if record.clearing_status is not None:
            return clearing_is_final(record.clearing_status)
        quote_status = (record.model_extra or {}).get("quote_status")
        if isinstance(quote_status, str):
            return quote_state_is_final(quote_status)
        return bool(record.expires_at + QUIET_AFTER_EXPIRY < now)
    if topic is Topic.TRADES:
        return clearing_is_final(record.status)
    if topic is Topic.TRANSFERS:
        return transfer_is_final(record.status)
    return False


INCREMENTAL: frozenset[Topic] = frozenset(
    {
        Topic.RFQS_RECEIVED,
        Topic.RFQS_SENT,
        Topic.QUOTES_SENT,
        Topic.QUOTES_RECEIVED,
        Topic.TRADES,
        Topic.TRANSFERS,
    }
)
"""Lists that only grow at the end (the venue pages oldest first) and whose old records settle.

A poll of these skips the leading records already final and asks only from the first one that
may still change, so a long day of RFQs and quotes does not make every poll (and every token
charged per page) grow with it.
"""


@dataclass
class _Listing:
    """The records of one incremental topic and how many leading ones are final."""

    records: list[Any] = field(default_factory=list)
    final_prefix: int = 0


def stale_after(spec: PollSpec, hot: bool) -> float:
    """Seconds after which a topic's data counts as stale: three missed polls, plus slack."""
    return 3 * (spec.hot_s if hot else spec.cold_s) + 2.0


class Feed:
    """The desk's one scheduler of polls (see module docs)."""

    def __init__(
        self,
        client: ServiceClient,
        post: Callable[[Message], Any],
        *,
        clock: Callable[[], datetime],
        stats: StatsSource | None = None,
        keep_free: int = DESK_RESERVE_TOKENS,
        monotonic: Callable[[], float] = time.monotonic,
        tick_s: float = 0.25,
    ) -> None:
        self.client = client
        self.budget: TokenBudget = client.budget
        self.post = post
        self.clock = clock
        self.stats = stats
        self.keep_free = keep_free
        self.monotonic = monotonic
        self.tick_s = tick_s
        self.hot: set[Topic] = set()
        self.last_ok: dict[Topic, datetime] = {}
        self.failing: dict[Topic, str] = {}
        self.connection = ConnectionState.CONNECTING
        self._last_run: dict[Topic, float] = {}
        self._kicked: set[Topic] = set()
        self._kick_at: dict[Topic, float] = {}
        self._moved: dict[Topic, set[str]] = {}
        self._booked: set[str] = set()
        self._inflight: set[Topic] = set()
        self._pending: dict[Topic, int] = {}
        self._listings: dict[Topic, _Listing] = {}
        self._tasks: set[asyncio.Task[bool]] = set()
        self._stopped = asyncio.Event()
        self.topics: tuple[Topic, ...] = tuple(
            t for t in SPECS if t is not Topic.STATS or stats is not None
        )

    # -- steering ---------------------------------------------------------------------------

    def set_hot(self, topics: Iterable[Topic]) -> None:
        """Poll these topics fast from now on; a topic that just turned hot polls at once."""
        new = set(topics)
        for topic in new - self.hot:
            self._kicked.add(topic)
        self.hot = new

    def kick(self, *topics: Topic, after_s: float = 0.0) -> None:
        """Poll these topics as soon as the budget allows (after a user action changed them).

        With ``after_s``, not now but that many seconds from now (sooner if already due
        sooner): for what the venue finishes a little later, like a deposit confirming on
        chain a block after it was sent.
        """
        if after_s <= 0:
            self._kicked.update(topics)
            return
        at = self.monotonic() + after_s
        for topic in topics:
            self._kick_at[topic] = min(at, self._kick_at.get(topic, at))

    def kick_money(self) -> None:
        """Money moves (an accept, a permit, a deposit, a withdrawal): refresh the summary,
        pools and positions once the chain has had time to confirm it.

        Not at once: right after the action the venue has only started (a transfer is
        pending, a trade is clearing), and the action itself just spent the budget the polls
        would need. A booking or a confirmation seen earlier kicks them sooner anyway.
        """
        self.kick(*MONEY_TOPICS, Topic.TRANSFERS, after_s=MONEY_FOLLOW_UP_S)

    def interval(self, topic: Topic) -> float:
        """Seconds between polls of ``topic`` right now."""
        spec = SPECS[topic]
        return spec.hot_s if topic in self.hot else spec.cold_s

    def is_stale(self, topic: Topic, now: datetime) -> bool:
        """Whether a topic's data is older than it should be (or failed, or never came)."""
        if topic in self.failing:
            return True
        last = self.last_ok.get(topic)
        if last is None:
            return True
        return (now - last).total_seconds() > stale_after(SPECS[topic], topic in self.hot)

    # -- the schedule -----------------------------------------------------------------------

    def due(self) -> list[Topic]:
        """Topics whose interval has passed (or that were kicked), most urgent first.

        Kicked topics come first: something the user did, or a booking, changed them, and
        the routine polls can wait the second it takes.
        """
        now = self.monotonic()
        for topic, at in list(self._kick_at.items()):
            if at <= now:
                del self._kick_at[topic]
                self._kicked.add(topic)
        waiting: list[tuple[bool, int, float, Topic]] = []
        for topic in self.topics:
            if topic in self._inflight:
                continue
            last = self._last_run.get(topic)
            interval = self.interval(topic)
            if topic in self._kicked or last is None:
                overdue = float("inf")
            elif now - last >= interval:
                overdue = (now - last) / interval
            else:
                continue
            kicked = topic in self._kicked
            waiting.append((not kicked, SPECS[topic].priority, -overdue, topic))
        waiting.sort()
        return [topic for *_, topic in waiting]

    def fits(self, topic: Topic) -> bool:
        """Whether a poll of ``topic`` may spend its cost now and leave the reserve free.

        Polls started but still in flight count as spent: the client charges the budget only
        when a poll's request goes out, so several polls started in one tick must not each
        see the same free tokens.
        """
        cost = SPECS[topic].cost
        if cost == 0:
            return True
        need = cost + sum(self._pending.values())
        if need + self.keep_free > self.budget.tokens:
            return False
        return self.budget.wait_time(need, self.keep_free) <= 0

    def tick(self) -> list[Topic]:
        """Start every due poll that fits the budget; stop at the first that does not."""
        started = []
        for topic in self.due():
            if not self.fits(topic):
                break
            self._start(topic)
            started.append(topic)
        return started

    def _start(self, topic: Topic) -> None:
        self._pending[topic] = SPECS[topic].cost
        self._kicked.discard(topic)
        self._last_run[topic] = self.monotonic()
        task = asyncio.ensure_future(self.poll(topic))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def run(self) -> None:
        """Poll forever (until `stop`): the desk's background schedule."""
        self._stopped.clear()
        while not self._stopped.is_set():
            self.tick()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopped.wait(), timeout=self.tick_s)

    async def idle(self) -> None:
        """Wait until no poll started by the scheduler is in flight."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def stop(self) -> None:
        """Stop scheduling and cancel polls in flight."""
        self._stopped.set()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    # -- on demand --------------------------------------------------------------------------

    async def refresh(self, *topics: Topic) -> None:
        """Poll these topics now, one after the other.

        An on-demand refresh is the user's (or a test's) own request: it waits for budget like
        a user action does (inside the client), without the polls' reserve.
        """
        for topic in topics:
            if topic not in self.topics:
                continue
            self._kicked.discard(topic)
            self._last_run[topic] = self.monotonic()
            await self.poll(topic)

    async def refresh_all(self) -> None:
        """Poll every topic once (start-up, tests, the refresh key)."""
        await self.refresh(*sorted(self.topics, key=lambda t: SPECS[t].priority))

    # -- one poll ---------------------------------------------------------------------------

    async def poll(self, topic: Topic) -> bool:
        """Fetch one topic and post its message; False when it failed or was already running."""
        if topic in self._inflight:
            return False
        self._inflight.add(topic)
        try:
            message = await self._fetch(topic)
        except asyncio.CancelledError:
            raise
        except ApiError as error:
            self._failed(topic, error)
            return False
        except Exception as error:  # a bug in a fetcher must not kill the desk
            _log.exception("poll of %s failed", topic)
            self._failed(topic, error)
            return False
        finally:
            self._inflight.discard(topic)
            self._pending.pop(topic, None)
            self.post(BudgetChanged(self.budget.used(), BUDGET_TOKENS))
        self.failing.pop(topic, None)
        self.last_ok[topic] = self.clock()
        self._set_connection(ConnectionState.CONNECTED, "")
        self._watch_money(topic)
        self.post(message)
        return True

    def _watch_money(self, topic: Topic) -> None:
        """Kick the money topics when this poll shows money moved since the last one.

        A booking seen on a quote also kicks the trades and transfers it made; when those
        polls then show its legs and deposits, the booking has already been acted on.
        """
        listing = self._listings.get(topic)
        if listing is None:
            return
        moved = money_moved(topic, listing.records)
        if moved is None:
            return
        before = self._moved.get(topic)
        self._moved[topic] = set(moved)
        # The first poll only learns what is there: nothing has moved *since*.
        fresh = set(moved) - before if before is not None else set()
        if topic in (Topic.QUOTES_SENT, Topic.QUOTES_RECEIVED):
            self._booked.update(moved.values())
            if fresh:
                self.kick(*MONEY_TOPICS, Topic.TRADES, Topic.TRANSFERS)
        elif any(moved[record] not in self._booked for record in fresh):
            self.kick(*MONEY_TOPICS)

    def _failed(self, topic: Topic, error: Exception) -> None:
        text = str(error) or type(error).__name__
        self.failing[topic] = text
        self.post(PollFailed(topic, text, self.clock()))
        if isinstance(error, AuthError):
            self._set_connection(ConnectionState.DISCONNECTED, "the venue refused the API key")
        elif isinstance(error, ConnectionLost):
            self._set_connection(ConnectionState.DISCONNECTED, "no answer from the venue")
        else:
            self._set_connection(ConnectionState.DEGRADED, text)

    def _set_connection(self, state: ConnectionState, detail: str) -> None:
        if state is self.connection:
            return
        self.connection = state
        self.post(ConnectionChanged(state, detail))

    async def _all(self, method: Callable[..., Awaitable[Any]], topic: Topic) -> list[Any]:
        limit = PAGE_LIMITS.get(topic)
        filters: dict[str, Any] = {"limit": limit} if limit else {}
        if topic not in INCREMENTAL:
            return [record async for record in self.client.iterate(method, **filters)]
        listing = self._listings.setdefault(topic, _Listing())
        start = listing.final_prefix
        if start:
            filters["offset"] = start
        fresh = [record async for record in self.client.iterate(method, **filters)]
        records = listing.records[:start] + fresh
        now = self.clock()
        prefix = start
        while prefix < len(records) and record_is_final(topic, records[prefix], now):
            prefix += 1
        listing.records = records
        listing.final_prefix = prefix
        return records

    async def _fetch(self, topic: Topic) -> Message:
        client = self.client
        if topic is Topic.RFQS_RECEIVED:
            rfqs = await self._all(client.rfqs_received, topic)
            return RfqsUpdated(self.clock(), "received", rfqs)
        if topic is Topic.RFQS_SENT:
            rfqs = await self._all(client.rfqs_sent, topic)
            return RfqsUpdated(self.clock(), "sent", rfqs)
        if topic is Topic.QUOTES_SENT:
            quotes = await self._all(client.quotes_sent, topic)
            return QuotesUpdated(self.clock(), "sent", quotes)
        if topic is Topic.QUOTES_RECEIVED:
            quotes = await self._all(client.quotes_received, topic)
            return QuotesUpdated(self.clock(), "received", quotes)
        if topic is Topic.TRADES:
            return TradesUpdated(self.clock(), await self._all(client.portfolio_trades, topic))
        if topic is Topic.TRANSFERS:
            return TransfersUpdated(self.clock(), await self._all(client.transfers, topic))
        if topic is Topic.POSITIONS:
            positions = await self._all(client.portfolio_positions, topic)
            return PositionsUpdated(self.clock(), positions)
        if topic is Topic.POOLS:
            return PoolsUpdated(self.clock(), await self._all(client.settlement_pools, topic))
        if topic is Topic.SUMMARY:
            return SummaryUpdated(self.clock(), await client.portfolio_summary())
        if topic is Topic.COMPANIES:
            return CompaniesUpdated(self.clock(), await self._all(client.companies, topic))
        if topic is Topic.ASSETS:
            return AssetsUpdated(self.clock(), await client.supported_assets())
        if topic is Topic.STATS:
            assert self.stats is not None
            return StatsUpdated(self.clock(), await self.stats.stats())
        if topic is Topic.STATUS:
            started = time.perf_counter()
            status = await client.status()
            latency = round((time.perf_counter() - started) * 1000)
            company = status.auth.company_id if status.auth else None
            return ClockSynced(self.clock(), latency, client.clock_offset_ms, company)
        raise ValueError(f"unknown topic {topic}")
