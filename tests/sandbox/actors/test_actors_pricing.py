"""What simulated makers quote and simulated takers ask for (pure functions of the market)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from tui.api.models import (
    PayoffType,
    PerpetualFutureInstrument,
    TradeSide,
    VanillaOptionInstrument,
)
from tui.sandbox.actors.pricing import (
    PricedLeg,
    dated_expiry,
    maker_leg_quotes,
    option_expiry,
    quote_cost_bps,
    strike_grid,
    structure_fair_value,
    taker_request,
)
from tui.sandbox.actors.profiles import ActorConfig, choose, draw, exponential, taker_profile
from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.market.marks import Market

D = Decimal
START_MS = 1_793_500_000_000


@pytest.fixture
def market():
    return Market(3, SandboxClock(frozen_at_ms=START_MS))


def perp_quote(market, underlying: str, qty: str, multiplier: str = "1"):
    leg = PricedLeg("leg-1", PerpetualFutureInstrument(underlying=underlying), D(qty))
    return maker_leg_quotes(market, [leg], D(multiplier))[0]


@pytest.mark.parametrize("underlying", ["BTC", "ETH", "DOGE", "WIF"])
def test_a_perp_quote_straddles_the_mark_on_the_tick(market, underlying):
    mark = market.mark_price(underlying)
    tick = market.spec(underlying).tick
    quote = perp_quote(market, underlying, "10")
    assert 0 < quote.bid < mark < quote.ask
    assert quote.bid % tick == 0 and quote.ask % tick == 0


def test_the_spread_grows_with_size_and_with_the_makers_multiplier(market):
    small = perp_quote(market, "BTC", "0.01")
    large = perp_quote(market, "BTC", "50")
    wide = perp_quote(market, "BTC", "0.01", multiplier="3")
    assert large.ask - large.bid > small.ask - small.bid
    assert wide.ask - wide.bid > small.ask - small.bid
    # At 1 BTC the full spread is the market's spread at that notional, to a tick or two.
    one = perp_quote(market, "BTC", "1")
    mark = market.mark_price("BTC")
    expected = mark * market.spread_bps("BTC", mark) / D(10_000)
    assert abs((one.ask - one.bid) - expected) <= 2 * market.spec("BTC").tick


def test_option_quotes_are_two_way_around_the_model_value(market):
    expiry = option_expiry(datetime.fromtimestamp(START_MS / 1000, tz=UTC))
    mark = market.mark_price("ETH")
    option = VanillaOptionInstrument(
        underlying="ETH", expiry=expiry, strike=mark.quantize(D(50)), payoff=PayoffType.CALL
    )
    value = market.value(option).price
    quote = maker_leg_quotes(market, [PricedLeg("o", option, D(5))], D(1))[0]
    assert 0 < quote.bid < value < quote.ask
    assert (quote.ask - quote.bid) / value < D("0.2")


def test_a_worthless_option_is_offered_only(market):
    expiry = option_expiry(datetime.fromtimestamp(START_MS / 1000, tz=UTC))
    far = VanillaOptionInstrument(
        underlying="BTC", expiry=expiry, strike=D(1_000_000), payoff=PayoffType.CALL
    )
    quote = maker_leg_quotes(market, [PricedLeg("o", far, D(1))], D(1))[0]
    assert quote.bid is None and quote.ask > 0


def test_quote_cost_is_measured_against_the_mark_in_bps():
    assert quote_cost_bps(TradeSide.BUY, D(101), D(100), D(100)) == D(100)
    assert quote_cost_bps(TradeSide.SELL, D(101), D(100), D(100)) == D(-100)
    assert quote_cost_bps(TradeSide.SELL, D("99.9"), D(100), D(1000)) == D(1)
    with pytest.raises(ValueError, match="notional"):
        quote_cost_bps(TradeSide.BUY, D(1), D(1), D(0))


def test_taker_requests_are_seeded_and_valid(market):
    profile = taker_profile(3, "EMBR", ActorConfig())
    requests = [taker_request(market, 3, "EMBR", i, profile.notional_usdc) for i in range(200)]
    again = [taker_request(market, 3, "EMBR", i, profile.notional_usdc) for i in range(200)]
    assert requests == again
    kinds = {r.kind for r in requests}
    assert kinds == {"perp_major", "perp_alt", "calendar", "option"}
    sides = {r.side for r in requests}
    assert sides == {TradeSide.BUY, TradeSide.SELL}
    high = profile.notional_usdc[1]
    for request in requests:
        first = request.structure.legs[0].instrument
        tick = market.spec(first.underlying).min_qty_tick
        assert request.qty > 0 and request.qty % tick == 0
        value, notional = structure_fair_value(market, request.structure)
        size = request.qty * notional / len(request.structure.legs)
        assert size <= high * D("1.01")
        if request.kind == "option":
            strike = request.structure.legs[0].instrument.strike
            assert "E" not in str(strike)  # a plain decimal on the wire
            assert value > 0


def test_expiries_and_strike_grids():
    now = datetime(2026, 11, 3, 12, 0, tzinfo=UTC)  # a Tuesday
    assert option_expiry(now) == datetime(2026, 11, 6, 8, 0, tzinfo=UTC)
    assert dated_expiry(now) == datetime(2026, 12, 25, 8, 0, tzinfo=UTC)
    assert strike_grid(D(98_500)) == D(2000)
    assert strike_grid(D(3450)) == D(50)
    assert strike_grid(D("0.184")) == D("0.002")


def test_seeded_draws_are_pure_and_well_spread():
    values = [draw(1, "x", i) for i in range(2000)]
    assert values == [draw(1, "x", i) for i in range(2000)]
    assert min(values) >= 0 and max(values) < 1
    assert abs(sum(values) / len(values) - 0.5) < 0.03
    waits = [exponential(1, 45.0, "gap", i) for i in range(4000)]
    assert abs(sum(waits) / len(waits) - 45.0) < 3.0
    picks = [choose(1, {"a": 0.8, "b": 0.2}, i) for i in range(4000)]
    assert abs(picks.count("a") / 4000 - 0.8) < 0.03


def test_actor_config_refuses_nonsense():
    with pytest.raises(ValueError, match="pace"):
        ActorConfig(pace=0)
    with pytest.raises(ValueError, match="interval"):
        ActorConfig(taker_rfq_interval_s=0)
    with pytest.raises(ValueError, match="lifetime"):
        ActorConfig(taker_rfq_lifetime_s=5)
    with pytest.raises(ValueError, match="competition"):
        ActorConfig(taker_competition=2)
    assert ActorConfig(pace=2).scaled(10) == 5
