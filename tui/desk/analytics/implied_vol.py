"""Implied vol: the Black-Scholes vol that reprices an option leg, or a whole package, exactly.

One solver serves both: a bracket on which the pricing error changes sign, then Newton steps
on vega, each step kept inside the bracket (a step that would leave it, or a flat vega,
bisects instead) and the bracket shrunk on every evaluation. It cannot diverge, and it stops
when the vol moves by less than `VOL_TOLERANCE` / 1000, so a solved vol reprices its price
and round-trips to well within `VOL_TOLERANCE`.

A package (several option legs, bought and sold in ratios, plus linear legs at their marks)
need not be monotone in vol (a risk reversal's net vega changes sign), so its price error is
scanned over a grid of vols for every sign change; each is solved, and the root nearest the
mark vol (``near``) wins. Floats run inside (see `black_scholes`); Decimal at the edges.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import pairwise

from tui.desk.analytics.black_scholes import DEFAULT_RATE, is_call, price_f, vega_f

VOL_TOLERANCE = 1e-6
"""How close a solved vol is to the vol that produced the price (the round-trip promise)."""
VOL_FLOOR = 1e-4
VOL_CEILING = 20.0
_GRID = 80
_VOL_PLACES = Decimal("1e-9")


def solve(
    error: Callable[[float], float],
    slope: Callable[[float], float],
    low: float,
    high: float,
    *,
    tolerance: float = VOL_TOLERANCE / 1000,
    steps: int = 200,
) -> float | None:
    """The root of ``error`` between ``low`` and ``high`` (where it changes sign), by Newton
    steps on ``slope`` kept inside a shrinking bracket; None when there is no sign change."""
    f_low, f_high = error(low), error(high)
    if f_low == 0:
        return low
    if f_high == 0:
        return high
    if (f_low > 0) == (f_high > 0):
        return None
    x = 0.5 * (low + high)
    for _ in range(steps):
        f = error(x)
        if f == 0:
            return x
        if (f > 0) == (f_low > 0):
            low, f_low = x, f
        else:
            high = x
        d = slope(x)
        candidate = x - f / d if d != 0 and math.isfinite(d) else math.nan
        if not (low < candidate < high):
            candidate = 0.5 * (low + high)
        if abs(candidate - x) < tolerance or high - low < tolerance:
            return candidate
        x = candidate
    return x


@dataclass(frozen=True)
class OptionLeg:
    """One option leg of a package: ``weight`` units per package unit (negative: sold)."""

    weight: Decimal
    payoff: str
    strike: Decimal
    years: Decimal


@dataclass(frozen=True)
class LinearLeg:
    """A leg whose value does not depend on vol (a perpetual, a future, spot): ``weight``
    units per package unit, each worth ``value`` (its mark)."""

    weight: Decimal
    value: Decimal


def implied_vol(
    payoff: object,
    spot: Decimal,
    strike: Decimal,
    years: Decimal,
    price: Decimal,
    rate: Decimal = DEFAULT_RATE,
) -> Decimal | None:
    """The vol at which one call or put unit is worth ``price``; None when no vol is (the
    price is at or outside the no-arbitrage bounds, or the option has expired).

    Raises ValueError naming a non-positive spot or strike, or a bad payoff.
    """
    call = is_call(payoff)
    if spot <= 0 or strike <= 0:
        raise ValueError("spot and strike must be greater than 0")
    if years <= 0:
        return None
    s, k, t, r, target = float(spot), float(strike), float(years), float(rate), float(price)
    strike_today = k * math.exp(-r * t)
    floor = max(s - strike_today, 0.0) if call else max(strike_today - s, 0.0)
    if not floor < target < (s if call else strike_today):
        return None
    root = solve(
        lambda sigma: price_f(call, s, k, t, sigma, r) - target,
        lambda sigma: vega_f(s, k, t, sigma, r),
        VOL_FLOOR,
        VOL_CEILING,
    )
    return None if root is None else Decimal(root).quantize(_VOL_PLACES)


def package_value(
    legs: Sequence[OptionLeg | LinearLeg], spot: Decimal, vol: Decimal, rate: Decimal = DEFAULT_RATE
) -> Decimal:
    """What one package unit is worth with every option leg at ``vol`` (linear legs at their
    values): the package price a maker quoting in vol would send."""
    return Decimal(_package_f(legs, float(spot), float(vol), float(rate))).quantize(Decimal("1e-8"))


def leg_prices(
    legs: Sequence[OptionLeg | LinearLeg], spot: Decimal, vol: Decimal, rate: Decimal = DEFAULT_RATE
) -> list[Decimal]:
    """Each leg's unit price with every option at ``vol`` (a linear leg: its value), so leg
    prices derived from one vol add up to `package_value`."""
    s, sigma, r = float(spot), float(vol), float(rate)
    out = []
    for leg in legs:
        if isinstance(leg, LinearLeg):
            out.append(leg.value)
            continue
        unit = price_f(is_call(leg.payoff), s, float(leg.strike), float(leg.years), sigma, r)
        out.append(Decimal(max(unit, 0.0)).quantize(Decimal("1e-8")))
    return out


def _package_f(legs: Sequence[OptionLeg | LinearLeg], s: float, sigma: float, r: float) -> float:
    total = 0.0
    for leg in legs:
        if isinstance(leg, LinearLeg):
            total += float(leg.weight * leg.value)
        else:
            unit = price_f(is_call(leg.payoff), s, float(leg.strike), float(leg.years), sigma, r)
            total += float(leg.weight) * unit
    return total


def _package_vega(legs: Sequence[OptionLeg | LinearLeg], s: float, sigma: float, r: float) -> float:
    return sum(
        float(leg.weight) * vega_f(s, float(leg.strike), float(leg.years), sigma, r)
        for leg in legs
        if isinstance(leg, OptionLeg)
    )


def package_implied_vol(
    legs: Sequence[OptionLeg | LinearLeg],
    spot: Decimal,
    price: Decimal,
    *,
    near: Decimal | None = None,
    rate: Decimal = DEFAULT_RATE,
) -> Decimal | None:
    """The one vol (for every option leg) at which the package is worth ``price``.

    Where several vols fit, the one nearest ``near`` (the mark vol; else the lowest); None
    when none does or the package has no live option leg.
    """
    live = [leg for leg in legs if isinstance(leg, OptionLeg) and leg.years > 0]
    if not live or spot <= 0:
        return None
    for leg in live:
        is_call(leg.payoff)
    s, r, target = float(spot), float(rate), float(price)

    def error(sigma: float) -> float:
        return _package_f(legs, s, sigma, r) - target

    def slope(sigma: float) -> float:
        return _package_vega(legs, s, sigma, r)

    grid = [VOL_FLOOR * (VOL_CEILING / VOL_FLOOR) ** (i / (_GRID - 1)) for i in range(_GRID)]
    roots = []
    for low, high in pairwise(grid):
        root = solve(error, slope, low, high)
        if root is not None:
            roots.append(root)
    if not roots:
        return None
    anchor = float(near) if near is not None else 0.0
    best = min(roots, key=lambda root: abs(root - anchor))
    return Decimal(best).quantize(_VOL_PLACES)
