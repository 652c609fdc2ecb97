"""Indicative quotes around the mark, and the funding curve."""

from __future__ import annotations

import itertools
from decimal import Decimal

import pytest

from tui.api.models import FundingRateParams
from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.market.funding import funding_rate
from tui.sandbox.market.marks import Market

START_MS = 1_793_500_000_000
D = Decimal
SIZES = (D(1_000), D(100_000), D(1_000_000))


@pytest.fixture
def market() -> Market:
    return Market(31, SandboxClock(frozen_at_ms=START_MS))


def test_bid_below_mark_below_ask_wider_with_size(market: Market) -> None:
    for _ in range(12):
        market.clock.advance(2 * 3600 + 13)
        for ticker in market.underlyings():
            mark = market.mark_price(ticker)
            tick = market.spec(ticker).tick
            quotes = [market.indicative_quote(ticker, size) for size in SIZES]
            for bid, ask in quotes:
                assert 0 < bid < mark < ask
                assert bid % tick == 0 and ask % tick == 0
            for (bid_small, ask_small), (bid_big, ask_big) in itertools.pairwise(quotes):
                assert bid_big <= bid_small and ask_big >= ask_small
                assert ask_big - bid_big > ask_small - bid_small


def test_spread_starts_at_base_and_grows_with_the_root_of_size(market: Market) -> None:
    btc = market.spec("BTC")
    assert market.spread_bps("BTC", D(1_000_000)) == 2 * btc.base_spread_bps
    small = market.spread_bps("BTC", D(1))
    assert btc.base_spread_bps < small < btc.base_spread_bps * D("1.01")
    doge = market.spec("DOGE")
    assert market.spread_bps("DOGE", D(100_000)) == 2 * doge.base_spread_bps


def test_quote_at_one_thousand_is_about_the_base_spread(market: Market) -> None:
    mark = market.mark_price("ETH")
    bid, ask = market.indicative_quote("ETH", D(1000))
    spread_bps = (ask - bid) / mark * 10_000
    base = market.spec("ETH").base_spread_bps
    assert base <= spread_bps <= base * D("1.2")


def test_quote_refuses_bad_size_and_unknown_ticker(market: Market) -> None:
    with pytest.raises(ValueError, match="notional"):
        market.indicative_quote("BTC", D(0))
    with pytest.raises(KeyError):
        market.indicative_quote("NOPE", D(1000))


# ---- funding ------------------------------------------------------------------------------


def test_no_funding_when_balanced_or_below_the_floor(market: Market) -> None:
    floor = market.spec("BTC").funding_params.min_imbalance_dollars
    assert market.funding_rate("BTC", D(0), D(0)) == 0
    assert market.funding_rate("BTC", D(5_000_000), D(5_000_000)) == 0
    assert market.funding_rate("BTC", floor, D(0)) == 0
    assert market.funding_rate("BTC", D(0), floor) == 0


def test_funding_sign_follows_imbalance_and_is_antisymmetric(market: Market) -> None:
    for ticker in market.underlyings():
        longs = market.funding_rate(ticker, D(9_000_000), D(3_000_000))
        shorts = market.funding_rate(ticker, D(3_000_000), D(9_000_000))
        assert longs > 0 > shorts
        assert longs == -shorts


def test_funding_is_monotone_in_each_side(market: Market) -> None:
    short = D(2_000_000)
    rates = [market.funding_rate("ETH", D(step) * 100_000, short) for step in range(0, 400)]
    assert all(a <= b for a, b in itertools.pairwise(rates))
    assert rates[0] < 0 < rates[-1]
    long = D(2_000_000)
    rates = [market.funding_rate("ETH", long, D(step) * 100_000) for step in range(0, 400)]
    assert all(a >= b for a, b in itertools.pairwise(rates))


def test_funding_is_capped_past_the_extreme_threshold(market: Market) -> None:
    params = market.spec("SOL").funding_params
    cap = (
        params.normal_slope * params.normal_threshold
        + params.high_slope * (params.high_threshold - params.normal_threshold)
        + params.extreme_slope * (params.extreme_threshold - params.high_threshold)
    )
    one_sided = market.funding_rate("SOL", D(10) ** 12, D(0))
    assert one_sided == cap.quantize(one_sided)
    assert market.funding_rate("SOL", D(10) ** 12, D(1)) == one_sided


def test_funding_ramps_in_past_the_floor(market: Market) -> None:
    floor = market.spec("BTC").funding_params.min_imbalance_dollars
    just_past = market.funding_rate("BTC", floor + 1000, D(0))
    far_past = market.funding_rate("BTC", floor * 20, D(0))
    assert 0 < just_past < far_past / 10


def test_funding_curve_slopes_by_segment() -> None:
    params = FundingRateParams(
        normal_threshold=D("0.1"),
        high_threshold=D("0.3"),
        extreme_threshold=D("0.6"),
        normal_slope=D("0.001"),
        high_slope=D("0.01"),
        extreme_slope=D("0.1"),
        min_imbalance_dollars=D(0),
        funding_exponent_factor=D(0),  # no ramp: the bare curve
    )

    def at(ratio: str) -> Decimal:
        # long - short = ratio * (long + short) with long + short = 1e6
        r = D(ratio)
        return funding_rate(params, (1 + r) * 500_000, (1 - r) * 500_000)

    assert at("0.05") == D("0.00005")
    assert at("0.2") == D("0.0001") + D("0.001")
    assert at("0.5") == D("0.0001") + D("0.002") + D("0.02")
    assert at("0.9") == at("0.6") == D("0.0001") + D("0.002") + D("0.03")


def test_funding_refuses_negative_open_interest(market: Market) -> None:
    with pytest.raises(ValueError, match="long_oi"):
        market.funding_rate("BTC", D(-1), D(0))
    with pytest.raises(ValueError, match="short_oi"):
        market.funding_rate("BTC", D(0), D(-1))
