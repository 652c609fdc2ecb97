"""Net positions across pools, with their P&L and greeks, and totals per underlying.

From the venue's reads: positions (qty and average entry per pool and counterparty),
aggregated positions (the same valued at the mark: unit price, underlying mark, vol, greeks
times qty, uPNL) and the trade legs (for realised P&L, `tui.desk.analytics.realised`). A
position is netted per instrument across pools, each pool and counterparty kept beneath it;
an instrument traded flat still shows, at qty 0, for its realised P&L. Quantities, deltas and
gammas are summed per underlying only; the whole book is summed in dollars only (uPNL,
realised, dollar delta, dollar gamma, vega and theta in USDC).

Units: ``delta`` in units of the underlying, ``gamma`` per 1 USDC move, ``vega`` USDC per vol
point, ``theta`` USDC per day; ``dollar_delta = delta x mark``, ``dollar_gamma = gamma x mark^2
/ 100`` (as the venue's summary).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from tui.api.models import AggregatedPosition, Position, Trade, instrument_label
from tui.desk.analytics.black_scholes import dollar_delta, dollar_gamma
from tui.desk.analytics.realised import Realised, instrument_key, realised_by_holding

_ZERO = Decimal(0)


@dataclass(frozen=True)
class Greeks:
    """Greeks of a holding (units in the module docstring)."""

    delta: Decimal = _ZERO
    gamma: Decimal = _ZERO
    vega: Decimal = _ZERO
    theta: Decimal = _ZERO
    dollar_delta: Decimal = _ZERO
    dollar_gamma: Decimal = _ZERO

    def __add__(self, other: Greeks) -> Greeks:
        return Greeks(
            self.delta + other.delta,
            self.gamma + other.gamma,
            self.vega + other.vega,
            self.theta + other.theta,
            self.dollar_delta + other.dollar_delta,
            self.dollar_gamma + other.dollar_gamma,
        )


@dataclass(frozen=True)
class Holding:
    """One instrument in one pool: what the venue says of it, and its realised P&L."""

    key: str
    """``pool id|instrument key``: the record id of the row."""
    instrument_key: str
    label: str
    underlying: str
    pool_id: str
    counterparty: str | None
    qty: Decimal
    avg_entry: Decimal | None
    mark: Decimal | None
    underlying_price: Decimal | None
    iv: Decimal | None
    upnl: Decimal | None
    realised: Realised
    greeks: Greeks


@dataclass(frozen=True)
class NetPosition:
    """One instrument netted across pools, with its holdings beneath it."""

    key: str
    """The instrument key: the record id of the row."""
    label: str
    underlying: str
    qty: Decimal
    avg_entry: Decimal | None
    """Cost basis over net qty (None when flat)."""
    mark: Decimal | None
    underlying_price: Decimal | None
    iv: Decimal | None
    upnl: Decimal | None
    """None when some open holding has no mark yet (never a partial sum shown as whole)."""
    realised: Realised
    greeks: Greeks
    holdings: tuple[Holding, ...]
    instrument: object = None


@dataclass(frozen=True)
class UnderlyingTotals:
    """Everything on one underlying: greeks in its units and in dollars, P&L, notional."""

    underlying: str
    greeks: Greeks
    upnl: Decimal
    realised: Realised
    notional: Decimal
    valued: bool = True
    """Every open position on it has its mark: else its uPNL, greeks and notional are only
    part of the whole and are not shown as a figure."""


@dataclass(frozen=True)
class BookTotals:
    """The whole book, in dollars only (USDC values summed across underlyings)."""

    upnl: Decimal = _ZERO
    realised: Realised = field(default_factory=Realised)
    dollar_delta: Decimal = _ZERO
    dollar_gamma: Decimal = _ZERO
    vega: Decimal = _ZERO
    theta: Decimal = _ZERO
    notional: Decimal = _ZERO
    valued: bool = True
    """Every open position has its mark (`UnderlyingTotals.valued`)."""


@dataclass(frozen=True)
class PositionBook:
    """Net positions by instrument, totals per underlying, and the book in dollars."""

    positions: tuple[NetPosition, ...] = ()
    underlyings: tuple[UnderlyingTotals, ...] = ()
    book: BookTotals = field(default_factory=BookTotals)

    def position(self, key: str) -> NetPosition | None:
        """The net position with this instrument key."""
        return next((p for p in self.positions if p.key == key), None)


def _underlying(instrument: object) -> str:
    return str(getattr(instrument, "underlying", None) or "?")


@dataclass(frozen=True)
class _Open:
    """What the venue says is held in one pool (a closed one: qty 0)."""

    instrument: Any
    counterparty: str | None
    qty: Decimal
    avg_entry_price: Decimal

    @classmethod
    def of(cls, position: Position) -> _Open:
        return cls(
            position.instrument, position.counterparty, position.qty, position.avg_entry_price
        )


def _holding(
    position: _Open, valued: AggregatedPosition | None, realised: Realised, pool_id: str
) -> Holding:
    ikey = instrument_key(position.instrument)
    mark = valued.price if valued else None
    spot = valued.underlying_price if valued else None
    greeks = Greeks()
    upnl = valued.upnl if valued else None
    if valued is not None:
        greeks = Greeks(
            delta=valued.sum_delta,
            gamma=valued.sum_gamma,
            vega=valued.sum_vega,
            theta=valued.sum_theta,
            dollar_delta=dollar_delta(valued.sum_delta, spot) if spot else _ZERO,
            dollar_gamma=dollar_gamma(valued.sum_gamma, spot) if spot else _ZERO,
        )
    elif position.qty == 0:
        upnl = _ZERO
    return Holding(
        key=f"{pool_id}|{ikey}",
        instrument_key=ikey,
        label=instrument_label(position.instrument),
        underlying=_underlying(position.instrument),
        pool_id=pool_id,
        counterparty=position.counterparty,
        qty=position.qty,
        avg_entry=position.avg_entry_price if position.qty != 0 else None,
        mark=mark,
        underlying_price=spot,
        iv=valued.iv if valued else None,
        upnl=upnl,
        realised=realised,
        greeks=greeks,
    )


def _net(ikey: str, holdings: list[Holding], instrument: object) -> NetPosition:
    qty = sum((h.qty for h in holdings), _ZERO)
    cost = sum((h.qty * (h.avg_entry or _ZERO) for h in holdings), _ZERO)
    marked = next((h for h in holdings if h.mark is not None), None)
    unmarked = any(h.upnl is None for h in holdings)
    greeks = sum((h.greeks for h in holdings), Greeks())
    return NetPosition(
        key=ikey,
        label=holdings[0].label,
        underlying=holdings[0].underlying,
        qty=qty,
        avg_entry=(cost / qty).quantize(Decimal("1e-8")).normalize() if qty != 0 else None,
        mark=marked.mark if marked else None,
        underlying_price=marked.underlying_price if marked else None,
        iv=marked.iv if marked else None,
        upnl=None if unmarked else sum((h.upnl or _ZERO for h in holdings), _ZERO),
        realised=Realised(
            sum((h.realised.today for h in holdings), _ZERO),
            sum((h.realised.inception for h in holdings), _ZERO),
        ),
        greeks=greeks,
        holdings=tuple(sorted(holdings, key=lambda h: (h.pool_id, h.counterparty or ""))),
        instrument=instrument,
    )


@dataclass(frozen=True)
class _Walked:
    """What the trade legs say, whatever the marks: realised P&L per holding, each
    instrument's terms, and each pool's counterparty."""

    realised: dict[tuple[str, str], Realised]
    instruments: dict[str, Any]
    counterparties: dict[str, str]


class TradeWalk:
    """The last trade-set walked and what it said, so a marks-only change skips the walk.

    The Positions tab is built again on every valuation poll while it shows (the marks move),
    but the trades seldom change; the realised-P&L walk over 100,000 legs is most of the cost.
    The legs of unchanged trades are the same objects from poll to poll
    (`tui.desk.trade_legs`), so the trade-set is compared by identity, one pass at C speed;
    a fresh list of equal trades only costs a walk, never a wrong figure.
    """

    def __init__(self) -> None:
        self._day_start: datetime | None = None
        self._trades: list[Trade] = []
        self._walked: _Walked | None = None

    def of(self, trades: list[Trade], day_start: datetime) -> _Walked:
        """The walk of ``trades`` (realised from ``day_start``), made again only when they
        or the day changed."""
        walked = self._walked
        if (
            walked is not None
            and day_start == self._day_start
            and len(trades) == len(self._trades)
            and all(map(operator.is_, trades, self._trades))
        ):
            return walked
        walked = _walk(trades, day_start)
        self._day_start, self._trades, self._walked = day_start, list(trades), walked
        return walked


def _walk(trades: list[Trade], day_start: datetime) -> _Walked:
    instruments: dict[str, Any] = {}
    counterparties: dict[str, str] = {}
    for trade in trades:
        instruments.setdefault(instrument_key(trade.instrument), trade.instrument)
        if trade.pool_location and trade.counterparty:
            counterparties.setdefault(trade.pool_location, trade.counterparty)
    return _Walked(realised_by_holding(trades, day_start), instruments, counterparties)


_LAST_WALK = TradeWalk()
"""The desk's one Positions book: its last trade-set walked."""


def build_positions(
    positions: Iterable[Position],
    aggregated: Iterable[AggregatedPosition],
    trades: Iterable[Trade],
    day_start: datetime,
    *,
    walk: TradeWalk | None = None,
) -> PositionBook:
    """Net positions, totals per underlying and book totals (module docstring). The trade
    legs are walked again only when they changed (`TradeWalk`; the desk's own by default)."""
    walked = (walk or _LAST_WALK).of(list(trades), day_start)
    realised = walked.realised
    valued = {
        (a.position_info.pool_location or "", instrument_key(a.position_info.instrument)): a
        for a in aggregated
    }
    open_positions = {
        (p.pool_location or "", instrument_key(p.instrument)): _Open.of(p) for p in positions
    }
    for key, agg in valued.items():
        open_positions.setdefault(key, _Open.of(agg.position_info))
    instruments = dict(walked.instruments)
    counterparties = walked.counterparties
    for pool_id, ikey in realised:
        if (pool_id, ikey) in open_positions or ikey not in instruments:
            continue
        open_positions[(pool_id, ikey)] = _Open(
            instruments[ikey], counterparties.get(pool_id), _ZERO, _ZERO
        )
    by_instrument: dict[str, list[Holding]] = {}
    for (pool_id, ikey), position in open_positions.items():
        instruments.setdefault(ikey, position.instrument)
        holding = _holding(
            position,
            valued.get((pool_id, ikey)),
            realised.get((pool_id, ikey), Realised()),
            pool_id,
        )
        by_instrument.setdefault(ikey, []).append(holding)
    nets = sorted(
        (_net(ikey, held, instruments[ikey]) for ikey, held in by_instrument.items()),
        key=lambda n: (n.underlying, n.label, n.key),
    )
    return PositionBook(tuple(nets), _per_underlying(nets), _book(nets))


def _per_underlying(nets: list[NetPosition]) -> tuple[UnderlyingTotals, ...]:
    groups: dict[str, list[NetPosition]] = {}
    for net in nets:
        groups.setdefault(net.underlying, []).append(net)
    return tuple(
        UnderlyingTotals(
            underlying=underlying,
            greeks=sum((n.greeks for n in group), Greeks()),
            upnl=sum((n.upnl or _ZERO for n in group), _ZERO),
            realised=Realised(
                sum((n.realised.today for n in group), _ZERO),
                sum((n.realised.inception for n in group), _ZERO),
            ),
            notional=sum((abs(n.qty) * (n.underlying_price or _ZERO) for n in group), _ZERO),
            valued=all(n.qty == 0 or (n.upnl is not None and n.underlying_price) for n in group),
        )
        for underlying, group in sorted(groups.items())
    )


def _book(nets: list[NetPosition]) -> BookTotals:
    totals = _per_underlying(nets)
    return BookTotals(
        upnl=sum((t.upnl for t in totals), _ZERO),
        realised=Realised(
            sum((t.realised.today for t in totals), _ZERO),
            sum((t.realised.inception for t in totals), _ZERO),
        ),
        dollar_delta=sum((t.greeks.dollar_delta for t in totals), _ZERO),
        dollar_gamma=sum((t.greeks.dollar_gamma for t in totals), _ZERO),
        vega=sum((t.greeks.vega for t in totals), _ZERO),
        theta=sum((t.greeks.theta for t in totals), _ZERO),
        notional=sum((t.notional for t in totals), _ZERO),
        valued=all(t.valued for t in totals),
    )
