"""The market's mark walk: positive, moving, realistic, deterministic, restorable."""

from __future__ import annotations

import itertools
import json
import re
from decimal import Decimal

import pytest

from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.market import pricepath
from tui.sandbox.market.listings import DEFAULT_LISTINGS, USDC_ADDRESS
from tui.sandbox.market.marks import Market
from tui.sandbox.market.pricepath import BLOCK_STEPS, BrownianPath

START_MS = 1_793_500_000_000  # November 2026
DAY_S = 86_400


def _market(seed: int = 7) -> Market:
    return Market(seed, SandboxClock(frozen_at_ms=START_MS))


def _marks(market: Market) -> dict[str, Decimal]:
    return {t: market.mark_price(t) for t in market.underlyings()}


def _path(market: Market, *, hours: int, every_s: int = 3600) -> list[dict[str, Decimal]]:
    out = []
    for _ in range(hours * 3600 // every_s):
        market.clock.advance(every_s)
        out.append(_marks(market))
    return out


def test_listings_cover_majors_and_five_smaller_perpetuals() -> None:
    market = _market()
    tickers = market.underlyings()
    assert tickers[:3] == ["BTC", "ETH", "SOL"]
    assert all(market.spec(t).major for t in ("BTC", "ETH", "SOL"))
    assert sum(not market.spec(t).major for t in tickers) >= 5
    assert len(tickers) == len(set(tickers))


def test_marks_start_at_listing_prices_on_their_tick() -> None:
    market = _market()
    for spec in DEFAULT_LISTINGS:
        mark = market.mark_price(spec.ticker)
        assert mark == spec.start_price
        assert mark % spec.tick == 0


def test_marks_stay_positive_and_move_over_a_simulated_day() -> None:
    market = _market()
    start = _marks(market)
    path = _path(market, hours=24, every_s=600)
    for ticker in market.underlyings():
        series = [marks[ticker] for marks in path]
        tick = market.spec(ticker).tick
        assert all(mark > 0 and mark % tick == 0 for mark in series)
        assert len(set(series)) > len(series) // 2, f"{ticker} hardly moves"
        assert path[-1][ticker] != start[ticker]


def test_marks_move_second_by_second() -> None:
    market = _market()
    seen = []
    for _ in range(30):
        market.clock.advance(1)
        seen.append(market.mark_price("BTC"))
    assert len(set(seen)) > 20


def test_marks_stay_positive_over_three_simulated_years() -> None:
    market = _market(seed=3)
    for _ in range(3 * 365):
        market.clock.advance(DAY_S)
        for ticker in market.underlyings():
            assert market.mark_price(ticker) > 0


def test_reading_twice_gives_the_same_mark() -> None:
    market = _market()
    market.clock.advance(12_345.6)
    assert _marks(market) == _marks(market)


def test_same_seed_same_market_different_seed_different() -> None:
    one, two, other = _market(seed=11), _market(seed=11), _market(seed=12)
    for _ in range(48):
        for market in (one, two, other):
            market.clock.advance(1800)
        assert _marks(one) == _marks(two)
    assert _marks(one) != _marks(other)


def test_mark_is_a_function_of_time_not_of_reading_order() -> None:
    market_a, market_b = _market(), _market()
    times = [START_MS + s * 1000 for s in (5, 70_000, 3, 123_456, 40_000, -9_000, 16_384, 16_385)]
    forward = {t: market_a.mark_price_at("ETH", t) for t in sorted(times)}
    backward = {t: market_b.mark_price_at("ETH", t) for t in sorted(times, reverse=True)}
    assert forward == backward


def test_jumping_a_day_equals_walking_it() -> None:
    walker, jumper = _market(), _market()
    for _ in range(24):
        walker.clock.advance(3600)
        _marks(walker)
    jumper.clock.advance(DAY_S)
    assert _marks(jumper) == _marks(walker)


def test_history_before_the_epoch_is_priced() -> None:
    market = _market()
    before = [market.mark_price_at("SOL", START_MS - h * 3_600_000) for h in range(1, 25)]
    assert all(mark > 0 for mark in before)
    assert len(set(before)) > 12


def _log_returns(marks: list[Decimal]) -> list[Decimal]:
    return [(b / a).ln() for a, b in itertools.pairwise(marks)]


def _mean(values: list[Decimal]) -> Decimal:
    return sum(values, Decimal(0)) / len(values)


def test_realized_volatility_is_realistic() -> None:
    market = _market(seed=5)
    hours = 24 * 90
    for ticker in ("BTC", "SOL", "WIF"):
        marks = [market.mark_price_at(ticker, START_MS + h * 3_600_000) for h in range(hours)]
        returns = _log_returns(marks)
        mean = _mean(returns)
        var = sum(((r - mean) ** 2 for r in returns), Decimal(0)) / (len(returns) - 1)
        annual = (var * 24 * 365).sqrt()
        target = market.spec(ticker).annual_vol
        assert target * Decimal("0.85") < annual < target * Decimal("1.15"), (ticker, annual)


def test_assets_move_together_but_not_in_lockstep() -> None:
    market = _market(seed=9)
    hours = 24 * 60
    rets = {
        t: _log_returns([market.mark_price_at(t, START_MS + h * 3_600_000) for h in range(hours)])
        for t in ("BTC", "ETH")
    }
    mean = {t: _mean(r) for t, r in rets.items()}
    centred = {t: [x - mean[t] for x in r] for t, r in rets.items()}
    cov = sum((a * b for a, b in zip(centred["BTC"], centred["ETH"], strict=True)), Decimal(0))
    var = {t: sum((x * x for x in c), Decimal(0)) for t, c in centred.items()}
    corr = cov / (var["BTC"] * var["ETH"]).sqrt()
    assert Decimal("0.15") < corr < Decimal("0.6")


def test_snapshot_restore_continues_identically() -> None:
    original = _market(seed=21)
    original.clock.advance(3 * DAY_S + 17)
    _marks(original)
    state = json.loads(json.dumps(original.snapshot()))

    clock = SandboxClock(frozen_at_ms=original.clock.now_ms())
    restored = Market.restore(state, clock)
    assert restored.epoch_ms == original.epoch_ms
    assert restored.underlyings() == original.underlyings()
    assert _marks(restored) == _marks(original)
    for _ in range(30):
        original.clock.advance(977)
        restored.clock.advance(977)
        assert _marks(restored) == _marks(original)
        assert restored.lp_vault() == original.lp_vault()
    # The past is unchanged too.
    assert restored.mark_price_at("BTC", START_MS + 60_000) == original.mark_price_at(
        "BTC", START_MS + 60_000
    )


def test_restore_refuses_bad_state() -> None:
    clock = SandboxClock(frozen_at_ms=START_MS)
    with pytest.raises(ValueError):
        Market.restore({"version": 99}, clock)
    state = _market().snapshot()
    del state["epoch_ms"]
    with pytest.raises(ValueError):
        Market.restore(state, clock)
    state = _market().snapshot()
    state["paths"][0]["key"] = "nope"
    with pytest.raises(ValueError):
        Market.restore(state, clock)


def test_restored_path_does_not_recompute_from_its_epoch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    far = 2000 * BLOCK_STEPS + 99
    original = BrownianPath(1, "asset:BTC")
    value = original.at(far)
    checkpoint = json.loads(json.dumps(original.checkpoint()))

    draws: list[str] = []
    real = pricepath.seeded_normal

    def counting(seed: int, key: str, kind: str, index: int) -> float:
        draws.append(kind)
        return real(seed, key, kind, index)

    monkeypatch.setattr(pricepath, "seeded_normal", counting)
    restored = BrownianPath(1, "asset:BTC")
    restored.load_checkpoint(checkpoint)
    assert restored.at(far) == value
    assert draws.count("block") <= 2  # the block's own end, not 2000 blocks from the epoch


def test_brownian_path_has_the_right_scale() -> None:
    path = BrownianPath(4, "scale")
    # Increments over 100 steps, many disjoint windows: variance about 100.
    incs = [path.at(100 * (i + 1)) - path.at(100 * i) for i in range(2000)]
    var = sum(x * x for x in incs) / len(incs)
    assert 80 < var < 120
    assert path.at(0) == 0.0


def test_unknown_underlying() -> None:
    market = _market()
    with pytest.raises(KeyError, match="NOPE"):
        market.spec("NOPE")
    with pytest.raises(KeyError):
        market.mark_price("NOPE")


def test_supported_assets() -> None:
    market = _market()
    everything = market.supported_assets()
    assert set(everything) == {*market.underlyings(), "USDC"}
    for ticker, details in everything.items():
        assert len(details) == 1 and details[0].asset == ticker
        assert re.fullmatch(r"0x[0-9a-f]{40}", details[0].address or "")
    assert everything["USDC"][0].address == USDC_ADDRESS
    assert everything["USDC"][0].variational_funding_rate_params is None
    btc = everything["BTC"][0]
    assert btc.variational_funding_rate_params is not None
    assert btc.min_qty_tick == Decimal("0.0001")
    assert btc.precision_requirements is not None
    verified = market.supported_assets(verified=True)
    assert "WIF" not in verified and "BTC" in verified and "USDC" in verified
    assert market.supported_assets(verified=False) == everything
    wire = json.loads(
        json.dumps({k: [d.model_dump(mode="json") for d in v] for k, v in everything.items()})
    )
    assert wire["BTC"][0]["min_qty_tick"] == "0.0001"


def test_same_addresses_every_time() -> None:
    assert _market(1).supported_assets() == _market(2).supported_assets()


def test_market_refuses_bad_listings() -> None:
    clock = SandboxClock(frozen_at_ms=START_MS)
    with pytest.raises(ValueError):
        Market(1, clock, listings=[])
    with pytest.raises(ValueError):
        Market(1, clock, listings=[DEFAULT_LISTINGS[0], DEFAULT_LISTINGS[0]])
