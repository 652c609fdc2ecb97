"""The session's marks, funding and quote refreshes (`tui.desk.analytics.mark_history`), and
the sparkline drawn from them: exact figures, bounded memory, Decimal in and out."""

from __future__ import annotations

from copy import deepcopy
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from tests.api.kit.records import MARKET_STATS
from tui.api.models import MarketStats
from tui.desk.analytics.mark_history import (
    BLOCKS,
    MIN_BARS,
    FundingSeen,
    MarketHistory,
    MarkSeries,
    QuoteAges,
    spark_bars,
    sparkline,
)

T0 = datetime(2026, 1, 5, 12, tzinfo=UTC)


def series(*marks: str, step_s: int = 15, capacity: int = 100) -> MarkSeries:
    kept = MarkSeries(capacity)
    for i, mark in enumerate(marks):
        assert kept.add(T0 + timedelta(seconds=i * step_s), Decimal(mark))
    return kept


def stats(mark: str, rate: str, updated_at: datetime, **listing: Any) -> MarketStats:
    data = deepcopy(MARKET_STATS)
    entry = data["listings"][0]
    entry.update(mark_price=mark, funding_rate=rate, **listing)
    entry["quotes"]["updated_at"] = updated_at.isoformat()
    return MarketStats.model_validate(data)


# -- the series ---------------------------------------------------------------------------


def test_marks_come_back_exactly_as_the_venue_wrote_them() -> None:
    kept = series("98500", "98500.1", "98499.25", "0.00012345")
    assert [s.mark for s in kept.samples()] == [
        Decimal("98500"),
        Decimal("98500.1"),
        Decimal("98499.25"),
        Decimal("0.00012345"),
    ]
    assert [s.at for s in kept.samples()] == [T0 + timedelta(seconds=15 * i) for i in range(4)]
    low, high = kept.low(), kept.high()
    assert low is not None and low.mark == Decimal("0.00012345")
    assert high is not None and high.mark == Decimal("98500.1")
    assert high.at == T0 + timedelta(seconds=15)
    assert kept.change() == Decimal("0.00012345") - Decimal("98500")
    assert series("200", "150", "250").relative_change() == Decimal("0.25")
    assert series("200").relative_change() is None
    assert series("0", "5").relative_change() is None


def test_the_ring_keeps_the_newest_samples_and_no_more() -> None:
    kept = series(*(str(100 + i) for i in range(10)), capacity=4)
    assert len(kept) == 4
    assert [s.mark for s in kept.samples()] == [Decimal(m) for m in ("106", "107", "108", "109")]
    first, last = kept.first, kept.last
    assert first is not None and first.at == T0 + timedelta(seconds=6 * 15)
    assert last is not None and last.mark == Decimal("109")
    low = kept.low()
    assert low is not None and low.mark == Decimal("106")


def test_a_sample_not_later_than_the_last_is_refused() -> None:
    kept = series("100", "101")
    assert not kept.add(T0 + timedelta(seconds=15), Decimal("999"))
    assert not kept.add(T0, Decimal("999"))
    assert not kept.add(T0 + timedelta(hours=1), Decimal("NaN"))
    assert [s.mark for s in kept.samples()] == [Decimal("100"), Decimal("101")]


def test_a_mark_too_long_for_64_bits_is_still_kept_exactly() -> None:
    huge = "123456789012.123456789"
    kept = series("1.5", huge, "2")
    assert [s.mark for s in kept.samples()] == [Decimal("1.5"), Decimal(huge), Decimal("2")]


def test_a_full_day_of_polls_stays_within_the_ring() -> None:
    kept = MarkSeries()
    for i in range(kept.capacity * 3):
        kept.add(T0 + timedelta(seconds=15 * i), Decimal("100") + Decimal(i % 7) / 10)
    assert len(kept) == kept.capacity
    times, units = kept.points()
    assert len(times) == len(units) == kept.capacity
    assert times == sorted(times)


# -- the sparkline ------------------------------------------------------------------------


def test_each_sample_gets_a_column_when_they_fit() -> None:
    assert (
        spark_bars(series("100", "107", "103.5", "101"), 20) == "▁█▅▂"
    )  # 103.5 is level 3.5, rounded half up


def test_the_low_is_the_lowest_bar_and_the_high_the_highest() -> None:
    bars = spark_bars(series("98", "99", "100", "101", "102", "103", "104", "105"), 8)
    assert bars == BLOCKS


def test_a_flat_series_sits_in_the_middle_and_no_series_draws_nothing() -> None:
    assert spark_bars(series("5", "5", "5"), 10) == "▄▄▄"
    assert spark_bars(MarkSeries(), 10) == ""
    assert spark_bars(series("5"), 0) == ""
    assert sparkline(MarkSeries(), 40) == ""


def test_more_samples_than_columns_go_by_equal_slices_of_time() -> None:
    # 0..9 at 1 s: five columns of two samples; each shows its later sample, except the
    # first, which holds the session's low.
    kept = series(*(str(v) for v in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)), step_s=1)
    assert spark_bars(kept, 5) == "▁▃▅▆█"
    assert len(spark_bars(kept, 5)) == 5


def test_a_spike_inside_a_column_still_shows() -> None:
    # Two samples a column; the dip is the first of the second column's two.
    kept = series("100", "100", "50", "100", "100", "100", "100", "100", step_s=1)
    assert spark_bars(kept, 4) == BLOCKS[-1] + BLOCKS[0] + BLOCKS[-1] * 2


def test_a_column_holding_both_low_and_high_shows_the_move() -> None:
    # The middle column went up to 150 and down to 50; from 120 the bigger move is the dip.
    kept = series("120", "120", "150", "50", "120", "120", step_s=1)
    assert spark_bars(kept, 3) == "▆▁▆"


def test_a_gap_in_the_polls_repeats_the_column_before() -> None:
    kept = MarkSeries()
    kept.add(T0, Decimal(1))
    kept.add(T0 + timedelta(seconds=10), Decimal(1))
    kept.add(T0 + timedelta(seconds=95), Decimal(3))
    kept.add(T0 + timedelta(seconds=100), Decimal(2))
    # Nothing between 10 s and 95 s: the middle column repeats the first.
    assert spark_bars(kept, 3) == "▁▁█"


def test_the_labelled_sparkline_fits_its_width_and_names_low_and_high() -> None:
    kept = series("97912.4", "98640.1", "98100")
    text = sparkline(kept, 40, label=lambda d: f"{d:,.2f}")
    assert text == "▁█▃  lo 97,912.40  hi 98,640.10"
    kept = series(*(str(100 + i % 9) for i in range(200)))
    for width in (12, 30, 41, 80):
        text = sparkline(kept, width)
        assert len(text) <= width
    wide = sparkline(kept, 41)
    assert wide.endswith("  lo 100  hi 108") and len(wide) == 41
    narrow = sparkline(kept, len("  lo 100  hi 108") + MIN_BARS - 1)
    assert "lo" not in narrow and set(narrow) <= set(BLOCKS)


# -- funding and quote ages ---------------------------------------------------------------


def test_funding_is_kept_per_period_with_its_range() -> None:
    seen = FundingSeen()
    seen.note(T0 + timedelta(minutes=5), Decimal("0.0001"), 3600)
    seen.note(T0 + timedelta(minutes=35), Decimal("0.00015"), 3600)
    seen.note(T0 + timedelta(minutes=50), Decimal("0.00012"), 3600)
    seen.note(T0 + timedelta(hours=2, minutes=1), Decimal("-0.00002"), 3600)
    newest, first = seen.latest_first()
    assert (newest.starts, newest.ends) == (T0 + timedelta(hours=2), T0 + timedelta(hours=3))
    assert newest.rate == Decimal("-0.00002") and newest.reads == 1
    assert first.starts == T0
    assert (first.rate, first.low, first.high, first.reads) == (
        Decimal("0.00012"),
        Decimal("0.0001"),
        Decimal("0.00015"),
        3,
    )


def test_funding_periods_are_bounded() -> None:
    seen = FundingSeen(capacity=3)
    for hour in range(10):
        seen.note(T0 + timedelta(hours=hour), Decimal(hour), 3600)
    assert [p.rate for p in seen.latest_first()] == [Decimal(9), Decimal(8), Decimal(7)]


def test_quote_ages_count_refreshes_and_the_oldest_read() -> None:
    ages = QuoteAges()
    ages.note(T0 + timedelta(seconds=10), T0)
    ages.note(T0 + timedelta(seconds=40), T0)
    ages.note(T0 + timedelta(seconds=50), T0 + timedelta(seconds=45))
    ages.note(T0 + timedelta(seconds=120), T0 + timedelta(seconds=105))
    assert list(ages.refreshes) == [T0, T0 + timedelta(seconds=45), T0 + timedelta(seconds=105)]
    assert ages.typical_gap_s() == 52.5
    assert ages.oldest_read_s == 40


# -- fed from snapshots -------------------------------------------------------------------


def test_the_history_is_fed_from_each_statistics_snapshot() -> None:
    history = MarketHistory()
    assert history.marks("BTC").last is None and history.listing("BTC") is None
    history.note(stats("64250.5", "0.0001", T0), T0 + timedelta(seconds=30))
    history.note(stats("64260", "0.0002", T0 + timedelta(seconds=40)), T0 + timedelta(seconds=45))
    history.note(None, T0 + timedelta(seconds=60))
    btc = history.listing("BTC")
    assert btc is not None
    assert [s.mark for s in btc.marks.samples()] == [Decimal("64250.5"), Decimal("64260")]
    (period,) = btc.funding.latest_first()
    assert (period.rate, period.low, period.reads) == (Decimal("0.0002"), Decimal("0.0001"), 2)
    assert len(btc.quotes.refreshes) == 2
    assert history.since == T0 + timedelta(seconds=30)


def test_capacity_must_hold_a_sample() -> None:
    with pytest.raises(ValueError):
        MarkSeries(0)
