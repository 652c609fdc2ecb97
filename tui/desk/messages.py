"""App-wide messages: what the feed and the action runner tell the desk.

The feed and the runner never touch widgets; they post one of these dataclass messages to the
app, which files it in the book and hands it to the panes. Snapshot messages (a whole list of
RFQs, trades ...) replace an older queued one of the same kind and direction, so a slow screen
never works through a backlog of stale snapshots. A user action always ends in one
`ActionOutcome`: what the venue returned, or why it did not happen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from textual.message import Message

if TYPE_CHECKING:
    from tui.api.errors import ApiError
    from tui.api.models import (
        RFQ,
        AggregatedPosition,
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
    from tui.api.writes import Outcome

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
    AGGREGATED = "aggregated"
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
class Snapshot(Message):
    """A full snapshot of one topic: a newer one makes an older queued one pointless."""

    at: datetime

    def can_replace(self, message: Message) -> bool:
        """A newer snapshot of the same kind replaces a queued older one."""
        return type(message) is type(self) and getattr(message, "key", None) == getattr(
            self, "key", None
        )


@dataclass
class RfqsUpdated(Snapshot):
    """The RFQs this company sent or received, as of ``at``.

    ``arrived``: received RFQs that are new since the feed's last look (open ones only), for
    the inbox to flash and the desk to ring.
    """

    direction: Direction = "received"
    rfqs: list[RFQ] = field(default_factory=list)
    arrived: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        """Snapshots of the same direction replace each other."""
        return self.direction

    def can_replace(self, message: Message) -> bool:
        """A snapshot that brings new RFQs is never dropped: the news would be lost."""
        return not self.arrived and super().can_replace(message)


@dataclass
class QuotesUpdated(Snapshot):
    """Quotes this company sent (as maker) or received (as taker), with their clearing state."""

    direction: Direction = "sent"
    quotes: list[Quote] = field(default_factory=list)

    @property
    def key(self) -> str:
        """Snapshots of the same direction replace each other."""
        return self.direction


@dataclass
class TradesUpdated(Snapshot):
    """Every trade of the company (all pages)."""

    trades: list[Trade] = field(default_factory=list)


@dataclass
class TransfersUpdated(Snapshot):
    """Every transfer of the company (all pages)."""

    transfers: list[Transfer] = field(default_factory=list)


@dataclass
class PoolsUpdated(Snapshot):
    """The settlement pools the company is a party of."""

    pools: list[SettlementPool] = field(default_factory=list)


@dataclass
class PositionsUpdated(Snapshot):
    """Positions of the company, per pool."""

    positions: list[Position] = field(default_factory=list)


@dataclass
class AggregatedPositionsUpdated(Snapshot):
    """The company's net positions per instrument across pools, as the venue aggregates them
    (mark, uPNL, greeks): what the Positions tab is built from."""

    positions: list[AggregatedPosition] = field(default_factory=list)


@dataclass
class SummaryUpdated(Snapshot):
    """The portfolio summary: balance, uPNL, notional and greeks."""

    summary: PortfolioSummary | None = None


@dataclass
class StatsUpdated(Snapshot):
    """The public market statistics."""

    stats: MarketStats | None = None


@dataclass
class CompaniesUpdated(Snapshot):
    """Every company on the venue (for names and RFQ targets)."""

    companies: list[Company] = field(default_factory=list)


@dataclass
class AssetsUpdated(Snapshot):
    """Supported underlyings, keyed by asset token."""

    assets: dict[str, list[SupportedAssetDetails]] = field(default_factory=dict)


@dataclass
class ClockSynced(Snapshot):
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
    """The link to the venue changed state; ``detail`` says why in words.

    ``recovered``: the link is back after failed polls that the desk has told the user about.
    """

    state: ConnectionState
    detail: str = ""
    recovered: bool = False


@dataclass
class PollFailed(Message):
    """A poll of ``topic`` failed; the data it feeds is now stale.

    ``news``: the first failure of this topic since the user last heard of it (worth a toast);
    later failures of the same streak only keep the stale mark.
    """

    topic: Topic
    error: str
    at: datetime
    news: bool = True


@dataclass(frozen=True)
class PaneAge:
    """How old one pane's data is, and whether that is too old."""

    pane: str
    age_s: float | None
    stale: bool


@dataclass
class FreshnessChanged(Message):
    """Each pane's data age and staleness, and the request tokens in use, as the feed sees them."""

    ages: tuple[PaneAge, ...]
    tokens_used: int

    def can_replace(self, message: Message) -> bool:
        """Only the latest picture matters."""
        return isinstance(message, FreshnessChanged)


class ActionRequest(Message):
    """A pane (or a form) asks for a user action; the app hands it to the role that does it."""


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

    @property
    def words(self) -> str:
        """The kind as a toast title says it: ``accept quote``."""
        return self.value.replace("_", " ")


@dataclass(frozen=True)
class DepositApproved:
    """The venue took my permit for a trade's deposit (it answers only "true"): which trade
    (its quote id) and the amount the permit allows, for the book to move the trade on."""

    quote_id: str
    amount: Decimal


@dataclass(frozen=True)
class RecordIds:
    """The records an action is bound to (never a row position)."""

    rfq_id: str | None = None
    quote_id: str | None = None
    pool_id: str | None = None


@dataclass
class KillReport:
    """What the kill switch managed: quotes pulled, RFQs cancelled, and what failed."""

    quotes_cancelled: bool = False
    rfqs_cancelled: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Everything was cancelled."""
        return self.quotes_cancelled and not self.failures

    def summary(self) -> str:
        """One line for the toast."""
        quotes = "all quotes pulled" if self.quotes_cancelled else "quotes NOT pulled"
        text = f"{quotes}; {len(self.rfqs_cancelled)} RFQ(s) cancelled"
        if self.failures:
            text += f"; failed: {'; '.join(self.failures[:3])}"
        return text


@dataclass
class ActionOutcome(Message):
    """How a user action ended: what the venue returned, or why it did not happen.

    ``record`` is what the venue answered (a quote, an RFQ, an accept's response, a transfer,
    the kill switch's report ...). ``error`` is the venue's refusal, for a form to place next
    to the field it names; ``problem`` says in words why the action failed (also when it never
    reached the venue: no wallet, a file that could not be written). ``refresh`` names the
    polls the action changed and ``money`` that it moved money, so the feed looks again
    early. ``form`` is the screen that asked and waits for this answer, if one does;
    ``crashed`` marks an unexpected failure (already reported as a failed worker). ``at`` is
    when the answer came (venue time) and ``side`` the side an accept took: the book files the
    trade from the answer with them. ``writes`` is every write the action sent and what came of
    it (`tui.api.writes`: landed, not landed, unknown, and how that is known).
    """

    kind: ActionKind
    ids: RecordIds = field(default_factory=RecordIds)
    summary: str = ""
    problem: str = ""
    error: ApiError | None = None
    record: Any = None
    refresh: tuple[Topic, ...] = ()
    money: bool = False
    form: object = None
    crashed: bool = False
    at: datetime | None = None
    side: str | None = None
    writes: tuple[Outcome, ...] = ()

    @property
    def ok(self) -> bool:
        """The action did all it was asked to."""
        return self.error is None and not self.problem

    @property
    def text(self) -> str:
        """The outcome in words: the summary when it worked, else the problem."""
        return self.summary if self.ok else self.problem
