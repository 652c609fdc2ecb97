"""The same seed gives the same market: identical actor actions, and public stats that move."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.sandbox.kit import ActorKit, always
from tui.api.models import AcceptQuoteRequest, TradeSide
from tui.sandbox.actors.profiles import ActorConfig, maker_profile

D = Decimal
BUSY = ActorConfig(taker_rfq_interval_s=15, taker_competition=1.0)


def run_actions(path, seed: int, seconds: float = 400) -> list[tuple]:
    kit = ActorKit(path, seed=seed, config=BUSY)
    try:
        kit.run(seconds, step=1.0)
        return [(a.at_ms, a.actor, a.kind, a.ref, a.detail) for a in kit.runner.actions]
    finally:
        kit.close()


def test_the_same_seed_gives_identical_actor_actions(tmp_path):
    first = run_actions(tmp_path / "a.db", seed=21)
    second = run_actions(tmp_path / "b.db", seed=21)
    assert len(first) > 30
    kinds = {kind for _, _, kind, _, _ in first}
    assert {"rfq", "quote", "accept", "booked"} <= kinds, kinds
    assert first == second


def test_another_seed_gives_another_market(tmp_path):
    assert run_actions(tmp_path / "a.db", seed=21, seconds=200) != run_actions(
        tmp_path / "c.db", seed=22, seconds=200
    )


def test_decisions_are_keyed_draws_not_a_shared_stream():
    """A decision depends on (seed, actor, subject) only: asking in any order gives the same."""
    profile = maker_profile(5, "DUNE")
    ids = [f"rfq-{i}" for i in range(200)]
    forward = [profile.answers(5, i) for i in ids]
    backward = [profile.answers(5, i) for i in reversed(ids)][::-1]
    assert forward == backward
    assert 0 < sum(forward) < len(ids)
    assert [profile.last_look_action(5, i) for i in ids] == [
        profile.last_look_action(5, i) for i in ids
    ]


@pytest.fixture
def kit(tmp_path):
    k = ActorKit(
        tmp_path / "stats.db",
        config=ActorConfig(takers=False),
        maker_profiles=always("ALPHA", "accept"),
    )
    yield k
    k.close()


def test_public_statistics_change_after_a_sandbox_trade(kit):
    before = kit.ex.market_stats()
    rfq = kit.desk_rfq(("ALPHA",), qty="1.5")  # in the seeded DESK-ALPHA pool
    assert kit.run(20, until=lambda: kit.desk_rfq_view(rfq.rfq_id).asks)
    best = kit.desk_rfq_view(rfq.rfq_id).best_ask
    kit.ex.quotes_accept(
        kit.caller("DESK"),
        AcceptQuoteRequest(
            parent_quote_id=best.parent_quote_id, rfq_id=rfq.rfq_id, side=TradeSide.BUY
        ),
    )

    def booked():
        return kit.ex.portfolio_trades(kit.caller("DESK"), limit=10, offset=0).items

    assert kit.run(60, until=booked), [a for a in kit.runner.actions if a.ref == rfq.rfq_id]
    trade = booked()[0]
    after = kit.ex.market_stats()
    notional = trade.qty * kit.ex.market.mark_price("BTC")
    grew = after.total_volume_24h - before.total_volume_24h
    assert grew > 0
    assert abs(grew - notional) / notional < D("0.01")  # qty x underlying at booking
    assert after.cumulative_volume - before.cumulative_volume == grew
    btc_before = next(x for x in before.listings if x.ticker == "BTC")
    btc_after = next(x for x in after.listings if x.ticker == "BTC")
    assert btc_after.volume_24h == btc_before.volume_24h + grew
    assert btc_after.open_interest.long_open_interest > btc_before.open_interest.long_open_interest
