"""Balances and positions of companies inside settlement pools, and their margin state.

Economics of the sandbox (a real venue's rules, simplified; every number is Decimal):

- **Futures-style margining of every instrument.** Booking a trade moves no cash: the buyer of
  one unit at ``p`` gains ``mark - p`` (and the seller loses it) as uPNL. Options, spot and
  futures are all held this way, so pool balances move only by deposits, withdrawals and
  realized P&L. Closing (part of) a position realizes ``closed_qty x price`` minus the closed
  part's exact cost basis, rounded to USDC's 6 decimals, into the pool balance; the
  counterparty in the same pool books the exact opposite, so a pool's total balance never
  changes by trading and balances never carry more than 6 decimals.
- **Positions** are per (pool, company, instrument): a signed ``qty``, its exact cost basis
  (``cost``, the signed sum of ``qty x price`` still open; see `apply_fill`), the
  ``avg_entry_price`` shown for it (``cost / qty`` to 8 decimals), and ``taker_qty``, the net
  signed quantity the company traded *as taker* in it. A position that goes flat is removed.
- **Margin balance (equity)** of a party = pool balance + uPNL of its positions at the mark.
  **Free balance** = equity - initial margin of its positions; ``max_withdrawable_amount`` =
  ``max(0, min(balance, free))`` (an unrealized gain backs margin but is not withdrawable).
- **Deposit needed for a trade** = ``max(0, IM_after - equity_after)`` where both are computed
  on the positions as they would be after the trade (netting per instrument, the trade's own
  price-vs-mark uPNL included), rounded up to whole USDC base units.

The margin formulas themselves are in `tui.sandbox.engine.margin`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from tui.api.models import USDC, MarginUsage, PartyMargin, Position
from tui.api.types import format_timestamp
from tui.sandbox.engine.fills import apply_fill, average_price, fill_position
from tui.sandbox.engine.margin import Holding, PartyState, margin_for, usdc_up
from tui.sandbox.engine.market_api import ValuationSource
from tui.sandbox.engine.records import instrument_key, parse_instrument
from tui.sandbox.engine.store import Store

__all__ = ["Portfolio", "party_state", "position_row"]

_ZERO = Decimal(0)


def party_state(
    held: Iterable[Holding],
    extra: Iterable[Holding],
    value: Callable[[Holding], Any],
    params: Any,
    balance: Decimal,
    incoming: Decimal = _ZERO,
) -> PartyState:
    """A party's money and margin in a pool: its ``held`` positions (oldest first) with the
    hypothetical fills ``extra`` applied on top, valued by ``value`` (one unit of what a
    holding holds), under margin ``params``, on a pool ``balance`` and ``incoming`` deposits.

    Fills go through `apply_fill`, so a trade that reduces a position needs less margin, not
    more, and the P&L it would realize moves into the balance as booking would.
    """
    merged: dict[str, Holding] = {h.key: h for h in held}
    realized_total = _ZERO
    for fill in extra:
        current = merged.get(fill.key)
        qty, cost = (current.qty, current.basis) if current else (_ZERO, _ZERO)
        new_qty, new_cost, realized = apply_fill(qty, cost, fill.qty, fill.avg_entry_price)
        merged[fill.key] = Holding(
            fill.instrument, new_qty, average_price(new_qty, new_cost), new_cost
        )
        realized_total += realized
    holdings = list(merged.values())
    values = {h.key: value(h) for h in holdings if h.qty != 0}
    upnl = sum(
        (Decimal(values[h.key].price) * h.qty - h.basis for h in holdings if h.qty),
        _ZERO,
    )
    margin = margin_for(params, holdings, values)
    balance += realized_total
    if margin is None:
        return PartyState(balance, upnl, None, None, incoming)
    return PartyState(balance, upnl, margin[0], margin[1], incoming)


def position_row(
    pool_id: str, company_id: str, instrument: Any, columns: dict[str, Any]
) -> dict[str, Any]:
    """A new ``positions`` row: where, what (its `instrument_key`), and the fill's columns."""
    key = instrument_key(instrument)
    return {
        "pool_id": pool_id,
        "company_id": company_id,
        "ikey": key,
        "underlying": instrument.underlying,
        "instrument_type": str(instrument.instrument_type),
        "instrument": key,
        **columns,
    }


class Portfolio:
    """Pool balances, positions and margin over the store, valued by the market.

    Valuations are cached per instrument until `Portfolio.fresh` (called once per
    request): a page of positions does not value the same option twice.
    """

    def __init__(self, store: Store, market: ValuationSource) -> None:
        self.store = store
        self.market = market
        self._values: dict[str, Any] = {}

    def fresh(self) -> None:
        """Forget cached valuations (call at the start of every request or tick)."""
        self._values.clear()

    def value(self, instrument: Any, key: str | None = None) -> Any:
        """The market's valuation of one unit of ``instrument`` (cached per request);
        ``key`` is its `instrument_key` when the caller has it already."""
        key = instrument_key(instrument) if key is None else key
        found = self._values.get(key)
        if found is None:
            found = self._values[key] = self.market.value(instrument)
        return found

    def holding_value(self, holding: Holding) -> Any:
        """The valuation of one unit of what ``holding`` holds."""
        return self.value(holding.instrument, holding.key)

    # -- balances -------------------------------------------------------------------------

    def balance(self, pool_id: str, company_id: str, asset: str = USDC) -> Decimal:
        """A company's balance of ``asset`` in a pool (0 when it never had one)."""
        value = self.store.scalar(
            "SELECT qty FROM balances WHERE pool_id = ? AND company_id = ? AND asset = ?",
            (pool_id, company_id, asset),
        )
        return Decimal(value) if value is not None else _ZERO

    def move_balance(
        self, pool_id: str, company_id: str, delta: Decimal, asset: str = USDC
    ) -> None:
        """Add ``delta`` (may be negative) to a pool balance."""
        new = self.balance(pool_id, company_id, asset) + delta
        self.store.execute(
            "INSERT INTO balances (pool_id, company_id, asset, qty) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (pool_id, company_id, asset) DO UPDATE SET qty = excluded.qty",
            (pool_id, company_id, asset, format(new, "f")),
        )

    def balances_of(self, company_id: str) -> list[tuple[str, str, Decimal]]:
        """Every ``(pool_id, asset, qty)`` balance row of a company, oldest pool first."""
        rows = self.store.all(
            "SELECT b.pool_id, b.asset, b.qty FROM balances b JOIN pools p ON p.id = b.pool_id "
            "WHERE b.company_id = ? ORDER BY p.seq, b.asset",
            (company_id,),
        )
        return [(r["pool_id"], r["asset"], Decimal(r["qty"])) for r in rows]

    def total_pool_balances(self) -> Decimal:
        """All money in all pools (the sandbox's TVL)."""
        return sum((Decimal(r[0]) for r in self.store.all("SELECT qty FROM balances")), _ZERO)

    # -- positions ------------------------------------------------------------------------

    def holdings(self, pool_id: str, company_id: str) -> list[Holding]:
        """A company's open positions in one pool."""
        rows = self.store.all(
            "SELECT instrument, qty, avg_entry_price, cost FROM positions "
            "WHERE pool_id = ? AND company_id = ? ORDER BY seq",
            (pool_id, company_id),
        )
        return [
            Holding(
                parse_instrument(json.loads(r["instrument"])),
                Decimal(r["qty"]),
                Decimal(r["avg_entry_price"]),
                None if r["cost"] is None else Decimal(r["cost"]),
            )
            for r in rows
        ]

    def book_fill(
        self,
        pool_id: str,
        company_id: str,
        instrument: Any,
        signed_qty: Decimal,
        price: Decimal,
        *,
        as_taker: bool,
        now_ms: int,
        realized: Decimal | None = None,
    ) -> Decimal:
        """Apply one fill to a position; realized P&L goes into the pool balance. Returns it.

        ``realized`` imposes the amount realized (see `apply_fill`): the counterparty's fill
        of the same trade books the exact opposite of this side's, so the pool's money is
        conserved to the last base unit.
        """
        key = instrument_key(instrument)
        row = self.store.one(
            "SELECT qty, avg_entry_price, taker_qty, cost FROM positions "
            "WHERE pool_id = ? AND company_id = ? AND ikey = ?",
            (pool_id, company_id, key),
        )
        new_qty, columns, booked = fill_position(
            row, signed_qty, price, as_taker=as_taker, now_ms=now_ms, realized=realized
        )
        if new_qty == 0:
            self.store.execute(
                "DELETE FROM positions WHERE pool_id = ? AND company_id = ? AND ikey = ?",
                (pool_id, company_id, key),
            )
        elif row is None:
            self.store.insert("positions", position_row(pool_id, company_id, instrument, columns))
        else:
            self.store.execute(
                "UPDATE positions SET qty = ?, avg_entry_price = ?, cost = ?, taker_qty = ?, "
                "updated_ms = ? WHERE pool_id = ? AND company_id = ? AND ikey = ?",
                (*columns.values(), pool_id, company_id, key),
            )
        if booked:
            self.move_balance(pool_id, company_id, booked)
        return booked

    def position_page(
        self, company_id: str, *, pool_id: str | None, limit: int, offset: int
    ) -> tuple[list[Position], bool]:
        """A page of a company's positions (one pool, or all), oldest first."""
        where = "company_id = ?" + (" AND pool_id = ?" if pool_id else "")
        params: tuple[str, ...] = (company_id, pool_id) if pool_id else (company_id,)
        rows, has_more = self.store.page(
            "positions", where, params, limit=limit, offset=offset, column="*"
        )
        return [self._position(row) for row in rows], has_more

    def positions_of(self, company_id: str, pool_id: str | None = None) -> list[Position]:
        """Every open position of a company (one pool, or all)."""
        positions, _ = self.position_page(company_id, pool_id=pool_id, limit=1_000_000, offset=0)
        return positions

    def _position(self, row: Any) -> Position:
        pool = self.store.one("SELECT creator, other FROM pools WHERE id = ?", (row["pool_id"],))
        counterparty = None
        if pool is not None:
            counterparty = (
                pool["other"] if pool["creator"] == row["company_id"] else pool["creator"]
            )
        updated = datetime.fromtimestamp(int(row["updated_ms"]) / 1000, tz=UTC)
        return Position.model_validate(
            {
                "company": row["company_id"],
                "pool_location": row["pool_id"],
                "counterparty": counterparty,
                "instrument": json.loads(row["instrument"]),
                "updated_at": format_timestamp(updated),
                "qty": row["qty"],
                "avg_entry_price": row["avg_entry_price"],
                "taker_qty": row["taker_qty"],
            }
        )

    # -- margin ---------------------------------------------------------------------------

    def state(
        self,
        pool_id: str,
        company_id: str,
        params: Any,
        extra: Iterable[Holding] = (),
        incoming: Decimal = _ZERO,
    ) -> PartyState:
        """A party's balance, uPNL and margin in a pool, optionally after hypothetical fills.

        ``extra`` holds fills (signed qty at a price) applied on top of the current positions
        with `apply_fill`, so a trade that reduces a position needs less margin, not more;
        ``incoming`` the deposits those fills bring along.
        """
        return party_state(
            self.holdings(pool_id, company_id),
            extra,
            self.holding_value,
            params,
            self.balance(pool_id, company_id),
            incoming,
        )

    def shortfall(
        self,
        pool_id: str,
        company_id: str,
        params: Any,
        fills: Iterable[Holding],
        incoming: Decimal = _ZERO,
    ) -> Decimal:
        """USDC a party must deposit so that, after ``fills``, equity covers initial margin."""
        return self.state(pool_id, company_id, params, fills, incoming).shortfall

    def party_margin(
        self,
        pool_id: str,
        company_id: str,
        params: Any,
        reserved: Iterable[Holding] = (),
        incoming: Decimal = _ZERO,
    ) -> PartyMargin:
        """The ``margin_usage`` block of a pool party.

        ``margin_usage`` is the margin of the booked positions; ``max_withdrawable_amount``
        also keeps back the margin ``reserved`` for trades still clearing (net of the
        ``incoming`` deposits they bring), so money a trade under way counts on cannot leave.
        """
        state = self.state(pool_id, company_id, params)
        usage = None
        if state.initial_margin is not None and state.maintenance_margin is not None:
            usage = MarginUsage(
                initial_margin=usdc_up(state.initial_margin),
                maintenance_margin=usdc_up(state.maintenance_margin),
            )
        return PartyMargin(
            company=company_id,
            balance=state.balance,
            margin_params=params,
            margin_usage=usage,
            max_withdrawable_amount=self.max_withdrawable(
                pool_id, company_id, params, reserved, incoming, booked=state
            ),
        )

    def max_withdrawable(
        self,
        pool_id: str,
        company_id: str,
        params: Any,
        reserved: Iterable[Holding] = (),
        incoming: Decimal = _ZERO,
        *,
        booked: PartyState | None = None,
    ) -> Decimal:
        """What may leave the pool now: free of the margin of the booked positions *and* of
        the ``reserved`` fills of trades still clearing (net of their ``incoming`` deposits)."""
        state = booked or self.state(pool_id, company_id, params)
        reserved = list(reserved)
        if not reserved:
            return state.max_withdrawable
        clearing = self.state(pool_id, company_id, params, reserved, incoming)
        return min(state.max_withdrawable, clearing.max_withdrawable)
