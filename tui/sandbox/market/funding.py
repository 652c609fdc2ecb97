"""The perpetual funding rate from open-interest imbalance, on an asset's funding curve.

The rate is per funding interval, positive when longs outnumber shorts (longs pay shorts) and
negative the other way round. With ``L`` and ``S`` the long and short open interest in USDC:

1. Below ``min_imbalance_dollars`` of ``|L - S|`` nobody pays: a tiny book is not a signal.
2. The imbalance ratio ``x = |L - S| / (L + S)`` (0 balanced, 1 all on one side) is mapped by a
   piecewise-linear curve: ``normal_slope`` up to ``normal_threshold``, ``high_slope`` up to
   ``high_threshold``, ``extreme_slope`` up to ``extreme_threshold``, flat (capped) above.
3. The curve's value is scaled by a ramp ``1 - exp(-k * (|L - S| - min) / min)`` with
   ``k = funding_exponent_factor``: a book just past the floor pays a little, a book many
   times past it pays the full curve, and the rate has no jump at the floor. ``k <= 0`` turns
   the ramp off (full curve as soon as the floor is passed).

For a fixed short side the rate rises monotonically with the long side, and vice versa.
"""

from __future__ import annotations

from decimal import Decimal

from tui.api.models import FundingRateParams

__all__ = ["FUNDING_QUANTUM", "funding_rate"]

FUNDING_QUANTUM = Decimal("1e-10")
"""Funding rates are given to 10 decimal places (a typical hourly rate is around 1e-5)."""

_ZERO = Decimal(0)
_ONE = Decimal(1)


def _curve(params: FundingRateParams, ratio: Decimal) -> Decimal:
    """The piecewise-linear part: rate for an imbalance ratio in [0, 1]."""
    normal = max(params.normal_threshold, _ZERO)
    high = max(params.high_threshold, normal)
    extreme = max(params.extreme_threshold, high)
    x = min(ratio, extreme)
    rate = params.normal_slope * min(x, normal)
    if x > normal:
        rate += params.high_slope * (min(x, high) - normal)
    if x > high:
        rate += params.extreme_slope * (x - high)
    return rate


def funding_rate(params: FundingRateParams, long_oi: Decimal, short_oi: Decimal) -> Decimal:
    """The funding rate per interval for this open interest (USDC notional on each side).

    Raises ValueError naming a negative side.
    """
    if long_oi < 0:
        raise ValueError("long_oi must not be negative")
    if short_oi < 0:
        raise ValueError("short_oi must not be negative")
    imbalance = long_oi - short_oi
    size = abs(imbalance)
    floor = max(params.min_imbalance_dollars, _ZERO)
    if size == 0 or size <= floor:
        return _ZERO.quantize(FUNDING_QUANTUM)
    rate = _curve(params, size / (long_oi + short_oi))
    factor = params.funding_exponent_factor
    if factor > 0:
        scale = floor if floor > 0 else _ONE
        rate *= _ONE - (-factor * (size - floor) / scale).exp()
    signed = rate if imbalance > 0 else -rate
    out = signed.quantize(FUNDING_QUANTUM)
    return out if out != 0 else _ZERO.quantize(FUNDING_QUANTUM)
