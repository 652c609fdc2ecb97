"""Black-Scholes value and greeks of one European option unit, with the dollar greeks.

The maths runs in floats (``math.erf``, ``exp``, ``log``), converted from and back to Decimal
here at the edge, so no float leaves this module. Conventions match the venue's own marks
(the sandbox's valuation), so a figure here and a figure the venue sends agree:

- time in years of 365 days; a continuously compounded USDC rate (`DEFAULT_RATE`);
- ``delta``: change in price per 1 USDC move of the underlying (units of underlying);
- ``gamma``: change in delta per 1 USDC move (units of underlying per USDC);
- ``vega``: change in price (USDC) for a 1 vol point rise (0.50 -> 0.51);
- ``theta``: change in price (USDC) over one calendar day;
- ``dollar_delta = delta x spot`` (USDC exposure) and ``dollar_gamma = gamma x spot^2 / 100``
  (change of dollar delta for a 1 % move), as the venue's portfolio summary defines them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

DEFAULT_RATE = Decimal("0.04")
"""The USDC rate the venue's marks use (4 % a year, continuously compounded)."""
DAYS_PER_YEAR = 365
SECONDS_PER_YEAR = DAYS_PER_YEAR * 86_400
_PRICE_PLACES = Decimal("1e-8")
_GREEK_PLACES = Decimal("1e-10")


def years_between(start: datetime, end: datetime) -> Decimal:
    """Time from ``start`` to ``end`` in years of 365 days (negative once past)."""
    micros = round((end - start).total_seconds() * 1_000_000)
    return Decimal(micros) / Decimal(SECONDS_PER_YEAR * 1_000_000)


@dataclass(frozen=True)
class OptionValue:
    """Price and greeks of ONE option unit (units in the module docstring)."""

    price: Decimal
    delta: Decimal
    gamma: Decimal
    vega: Decimal
    theta: Decimal
    dollar_delta: Decimal
    dollar_gamma: Decimal


def _cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _pdf(x: float) -> float:
    return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def is_call(payoff: object) -> bool:
    """True for a call, False for a put; ValueError names any other payoff."""
    text = str(payoff).lower()
    if text not in ("call", "put"):
        raise ValueError(f"payoff must be call or put, not {payoff!r}")
    return text == "call"


def price_f(call: bool, s: float, k: float, t: float, sigma: float, r: float) -> float:
    """The model price in floats (for the solver); intrinsic value of the forward at t <= 0."""
    if t <= 0 or sigma <= 0:
        discount = math.exp(-r * max(t, 0.0))
        return max(s - k * discount, 0.0) if call else max(k * discount - s, 0.0)
    root_t = math.sqrt(t)
    d1 = (math.log(s / k) + (r + 0.5 * sigma * sigma) * t) / (sigma * root_t)
    d2 = d1 - sigma * root_t
    discount = math.exp(-r * t)
    if call:
        return s * _cdf(d1) - k * discount * _cdf(d2)
    return k * discount * _cdf(-d2) - s * _cdf(-d1)


def vega_f(s: float, k: float, t: float, sigma: float, r: float) -> float:
    """dPrice/dSigma per 1.00 of vol (not per point), in floats; calls and puts alike."""
    if t <= 0 or sigma <= 0:
        return 0.0
    root_t = math.sqrt(t)
    d1 = (math.log(s / k) + (r + 0.5 * sigma * sigma) * t) / (sigma * root_t)
    return s * _pdf(d1) * root_t


def _check(spot: Decimal, strike: Decimal, vol: Decimal) -> None:
    if spot <= 0:
        raise ValueError("spot must be greater than 0")
    if strike <= 0:
        raise ValueError("strike must be greater than 0")
    if vol <= 0:
        raise ValueError("vol must be greater than 0")


def _dec(value: float, places: Decimal) -> Decimal:
    out = Decimal(value).quantize(places)
    return out if out != 0 else abs(out)


def option_value(
    payoff: object,
    spot: Decimal,
    strike: Decimal,
    years: Decimal,
    vol: Decimal,
    rate: Decimal = DEFAULT_RATE,
) -> OptionValue:
    """Black-Scholes price and greeks of one call or put unit (American priced as European).

    At or past expiry the option is worth its intrinsic value, delta 1/-1 in the money, other
    greeks 0. Raises ValueError naming a non-positive spot, strike or vol, or a bad payoff.
    """
    call = is_call(payoff)
    _check(spot, strike, vol)
    s, k, t, sigma, r = float(spot), float(strike), float(years), float(vol), float(rate)
    if t <= 0:
        intrinsic = max(spot - strike, Decimal(0)) if call else max(strike - spot, Decimal(0))
        settled = Decimal(0)
        if call and spot > strike:
            settled = Decimal(1)
        elif not call and spot < strike:
            settled = Decimal(-1)
        zero = Decimal(0)
        return OptionValue(
            intrinsic.quantize(_PRICE_PLACES), settled, zero, zero, zero, settled * spot, zero
        )
    root_t = math.sqrt(t)
    d1 = (math.log(s / k) + (r + 0.5 * sigma * sigma) * t) / (sigma * root_t)
    d2 = d1 - sigma * root_t
    discount = math.exp(-r * t)
    density = _pdf(d1)
    gamma = density / (s * sigma * root_t)
    decay = -s * density * sigma / (2.0 * root_t)
    if call:
        delta = _cdf(d1)
        theta_year = decay - r * k * discount * _cdf(d2)
    else:
        delta = _cdf(d1) - 1.0
        theta_year = decay + r * k * discount * _cdf(-d2)
    return OptionValue(
        price=_dec(max(price_f(call, s, k, t, sigma, r), 0.0), _PRICE_PLACES),
        delta=_dec(delta, _GREEK_PLACES),
        gamma=_dec(gamma, _GREEK_PLACES),
        vega=_dec(vega_f(s, k, t, sigma, r) / 100.0, _GREEK_PLACES),
        theta=_dec(theta_year / DAYS_PER_YEAR, _GREEK_PLACES),
        dollar_delta=_dec(delta * s, _PRICE_PLACES),
        dollar_gamma=_dec(gamma * s * s / 100.0, _PRICE_PLACES),
    )


def dollar_delta(delta: Decimal, spot: Decimal) -> Decimal:
    """USDC exposure of a delta in units of the underlying: ``delta x spot``."""
    return delta * spot


def dollar_gamma(gamma: Decimal, spot: Decimal) -> Decimal:
    """Change of dollar delta for a 1 % move: ``gamma x spot^2 / 100``."""
    return gamma * spot * spot / 100
