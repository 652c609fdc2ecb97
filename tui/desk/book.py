"""The desk's picture of the venue: the latest snapshot of every topic, joined up for the panes.

The feed's messages land here (through the app); panes read from here. Nothing in this module
touches the network or Textual: it is plain data and the joins a trader needs (company names,
the pool of a quote, which trades wait for *me*, the clearing path of an accepted quote).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal, InvalidOperation
from enum import StrEnum

from tui.api.lifecycle import clearing_is_rejected
from tui.api.models import (
    RFQ,
    ClearingStatus,
    Company,
    MarketStats,
    PortfolioSummary,
    Position,
    Quote,
    SettlementPool,
    SupportedAssetDetails,
    Trade,
    TradeSide,
    Transfer,
)


class Role(StrEnum):
    """Which side of an accepted quote this company is on."""

    MAKER = "maker"
    TAKER = "taker"


class NextStep(StrEnum):
    """What the user must do for a trade to move on."""

    NONE = "none"
    LAST_LOOK = "last_look"
    APPROVE_DEPOSIT = "approve_deposit"


STEP_ORDER: tuple[ClearingStatus, ...] = (
    ClearingStatus.PENDING_POOL_CREATION,
    ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL,
    ClearingStatus.PENDING_MAKER_LAST_LOOK,
    ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL,
    ClearingStatus.PENDING_ATOMIC_DEPOSIT,
    ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL,
)
"""The clearing path in order; optional steps appear only when the trade went through them."""

STEP_NAMES: dict[str, str] = {
    ClearingStatus.PENDING_POOL_CREATION: "pool",
    ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL: "taker deposit",
    ClearingStatus.PENDING_MAKER_LAST_LOOK: "last look",
    ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL: "maker deposit",
    ClearingStatus.PENDING_ATOMIC_DEPOSIT: "settling",
    ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL: "booked",
}
_ALWAYS = {ClearingStatus.PENDING_MAKER_LAST_LOOK, ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL}


@dataclass(frozen=True)
class Step:
    """One stop on a trade's clearing path: reached (with when), current, or still ahead."""

    name: str
    status: str
    at: datetime | None
    state: str  # "done" | "current" | "ahead" | "failed"


@dataclass
class DepositHint:
    """What a permit must allow for a trade: amount and pool address, when the venue said."""

    amount: Decimal | None = None
    pool_address: str | None = None


@dataclass(frozen=True)
class LegFill:
    """One leg of an accepted quote: how much of it trades and at which leg price."""

    qty: Decimal
    price: Decimal


def gross_notional(legs: Iterable[LegFill | Trade]) -> Decimal:
    """The notional of a trade: the sum over its legs of ``|leg qty x leg price|``.

    Notional is gross, never negative, and counts every leg: a calendar spread bought at a
    small (even negative) structure price still carries the full size of both legs. The
    structure price times the quantity is the *premium* paid or received, not the notional.
    Every pane that shows a notional (tracker, accept confirmation, blotter) uses this.
    """
    return sum((abs(leg.qty * leg.price) for leg in legs), Decimal(0))


def leg_fills(rfq: RFQ, quote: Quote, taker_side: TradeSide) -> tuple[LegFill, ...] | None:
    """Each RFQ leg's quantity and its price when the taker trades ``quote`` on ``taker_side``.

    The taker buying the structure buys its buy legs at the maker's leg ask and sells its sell
    legs at the leg bid; selling the structure is the mirror image. None when the quote does
    not price a leg on the side that trades (or the RFQ's legs are not known).
    """
    per_leg = {leg_quote.target_rfq_leg_id: leg_quote for leg_quote in quote.per_leg_quotes}
    if not rfq.rfq_legs:
        return None
    fills = []
    for leg in rfq.rfq_legs:
        leg_quote = per_leg.get(leg.rfq_leg_id)
        if leg_quote is None:
            return None
        taker_buys_leg = (str(leg.side) == TradeSide.BUY) == (taker_side is TradeSide.BUY)
        price = leg_quote.ask if taker_buys_leg else leg_quote.bid
        if price is None:
            return None
        fills.append(LegFill(leg.qty, price))
    return tuple(fills)


@dataclass(frozen=True)
class TrackedTrade:
    """An accepted quote seen from this company: role, terms, path, and what to do next."""

    quote: Quote
    role: Role
    rfq: RFQ | None
    side: TradeSide | None
    price: Decimal | None
    qty: Decimal | None
    counterparty: str | None
    status: str
    steps: tuple[Step, ...]
    next_step: NextStep
    deadline: datetime | None
    accepted_at: datetime | None
    fills: tuple[LegFill, ...] | None = None
    """Each leg's quantity and price at the taker's side, when every leg's price is known."""

    @property
    def key(self) -> str:
        """A stable key for the row: the quote id."""
        return self.quote.parent_quote_id

    @property
    def notional(self) -> Decimal | None:
        """The gross notional over the legs (`gross_notional`), when every leg is priced."""
        return gross_notional(self.fills) if self.fills is not None else None

    @property
    def premium(self) -> Decimal | None:
        """Structure price times quantity (signed as the structure price), when both are known."""
        if self.price is None or self.qty is None:
            return None
        return self.price * self.qty


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
                tracked.append(self._track(quote, role))
        tracked.sort(key=lambda t: t.accepted_at or t.quote.expires_at, reverse=True)
        return tracked

    def _track(self, quote: Quote, role: Role) -> TrackedTrade:
        rfq = self.rfq(quote.target_rfq_id)
        taker_side = next(
            (e.taker_side for e in quote.clearing_events if e.taker_side is not None), None
        )
        side: TradeSide | None = None
        price: Decimal | None = None
        fills: tuple[LegFill, ...] | None = None
        if taker_side in (TradeSide.BUY, TradeSide.SELL):
            taker = TradeSide(str(taker_side))
            side = taker if role is Role.TAKER else taker.opposite
            price = quote.aggregated_ask if taker is TradeSide.BUY else quote.aggregated_bid
            if rfq is not None:
                fills = leg_fills(rfq, quote, taker)
        counterparty = quote.maker_company if role is Role.TAKER else None
        if counterparty is None and rfq is not None:
            counterparty = rfq.taker_company
        status = str(quote.clearing_status)
        next_step = NextStep.NONE
        deadline: datetime | None = None
        if role is Role.MAKER and status == ClearingStatus.PENDING_MAKER_LAST_LOOK:
            next_step = NextStep.LAST_LOOK
            deadline = quote.expires_at
        elif (role is Role.MAKER and status == ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL) or (
            role is Role.TAKER and status == ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL
        ):
            next_step = NextStep.APPROVE_DEPOSIT
        accepted_at = quote.clearing_events[0].created_at if quote.clearing_events else None
        return TrackedTrade(
            quote=quote,
            role=role,
            rfq=rfq,
            side=side,
            price=price,
            qty=rfq.qty if rfq is not None else None,
            counterparty=counterparty,
            status=status,
            steps=clearing_steps(quote),
            next_step=next_step,
            deadline=deadline,
            accepted_at=accepted_at,
            fills=fills,
        )

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
        said = _decimal(extra.get("pending_deposits_sum_qty"))
        known = [a for a in (said, hint.amount) if a is not None]
        amount = next((a for a in known if a > 0), known[0] if known else None)
        address = hint.pool_address or self.pool_address(trade.quote.pool_location)
        return DepositHint(amount=amount, pool_address=address)


def _decimal(value: object) -> Decimal | None:
    """A decimal from a tolerant record's extra field (None when absent or not a number)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def quote_is_open(quote: Quote, now: datetime) -> bool:
    """Whether a quote can still be accepted.

    The venue may say so in a ``quote_status`` field (the sandbox does); otherwise a quote is
    open while it has no clearing status and has not expired.
    """
    status = (quote.model_extra or {}).get("quote_status")
    if isinstance(status, str):
        return status == "open" and quote.expires_at > now
    return quote.clearing_status is None and quote.expires_at > now


def clearing_steps(quote: Quote) -> tuple[Step, ...]:
    """The clearing path of an accepted quote: each step with when it was reached.

    Optional steps (pool creation, deposits) show only when the trade passed through them;
    the last look and the booking always show, ahead of time if not reached yet. A rejection
    replaces the step it happened at.
    """
    reached: dict[str, datetime | None] = {}
    for event in quote.clearing_events:
        reached.setdefault(str(event.status), event.created_at)
    current = str(quote.clearing_status) if quote.clearing_status is not None else None
    if current is not None and current not in reached:
        reached[current] = None
    steps: list[Step] = []
    rejected = clearing_is_rejected(current)
    current_index = (
        STEP_ORDER.index(ClearingStatus(current))
        if current is not None and current in {s.value for s in STEP_ORDER}
        else None
    )
    for index, status in enumerate(STEP_ORDER):
        name = STEP_NAMES[status]
        if status in reached:
            booked = status == ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL
            state = "current" if status == current and not booked else "done"
            steps.append(Step(name, status, reached[status], state))
        elif status in _ALWAYS and not rejected:
            if current_index is not None and index < current_index:
                continue
            steps.append(Step(name, status, None, "ahead"))
    if rejected and current is not None:
        steps.append(Step("rejected", current, reached.get(current), "failed"))
    return tuple(steps)
