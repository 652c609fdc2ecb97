"""What the desk polls: each topic's endpoint, cost and pace, and which records have settled.

Plain tables and rules the scheduler, the fetcher and the policy read: how often a topic polls
when it is hot or cold, how much one page of it costs, which records mean money has moved, and
which ones can no longer change (so a long day's lists are not fetched again and again).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from tui.api.endpoints import BUDGET_WINDOW_S, endpoint_named
from tui.api.lifecycle import (
    clearing_is_booked,
    clearing_is_final,
    quote_state_is_final,
    rfq_is_final,
    transfer_is_final,
)
from tui.api.models import TransferStatus
from tui.desk.messages import Topic


@dataclass(frozen=True)
class PollSpec:
    """How one topic is polled: which endpoint (for its cost) and how often, hot and cold."""

    topic: Topic
    endpoint: str | None
    hot_s: float
    cold_s: float
    priority: int
    """Lower polls first when several are due at once."""
    urgent: bool = False
    """While hot, polled ahead of everything else due, kicks included: what the trader must
    see within a second (a new RFQ for me)."""
    kick_gap_s: float = 0.0
    """A kick waits until this long after the topic's last poll: a run of bookings refreshes
    a dear topic once, not once per booking."""

    @property
    def cost(self) -> int:
        """Request tokens one page of this poll costs (0: not the trading API)."""
        return endpoint_named(self.endpoint).cost if self.endpoint else 0


MONEY_FOLLOW_UP_S = 4.0
"""After a money-moving action, the second look: a chain block (2 s in the sandbox) and a poll.
Also the kick gap of the dear money topics: a run of bookings refreshes them once per gap."""

SPECS: dict[Topic, PollSpec] = {
    spec.topic: spec
    for spec in (
        PollSpec(Topic.QUOTES_SENT, "quotes_sent", 2.0, 6.0, 0),
        PollSpec(Topic.QUOTES_RECEIVED, "quotes_received", 2.0, 6.0, 0),
        # A maker's business: a new RFQ on screen within a second (a poll every 1.8 s is half
        # the budget; the kicks and the quieter topics make room for it).
        PollSpec(Topic.RFQS_RECEIVED, "rfqs_received", 1.8, 12.0, 0, urgent=True),
        # The board's prices come from the quotes poll; the sent RFQs poll adds only their
        # status and structure price, so it need not be as quick (and costs 10).
        PollSpec(Topic.RFQS_SENT, "rfqs_sent", 20.0, 30.0, 1),
        PollSpec(Topic.STATUS, "status", 5.0, 10.0, 2),
        # Bookings and money actions kick these (`MONEY_TOPICS`): the slow poll is a backstop.
        PollSpec(Topic.SUMMARY, "portfolio_summary", 10.0, 30.0, 3, kick_gap_s=MONEY_FOLLOW_UP_S),
        PollSpec(Topic.POOLS, "settlement_pools", 8.0, 45.0, 3, kick_gap_s=MONEY_FOLLOW_UP_S),
        PollSpec(Topic.TRANSFERS, "transfers", 5.0, 20.0, 4),
        PollSpec(Topic.POSITIONS, "portfolio_positions", 5.0, 20.0, 4),
        # Valued at the mark (10 tokens a page): polled only while the Positions tab is shown.
        PollSpec(
            Topic.AGGREGATED,
            "portfolio_aggregated_positions",
            10.0,
            60.0,
            4,
            kick_gap_s=MONEY_FOLLOW_UP_S,
        ),
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

ROUTINE_SHARE_TOKENS = 40
"""The most the polls that are not urgent spend in one window while an urgent one is hot:
whatever else the trader's writes leave goes to the urgent ones (a new RFQ on screen within a
second wants ~55). The trader's writes shrink it (`PollSchedule.routine_share`)."""

ROUTINE_FLOOR_TOKENS = 10
"""The least the dear routine polls keep however much the trader writes: one per window (the
summary, the pools and my RFQs' status take turns). Never below a poll's cost."""

CHEAP_POLL_TOKENS = 1
"""A poll this cheap (the quotes: a last look due, a clearing step) keeps to no share: it costs
the urgent poll nothing worth saving, and the trader's own trades move on it."""

PAGE_LIMITS: dict[Topic, int] = {
    Topic.TRADES: 10_000,
    Topic.TRANSFERS: 10_000,
    Topic.POSITIONS: 10_000,
    Topic.AGGREGATED: 10_000,
    Topic.COMPANIES: 10_000,
}
"""Big pages for the list endpoints, charged per page: one page, one charge."""

QUIET_AFTER_EXPIRY = timedelta(minutes=2)
"""An unaccepted quote this long past its expiry will not change any more."""

HOT_ONLY: frozenset[Topic] = frozenset({Topic.AGGREGATED})
"""Topics polled only while hot (their tab on screen): one pane reads them and they are dear
(the aggregated positions cost 10 tokens), so a tab never opened costs nothing. A kick while
cold waits until the tab shows; a tab that turns them hot polls them at once."""

MONEY_TOPICS: tuple[Topic, ...] = (Topic.SUMMARY, Topic.POOLS, Topic.POSITIONS, Topic.AGGREGATED)
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


def stale_after(spec: PollSpec, hot: bool) -> float:
    """Seconds after which a topic's data counts as stale: three missed polls, and never less
    than one budget window (a poll may rightly wait that long for tokens behind the trader's
    own actions), plus slack."""
    return max(3 * (spec.hot_s if hot else spec.cold_s), BUDGET_WINDOW_S) + 2.0


BACKOFF_CAP_S = 30.0
"""The longest a failing topic waits between polls: the venue is asked at least this often."""


def backoff_s(interval_s: float, failures: int) -> float:
    """Seconds before the next poll of a topic whose last ``failures`` polls failed in a row.

    The interval doubles with each failure, up to `BACKOFF_CAP_S` (never below the interval
    itself): a venue that is down or refusing is not hammered, and one that answers again is
    found within the cap by every topic, at once by all of them once one poll gets through.
    """
    if failures <= 0:
        return interval_s
    return max(interval_s, min(interval_s * 2 ** min(failures, 16), BACKOFF_CAP_S))
