"""Realised P&L from the trade legs: per pool and instrument, today and since inception.

The venue books a fill on the average-cost rule: a position keeps its exact cost basis (the
signed sum of ``qty x price`` of what is open); a fill that reduces it realises ``closed x
price`` minus the closed part's basis, rounded to USDC's 6 places half to even, and crossing
through zero opens the rest at the fill price. The desk walks its booked trade legs in time
order by the same rule, so its figures agree with the venue's balance moves to the last unit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from tui.api.lifecycle import clearing_is_booked
from tui.api.models import Trade, instrument_label

USDC_PLACES = Decimal("1e-6")
_ZERO = Decimal(0)


def instrument_key(instrument: Any) -> str:
    """A stable id of an instrument, whatever pool it sits in: its kind and terms.

    ``vanilla_option|BTC|2026-06-26T08:00:00+00:00|100000|call``; an unknown kind keys by its
    trader's label.
    """
    kind = getattr(instrument, "instrument_type", None)
    if kind is None:
        return f"?|{instrument_label(instrument)}"
    parts = [str(kind), str(getattr(instrument, "underlying", "?"))]
    expiry = getattr(instrument, "expiry", None)
    if expiry is not None:
        parts.append(expiry.isoformat())
    strike = getattr(instrument, "strike", None)
    if strike is not None:
        parts.append(format(Decimal(strike).normalize(), "f"))
    payoff = getattr(instrument, "payoff", None)
    if payoff is not None:
        parts.append(str(payoff))
    return "|".join(parts)


@dataclass(frozen=True)
class Realised:
    """Realised P&L (USDC) of one holding: since its first trade, and since ``day_start``."""

    today: Decimal = _ZERO
    inception: Decimal = _ZERO


@dataclass
class _Walk:
    qty: Decimal = _ZERO
    cost: Decimal = _ZERO
    today: Decimal = _ZERO
    inception: Decimal = _ZERO


def fill(qty: Decimal, cost: Decimal, fill_qty: Decimal, price: Decimal) -> tuple[Decimal, ...]:
    """A holding after one signed fill: ``(new_qty, new_cost, realised)`` (module docstring)."""
    new_qty = qty + fill_qty
    if qty == 0 or (qty > 0) == (fill_qty > 0):
        return new_qty, cost + fill_qty * price, _ZERO
    closed = min(abs(qty), abs(fill_qty))
    closed_signed = closed if qty > 0 else -closed
    closed_cost = cost if closed == abs(qty) else cost * closed / abs(qty)
    realised = (closed_signed * price - closed_cost).quantize(USDC_PLACES, ROUND_HALF_EVEN)
    if new_qty == 0:
        return new_qty, _ZERO, realised
    if (new_qty > 0) == (qty > 0):
        return new_qty, cost - closed_signed * price + realised, realised
    return new_qty, new_qty * price, realised


def signed_qty(trade: Trade) -> Decimal:
    """A trade leg's quantity, positive bought, negative sold."""
    return trade.qty if str(trade.side) == "buy" else -trade.qty


def realised_by_holding(
    trades: Iterable[Trade], day_start: datetime
) -> dict[tuple[str, str], Realised]:
    """Realised P&L per ``(pool id, instrument key)`` from the booked trade legs."""
    walks: dict[tuple[str, str], _Walk] = {}
    booked = [t for t in trades if clearing_is_booked(t.status)]
    for trade in sorted(booked, key=lambda t: (t.created_at, t.id)):
        walk = walks.setdefault((trade.pool_location, instrument_key(trade.instrument)), _Walk())
        walk.qty, walk.cost, realised = fill(walk.qty, walk.cost, signed_qty(trade), trade.price)
        walk.inception += realised
        if trade.created_at >= day_start:
            walk.today += realised
    return {key: Realised(w.today, w.inception) for key, w in walks.items()}
