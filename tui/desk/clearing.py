"""Accepted quotes seen from this company: the clearing path, the legs' fills, the notional.

Plain data and the derivations the tracker, the board, the blotter and the accept confirmation
share: which side of a trade this company is on, what it must do next, each step reached on the
way to the pool, and the gross notional every pane shows the same way. No network, no Textual.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from tui.api.lifecycle import clearing_is_rejected
from tui.api.models import ClearingStatus, InstrumentType, TradeSide

if TYPE_CHECKING:
    from tui.api.models import RFQ, Quote


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
DEPOSIT_APPROVAL = timedelta(seconds=120)
"""How long the venue waits for a deposit approval (a permit) before it rejects the trade:
the venue's documented window (contract.md leaves it open; the sandbox documents 120 s)."""

LAST_LOOK_AT_LEAST = timedelta(seconds=10)
"""The venue ends a last look at the quote's expiry, but never sooner than this after the trade
reached it (a trade slowed by pool creation or a deposit approval must not expire the instant it
reaches the maker); contract.md names only the expiry, the sandbox documents the 10 s floor."""

_ALWAYS = {ClearingStatus.PENDING_MAKER_LAST_LOOK, ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL}


@dataclass(frozen=True)
class Step:
    """One stop on a trade's clearing path: reached (with when), current, or still ahead."""

    name: str
    status: str
    at: datetime | None
    state: str  # "done" | "current" | "ahead" | "failed"


@dataclass(frozen=True)
class LegFill:
    """One leg of an accepted quote: how much of it trades and at which leg price."""

    qty: Decimal
    price: Decimal


class Priced(Protocol):
    """Anything with a leg's quantity and price: a `LegFill`, a `Trade`, a blotter's
    `TradeLeg`."""

    @property
    def qty(self) -> Decimal:
        """How much of the leg trades."""
        ...

    @property
    def price(self) -> Decimal:
        """The leg's price."""
        ...


def gross_notional(legs: Iterable[Priced]) -> Decimal:
    """The notional of a trade: the sum over its legs of ``|leg qty x leg price|``.

    Notional is gross, never negative, and counts every leg: a calendar spread bought at a
    small (even negative) structure price still carries the full size of both legs. The
    structure price times the quantity is the *premium* paid or received, not the notional.
    Every pane that shows a notional (tracker, accept confirmation, blotter) uses this.
    """
    return sum((abs(leg.qty * leg.price) for leg in legs), Decimal(0))


def is_option(instrument: object) -> bool:
    """Whether a leg's instrument is an option: its price x size is premium (a perpetual's, a
    future's or spot's is not). Read from the instrument's type, so an unknown kind is none."""
    return str(getattr(instrument, "instrument_type", "")) == InstrumentType.VANILLA_OPTION


def option_premium(legs: Iterable[tuple[object, bool, LegFill]]) -> Decimal | None:
    """The premium of a trade's legs as ``(instrument, bought, fill)``: over its option legs,
    size x price, plus for a leg bought and minus for one sold (positive: paid). None when no
    leg is an option: a perpetual, a future or spot has no premium, whatever its price."""
    paid = [
        fill.qty * fill.price * (1 if bought else -1)
        for kind, bought, fill in legs
        if is_option(kind)
    ]
    return sum(paid, Decimal(0)) if paid else None


def notional_by_underlying(legs: Iterable[tuple[object, Priced]]) -> dict[str, Decimal]:
    """The gross notional (`gross_notional`) of a trade's legs as ``(instrument, fill)``, one
    figure per underlying: figures of different underlyings are never added."""
    by_underlying: dict[str, list[Priced]] = {}
    for instrument, fill in legs:
        underlying = getattr(instrument, "underlying", None) or "?"
        by_underlying.setdefault(str(underlying), []).append(fill)
    return {name: gross_notional(fills) for name, fills in by_underlying.items()}


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
    def notionals(self) -> dict[str, Decimal] | None:
        """The notional per underlying (`notional_by_underlying`), when every leg is priced."""
        if self.fills is None or self.rfq is None:
            return None
        return notional_by_underlying(
            (leg.instrument, fill) for leg, fill in zip(self.rfq.rfq_legs, self.fills, strict=True)
        )

    @property
    def premium(self) -> Decimal | None:
        """The premium of my side (`option_premium`: positive, I pay); None when no leg is an
        option or a leg is not priced."""
        if self.fills is None or self.rfq is None or self.side is None:
            return None
        i_buy = self.side is TradeSide.BUY
        return option_premium(
            (leg.instrument, (str(leg.side) == TradeSide.BUY) == i_buy, fill)
            for leg, fill in zip(self.rfq.rfq_legs, self.fills, strict=True)
        )


def track(quote: Quote, role: Role, rfq: RFQ | None) -> TrackedTrade:
    """An accepted quote as the tracker shows it: side, price, fills, path and next step."""
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
        deadline = last_look_deadline(quote)
    elif (role is Role.MAKER and status == ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL) or (
        role is Role.TAKER and status == ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL
    ):
        next_step = NextStep.APPROVE_DEPOSIT
        reached = next((e.created_at for e in quote.clearing_events if e.status == status), None)
        deadline = reached + DEPOSIT_APPROVAL if reached is not None else None
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


def last_look_deadline(quote: Quote) -> datetime:
    """When the venue ends the maker's last look (`LAST_LOOK_AT_LEAST` after it began, at the
    earliest; else the quote's expiry), from the clearing event that began it."""
    began = next(
        (
            e.created_at
            for e in quote.clearing_events
            if e.status == ClearingStatus.PENDING_MAKER_LAST_LOOK
        ),
        None,
    )
    if began is None:
        return quote.expires_at
    return max(quote.expires_at, began + LAST_LOOK_AT_LEAST)


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
