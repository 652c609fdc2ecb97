"""Instrument values, structure prices, aggregated positions and the portfolio summary."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from tui.api.models import (
    DatedFutureInstrument,
    Leg,
    PayoffType,
    PerpetualFutureInstrument,
    Position,
    SpotInstrument,
    Structure,
    TradeSide,
    UnknownVariant,
    VanillaOptionInstrument,
)
from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.market.marks import Market
from tui.sandbox.market.pricing import RISK_FREE_RATE

START_MS = 1_793_500_000_000
NOW = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=START_MS)
D = Decimal


@pytest.fixture
def market() -> Market:
    m = Market(7, SandboxClock(frozen_at_ms=START_MS))
    m.clock.advance(7200)  # off the epoch, so marks are not the round start prices
    return m


def _option(underlying: str, strike: Decimal, payoff: PayoffType, days: int = 30):
    return VanillaOptionInstrument(
        underlying=underlying,
        expiry=NOW + timedelta(days=days),
        strike=strike,
        payoff=payoff,
    )


def _position(instrument, qty: str, entry: str) -> Position:
    return Position(
        company="c1",
        instrument=instrument,
        updated_at=NOW,
        qty=D(qty),
        avg_entry_price=D(entry),
    )


def test_linear_instruments_are_worth_the_mark(market: Market) -> None:
    mark = market.mark_price("BTC")
    for instrument in (
        PerpetualFutureInstrument(underlying="BTC"),
        SpotInstrument(underlying="BTC"),
    ):
        value = market.value(instrument)
        assert value.price == value.underlying_price == mark
        assert value.delta == 1 and value.iv is None
        assert value.gamma == value.theta == value.vega == value.rho == 0


def test_dated_future_carries_and_has_delta_one(market: Market) -> None:
    mark = market.mark_price("ETH")
    future = DatedFutureInstrument(
        underlying="ETH", expiry=market.clock.now() + timedelta(days=365)
    )
    value = market.value(future)
    assert value.delta == 1
    expected = mark * RISK_FREE_RATE.exp()
    assert abs(value.price - expected) <= market.spec("ETH").tick * 2
    assert value.price % market.spec("ETH").tick == 0
    expired = DatedFutureInstrument(underlying="ETH", expiry=NOW - timedelta(days=1))
    assert market.value(expired).price == mark


def test_options_use_the_listing_vol_and_keep_parity(market: Market) -> None:
    mark = market.mark_price("ETH")
    strike = (mark * D("1.05")).quantize(D(1))
    call = market.value(_option("ETH", strike, PayoffType.CALL))
    put = market.value(_option("ETH", strike, PayoffType.PUT))
    assert call.iv == put.iv == market.spec("ETH").option_vol
    assert call.underlying_price == mark
    elapsed_years = (D(30) * 86_400 - D(7200)) / (365 * 86_400)
    parity = mark - strike * (-RISK_FREE_RATE * elapsed_years).exp()
    assert abs(call.price - put.price - parity) < D("0.0001")
    assert 0 < call.delta < 1 and -1 < put.delta < 0 and call.gamma > 0 and call.theta < 0


def test_options_past_expiry_are_intrinsic(market: Market) -> None:
    mark = market.mark_price("SOL")
    call = market.value(_option("SOL", mark - 10, PayoffType.CALL, days=-1))
    assert call.price == D(10) and call.delta == 1 and call.vega == 0


def test_unlisted_or_unknown_instruments_name_the_problem(market: Market) -> None:
    with pytest.raises(ValueError, match="PEPE"):
        market.value(PerpetualFutureInstrument(underlying="PEPE"))
    weird = UnknownVariant.model_validate({"instrument_type": "swaption", "underlying": "BTC"})
    with pytest.raises(ValueError, match="swaption"):
        market.value(weird)
    with pytest.raises(ValueError, match="settlement_asset"):
        market.value(PerpetualFutureInstrument(underlying="BTC", settlement_asset="USDT"))


def test_structure_price_of_one_leg_is_its_value(market: Market) -> None:
    option = _option("BTC", D(100_000), PayoffType.CALL)
    price = market.structure_price(Structure(legs=[Leg(side=TradeSide.BUY, instrument=option)]))
    value = market.value(option)
    assert price.price == value.price
    assert price.delta == value.delta and price.vega == value.vega
    assert price.native_price == (value.price / value.underlying_price).quantize(D("1e-8"))
    assert price.timestamp == market.clock.now()


def test_structure_price_weights_legs_by_side_and_ratio(market: Market) -> None:
    strike = market.mark_price("ETH").quantize(D(1))
    call, put = _option("ETH", strike, PayoffType.CALL), _option("ETH", strike, PayoffType.PUT)
    perp = PerpetualFutureInstrument(underlying="ETH")
    structure = Structure(
        legs=[
            Leg(side=TradeSide.BUY, ratio=2, instrument=call),
            Leg(side=TradeSide.SELL, ratio=1, instrument=put),
            Leg(side=TradeSide.SELL, ratio=1, instrument=perp),
        ]
    )
    c, p, f = market.value(call), market.value(put), market.value(perp)
    out = market.structure_price(structure)
    assert out.price == 2 * c.price - p.price - f.price
    assert out.delta == 2 * c.delta - p.delta - f.delta
    assert out.gamma == 2 * c.gamma - p.gamma
    assert out.theta == 2 * c.theta - p.theta

    scaled = market.structure_price(structure, qty=D(3))
    assert scaled.price == out.price  # per structure unit, comparable with quotes
    assert scaled.delta == out.delta * 3 and scaled.vega == out.vega * 3


def test_a_synthetic_forward_has_delta_about_one(market: Market) -> None:
    strike = market.mark_price("BTC").quantize(D(1000))
    structure = Structure(
        legs=[
            Leg(side=TradeSide.BUY, instrument=_option("BTC", strike, PayoffType.CALL)),
            Leg(side=TradeSide.SELL, instrument=_option("BTC", strike, PayoffType.PUT)),
        ]
    )
    out = market.structure_price(structure)
    assert abs(out.delta - 1) < D("1e-8")
    assert abs(out.gamma) < D("1e-9")


def test_structure_price_refuses_unlisted_legs(market: Market) -> None:
    structure = Structure(
        legs=[Leg(side=TradeSide.BUY, instrument=PerpetualFutureInstrument(underlying="XYZ"))]
    )
    with pytest.raises(ValueError, match="XYZ"):
        market.structure_price(structure)


def test_structure_price_moves_with_the_mark(market: Market) -> None:
    structure = Structure(
        legs=[Leg(side=TradeSide.BUY, instrument=PerpetualFutureInstrument(underlying="SOL"))]
    )
    before = market.structure_price(structure)
    market.clock.advance(3600)
    after = market.structure_price(structure)
    assert after.price != before.price and after.timestamp > before.timestamp  # type: ignore[operator]


def test_aggregated_position_values_at_the_mark(market: Market) -> None:
    perp = PerpetualFutureInstrument(underlying="BTC")
    mark = market.mark_price("BTC")
    short = market.aggregate_position(_position(perp, "-2", "90000"))
    assert short.price == mark and short.underlying_price == mark
    assert short.sum_delta == -2
    assert short.upnl == -2 * (mark - 90_000)
    assert short.notional == 2 * mark
    assert short.position_info.qty == D(-2)

    option = _option("BTC", D(100_000), PayoffType.PUT)
    value = market.value(option)
    long_put = market.aggregate_position(_position(option, "1.5", "1000"))
    assert long_put.iv == value.iv
    assert long_put.sum_vega == D("1.5") * value.vega
    assert long_put.upnl == (D("1.5") * (value.price - 1000)).quantize(D("1e-8"))


def test_portfolio_summary_sums_positions_and_dollar_greeks(market: Market) -> None:
    btc, eth = market.mark_price("BTC"), market.mark_price("ETH")
    positions = [
        _position(PerpetualFutureInstrument(underlying="BTC"), "1", "95000"),
        _position(PerpetualFutureInstrument(underlying="ETH"), "-10", "3500"),
        _position(_option("ETH", D(3500), PayoffType.CALL), "4", "150"),
    ]
    summary = market.portfolio_summary(D("250000"), positions)
    aggs = [market.aggregate_position(p) for p in positions]
    assert summary.sum_balance == D(250_000)
    assert summary.sum_upnl == sum((a.upnl for a in aggs), D(0))
    assert summary.sum_notional == sum((a.notional for a in aggs), D(0))
    assert summary.sum_delta == sum((a.sum_delta for a in aggs), D(0))
    assert summary.sum_vega == aggs[2].sum_vega
    dollar_delta = btc - 10 * eth + aggs[2].sum_delta * eth
    assert summary.sum_dollar_delta == dollar_delta.quantize(D("1e-8"))
    assert summary.sum_dollar_gamma == (aggs[2].sum_gamma * eth * eth / 100).quantize(D("1e-8"))
    assert summary.sum_dollar_gamma > 0

    empty = market.portfolio_summary(D(0), [])
    assert empty.sum_delta == 0 and empty.sum_upnl == 0 and empty.sum_notional == 0


def test_portfolio_summary_serializes_as_strings(market: Market) -> None:
    positions = [_position(PerpetualFutureInstrument(underlying="SOL"), "3", "150")]
    wire = market.portfolio_summary(D("1000.5"), positions).model_dump(mode="json")
    assert all(isinstance(v, str) for v in wire.values())
    assert "E" not in wire["sum_gamma"]
