"""The desk's picture of the venue: the latest snapshot of every topic, joined up for the panes.

The feed's snapshots and the actions' outcomes are filed here through one path
(`DeskBook.apply`); panes read from here. The answer to my own action (an accept, a last look,
a quote sent or pulled, an RFQ cancelled, the kill switch) is filed at once, so every pane
that shows the record moves on without waiting for the next poll, which then confirms it.
Nothing in this module touches the network or a widget: it is plain data and the joins a
trader needs (company names, the pool of a quote, which trades wait for *me*, what a permit
must allow).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar

from tui.api.lifecycle import (
    QuoteState,
    clearing_is_booked,
    clearing_is_final,
    clearing_is_rejected,
)
from tui.api.models import (
    RFQ,
    ClearingEvent,
    ClearingStatus,
    Company,
    MakerLastLookResponse,
    MarketStats,
    PortfolioSummary,
    Position,
    Quote,
    QuoteAcceptResponse,
    RFQStatus,
    SettlementPool,
    SupportedAssetDetails,
    Trade,
    Transfer,
)
from tui.desk.answers import PROGRESS, Answers
from tui.desk.clearing import NextStep, Role, TrackedTrade, quote_is_open, track
from tui.desk.messages import (
    ActionKind,
    ActionOutcome,
    AssetsUpdated,
    ClockSynced,
    CompaniesUpdated,
    DepositApproved,
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
    trades: list[Trade] = field(default_factory=list)
    transfers: list[Transfer] = field(default_factory=list)
    positions: list[Position] = field(default_factory=list)
    summary: PortfolioSummary | None = None
    stats: MarketStats | None = None
    assets: dict[str, list[SupportedAssetDetails]] = field(default_factory=dict)
    deposit_hints: dict[str, DepositHint] = field(default_factory=dict)
    filed_rfqs: dict[str, RFQ] = field(default_factory=dict)
    """RFQs the venue took (the answer to a send) that no poll of sent RFQs has listed yet."""
    answers: Answers = field(default_factory=Answers)
    """Records my actions' answers changed, until a poll confirms them."""

    # -- the one way in ---------------------------------------------------------------------

    def apply(self, change: BookChange) -> None:
        """File a feed snapshot or an action's outcome: the only way the book changes.

        An RFQ the venue just took is filed at once, not at the next poll of sent RFQs (after a
        user action the polls may wait a few seconds for the request budget; the venue's own
        answer is as good as a poll for this one record). It is kept until a poll lists it,
        since a poll started before the send would not. The answer to an accept or a last look
        says what the permit must allow; it is kept as the trade's deposit hint. A poll that
        was already on its way when an answer was filed does not show the old state again
        (`tui.desk.answers`): the book keeps the newer of the two, record by record.
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
        elif isinstance(change, QuotesUpdated):
            name = "quotes_sent" if change.direction == "sent" else "quotes_received"
            quotes = {q.parent_quote_id: q for q in change.quotes}
            self.answers.overlay(name, quotes, change.at)
            _refill(getattr(self, name), quotes)
            self._close_booked_rfqs(change.at)
        elif isinstance(change, TradesUpdated):
            self.trades = change.trades
        elif isinstance(change, TransfersUpdated):
            self.transfers = change.transfers
        elif isinstance(change, PositionsUpdated):
            self.positions = change.positions
        elif isinstance(change, PoolsUpdated):
            self.pools = {p.pool_id: p for p in change.pools}
        elif isinstance(change, SummaryUpdated):
            self.summary = change.summary
        elif isinstance(change, StatsUpdated):
            self.stats = change.stats
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
            self._file_outcome(change)
            self._close_booked_rfqs(None)
            after = {name: getattr(self, name) for name in PROGRESS}
            self.answers.remember(before, after, change.at)

    def _file_outcome(self, outcome: ActionOutcome) -> None:
        """What the venue answered to my own action, filed at once (the next poll confirms)."""
        record = outcome.record
        quote_id = outcome.ids.quote_id
        rfq_id = outcome.ids.rfq_id
        kind = outcome.kind
        if isinstance(record, RFQ):
            self.filed_rfqs[record.rfq_id] = record
            self.rfqs_sent[record.rfq_id] = record
        elif isinstance(record, QuoteAcceptResponse) and quote_id is not None:
            pending = record.pending_settlement_pool
            self.deposit_hints[quote_id] = DepositHint(
                amount=record.pending_deposits_sum_qty,
                pool_address=pending.address if pending else None,
            )
            self._move_on(self.quotes_received, quote_id, str(record.new_clearing_status), outcome)
            self._rfq_moves_on(self.rfqs_sent, rfq_id, str(record.new_clearing_status))
        elif isinstance(record, MakerLastLookResponse) and quote_id is not None:
            self.deposit_hints[quote_id] = DepositHint(
                amount=record.pending_deposits_sum_qty,
                pool_address=record.settlement_pool_address,
            )
            self._move_on(self.quotes_sent, quote_id, str(record.new_clearing_status), outcome)
            self._rfq_moves_on(self.rfqs_received, rfq_id, str(record.new_clearing_status))
        elif isinstance(record, DepositApproved):
            self._deposit_approved(record, outcome)
        elif isinstance(record, Quote):
            self.quotes_sent[record.parent_quote_id] = record
            if quote_id is not None:  # the quote it replaced
                self._quote_state(self.quotes_sent, quote_id, QuoteState.REPLACED)
        elif isinstance(record, KillReport):
            if record.quotes_cancelled:
                for quote in list(self.quotes_sent.values()):
                    if _state(quote) in (None, QuoteState.OPEN) and quote.clearing_status is None:
                        self._quote_state(self.quotes_sent, quote.parent_quote_id, "canceled")
            for cancelled in record.rfqs_cancelled:
                self._rfq_status(cancelled, RFQStatus.CANCELED)
        elif kind is ActionKind.CANCEL_QUOTE and quote_id is not None:
            self._quote_state(self.quotes_sent, quote_id, QuoteState.CANCELED)
        elif kind is ActionKind.CANCEL_RFQ and rfq_id is not None:
            self._rfq_status(rfq_id, RFQStatus.CANCELED)

    def _move_on(
        self, store: dict[str, Quote], quote_id: str, status: str, outcome: ActionOutcome
    ) -> None:
        """A quote's trade reached ``status`` (the answer to an accept or a last look)."""
        quote = store.get(quote_id)
        if quote is None:
            return
        when = outcome.at or (
            quote.clearing_events[-1].created_at if quote.clearing_events else None
        )
        events = list(quote.clearing_events)
        if when is not None:
            events.append(
                ClearingEvent(
                    rfq_id=quote.target_rfq_id,
                    parent_quote_id=quote_id,
                    status=status,
                    created_at=when,
                    taker_side=outcome.side
                    or next((e.taker_side for e in events if e.taker_side), None),
                )
            )
        state = QuoteState.FAILED if clearing_is_rejected(status) else QuoteState.ACCEPTED
        if clearing_is_booked(status):
            state = QuoteState.FILLED
        store[quote_id] = quote.model_copy(
            update={"clearing_status": status, "clearing_events": events, "quote_status": state}
        )

    def _deposit_approved(self, approval: DepositApproved, outcome: ActionOutcome) -> None:
        """My permit for a trade's deposit was taken: when it allows what the venue asked, the
        trade moves on as contract.md says (the taker's to the last look, the maker's to the
        atomic deposit); a smaller permit leaves the trade waiting."""
        for store, waiting, then in (
            (
                self.quotes_received,
                ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL,
                ClearingStatus.PENDING_MAKER_LAST_LOOK,
            ),
            (
                self.quotes_sent,
                ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL,
                ClearingStatus.PENDING_ATOMIC_DEPOSIT,
            ),
        ):
            quote = store.get(approval.quote_id)
            if quote is None or quote.clearing_status != waiting:
                continue
            role = Role.TAKER if store is self.quotes_received else Role.MAKER
            needed = self.deposit_hint(track(quote, role, self.rfq(quote.target_rfq_id))).amount
            if needed is None or approval.amount >= needed:
                self._move_on(store, approval.quote_id, then.value, outcome)
                self._rfq_moves_on(
                    self.rfqs_sent if role is Role.TAKER else self.rfqs_received,
                    quote.target_rfq_id,
                    then.value,
                )

    def _close_booked_rfqs(self, at: datetime | None) -> None:
        """A quote booked means its RFQ closed: show it closed now, not at the RFQ poll.

        The venue closes the RFQ in the same step that books the trade, so the quotes poll (or
        an action's answer) is as good a word on it as the RFQ poll. The closing is kept like
        an answer (`tui.desk.answers`): an RFQ poll that started before the booking does not
        show the RFQ open again; the next one confirms it.
        """
        for quotes, rfqs in (
            (self.quotes_received, self.rfqs_sent),
            (self.quotes_sent, self.rfqs_received),
        ):
            before: dict[str, RFQ] = {}
            for quote in quotes.values():
                if not clearing_is_booked(quote.clearing_status):
                    continue
                rfq = rfqs.get(quote.target_rfq_id)
                if rfq is None or (
                    rfq.rfq_status == RFQStatus.CLOSED and clearing_is_booked(rfq.clearing_status)
                ):
                    continue
                before[rfq.rfq_id] = rfq
                rfqs[rfq.rfq_id] = rfq.model_copy(
                    update={
                        "rfq_status": RFQStatus.CLOSED,
                        "clearing_status": quote.clearing_status,
                    }
                )
                if rfqs is self.rfqs_sent:
                    self.filed_rfqs.pop(rfq.rfq_id, None)
            if before and at is not None:
                name = "rfqs_sent" if rfqs is self.rfqs_sent else "rfqs_received"
                after = {rfq_id: rfqs[rfq_id] for rfq_id in before}
                self.answers.remember({name: before}, {name: after}, at)

    def _rfq_moves_on(self, store: dict[str, RFQ], rfq_id: str | None, status: str) -> None:
        rfq = store.get(rfq_id) if rfq_id else None
        if rfq is not None and rfq_id is not None:
            store[rfq_id] = rfq.model_copy(update={"clearing_status": status})

    def _rfq_status(self, rfq_id: str, status: RFQStatus) -> None:
        rfq = self.rfqs_sent.get(rfq_id)
        if rfq is not None:
            self.rfqs_sent[rfq_id] = rfq.model_copy(update={"rfq_status": status})
            self.filed_rfqs.pop(rfq_id, None)

    @staticmethod
    def _quote_state(store: dict[str, Quote], quote_id: str, state: str) -> None:
        quote = store.get(quote_id)
        if quote is not None:
            store[quote_id] = quote.model_copy(update={"quote_status": state})

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


def _state(quote: Quote) -> str | None:
    """The venue's ``quote_status`` of a quote, when it says."""
    state = (quote.model_extra or {}).get("quote_status")
    return state if isinstance(state, str) else None
