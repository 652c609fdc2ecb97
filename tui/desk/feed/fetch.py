"""One poll's fetching: a topic's records from the venue, as the snapshot message that carries them.

The lists that only grow at the end (`INCREMENTAL`) are kept here between polls: a poll skips
their leading records that have settled and asks only from the first one that may still change.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from textual.message import Message

from tui.api.client import ServiceClient
from tui.api.models import MarketStats
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


class Fetcher:
    """Fetches one topic at a time into its snapshot message (see module docs)."""

    def __init__(
        self, client: ServiceClient, clock: Callable[[], datetime], stats: StatsSource | None
    ) -> None:
        self.client = client
        self.clock = clock
        self.stats = stats
        self._listings: dict[Topic, _Listing] = {}

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

    async def fetch(self, topic: Topic) -> Message:
        """Fetch ``topic`` (every page) and wrap it in its snapshot message."""
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
