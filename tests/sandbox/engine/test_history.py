"""Seeded history: a fresh sandbox's public statistics start from a realistic past."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.sandbox.kit import START_MS, ActorKit
from tui.sandbox.actors.profiles import ActorConfig
from tui.sandbox.engine.history import HISTORY_META_KEY, seed_history
from tui.sandbox.engine.history_plan import DEFAULT_PAIRS, HistoryConfig, plan_history

D = Decimal
SMALL = HistoryConfig(scale=0.05)
DAY_MS = 86_400_000
MAJORS = {"BTC", "ETH", "SOL"}
TICKERS = ["BTC", "ETH", "SOL", "DOGE", "AVAX"]


@pytest.fixture
def kit(tmp_path):
    k = ActorKit(tmp_path / "history.db", config=ActorConfig(enabled=False))
    yield k
    k.close()


def test_a_fresh_sandbox_has_empty_stats_and_history_fills_them(kit):
    empty = kit.ex.market_stats()
    assert empty.total_volume_24h == 0 and empty.cumulative_volume == 0

    report = seed_history(kit.ex, SMALL)

    assert report is not None and report.planned > 0
    assert report.booked == report.planned and report.failed == 0, report.failures
    stats = kit.ex.market_stats()
    assert stats.total_volume_24h > 0
    # 26 h of history: some of it is older than the 24 h window.
    assert stats.cumulative_volume > stats.total_volume_24h
    assert abs(stats.cumulative_volume - report.volume) / report.volume < D("0.01")
    btc = next(x for x in stats.listings if x.ticker == "BTC")
    doge = next(x for x in stats.listings if x.ticker == "DOGE")
    assert btc.volume_24h > doge.volume_24h > 0  # majors trade far more
    assert stats.open_interest > 0
    assert stats.tvl > empty.tvl  # history pools hold deposits


def test_history_is_booked_in_the_past_through_the_engine(kit):
    report = seed_history(kit.ex, SMALL)
    assert report is not None
    trades = kit.ex.portfolio_trades(kit.caller("EMBR"), limit=10_000, offset=0).items
    assert trades
    now = kit.now
    created = [t.created_at.timestamp() * 1000 for t in trades]
    assert min(created) >= now - 26 * 3_600_000
    assert max(created) <= now - 60_000
    # Real records behind every trade: a closed RFQ and a filled quote in an open pool.
    rfq = kit.ex.rfqs_sent(kit.caller("EMBR"), limit=1, offset=0, id=trades[0].source_rfq).items
    assert rfq and rfq[0].rfq_status == "closed"
    pools = kit.ex.settlement_pools(kit.caller("EMBR"), limit=100, offset=0).items
    assert {p.data.name for p in pools} == {"ALPHA-EMBR main", "CBLT-EMBR main"}
    assert all(str(p.data.status) == "open" for p in pools)


def test_the_users_company_takes_no_part_in_history(kit):
    seed_history(kit.ex, SMALL)
    desk = kit.caller("DESK")
    assert kit.ex.portfolio_trades(desk, limit=10, offset=0).items == []
    assert kit.ex.rfqs_received(desk, limit=10, offset=0).items == []
    assert kit.ex.rfqs_sent(desk, limit=10, offset=0).items == []


def test_history_is_written_once(kit):
    assert seed_history(kit.ex, SMALL) is not None
    assert kit.ex.store.meta_get(HISTORY_META_KEY) is not None
    volume = kit.ex.market_stats().cumulative_volume
    assert seed_history(kit.ex, SMALL) is None
    assert kit.ex.market_stats().cumulative_volume == volume


def test_the_same_seed_gives_the_same_history(tmp_path):
    books = []
    for name in ("a", "b"):
        kit = ActorKit(tmp_path / f"{name}.db", seed=9, config=ActorConfig(enabled=False))
        try:
            seed_history(kit.ex, SMALL)
            trades = kit.ex.portfolio_trades(kit.caller("FJRD"), limit=10_000, offset=0).items
            books.append([(t.id, t.created_at, t.side, t.price, t.qty) for t in trades])
        finally:
            kit.close()
    assert books[0] and books[0] == books[1]


def test_live_actors_trade_on_after_history(tmp_path):
    """After history, the simulated makers and takers carry on in the funded history pools."""
    kit = ActorKit(
        tmp_path / "after.db", config=ActorConfig(taker_rfq_interval_s=10, taker_competition=1.0)
    )
    try:
        seed_history(kit.ex, SMALL)
        before = kit.ex.market_stats().total_volume_24h
        assert kit.run(600, step=1.0, until=lambda: kit.actions("booked"))
        assert not [a for a in kit.runner.actions if a.kind == "refused" and "rfq" in a.detail]
        assert kit.ex.market_stats().total_volume_24h > before
    finally:
        kit.close()


def test_the_default_plan_has_realistic_daily_volumes():
    end = START_MS
    plan = plan_history(1, TICKERS, MAJORS, end - DAY_MS, end, HistoryConfig())
    volume = {t: sum((p.notional for p in plan if p.underlying == t), D(0)) for t in TICKERS}
    assert D(25_000_000) <= volume["BTC"] <= D(40_000_000)  # tens of millions a day on BTC
    assert volume["BTC"] > volume["ETH"] > volume["SOL"] > volume["DOGE"]
    assert all(end - DAY_MS <= p.at_ms < end for p in plan)
    assert [p.at_ms for p in plan] == sorted(p.at_ms for p in plan)
    assert {(p.maker, p.taker) for p in plan} == set(DEFAULT_PAIRS)
    assert all(p.maker != "DESK" and p.taker != "DESK" for p in plan)


def test_the_plan_is_a_pure_function_of_the_seed():
    args = (TICKERS, MAJORS, START_MS - DAY_MS, START_MS, HistoryConfig(scale=0.2))
    assert plan_history(4, *args) == plan_history(4, *args)
    assert plan_history(4, *args) != plan_history(5, *args)
    assert plan_history(4, TICKERS, MAJORS, START_MS, START_MS, HistoryConfig()) == []


def test_history_config_refuses_nonsense():
    with pytest.raises(ValueError, match="hours"):
        HistoryConfig(hours=0)
    with pytest.raises(ValueError, match="scale"):
        HistoryConfig(scale=-1)
    with pytest.raises(ValueError, match="pairs"):
        HistoryConfig(pairs=())


def test_an_interrupted_seeding_leaves_nothing_and_runs_again_on_the_next_start(kit, monkeypatch):
    from tui.sandbox.engine import history

    played = []
    real_play = history._HistoryPlayer.play

    def play_then_die(self, trade, majors):
        if len(played) == 3:
            raise KeyboardInterrupt  # the process is stopped half-way
        played.append(trade)
        real_play(self, trade, majors)

    monkeypatch.setattr(history._HistoryPlayer, "play", play_then_die)
    with pytest.raises(KeyboardInterrupt):
        seed_history(kit.ex, SMALL)
    assert kit.ex.store.meta_get(HISTORY_META_KEY) is None
    assert kit.ex.store.scalar("SELECT COUNT(*) FROM pools WHERE name LIKE '% main'") == 1
    assert kit.ex.market_stats().cumulative_volume == 0

    monkeypatch.setattr(history._HistoryPlayer, "play", real_play)
    from tui.sandbox.engine.exchange import Exchange

    path, seed = kit.ex.store.path, kit.ex.market.seed
    kit.ex.close()
    kit.ex = Exchange.open(path, seed=seed, clock=kit.clock, block_delay_s=2.0)
    report = seed_history(kit.ex, SMALL)
    assert report is not None and report.booked == report.planned > 0
    assert kit.ex.store.meta_get(HISTORY_META_KEY) is not None
