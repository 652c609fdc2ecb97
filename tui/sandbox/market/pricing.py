"""Black-Scholes and linear pricing of one instrument unit, with greeks, in Decimal.

The math runs in floats (``math.erf``, ``exp``, ``log``): that is what the model is, and its
inputs (a volatility, a rate) are not exact anyway. Decimal goes in and Decimal comes out,
quantized at the boundary so money never leaves this module as a float.

Units of the greeks, per ONE unit of the instrument:

- ``delta``: change in price per 1 USDC move of the underlying (a perpetual is 1).
- ``gamma``: change in delta per 1 USDC move of the underlying.
- ``theta``: change in price over one calendar day passing (usually negative for a long option).
- ``vega``: change in price for a 1 vol point rise in implied vol (0.50 -> 0.51).
- ``rho``: change in price for a 1 percentage point rise in the rate (0.04 -> 0.05).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from tui.api.models import PayoffType

__all__ = [
    "DAYS_PER_YEAR",
    "GREEK_QUANTUM",
    "PRICE_QUANTUM",
    "RISK_FREE_RATE",
    "SECONDS_PER_YEAR",
    "Greeks",
    "black_scholes",
    "forward",
    "intrinsic",
    "linear",
    "years_between",
]

RISK_FREE_RATE = Decimal("0.04")
"""The sandbox's constant continuously compounded USDC rate (4 % a year)."""

DAYS_PER_YEAR = 365
SECONDS_PER_YEAR = DAYS_PER_YEAR * 86_400

PRICE_QUANTUM = Decimal("1e-8")
"""Option and forward prices are given to 8 decimal places."""

GREEK_QUANTUM = Decimal("1e-10")
"""Greeks are given to 10 decimal places: a BTC option's gamma per USDC is around 1e-5."""


@dataclass(frozen=True)
class Greeks:
    """Price and greeks of one instrument unit (units in the module docstring)."""

    price: Decimal
    delta: Decimal
    gamma: Decimal
    theta: Decimal
    vega: Decimal
    rho: Decimal


_ZERO = Decimal(0)


def _dec(value: float, quantum: Decimal) -> Decimal:
    """A float from the model as a Decimal on ``quantum``; ``-0`` becomes ``0``."""
    out = Decimal(value).quantize(quantum)
    return out if out != 0 else _ZERO.quantize(quantum)


def _norm_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _norm_pdf(x: float) -> float:
    return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def years_between(start_ms: int, end_ms: int) -> Decimal:
    """Time from ``start_ms`` to ``end_ms`` in years of 365 days (negative once past)."""
    return Decimal(end_ms - start_ms) / Decimal(SECONDS_PER_YEAR * 1000)


def linear(spot: Decimal) -> Greeks:
    """A spot or perpetual unit: worth the mark, delta 1, no other greek."""
    return Greeks(spot, Decimal(1), _ZERO, _ZERO, _ZERO, _ZERO)


def forward(spot: Decimal, years: Decimal, rate: Decimal = RISK_FREE_RATE) -> Greeks:
    """A dated future unit: the cost-of-carry forward ``spot * exp(rate * years)``.

    Delta is reported as 1 per unit (the venue's convention for futures: one unit of
    underlying exposure), theta is the carry that bleeds out per day, rho the carry's
    sensitivity per 1 %. Past expiry the future is worth the mark.
    """
    if spot <= 0:
        raise ValueError("spot must be greater than 0")
    t = max(float(years), 0.0)
    r = float(rate)
    fwd = float(spot) * math.exp(r * t)
    return Greeks(
        price=_dec(fwd, PRICE_QUANTUM),
        delta=Decimal(1),
        gamma=_ZERO,
        theta=_dec(-r * fwd / DAYS_PER_YEAR if t > 0 else 0.0, GREEK_QUANTUM),
        vega=_ZERO,
        rho=_dec(t * fwd / 100.0, GREEK_QUANTUM),
    )


def intrinsic(payoff: PayoffType | str, spot: Decimal, strike: Decimal) -> Decimal:
    """What an option pays at expiry: ``max(S - K, 0)`` for a call, ``max(K - S, 0)`` for a put."""
    if PayoffType(payoff) is PayoffType.CALL:
        return max(spot - strike, _ZERO)
    return max(strike - spot, _ZERO)


def black_scholes(
    payoff: PayoffType | str,
    spot: Decimal,
    strike: Decimal,
    years: Decimal,
    vol: Decimal,
    rate: Decimal = RISK_FREE_RATE,
) -> Greeks:
    """Black-Scholes price and greeks of one European call or put on a non-paying underlying.

    ``years`` is the time to expiry; at or past expiry the option is worth its intrinsic value
    with delta 1/-1 in the money and 0 out of it. American exercise is priced as European
    (calls on a non-paying asset are never exercised early; the put's premium is ignored).
    Raises ValueError naming a non-positive spot, strike or vol.
    """
    kind = PayoffType(payoff)
    if spot <= 0:
        raise ValueError("spot must be greater than 0")
    if strike <= 0:
        raise ValueError("strike must be greater than 0")
    if vol <= 0:
        raise ValueError("vol must be greater than 0")
    if years <= 0:
        value = intrinsic(kind, spot, strike)
        if kind is PayoffType.CALL:
            settled_delta = Decimal(1) if spot > strike else _ZERO
        else:
            settled_delta = Decimal(-1) if spot < strike else _ZERO
        return Greeks(value.quantize(PRICE_QUANTUM), settled_delta, _ZERO, _ZERO, _ZERO, _ZERO)

    s, k, t, sigma, r = float(spot), float(strike), float(years), float(vol), float(rate)
    root_t = math.sqrt(t)
    d1 = (math.log(s / k) + (r + 0.5 * sigma * sigma) * t) / (sigma * root_t)
    d2 = d1 - sigma * root_t
    discount = math.exp(-r * t)
    density = _norm_pdf(d1)
    gamma = density / (s * sigma * root_t)
    vega = s * density * root_t / 100.0
    decay = -s * density * sigma / (2.0 * root_t)
    if kind is PayoffType.CALL:
        price = s * _norm_cdf(d1) - k * discount * _norm_cdf(d2)
        delta = _norm_cdf(d1)
        theta_year = decay - r * k * discount * _norm_cdf(d2)
        rho = k * t * discount * _norm_cdf(d2) / 100.0
    else:
        price = k * discount * _norm_cdf(-d2) - s * _norm_cdf(-d1)
        delta = _norm_cdf(d1) - 1.0
        theta_year = decay + r * k * discount * _norm_cdf(-d2)
        rho = -k * t * discount * _norm_cdf(-d2) / 100.0
    return Greeks(
        price=_dec(max(price, 0.0), PRICE_QUANTUM),
        delta=_dec(delta, GREEK_QUANTUM),
        gamma=_dec(gamma, GREEK_QUANTUM),
        theta=_dec(theta_year / DAYS_PER_YEAR, GREEK_QUANTUM),
        vega=_dec(vega, GREEK_QUANTUM),
        rho=_dec(rho, GREEK_QUANTUM),
    )
