"""App-wide messages: what the feed and the action workers tell the desk.

The feed and the workers never touch widgets; they post one of these dataclass messages to the
app, and the app hands the data to the panes. Snapshot messages (a whole list of RFQs, trades ...)
replace an older queued one of the same kind and direction, so a slow screen never works through
a backlog of stale snapshots.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any, Literal

from textual.message import Message

from tui.api.models import (
    RFQ,
    Company,
    MarketStats,
    PortfolioSummary,
    Position,
    Quote,
    SettlementPool,
    SupportedAssetDetails,
    Trade,
    Transfer,
)

Direction = Literal["sent", "received"]
"""Whether a record list is what this company sent or what it received."""


class Topic(StrEnum):
    """One polled data set; also the unit of freshness shown in the status bar."""

    RFQS_RECEIVED = "rfqs_received"
    RFQS_SENT = "rfqs_sent"
    QUOTES_SENT = "quotes_sent"
    QUOTES_RECEIVED = "quotes_received"
    TRADES = "trades"
    TRANSFERS = "transfers"
    POOLS = "pools"
    POSITIONS = "positions"
    SUMMARY = "summary"
    STATUS = "status"
    STATS = "stats"
    COMPANIES = "companies"
    ASSETS = "assets"


class ConnectionState(StrEnum):
    """How the desk's link to the venue looks from here."""

    CONNECTING = "connecting"
    CONNECTED = "connected"
    DEGRADED = "degraded"
    DISCONNECTED = "disconnected"


@dataclass
class _Snapshot(Message):
    """A full snapshot of one topic: a newer one makes an older queued one pointless."""

    at: datetime

    def can_replace(self, message: Message) -> bool:
        """A newer snapshot of the same kind replaces a queued older one."""
        return type(message) is type(self) and getattr(message, "key", None) == getattr(
            self, "key", None
        )


@dataclass
class RfqsUpdated(_Snapshot):
    """The RFQs this company sent or received, as of ``at``."""

    direction: Direction = "received"
    rfqs: list[RFQ] = field(default_factory=list)

    @property
    def key(self) -> str:
        """Snapshots of the same direction replace each other."""
        return self.direction


@dataclass
class QuotesUpdated(_Snapshot):
    """Quotes this company sent (as maker) or received (as taker), with their clearing state."""

    direction: Direction = "sent"
    quotes: list[Quote] = field(default_factory=list)

    @property
    def key(self) -> str:
        """Snapshots of the same direction replace each other."""
        return self.direction


@dataclass
class TradesUpdated(_Snapshot):
    """Every trade of the company (all pages)."""

    trades: list[Trade] = field(default_factory=list)


@dataclass
class TransfersUpdated(_Snapshot):
    """Every transfer of the company (all pages)."""

    transfers: list[Transfer] = field(default_factory=list)


@dataclass
class PoolsUpdated(_Snapshot):
    """The settlement pools the company is a party of."""

    pools: list[SettlementPool] = field(default_factory=list)


@dataclass
class PositionsUpdated(_Snapshot):
    """Positions of the company, per pool."""

    positions: list[Position] = field(default_factory=list)


@dataclass
class SummaryUpdated(_Snapshot):
    """The portfolio summary: balance, uPNL, notional and greeks."""

    summary: PortfolioSummary | None = None


@dataclass
class StatsUpdated(_Snapshot):
    """The public market statistics."""

    stats: MarketStats | None = None


@dataclass
class CompaniesUpdated(_Snapshot):
    """Every company on the venue (for names and RFQ targets)."""

    companies: list[Company] = field(default_factory=list)


@dataclass
class AssetsUpdated(_Snapshot):
    """Supported underlyings, keyed by asset token."""

    assets: dict[str, list[SupportedAssetDetails]] = field(default_factory=dict)


@dataclass
class ClockSynced(_Snapshot):
    """A status round trip: how long it took and how far the server clock is from ours."""

    latency_ms: int = 0
    offset_ms: int = 0
    company_id: str | None = None


@dataclass
class BudgetChanged(Message):
    """Request tokens in use in the current window, and the last call's latency and offset."""

    used: int
    total: int
    latency_ms: int | None = None
    offset_ms: int | None = None

    def can_replace(self, message: Message) -> bool:
        """Only the latest count matters."""
        return isinstance(message, BudgetChanged)


@dataclass
class ConnectionChanged(Message):
    """The link to the venue changed state; ``detail`` says why in words."""

    state: ConnectionState
    detail: str = ""


@dataclass
class PollFailed(Message):
    """A poll of ``topic`` failed; the data it feeds is now stale."""

    topic: Topic
    error: str
    at: datetime


class ActionKind(StrEnum):
    """User actions that go to the venue."""

    NEW_RFQ = "new_rfq"
    CANCEL_RFQ = "cancel_rfq"
    NEW_QUOTE = "new_quote"
    REPLACE_QUOTE = "replace_quote"
    CANCEL_QUOTE = "cancel_quote"
    ACCEPT_QUOTE = "accept_quote"
    LAST_LOOK = "last_look"
    APPROVE_DEPOSIT = "approve_deposit"
    DEPOSIT = "deposit"
    WITHDRAW = "withdraw"
    NEW_POOL = "new_pool"
    KILL_SWITCH = "kill_switch"
    EXPORT = "export"


@dataclass
class ActionFinished(Message):
    """A user action came back: ``ok`` with a short ``summary``, or the error in words.

    ``field_errors`` maps a form field to its message when the venue (or local validation)
    refused a value, so the form can show it next to the field. ``result`` carries the record
    the venue returned, when there is one.
    """

    kind: ActionKind
    ok: bool
    summary: str
    field_errors: dict[str, str] = field(default_factory=dict)
    result: Any = None


@dataclass
class DepositNeeded(Message):
    """A trade waits for this company's permit: ``amount`` USDC for the pool at ``address``."""

    rfq_id: str
    parent_quote_id: str
    amount: Decimal | None
    pool_address: str | None
