"""The option maths: implied vol round trips, greeks against finite differences, parity,
package vols and edge."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from tui.api.models import Leg, PerpetualFutureInstrument, Structure, VanillaOptionInstrument
from tui.desk.analytics.black_scholes import DEFAULT_RATE, option_value, price_f, years_between
from tui.desk.analytics.edge import quote_edge, structure_legs
from tui.desk.analytics.implied_vol import (
    OptionLeg,
    implied_vol,
    leg_prices,
    package_implied_vol,
    package_value,
)

SPOT = Decimal(100_000)


@pytest.mark.parametrize("payoff", ["call", "put"])
@pytest.mark.parametrize("moneyness", ["0.7", "0.85", "1", "1.15", "1.3"])
@pytest.mark.parametrize("days", [7, 30, 90, 365, 730])
@pytest.mark.parametrize("vol", ["0.2", "0.55", "1.2"])
def test_implied_vol_round_trips_within_a_millionth(
    payoff: str, moneyness: str, days: int, vol: str
) -> None:
    strike = SPOT * Decimal(moneyness)
    years = Decimal(days) / 365
    value = option_value(payoff, SPOT, strike, years, Decimal(vol))
    price = value.price
    # A price on 8 places pins the vol to 1e-6 only where a vol point moves it by more than
    # a few quanta (not so deep in or out of the money, a week out, at a low vol).
    if value.vega < Decimal("0.001"):
        pytest.skip("the price does not pin the vol to 1e-6")
    solved = implied_vol(payoff, SPOT, strike, years, price)
    assert solved is not None
    assert abs(solved - Decimal(vol)) < Decimal("1e-6")
    again = option_value(payoff, SPOT, strike, years, solved).price
    assert abs(again - price) <= Decimal("2e-8")


def test_a_price_outside_the_bounds_has_no_vol() -> None:
    years = Decimal("0.25")
    assert implied_vol("call", SPOT, SPOT, years, SPOT * 2) is None
    assert implied_vol("put", SPOT, SPOT * Decimal("0.5"), years, Decimal(0)) is None
    assert implied_vol("call", SPOT, SPOT, Decimal(0), Decimal(100)) is None
    with pytest.raises(ValueError, match="payoff"):
        implied_vol("straddle", SPOT, SPOT, years, Decimal(100))


@pytest.mark.parametrize("payoff", ["call", "put"])
@pytest.mark.parametrize("moneyness", ["0.8", "1", "1.2"])
def test_greeks_match_finite_differences(payoff: str, moneyness: str) -> None:
    s, k, t, sigma, r = 100_000.0, 100_000.0 * float(moneyness), 0.25, 0.6, float(DEFAULT_RATE)
    call = payoff == "call"
    value = option_value(payoff, Decimal(s), Decimal(k), Decimal(t), Decimal(sigma))
    h = s * 1e-4
    up, mid, down = (price_f(call, x, k, t, sigma, r) for x in (s + h, s, s - h))
    assert float(value.delta) == pytest.approx((up - down) / (2 * h), rel=1e-6, abs=1e-9)
    assert float(value.gamma) == pytest.approx((up - 2 * mid + down) / h**2, rel=1e-4)
    dv = 1e-4
    vega = (price_f(call, s, k, t, sigma + dv, r) - price_f(call, s, k, t, sigma - dv, r)) / (
        2 * dv
    )
    assert float(value.vega) == pytest.approx(vega / 100, rel=1e-6)
    day = 1 / 365
    theta = (price_f(call, s, k, t - day / 100, sigma, r) - mid) / (day / 100)
    assert float(value.theta) == pytest.approx(theta * day, rel=1e-4)
    assert value.dollar_delta == pytest.approx(value.delta * Decimal(s), rel=Decimal("1e-8"))
    assert float(value.dollar_gamma) == pytest.approx(float(value.gamma) * s * s / 100, rel=1e-5)


@pytest.mark.parametrize("moneyness", ["0.7", "1", "1.4"])
def test_put_call_parity(moneyness: str) -> None:
    strike = SPOT * Decimal(moneyness)
    years = Decimal("0.5")
    call = option_value("call", SPOT, strike, years, Decimal("0.7")).price
    put = option_value("put", SPOT, strike, years, Decimal("0.7")).price
    forward_gap = float(SPOT) - float(strike) * math.exp(-float(DEFAULT_RATE) * 0.5)
    assert float(call - put) == pytest.approx(forward_gap, abs=1e-7)


def test_package_vol_reprices_a_strangle_and_a_risk_reversal() -> None:
    years = Decimal("0.25")
    strangle = [
        OptionLeg(Decimal(1), "put", Decimal(90_000), years),
        OptionLeg(Decimal(1), "call", Decimal(110_000), years),
    ]
    price = package_value(strangle, SPOT, Decimal("0.65"))
    solved = package_implied_vol(strangle, SPOT, price)
    assert solved is not None and abs(solved - Decimal("0.65")) < Decimal("1e-6")
    assert sum(leg_prices(strangle, SPOT, solved)) == pytest.approx(price, abs=Decimal("1e-7"))
    # A risk reversal's value need not be monotone in vol: the root nearest the mark wins.
    reversal = [
        OptionLeg(Decimal(1), "call", Decimal(120_000), years),
        OptionLeg(Decimal(-1), "put", Decimal(85_000), years),
    ]
    price = package_value(reversal, SPOT, Decimal("0.5"))
    solved = package_implied_vol(reversal, SPOT, price, near=Decimal("0.48"))
    assert solved is not None and abs(solved - Decimal("0.5")) < Decimal("1e-6")


def test_structure_legs_value_a_hedged_call() -> None:
    now = datetime(2026, 1, 5, 12, tzinfo=UTC)
    expiry = now + timedelta(days=30)
    structure = Structure(
        legs=[
            Leg(
                side="buy",
                instrument=VanillaOptionInstrument(
                    underlying="BTC", expiry=expiry, strike=Decimal(100_000), payoff="call"
                ),
            ),
            Leg(side="sell", instrument=PerpetualFutureInstrument(underlying="BTC")),
        ]
    )
    legs = structure_legs(structure, SPOT, now)
    assert years_between(now, expiry) == Decimal(30) / 365
    price = package_value(legs, SPOT, Decimal("0.6"))
    assert price < 0  # a call is worth less than the perpetual sold against it
    solved = package_implied_vol(legs, SPOT, price)
    assert solved is not None and abs(solved - Decimal("0.6")) < Decimal("1e-6")


def test_edge_is_signed_from_the_makers_side_in_price_and_bps() -> None:
    edge = quote_edge(Decimal(100), Decimal("99.5"), Decimal("100.25"))
    assert edge.bid is not None and edge.ask is not None
    assert (edge.bid.price, edge.bid.bps) == (Decimal("0.5"), Decimal("50.00"))
    assert (edge.ask.price, edge.ask.bps) == (Decimal("0.25"), Decimal("25.00"))
    through = quote_edge(Decimal(0), Decimal(-3), None, reference=Decimal(3000))
    assert through.bid is not None and through.bid.bps == Decimal("10.00")
    assert through.ask is None
    assert (
        quote_edge(Decimal(0), Decimal(1), None).bid == quote_edge(Decimal(0), Decimal(1), None).bid
    )
    assert quote_edge(Decimal(0), Decimal(1), None).bid.bps is None  # type: ignore[union-attr]
