"""The public statistics record: fields, types, honest quote timestamps, activity sums."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from tui.api.models import MarketStats
from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.market.marks import Market
from tui.sandbox.market.statistics import QUOTE_REFRESH_MAX_S, MarketActivity

START_MS = 1_793_500_000_000
UNIX_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
D = Decimal


@pytest.fixture
def market() -> Market:
    return Market(13, SandboxClock(frozen_at_ms=START_MS))


def _activity() -> MarketActivity:
    return MarketActivity(
        volume_24h={"BTC": D("1250000.50"), "ETH": D("300000"), "DOGE": D("4200.25")},
        cumulative_volume=D("987654321.12"),
        long_open_interest={"BTC": D(4_000_000), "ETH": D(500_000)},
        short_open_interest={"BTC": D(1_000_000), "ETH": D(900_000), "SOL": D(10_000)},
        pool_balances=D("2500000.75"),
        refunded_24h=D("1234.56"),
        refunded_total=D("20000"),
    )


def test_stats_sum_the_activity(market: Market) -> None:
    activity = _activity()
    stats = market.stats(activity)
    assert stats.total_volume_24h == D("1554200.75")
    assert stats.cumulative_volume == activity.cumulative_volume
    assert stats.open_interest == D(4_000_000 + 500_000 + 1_000_000 + 900_000 + 10_000)
    assert stats.tvl == activity.pool_balances + market.lp_vault()
    assert stats.num_markets == len(market.underlyings()) == len(stats.listings)
    assert stats.loss_refund is not None
    assert stats.loss_refund.refunded_24h == D("1234.56")
    assert stats.loss_refund.pool_size == market.loss_refund_pool(activity)


def test_listing_records_follow_the_market(market: Market) -> None:
    market.clock.advance(5000)
    activity = _activity()
    stats = market.stats(activity)
    by_ticker = {listing.ticker: listing for listing in stats.listings}
    assert list(by_ticker) == market.underlyings()
    btc = by_ticker["BTC"]
    assert btc.name == "Bitcoin"
    assert btc.mark_price == market.mark_price("BTC")
    assert btc.volume_24h == D("1250000.50")
    assert btc.open_interest.long_open_interest == D(4_000_000)
    assert btc.funding_rate == market.funding_rate("BTC", D(4_000_000), D(1_000_000)) > 0
    assert by_ticker["ETH"].funding_rate < 0
    assert by_ticker["SOL"].funding_rate == 0  # below the floor
    assert by_ticker["LINK"].volume_24h == 0
    for listing in stats.listings:
        spec = market.spec(listing.ticker)
        assert listing.funding_interval_s == spec.funding_interval_s
        assert listing.base_spread_bps == spec.base_spread_bps
        quotes = listing.quotes
        assert quotes.size_1k is not None and quotes.size_100k is not None
        assert (quotes.size_1m is not None) is spec.major
        for size in (quotes.size_1k, quotes.size_100k, quotes.size_1m):
            if size is not None:
                assert 0 < size.bid < size.ask


def test_stats_wire_shape(market: Market) -> None:
    market.clock.advance(777)
    wire = json.loads(json.dumps(market.stats(_activity()).model_dump(mode="json")))
    for key in ("total_volume_24h", "cumulative_volume", "tvl", "open_interest"):
        assert isinstance(wire[key], str)
        D(wire[key])
    assert isinstance(wire["num_markets"], int) and not isinstance(wire["num_markets"], bool)
    assert isinstance(wire["loss_refund"]["pool_size"], str)
    assert isinstance(wire["loss_refund"]["refunded_24h"], str)
    for listing in wire["listings"]:
        assert isinstance(listing["funding_interval_s"], int)
        for key in ("mark_price", "volume_24h", "funding_rate", "base_spread_bps"):
            assert isinstance(listing[key], str) and "E" not in listing[key]
        for key in ("long_open_interest", "short_open_interest"):
            assert isinstance(listing["open_interest"][key], str)
        quotes = listing["quotes"]
        assert quotes["updated_at"].endswith("Z")
        assert ("size_1m" in quotes and quotes["size_1m"] is not None) is (
            listing["ticker"] in {"BTC", "ETH", "SOL"}
        )
        for size in ("size_1k", "size_100k"):
            assert isinstance(quotes[size]["bid"], str) and isinstance(quotes[size]["ask"], str)
    # A client reads it back to the same record.
    again = MarketStats.model_validate(wire)
    assert again.model_dump(mode="json") == wire


def test_updated_at_is_never_in_the_future_nor_stale(market: Market) -> None:
    steps = [1, 7, 29, 30, 31, 59, 61, 119, 120, 121, 599, 600, 601, 3600, 86_400, 0.25, 45.5]
    for step in steps * 3:
        market.clock.advance(step)
        now = market.clock.now()
        for listing in market.stats(MarketActivity()).listings:
            updated = listing.quotes.updated_at
            assert updated is not None
            assert updated <= now
            assert now - updated <= timedelta(seconds=QUOTE_REFRESH_MAX_S) <= timedelta(seconds=600)


def test_quotes_are_cached_between_refreshes(market: Market) -> None:
    market.clock.advance(10_000)
    first = market.stats(MarketActivity()).listings[0]
    refreshed = first.quotes.updated_at
    assert refreshed is not None
    # Step one second at a time until the refresh time changes; the quote must not move before.
    seen_change = False
    for _ in range(QUOTE_REFRESH_MAX_S + 1):
        market.clock.advance(1)
        listing = market.stats(MarketActivity()).listings[0]
        if listing.quotes.updated_at == refreshed:
            assert listing.quotes == first.quotes
        else:
            seen_change = True
            assert listing.quotes.updated_at > refreshed  # type: ignore[operator]
            break
    assert seen_change


def test_quotes_are_centred_on_the_mark_of_their_refresh(market: Market) -> None:
    market.clock.advance(4321)
    for listing in market.stats(MarketActivity()).listings:
        assert listing.quotes.updated_at is not None
        refreshed_ms = (listing.quotes.updated_at - UNIX_EPOCH) // timedelta(milliseconds=1)
        mark_then = market.mark_price_at(listing.ticker, refreshed_ms)
        assert listing.quotes.size_1k is not None
        assert listing.quotes.size_1k.bid < mark_then < listing.quotes.size_1k.ask


def test_lp_vault_drifts_deterministically(market: Market) -> None:
    twin = Market(13, SandboxClock(frozen_at_ms=START_MS))
    values = []
    for _ in range(24):
        market.clock.advance(3600)
        twin.clock.advance(3600)
        assert market.lp_vault() == twin.lp_vault()
        values.append(market.lp_vault())
    assert len(set(values)) > 12
    assert all(D(1_000_000) < v < D(50_000_000) for v in values)
    assert Market(14, SandboxClock(frozen_at_ms=START_MS)).lp_vault() != values[0]


def test_loss_refund_pool_grows_with_volume_and_pays_refunds(market: Market) -> None:
    quiet = market.loss_refund_pool(MarketActivity())
    busy = market.loss_refund_pool(MarketActivity(cumulative_volume=D(10_000_000)))
    paid = market.loss_refund_pool(
        MarketActivity(cumulative_volume=D(10_000_000), refunded_total=D(100))
    )
    assert quiet > 0 and busy == quiet + D(500) and paid == busy - D(100)
    drained = market.loss_refund_pool(MarketActivity(refunded_total=D(10) ** 9))
    assert drained == 0


def test_empty_activity_gives_zeros_not_errors(market: Market) -> None:
    stats = market.stats(MarketActivity())
    assert stats.total_volume_24h == 0 and stats.open_interest == 0
    assert stats.tvl == market.lp_vault() > 0
    assert all(listing.funding_rate == 0 for listing in stats.listings)
