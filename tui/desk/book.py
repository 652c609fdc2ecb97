"""The desk's picture of the venue: the latest snapshot of every topic, joined up for the panes.

The feed's snapshots and the actions' outcomes are filed here through one path
(`DeskBook.apply`); panes read from here. The answer to my own action (an accept, a last look,
a quote sent or pulled, an RFQ cancelled, the kill switch) is filed at once
(`tui.desk.filing`), so every pane that shows the record moves on without waiting for the next
poll, which then confirms it. Each poll of RFQs or quotes also brings the desk's history up to
date (`tui.desk.analytics.store.HistoryLog`, kept in a file across restarts when the book is
given one). Nothing in this module touches the network or a widget: it is plain data and the
joins a trader needs (company names, the pool of a quote, which trades wait for *me*, what a
permit must allow).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from tui.api.lifecycle import clearing_is_final
from tui.desk.analytics.mark_history import MarketHistory
from tui.desk.answers import PROGRESS, Answers
from tui.desk.best_price import BestPrices, best_prices, open_quotes
from tui.desk.clearing import NextStep, Role, TrackedTrade, quote_is_open, track
from tui.desk.filing import close_booked_rfqs, file_outcome
from tui.desk.messages import (
    ActionOutcome,
    AggregatedPositionsUpdated,
    AssetsUpdated,
    ClockSynced,
    CompaniesUpdated,
    KillReport,
    PoolsUpdated,
    PositionsUpdated,
    QuotesUpdated,
    RfqsUpdated,
    Snapshot,
    StatsUpdated,
    SummaryUpdated,
    TradesUpdated,
    TransfersUpdated,
)
from tui.desk.pool_facts import DepositHint, extra_decimal
from tui.desk.trade_legs import TradeLeg, TradeLegs

if TYPE_CHECKING:
    from pathlib import Path

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
    from tui.desk.analytics.store import HistoryLog

BookChange = Snapshot | ActionOutcome
"""Everything the book files: the feed's snapshots and the outcomes of the user's actions."""

Record = TypeVar("Record")


@dataclass
class DeskBook:
    """Latest snapshot of every topic, with the joins the panes need."""

    me: str | None = None
    companies: dict[str, Company] = field(default_factory=dict)
    rfqs_received: dict[str, RFQ] = field(default_factory=dict)
    rfqs_sent: dict[str, RFQ] = field(default_factory=dict)
    quotes_sent: dict[str, Quote] = field(default_factory=dict)
    quotes_received: dict[str, Quote] = field(default_factory=dict)
    pools: dict[str, SettlementPool] = field(default_factory=dict)
    trade_legs: list[TradeLeg] = field(default_factory=list)
    """Every trade leg of the company, light (`tui.desk.trade_legs`): a day may hold 100,000."""
    transfers: list[Transfer] = field(default_factory=list)
    positions: list[Position] = field(default_factory=list)
    aggregated: list[AggregatedPosition] = field(default_factory=list)
    """The venue's net positions per instrument (the aggregated-positions read)."""
    summary: PortfolioSummary | None = None
    stats: MarketStats | None = None
    assets: dict[str, list[SupportedAssetDetails]] = field(default_factory=dict)
    deposit_hints: dict[str, DepositHint] = field(default_factory=dict)
    filed_rfqs: dict[str, RFQ] = field(default_factory=dict)
    """RFQs the venue took (the answer to a send) that no poll of sent RFQs has listed yet."""
    answers: Answers = field(default_factory=Answers)
    """Records my actions' answers changed, until a poll confirms them."""
    market_history: MarketHistory = field(default_factory=MarketHistory)
    """Each listing's marks, funding and quote refreshes over the session (the Market tab's
    sparklines, a listing's detail)."""
    history_path: Path | None = None
    """The file the history is kept in across restarts (JSON lines); None: kept in memory
    only, nothing written."""
    _legs: TradeLegs = field(default_factory=TradeLegs, repr=False)
    _history: HistoryLog | None = field(default=None, init=False, repr=False)

    # -- the one way in ---------------------------------------------------------------------

    def apply(self, change: BookChange) -> None:
        """File a feed snapshot or an action's outcome: the only way the book changes.

        An RFQ the venue just took is filed at once, not at the next poll of sent RFQs (after a
        user action the polls may wait a few seconds for the request budget; the venue's own
        answer is as good as a poll for this one record). It is kept until a poll lists it,
        since a poll started before the send would not. The answer to an accept or a last look
        says what the permit must allow; it is kept as the trade's deposit hint. A poll that
        was already on its way when an answer was filed does not show the old state again
        (`tui.desk.answers`): the book keeps the newer of the two, record by record. A poll of
        RFQs or quotes brings the history up to date.
        """
        if isinstance(change, RfqsUpdated):
            listed = {r.rfq_id: r for r in change.rfqs}
            if change.direction == "received":
                self.answers.overlay("rfqs_received", listed, change.at)
                _refill(self.rfqs_received, listed)
            else:
                for rfq_id in set(listed) & set(self.filed_rfqs):
                    del self.filed_rfqs[rfq_id]
                self.answers.overlay("rfqs_sent", listed, change.at)
                _refill(self.rfqs_sent, {**listed, **self.filed_rfqs})
            self._update_history(change.at)
        elif isinstance(change, QuotesUpdated):
            name = "quotes_sent" if change.direction == "sent" else "quotes_received"
            quotes = {q.parent_quote_id: q for q in change.quotes}
            self.answers.overlay(name, quotes, change.at)
            _refill(getattr(self, name), quotes)
            close_booked_rfqs(self, change.at)
            self._update_history(change.at)
        elif isinstance(change, TradesUpdated):
            self.trade_legs = self._legs.legs(change.trades)
        elif isinstance(change, TransfersUpdated):
            self.transfers = change.transfers
        elif isinstance(change, PositionsUpdated):
            self.positions = change.positions
        elif isinstance(change, AggregatedPositionsUpdated):
            self.aggregated = change.positions
        elif isinstance(change, PoolsUpdated):
            self.pools = {p.pool_id: p for p in change.pools}
        elif isinstance(change, SummaryUpdated):
            self.summary = change.summary
        elif isinstance(change, StatsUpdated):
            self.stats = change.stats
            self.market_history.note(change.stats, change.at)
        elif isinstance(change, CompaniesUpdated):
            self.companies = {c.id: c for c in change.companies}
        elif isinstance(change, AssetsUpdated):
            self.assets = change.assets
        elif isinstance(change, ClockSynced):
            if change.company_id and self.me is None:
                self.me = change.company_id
        elif isinstance(change, ActionOutcome) and (
            change.ok or isinstance(change.record, KillReport)
        ):
            # A kill switch that failed in part still cancelled what it reports.
            before = {name: dict(getattr(self, name)) for name in PROGRESS}
            file_outcome(self, change)
            close_booked_rfqs(self, None)
            after = {name: getattr(self, name) for name in PROGRESS}
            self.answers.remember(before, after, change.at)

    # -- history ----------------------------------------------------------------------------

    @property
    def history(self) -> HistoryLog:
        """Every RFQ sent and received and every quote made or received, with its outcome,
        kept across restarts in `history_path` (opened at first use: the first frame does not
        wait for the file or the analytics)."""
        if self._history is None:
            from tui.desk.analytics.store import HistoryLog

            self._history = HistoryLog(self.history_path)
        return self._history

    def _update_history(self, now: datetime) -> None:
        self.history.update(
            rfqs_sent=self.rfqs_sent,
            rfqs_received=self.rfqs_received,
            quotes_sent=self.quotes_sent.values(),
            quotes_received=self.quotes_received.values(),
            me=self.me,
            now=now,
        )

    @property
    def trades(self) -> list[Trade]:
        """Every trade leg as a `Trade` model, made on demand (an export; panes read the
        light `trade_legs`)."""
        company = self.me or ""
        return [leg.as_trade(company) for leg in self.trade_legs]

    # -- names ------------------------------------------------------------------------------

    def company_name(self, company_id: str | None) -> str:
        """The short name of a company, or the start of its id while names are unknown."""
        if not company_id:
            return "-"
        company = self.companies.get(company_id)
        return company.short_name if company else company_id[:8]

    @property
    def my_company(self) -> Company | None:
        """This desk's own company record, once known."""
        return self.companies.get(self.me) if self.me else None

    def counterparties(self) -> list[Company]:
        """Every company except this one, by short name."""
        return sorted(
            (c for c in self.companies.values() if c.id != self.me), key=lambda c: c.short_name
        )

    # -- pools ------------------------------------------------------------------------------

    def pool_counterparty(self, pool: SettlementPool) -> str | None:
        """The other company of a pool."""
        if pool.data is None:
            return None
        for party in pool.data.parties:
            if party.company != self.me:
                return party.company
        return None

    def pools_with(self, counterparty: str) -> list[SettlementPool]:
        """Open or pending pools shared with ``counterparty``, by name."""
        found = [
            pool
            for pool in self.pools.values()
            if pool.data is not None
            and str(pool.data.status) != "canceled"
            and any(p.company == counterparty for p in pool.data.parties)
        ]
        return sorted(found, key=lambda p: p.data.name if p.data else "")

    def pool_address(self, pool_id: str | None) -> str | None:
        """The on-chain address of a pool, once known."""
        pool = self.pools.get(pool_id) if pool_id else None
        return pool.data.address if pool and pool.data else None

    def pool_name(self, pool_id: str | None) -> str:
        """The name of a pool, or the start of its id."""
        pool = self.pools.get(pool_id) if pool_id else None
        if pool and pool.data:
            return pool.data.name
        return pool_id[:8] if pool_id else "-"

    # -- RFQs and quotes --------------------------------------------------------------------

    def rfq(self, rfq_id: str) -> RFQ | None:
        """An RFQ this company sent or received."""
        return self.rfqs_sent.get(rfq_id) or self.rfqs_received.get(rfq_id)

    def my_quotes_on(self, rfq_id: str) -> list[Quote]:
        """Quotes this company (as maker) sent on an RFQ, newest expiry first."""
        found = [q for q in self.quotes_sent.values() if q.target_rfq_id == rfq_id]
        return sorted(found, key=lambda q: q.expires_at, reverse=True)

    def live_quote_on(self, rfq_id: str, now: datetime) -> Quote | None:
        """This company's open quote on an RFQ, if it has one."""
        for quote in self.my_quotes_on(rfq_id):
            if quote_is_open(quote, now):
                return quote
        return None

    def clearing_on(self, rfq_id: str) -> tuple[str, str | None] | None:
        """My trade on one of my RFQs that is still clearing: its status and maker, or None.

        While one clears, the venue refuses any other accept on the RFQ.
        """
        for quote in self.quotes_received.values():
            status = quote.clearing_status
            if quote.target_rfq_id == rfq_id and status and not clearing_is_final(status):
                return str(status), quote.maker_company
        rfq = self.rfqs_sent.get(rfq_id)
        if rfq is not None and rfq.clearing_status and not clearing_is_final(rfq.clearing_status):
            return str(rfq.clearing_status), None
        return None

    def quotes_on(self, rfq_id: str) -> dict[str, Quote]:
        """Every polled quote on an RFQ, by id: those received on my RFQ, or mine on one I
        was asked to quote (a company never quotes its own RFQ, so one store holds them)."""
        return {
            q.parent_quote_id: q
            for store in (self.quotes_received, self.quotes_sent)
            for q in store.values()
            if q.target_rfq_id == rfq_id
        }

    def best_on(self, rfq: RFQ, now: datetime) -> BestPrices:
        """The best bid and ask open on ``rfq`` now (`open_quotes`, `best_prices`)."""
        return best_prices(open_quotes(rfq, self.quotes_on(rfq.rfq_id), now))

    def live_quotes(self, now: datetime) -> list[Quote]:
        """Every open quote this company has out."""
        return [q for q in self.quotes_sent.values() if quote_is_open(q, now)]

    # -- the clearing path ------------------------------------------------------------------

    def tracked_trades(self) -> list[TrackedTrade]:
        """Every accepted quote (as maker or taker), newest acceptance first."""
        tracked: list[TrackedTrade] = []
        for role, quotes in ((Role.MAKER, self.quotes_sent), (Role.TAKER, self.quotes_received)):
            for quote in quotes.values():
                if quote.clearing_status is None:
                    continue
                tracked.append(track(quote, role, self.rfq(quote.target_rfq_id)))
        tracked.sort(key=lambda t: t.accepted_at or t.quote.expires_at, reverse=True)
        return tracked

    def needs_me(self) -> list[TrackedTrade]:
        """Trades waiting for this company's action, most urgent (earliest deadline) first."""
        waiting = [t for t in self.tracked_trades() if t.next_step is not NextStep.NONE]
        return sorted(waiting, key=lambda t: (t.deadline is None, t.deadline or datetime.max))

    def deposit_hint(self, trade: TrackedTrade) -> DepositHint:
        """Amount and pool address for a trade's permit: from the venue's answers, or the pool.

        The quote as last polled is the freshest word on the amount; the answer to the accept
        or last look comes next. An answer given before the pool existed may say 0 (nothing
        could be sized yet), so the first figure above zero wins.
        """
        hint = self.deposit_hints.get(trade.key, DepositHint())
        extra = trade.quote.model_extra or {}
        said = extra_decimal(extra.get("pending_deposits_sum_qty"))
        known = [a for a in (said, hint.amount) if a is not None]
        amount = next((a for a in known if a > 0), known[0] if known else None)
        address = hint.pool_address or self.pool_address(trade.quote.pool_location)
        return DepositHint(amount=amount, pool_address=address)


def _refill(store: dict[str, Record], records: dict[str, Record]) -> None:
    """Replace a store's records in place (panes hold the store itself)."""
    store.clear()
    store.update(records)
