"""One poll's fetching: a topic's records from the venue, as the snapshot message that carries them.

The lists that only grow at the end (`INCREMENTAL`) are kept here between polls: a poll skips
their leading records that have settled and asks only from the first one that may still change.

A poll whose records are those its topic's last snapshot carried gives `Unchanged`, not a
snapshot: the desk has nothing to file and nothing to draw (most polls of a quiet desk are these,
and a snapshot redraws every pane that shows its topic). Records are compared by value, so a
record the venue lists again as it was is not news. One rule keeps the book honest: a snapshot is
sent again, changed or not, once `RESEND_AFTER` has passed since its topic's last one, so an
answer that no poll confirmed (`tui.desk.answers`) gives way to the venue's word as it did when
every poll was sent.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, Protocol

from textual.message import Message

from tui.api.client import ServiceClient
from tui.api.models import MarketStats
from tui.desk.answers import ANSWER_KEPT
from tui.desk.feed.topics import INCREMENTAL, PAGE_LIMITS, record_is_final
from tui.desk.messages import (
    AggregatedPositionsUpdated,
    AssetsUpdated,
    ClockSynced,
    CompaniesUpdated,
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

RESEND_AFTER = ANSWER_KEPT
"""A topic's snapshot is sent at least this often on the venue's clock, changed or not: the
book lays an unconfirmed answer over the polls for `ANSWER_KEPT` at most."""


@dataclass(frozen=True, slots=True)
class Unchanged:
    """A poll of ``topic`` found the records its last snapshot carried: nothing to file or draw.

    Not a message: the feed posts nothing for it (it only notes that the poll was made).
    """

    topic: Topic


class StatsSource(Protocol):
    """Anything that fetches the public market statistics."""

    async def stats(self) -> MarketStats:
        """One statistics record."""
        ...


@dataclass
class _Listing:
    """The records of one incremental topic and how many leading ones are final."""

    records: list[Any] = field(default_factory=list)
    final_prefix: int = 0


@dataclass
class _Sent:
    """What a topic's last snapshot carried, and when (the venue's clock) it was made."""

    records: Any
    at: datetime


class Fetcher:
    """Fetches one topic at a time into its snapshot message (see module docs)."""

    def __init__(
        self, client: ServiceClient, clock: Callable[[], datetime], stats: StatsSource | None
    ) -> None:
        self.client = client
        self.clock = clock
        self.stats = stats
        self._listings: dict[Topic, _Listing] = {}
        self._sent: dict[Topic, _Sent] = {}

    def records(self, topic: Topic) -> list[Any]:
        """The records of an incremental topic as last fetched (empty before the first poll)."""
        listing = self._listings.get(topic)
        return listing.records if listing is not None else []

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

    async def fetch(self, topic: Topic) -> Message | Unchanged:
        """Fetch ``topic`` (every page) and wrap it in its snapshot message, or `Unchanged`
        when it carries what the topic's last snapshot did (see module docs)."""
        message = await self._snapshot(topic)
        if topic is Topic.STATUS:
            return message  # the latency and the clock offset move with every call
        records = _payload(message)
        now = self.clock()
        sent = self._sent.get(topic)
        if sent is not None and now - sent.at < RESEND_AFTER and records == sent.records:
            return Unchanged(topic)
        self._sent[topic] = _Sent(records, now)
        return message

    async def _snapshot(self, topic: Topic) -> Message:
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
        if topic is Topic.AGGREGATED:
            valued = await self._all(client.portfolio_aggregated_positions, topic)
            return AggregatedPositionsUpdated(self.clock(), valued)
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


def _payload(message: Message) -> tuple[Any, ...]:
    """What a snapshot carries from the venue (its records, or its one record), not when."""
    return tuple(getattr(message, f.name) for f in fields(message) if f.name != "at")  # type: ignore[arg-type]
