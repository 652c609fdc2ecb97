"""The arithmetic of a fill on a position: cost basis, realized P&L, average entry, taker qty.

Pure Decimal functions with no store behind them, so the portfolio (`Portfolio.book_fill`) and
the seeded history's books (`tui.sandbox.engine.history_book`) move positions by the very
same rules. The economics are described in `tui.sandbox.engine.portfolio`.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any, Protocol

from tui.sandbox.engine.margin import USDC_QUANTUM

__all__ = ["StoredPosition", "apply_fill", "average_price", "fill_position", "round_money"]

_ZERO = Decimal(0)
_AVG_QUANTUM = Decimal("1e-8")


class StoredPosition(Protocol):
    """A ``positions`` row as read back (a `sqlite3.Row`, or a dict of its columns)."""

    def __getitem__(self, column: str, /) -> Any:
        """The value of one column."""
        ...


def round_money(value: Decimal) -> Decimal:
    """An amount of USDC rounded to its 6 decimals, half to even.

    Half-even is symmetric (``round(-x) == -round(x)``), so two mirror positions realize
    exact opposites.
    """
    return value.quantize(USDC_QUANTUM, rounding=ROUND_HALF_EVEN)


def apply_fill(
    qty: Decimal,
    cost: Decimal,
    fill_qty: Decimal,
    fill_price: Decimal,
    realized: Decimal | None = None,
) -> tuple[Decimal, Decimal, Decimal]:
    """A position after a signed fill: ``(new_qty, new_cost, realized_pnl)``.

    ``cost`` is the position's exact cost basis, the sum of signed ``qty x price`` of what is
    open (never an average, which would have to be rounded). Adding to a position adds to the
    basis; reducing it realizes ``closed x price - the closed part's basis``, rounded to USDC's
    6 decimals, and takes off the basis exactly what that leaves (``closed x price -
    realized``), so the realized amounts of a position's life add up to its exact P&L.
    Crossing through zero opens the rest at the fill price. ``realized`` imposes the amount to
    realize (the exact opposite of what the counterparty's mirror position realized).
    """
    new_qty = qty + fill_qty
    if qty == 0 or (qty > 0) == (fill_qty > 0):
        return new_qty, cost + fill_qty * fill_price, _ZERO
    closed = min(abs(qty), abs(fill_qty))
    closed_signed = closed if qty > 0 else -closed
    closed_cost = cost if closed == abs(qty) else cost * closed / abs(qty)
    if realized is None:
        realized = round_money(closed_signed * fill_price - closed_cost)
    if new_qty == 0:
        return new_qty, _ZERO, realized
    if (new_qty > 0) == (qty > 0):
        return new_qty, cost - closed_signed * fill_price + realized, realized
    return new_qty, new_qty * fill_price, realized


def average_price(qty: Decimal, cost: Decimal) -> Decimal:
    """The average entry price of a position for display: ``cost / qty`` to 8 decimals."""
    if qty == 0:
        return _ZERO
    return (cost / qty).quantize(_AVG_QUANTUM, rounding=ROUND_HALF_EVEN).normalize()


def fill_position(
    row: StoredPosition | None,
    signed_qty: Decimal,
    price: Decimal,
    *,
    as_taker: bool,
    now_ms: int,
    realized: Decimal | None = None,
) -> tuple[Decimal, dict[str, Any], Decimal]:
    """A stored position (``row``; None: none yet) after one signed fill: ``(new_qty, its
    columns, realized P&L)``.

    The columns are those of the ``positions`` table (``qty``, ``avg_entry_price``, ``cost``,
    ``taker_qty``, ``updated_ms``); a ``new_qty`` of zero means the position is closed. A row
    written before the exact cost basis was kept (``cost`` NULL) counts ``qty x
    avg_entry_price``. ``taker_qty`` moves only by what the company traded as taker;
    ``realized`` is passed on to `apply_fill`.
    """
    qty = cost = taker_qty = _ZERO
    if row is not None:
        qty, taker_qty = Decimal(row["qty"]), Decimal(row["taker_qty"])
        basis = row["cost"]
        cost = Decimal(basis) if basis is not None else qty * Decimal(row["avg_entry_price"])
    new_qty, new_cost, booked = apply_fill(qty, cost, signed_qty, price, realized)
    if as_taker:
        taker_qty += signed_qty
    columns = {
        "qty": format(new_qty, "f"),
        "avg_entry_price": format(average_price(new_qty, new_cost), "f"),
        "cost": format(new_cost, "f"),
        "taker_qty": format(taker_qty, "f"),
        "updated_ms": now_ms,
    }
    return new_qty, columns, booked
