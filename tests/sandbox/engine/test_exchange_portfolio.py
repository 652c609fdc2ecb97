"""Portfolio reads: assets, positions, aggregated positions, trades, summary, market stats."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.sandbox.kit import Kit
from tui.api.models import LegQuote, PayoffType

D = Decimal


@pytest.fixture
def kit(tmp_path):
    k = Kit(tmp_path / "portfolio.db")
    yield k
    k.close()


def trade(kit, legs, qty="1", side="buy", maker="ALPHA", **quote_options):
    rfq = kit.rfq(targets=(maker,), legs=legs, qty=qty)
    quote = kit.quote(maker, rfq, **quote_options)
    kit.accept("DESK", quote, side)
    kit.last_look(maker, quote)
    return rfq, quote


def test_assets_per_pool_and_summed(kit):
    seed = kit.seed_pool_id()
    other = kit.new_pool("DESK", "BORE", name="second")
    kit.advance(2)
    kit.deposit("DESK", other.pool_id, "5000")
    (summary,) = kit.ex.portfolio_assets(kit["DESK"], limit=10, offset=0).items
    assert (summary.asset, summary.qty, summary.pool_location, summary.counterparty) == (
        "USDC",
        D(255_000),
        None,
        None,
    )
    (in_pool,) = kit.ex.portfolio_assets(kit["DESK"], limit=10, offset=0, pool=seed).items
    assert (in_pool.qty, in_pool.pool_location, in_pool.counterparty) == (
        D(250_000),
        seed,
        kit.id("ALPHA"),
    )
    assert kit.ex.portfolio_assets(kit["BORE"], limit=10, offset=0, pool=seed).items == []
    assert kit.ex.portfolio_assets(kit["EMBR"], limit=10, offset=0).items == []


def test_positions_aggregated_and_summary(kit):
    option = kit.option(strike="95000", payoff=PayoffType.PUT)
    trade(kit, [("buy", kit.perp())], qty="2")
    trade(kit, [("sell", option)], qty="3")
    positions = kit.ex.portfolio_positions(kit["DESK"], limit=10, offset=0).items
    assert [p.qty for p in positions] == [D(2), D(-3)]
    assert kit.ex.portfolio_positions(kit["DESK"], limit=1, offset=1).items[0].qty == D(-3)
    seed = kit.seed_pool_id()
    assert len(kit.ex.portfolio_positions(kit["DESK"], limit=10, offset=0, pool=seed).items) == 2
    assert kit.ex.portfolio_positions(kit["BORE"], limit=10, offset=0, pool=seed).items == []

    aggregated = kit.ex.portfolio_aggregated_positions(kit["DESK"], limit=10, offset=0).items
    perp, put = aggregated
    mark = kit.mark(kit.perp())
    assert perp.sum_delta == 2 and perp.notional == 2 * mark
    assert perp.upnl == (mark - positions[0].avg_entry_price) * 2
    assert put.sum_delta > 0  # short a put is long delta
    assert put.iv is not None

    summary = kit.ex.portfolio_summary(kit["DESK"])
    assert summary.sum_balance == 250_000
    assert summary.sum_delta == perp.sum_delta + put.sum_delta
    assert summary.sum_upnl == perp.upnl + put.upnl
    assert summary.sum_dollar_delta == (summary.sum_delta * mark).quantize(D("1e-8"))
    assert summary.sum_dollar_gamma == (put.sum_gamma * mark * mark / 100).quantize(D("1e-8"))

    # The maker holds the mirror image.
    maker = kit.ex.portfolio_summary(kit["ALPHA"])
    assert maker.sum_delta == -summary.sum_delta


def test_trades_filters_and_scoping(kit):
    seed = kit.seed_pool_id()
    pool = kit.new_pool("DESK", "BORE", name="b")
    kit.advance(2)
    kit.deposit("DESK", pool.pool_id, "100000")
    kit.deposit("BORE", pool.pool_id, "100000")
    trade(kit, [("buy", kit.perp())])
    trade(kit, [("buy", kit.perp("ETH"))], maker="BORE", pool=pool.pool_id)
    everything = kit.ex.portfolio_trades(kit["DESK"], limit=10, offset=0).items
    assert [t.pool_location for t in everything] == [seed, pool.pool_id]
    only_seed = kit.ex.portfolio_trades(kit["DESK"], limit=10, offset=0, pool=seed).items
    assert [t.id for t in only_seed] == [everything[0].id]
    by_id = kit.ex.portfolio_trades(kit["DESK"], limit=10, offset=0, id=everything[1].id).items
    assert [t.id for t in by_id] == [everything[1].id]
    assert (
        kit.ex.portfolio_trades(kit["ALPHA"], limit=10, offset=0, id=everything[1].id).items == []
    )
    assert kit.ex.portfolio_trades(kit["EMBR"], limit=10, offset=0).items == []


def test_market_stats_count_each_trade_once(kit):
    before = kit.ex.market_stats()
    assert before.total_volume_24h == 0 and before.open_interest == 0
    trade(kit, [("buy", kit.perp())], qty="5")
    stats = kit.ex.market_stats()
    mark = kit.mark(kit.perp())
    btc = next(listing for listing in stats.listings if listing.ticker == "BTC")
    assert btc.volume_24h == 5 * mark
    assert stats.cumulative_volume == 5 * mark
    # Open interest is the takers' side: the taker bought 5, nobody took the short side.
    assert btc.open_interest.long_open_interest == 5 * mark
    assert btc.open_interest.short_open_interest == 0
    assert btc.funding_rate > 0  # longs outnumber shorts, so longs pay
    assert stats.tvl >= 1_250_000  # the seeded pool's money is in it
    kit.advance(86_400)
    later = kit.ex.market_stats()
    assert later.total_volume_24h == 0
    assert later.cumulative_volume == 5 * mark


def test_realized_pnl_comes_from_the_exact_cost_basis():
    from tui.sandbox.engine.fills import apply_fill

    qty, cost = D(0), D(0)
    for fill_qty, price in ((D(1), D(100)), (D(2), D(101))):
        qty, cost, realized = apply_fill(qty, cost, fill_qty, price)
        assert realized == 0
    assert (qty, cost) == (3, 302)
    assert apply_fill(qty, cost, D(-3), D(102)) == (0, 0, 4)
    # Closing in parts realizes amounts rounded to USDC's 6 places that still add up to 4.
    qty, cost, first = apply_fill(qty, cost, D(-1), D(102))
    assert first == D("1.333333") and (qty, cost) == (2, D("201.333333"))
    qty, cost, second = apply_fill(qty, cost, D(-2), D(102))
    assert second == D("2.666667") and first + second == 4
    # A short mirror of the same trades realizes exactly the opposite.
    short = apply_fill(D(-3), D(-302), D(1), D(102))
    assert short[2] == -first


def test_booked_realized_pnl_is_exact_and_the_pool_conserves_money(kit):
    pool_id = kit.seed_pool_id()
    base = kit.ex.market.mark_price("BTC").quantize(D(1))
    desk_before, alpha_before = kit.balance("DESK", pool_id), kit.balance("ALPHA", pool_id)

    def at(price, qty, side):
        rfq = kit.rfq(qty=qty)
        leg = rfq.rfq_legs[0].rfq_leg_id
        quote = kit.quote(
            "ALPHA", rfq, leg_quotes=[LegQuote(target_rfq_leg_id=leg, bid=price, ask=price)]
        )
        kit.accept("DESK", quote, side)
        kit.last_look("ALPHA", quote)

    at(base, "1", "buy")
    at(base + 1, "2", "buy")
    (position,) = kit.ex.portfolio_positions(kit["DESK"], limit=10, offset=0).items
    assert position.avg_entry_price == ((3 * base + 2) / 3).quantize(D("1e-8"))  # 8 places
    at(base + 2, "1", "sell")
    at(base + 2, "2", "sell")
    desk_gain = kit.balance("DESK", pool_id) - desk_before
    alpha_gain = kit.balance("ALPHA", pool_id) - alpha_before
    assert desk_gain == 4 and alpha_gain == -4
    assert kit.ex.portfolio_positions(kit["DESK"], limit=10, offset=0).items == []
    for name in ("DESK", "ALPHA"):
        exponent = kit.balance(name, pool_id).as_tuple().exponent
        assert isinstance(exponent, int) and exponent >= -6
