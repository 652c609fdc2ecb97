"""Black-Scholes and linear pricing: textbook values, parity, greek signs and units."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.api.models import PayoffType
from tui.sandbox.market.pricing import (
    PRICE_QUANTUM,
    black_scholes,
    forward,
    intrinsic,
    linear,
    years_between,
)

D = Decimal
CALL, PUT = PayoffType.CALL, PayoffType.PUT


def _exp(x: Decimal) -> Decimal:
    return x.exp()


def test_textbook_values_hull() -> None:
    # Hull, Options, Futures and Other Derivatives: S=42, K=40, r=10%, vol=20%, T=0.5.
    call = black_scholes(CALL, D(42), D(40), D("0.5"), D("0.2"), D("0.1"))
    put = black_scholes(PUT, D(42), D(40), D("0.5"), D("0.2"), D("0.1"))
    assert call.price.quantize(D("0.01")) == D("4.76")
    assert put.price.quantize(D("0.01")) == D("0.81")
    assert call.delta.quantize(D("0.0001")) == D("0.7791")


def test_textbook_values_at_the_money() -> None:
    # S=K=100, T=1, r=5%, vol=20%: the standard 10.4506 / 5.5735 pair.
    call = black_scholes(CALL, D(100), D(100), D(1), D("0.2"), D("0.05"))
    put = black_scholes(PUT, D(100), D(100), D(1), D("0.2"), D("0.05"))
    assert call.price.quantize(D("0.0001")) == D("10.4506")
    assert put.price.quantize(D("0.0001")) == D("5.5735")
    assert call.delta.quantize(D("0.0001")) == D("0.6368")
    assert put.delta.quantize(D("0.0001")) == D("-0.3632")
    assert call.gamma.quantize(D("0.00001")) == D("0.01876")


@settings(max_examples=200, deadline=None)
@given(
    spot=st.decimals(min_value=D("0.01"), max_value=D(200_000), places=2),
    moneyness=st.decimals(min_value=D("0.3"), max_value=D(3), places=3),
    years=st.decimals(min_value=D("0.001"), max_value=D(3), places=4),
    vol=st.decimals(min_value=D("0.05"), max_value=D(3), places=3),
    rate=st.decimals(min_value=D(0), max_value=D("0.1"), places=3),
)
def test_put_call_parity(
    spot: Decimal, moneyness: Decimal, years: Decimal, vol: Decimal, rate: Decimal
) -> None:
    strike = (spot * moneyness).quantize(D("0.01")) or D("0.01")
    call = black_scholes(CALL, spot, strike, years, vol, rate)
    put = black_scholes(PUT, spot, strike, years, vol, rate)
    parity = spot - strike * _exp(-rate * years)
    tolerance = max(spot, strike) * D("1e-9") + 4 * PRICE_QUANTUM
    assert abs((call.price - put.price) - parity) <= tolerance
    # Deltas differ by exactly one, gammas and vegas agree.
    assert abs(call.delta - put.delta - 1) <= D("1e-9")
    assert call.gamma == put.gamma
    assert call.vega == put.vega


@pytest.mark.parametrize("strike", [D(80), D(100), D(120)])
def test_greek_signs(strike: Decimal) -> None:
    call = black_scholes(CALL, D(100), strike, D("0.25"), D("0.6"))
    put = black_scholes(PUT, D(100), strike, D("0.25"), D("0.6"))
    assert 0 < call.delta < 1
    assert -1 < put.delta < 0
    assert call.gamma > 0 and put.gamma > 0
    assert call.vega > 0 and put.vega > 0
    assert call.theta < 0
    assert call.rho > 0
    assert put.rho < 0
    assert call.price > 0 and put.price > 0


def test_greek_units_match_finite_differences() -> None:
    spot, strike, years, vol, rate = D(3000), D(3200), D("0.2"), D("0.7"), D("0.04")
    base = black_scholes(CALL, spot, strike, years, vol, rate)
    h = D(1)
    up = black_scholes(CALL, spot + h, strike, years, vol, rate)
    down = black_scholes(CALL, spot - h, strike, years, vol, rate)
    # delta and gamma per 1 USDC of underlying
    assert abs((up.price - down.price) / (2 * h) - base.delta) < D("1e-5")
    assert abs((up.delta - down.delta) / (2 * h) - base.gamma) < D("1e-6")
    # vega per vol point (0.01)
    vol_up = black_scholes(CALL, spot, strike, years, vol + D("0.001"), rate)
    vol_down = black_scholes(CALL, spot, strike, years, vol - D("0.001"), rate)
    assert abs((vol_up.price - vol_down.price) * 5 - base.vega) < D("1e-3")
    # theta per calendar day
    later = black_scholes(CALL, spot, strike, years - D(1) / 365, vol, rate)
    assert abs((later.price - base.price) - base.theta) < abs(base.theta) * D("0.02")
    # rho per 1 % of rate
    r_up = black_scholes(CALL, spot, strike, years, vol, rate + D("0.001"))
    r_down = black_scholes(CALL, spot, strike, years, vol, rate - D("0.001"))
    assert abs((r_up.price - r_down.price) * 5 - base.rho) < D("1e-3")


def test_expired_options_are_worth_intrinsic() -> None:
    itm_call = black_scholes(CALL, D(110), D(100), D(0), D("0.5"))
    otm_call = black_scholes(CALL, D(90), D(100), D("-0.01"), D("0.5"))
    itm_put = black_scholes(PUT, D(90), D(100), D(0), D("0.5"))
    otm_put = black_scholes(PUT, D(110), D(100), D(0), D("0.5"))
    assert itm_call.price == D(10) and itm_call.delta == 1
    assert otm_call.price == 0 and otm_call.delta == 0
    assert itm_put.price == D(10) and itm_put.delta == -1
    assert otm_put.price == 0 and otm_put.delta == 0
    for greeks in (itm_call, otm_call, itm_put, otm_put):
        assert greeks.gamma == greeks.theta == greeks.vega == greeks.rho == 0
    assert intrinsic("call", D(5), D(3)) == D(2)
    assert intrinsic("put", D(5), D(3)) == D(0)


def test_outputs_are_quantized_decimals() -> None:
    greeks = black_scholes(PUT, D("98500.1"), D(95000), D("0.1"), D("0.55"))
    for name in ("price", "delta", "gamma", "theta", "vega", "rho"):
        value = getattr(greeks, name)
        assert isinstance(value, Decimal)
        assert value.as_tuple().exponent >= -10  # type: ignore[operator]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"spot": D(0)}, "spot"),
        ({"strike": D(-1)}, "strike"),
        ({"vol": D(0)}, "vol"),
    ],
)
def test_bad_inputs_name_the_field(kwargs: dict[str, Decimal], field: str) -> None:
    args = {"spot": D(100), "strike": D(100), "years": D(1), "vol": D("0.5")} | kwargs
    with pytest.raises(ValueError, match=field):
        black_scholes(CALL, **args)


def test_unknown_payoff_is_refused() -> None:
    with pytest.raises(ValueError):
        black_scholes("straddle", D(100), D(100), D(1), D("0.5"))


def test_linear_and_forward() -> None:
    perp = linear(D("3450.12"))
    assert perp.price == D("3450.12") and perp.delta == 1
    assert perp.gamma == perp.theta == perp.vega == perp.rho == 0

    fut = forward(D(100), D("0.5"), D("0.04"))
    assert abs(fut.price - D(100) * (D("0.02")).exp()) < D("1e-7")
    assert fut.delta == 1 and fut.gamma == 0 and fut.vega == 0
    assert fut.theta < 0 < fut.rho

    expired = forward(D(100), D(-1))
    assert expired.price == D(100) and expired.theta == 0 and expired.rho == 0


def test_years_between() -> None:
    assert years_between(0, 365 * 86_400_000) == 1
    assert years_between(86_400_000, 0) < 0
