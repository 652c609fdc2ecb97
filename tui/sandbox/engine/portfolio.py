"""Balances, positions and margin of companies inside settlement pools.

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

Initial margin (IM) and maintenance margin (MM) per holding, under **simple** parameters of the
holder's side of the pool (``asset_params[underlying]`` or ``default_asset_param``), with ``U``
the underlying price and ``P`` the instrument's mark:

- spot and futures: ``|qty| * U * max(futures_initial_margin, 1 / futures_leverage)``;
  MM ``|qty| * U * futures_maintenance_margin``.
- short options: per unit ``max(option_initial_margin * U - OTM, option_initial_margin_min * U)
  + P`` (OTM = how far out of the money the strike is); MM ``option_maintenance_margin * U + P``.
- long options: per unit ``min(P, option_initial_margin * U)``; MM ``min(P,
  option_maintenance_margin * U)`` -- a long option can lose at most its value.

Under **portfolio** parameters (an approximation of a scenario-based model), per underlying:
``MM = |net delta| * U * price_range + sum over options |qty| * |vega| * 100 * (vol_range_up for
shorts, vol_range_down for longs) + futures_contingency * sum |qty| U (delta-one) +
opt_contingency * sum |qty| U (options)``, and ``IM = MM * initial_margin_factor``; the
underlyings are summed (no offset between them).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import ROUND_CEILING, ROUND_HALF_EVEN, Decimal
from typing import Any, Protocol

from pydantic import TypeAdapter

from tui.api.models import (
    USDC,
    AggregatedPosition,
    DatedFutureInstrument,
    Instrument,
    KnownInstrument,
    MarginParams,
    MarginUsage,
    PartyMargin,
    PayoffType,
    PerpetualFutureInstrument,
    PortfolioMarginParams,
    Position,
    SimpleAsset,
    SimpleMarginParams,
    SpotInstrument,
    VanillaOptionInstrument,
)
from tui.api.types import format_timestamp
from tui.sandbox.engine.store import Store

__all__ = [
    "USDC_QUANTUM",
    "Holding",
    "PartyState",
    "Portfolio",
    "Valuation",
    "ValuationSource",
    "apply_fill",
    "average_price",
    "canonical_instrument",
    "instrument_key",
    "margin_for",
    "margin_usage",
    "parse_instrument",
    "parse_margin_params",
    "round_money",
]

USDC_QUANTUM = Decimal("0.000001")
"""USDC has 6 decimals: deposits, allowances and margin shortfalls are in whole base units."""

_ZERO = Decimal(0)
_AVG_QUANTUM = Decimal("1e-8")
_INSTRUMENT: TypeAdapter[Any] = TypeAdapter(Instrument)
_MARGIN_PARAMS: TypeAdapter[Any] = TypeAdapter(MarginParams)
_KNOWN_INSTRUMENTS: tuple[type[KnownInstrument], ...] = (
    SpotInstrument,
    DatedFutureInstrument,
    PerpetualFutureInstrument,
    VanillaOptionInstrument,
)


class Valuation(Protocol):
    """What the market says about one unit of an instrument (see `tui.sandbox.market.model`)."""

    price: Decimal
    underlying_price: Decimal
    iv: Decimal | None
    delta: Decimal
    gamma: Decimal
    theta: Decimal
    vega: Decimal
    rho: Decimal


class ValuationSource(Protocol):
    """The part of the market the portfolio needs: one unit of an instrument, valued."""

    def value(self, instrument: Any) -> Any:
        """Price and greeks of one unit of ``instrument``."""


def parse_instrument(data: Any) -> Any:
    """An instrument model from its wire dict (unknown types parse as `UnknownVariant`)."""
    return _INSTRUMENT.validate_python(data)


def parse_margin_params(data: Any) -> Any:
    """Margin parameters from their wire dict (an unknown mode parses as `UnknownVariant`)."""
    return _MARGIN_PARAMS.validate_python(data)


def canonical_instrument(instrument: KnownInstrument) -> KnownInstrument:
    """The instrument with only its documented fields and a normalized strike.

    Two legs naming the same instrument must land on the same position, whatever extra keys
    or strike spelling (``"30000"`` / ``"3E+4"``) the request used.
    """
    cls = type(instrument)
    fields = instrument.model_dump(include=set(cls.model_fields))
    if isinstance(instrument, VanillaOptionInstrument):
        fields["strike"] = instrument.strike.normalize()
    return cls.model_validate(fields)


def instrument_key(instrument: Any) -> str:
    """A stable text key of an instrument, for the positions table."""
    data = instrument.model_dump(mode="json") if hasattr(instrument, "model_dump") else instrument
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


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


@dataclass(frozen=True)
class Holding:
    """A signed quantity of one instrument at an average entry price (held or hypothetical).

    ``cost`` is the exact cost basis (signed ``qty x price`` summed); None for a hypothetical
    fill or an old row, where it is ``qty x avg_entry_price``.
    """

    instrument: Any
    qty: Decimal
    avg_entry_price: Decimal
    cost: Decimal | None = None

    @property
    def key(self) -> str:
        """The instrument key of this holding."""
        return instrument_key(self.instrument)

    @property
    def basis(self) -> Decimal:
        """The exact cost basis of the holding."""
        return self.cost if self.cost is not None else self.qty * self.avg_entry_price


def _simple_asset(params: SimpleMarginParams, underlying: str) -> SimpleAsset:
    return params.params.asset_params.get(underlying, params.params.default_asset_param)


def _otm_amount(instrument: VanillaOptionInstrument, underlying_price: Decimal) -> Decimal:
    if instrument.payoff == PayoffType.CALL:
        return max(_ZERO, instrument.strike - underlying_price)
    return max(_ZERO, underlying_price - instrument.strike)


def _simple_margin(
    params: SimpleMarginParams, holding: Holding, value: Any
) -> tuple[Decimal, Decimal]:
    asset = _simple_asset(params, holding.instrument.underlying)
    size = abs(holding.qty)
    under = Decimal(value.underlying_price)
    price = Decimal(value.price)
    if not isinstance(holding.instrument, VanillaOptionInstrument):
        im_rate = max(asset.futures_initial_margin, Decimal(1) / asset.futures_leverage)
        return size * under * im_rate, size * under * asset.futures_maintenance_margin
    if holding.qty < 0:
        otm = _otm_amount(holding.instrument, under)
        per_unit_im = max(
            asset.option_initial_margin * under - otm, asset.option_initial_margin_min * under
        )
        per_unit_mm = asset.option_maintenance_margin * under
        return size * (per_unit_im + price), size * (per_unit_mm + price)
    return (
        size * min(price, asset.option_initial_margin * under),
        size * min(price, asset.option_maintenance_margin * under),
    )


def _portfolio_margin(
    params: PortfolioMarginParams, holdings: list[Holding], values: dict[str, Any]
) -> tuple[Decimal, Decimal]:
    settings = params.params
    by_underlying: dict[str, list[Holding]] = {}
    for holding in holdings:
        by_underlying.setdefault(holding.instrument.underlying, []).append(holding)
    maintenance = _ZERO
    for underlying, group in by_underlying.items():
        asset = settings.asset_params.get(underlying, settings.default_asset_param)
        net_delta = _ZERO
        vol_risk = _ZERO
        delta_one = _ZERO
        options = _ZERO
        under = _ZERO
        for holding in group:
            value = values[holding.key]
            under = Decimal(value.underlying_price)
            net_delta += holding.qty * Decimal(value.delta)
            if isinstance(holding.instrument, VanillaOptionInstrument):
                vol_range = asset.vol_range_up if holding.qty < 0 else asset.vol_range_down
                vol_risk += abs(holding.qty) * abs(Decimal(value.vega)) * vol_range * 100
                options += abs(holding.qty) * under
            else:
                delta_one += abs(holding.qty) * under
        maintenance += (
            abs(net_delta) * under * asset.price_range
            + vol_risk
            + asset.futures_contingency * delta_one
            + asset.opt_contingency * options
        )
    return maintenance * settings.initial_margin_factor, maintenance


def margin_for(
    params: Any, holdings: Iterable[Holding], values: dict[str, Any]
) -> tuple[Decimal, Decimal] | None:
    """``(initial, maintenance)`` margin of ``holdings`` under ``params``.

    ``values`` maps instrument keys to valuations. None when the parameters are of a margin
    mode this sandbox does not model.
    """
    live = [h for h in holdings if h.qty != 0]
    if isinstance(params, SimpleMarginParams):
        initial = _ZERO
        maintenance = _ZERO
        for holding in live:
            im, mm = _simple_margin(params, holding, values[holding.key])
            initial += im
            maintenance += mm
        return initial, maintenance
    if isinstance(params, PortfolioMarginParams):
        return _portfolio_margin(params, live, values)
    return None


def _usdc(value: Decimal) -> Decimal:
    """Round an amount of USDC up to whole base units (no trailing zeros: ``9850``, ``0``)."""
    rounded = value.quantize(USDC_QUANTUM, rounding=ROUND_CEILING)
    return rounded.normalize() if rounded else _ZERO


@dataclass(frozen=True)
class PartyState:
    """A party's money in one pool, as the margin engine sees it.

    ``incoming`` is money on its way into the pool for the trades counted (the deposits of
    trades still clearing): it backs their margin but is not in the balance yet.
    """

    balance: Decimal
    upnl: Decimal
    initial_margin: Decimal | None
    maintenance_margin: Decimal | None
    incoming: Decimal = _ZERO

    @property
    def equity(self) -> Decimal:
        """Balance plus uPNL plus deposits on their way: what backs the margin."""
        return self.balance + self.upnl + self.incoming

    @property
    def max_withdrawable(self) -> Decimal:
        """What may leave the pool without breaking initial margin (gains stay in)."""
        free = self.equity - (self.initial_margin or _ZERO)
        amount = max(_ZERO, min(self.balance, free)).quantize(USDC_QUANTUM, rounding="ROUND_FLOOR")
        return amount.normalize() if amount else _ZERO


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

    def value(self, instrument: Any) -> Any:
        """The market's valuation of one unit of ``instrument`` (cached per request)."""
        key = instrument_key(instrument)
        if key not in self._values:
            self._values[key] = self.market.value(instrument)
        return self._values[key]

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
        qty = Decimal(row["qty"]) if row else _ZERO
        cost = _ZERO
        if row is not None:
            cost = (
                Decimal(row["cost"])
                if row["cost"] is not None
                else qty * Decimal(row["avg_entry_price"])
            )
        taker_qty = Decimal(row["taker_qty"]) if row else _ZERO
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
        if new_qty == 0:
            self.store.execute(
                "DELETE FROM positions WHERE pool_id = ? AND company_id = ? AND ikey = ?",
                (pool_id, company_id, key),
            )
        elif row is None:
            self.store.insert(
                "positions",
                {
                    "pool_id": pool_id,
                    "company_id": company_id,
                    "ikey": key,
                    "underlying": instrument.underlying,
                    "instrument_type": str(instrument.instrument_type),
                    "instrument": key,
                    **columns,
                },
            )
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

    def aggregated(self, position: Position) -> AggregatedPosition:
        """A position valued at the mark: price, greeks times qty, uPNL and notional."""
        value = self.value(position.instrument)
        qty = position.qty
        price = Decimal(value.price)
        under = Decimal(value.underlying_price)
        return AggregatedPosition(
            price=price,
            underlying_price=under,
            iv=value.iv,
            sum_delta=Decimal(value.delta) * qty,
            sum_gamma=Decimal(value.gamma) * qty,
            sum_theta=Decimal(value.theta) * qty,
            sum_vega=Decimal(value.vega) * qty,
            sum_rho=Decimal(value.rho) * qty,
            upnl=(price - position.avg_entry_price) * qty,
            notional=abs(qty) * under,
            position_info=position,
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
        merged: dict[str, Holding] = {h.key: h for h in self.holdings(pool_id, company_id)}
        realized_total = _ZERO
        for fill in extra:
            current = merged.get(fill.key)
            qty, cost = (current.qty, current.basis) if current else (_ZERO, _ZERO)
            new_qty, new_cost, realized = apply_fill(qty, cost, fill.qty, fill.avg_entry_price)
            merged[fill.key] = Holding(
                fill.instrument, new_qty, average_price(new_qty, new_cost), new_cost
            )
            # Realized P&L of a hypothetical fill moves into the balance, as booking would.
            realized_total += realized
        holdings = list(merged.values())
        values = {h.key: self.value(h.instrument) for h in holdings if h.qty != 0}
        upnl = sum(
            (Decimal(values[h.key].price) * h.qty - h.basis for h in holdings if h.qty),
            _ZERO,
        )
        margin = margin_for(params, holdings, values)
        balance = self.balance(pool_id, company_id) + realized_total
        if margin is None:
            return PartyState(balance, upnl, None, None, incoming)
        return PartyState(balance, upnl, margin[0], margin[1], incoming)

    def shortfall(
        self,
        pool_id: str,
        company_id: str,
        params: Any,
        fills: Iterable[Holding],
        incoming: Decimal = _ZERO,
    ) -> Decimal:
        """USDC a party must deposit so that, after ``fills``, equity covers initial margin."""
        after = self.state(pool_id, company_id, params, fills, incoming)
        if after.initial_margin is None:
            return _ZERO
        return _usdc(max(_ZERO, after.initial_margin - after.equity))

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
                initial_margin=_usdc(state.initial_margin),
                maintenance_margin=_usdc(state.maintenance_margin),
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


def margin_usage(initial: Decimal, maintenance: Decimal) -> MarginUsage:
    """A `MarginUsage` rounded up to USDC base units."""
    return MarginUsage(initial_margin=_usdc(initial), maintenance_margin=_usdc(maintenance))
