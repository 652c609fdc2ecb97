"""The feed benchmark's derived figures (`tests.bench.feed_session_report`): the median wait
the poll gaps imply, and the floor the budget sets at a session's load. Pure arithmetic; the
benchmark itself runs on demand only."""

from __future__ import annotations

import pytest

from tests.bench.feed_session_report import budget_floor, gap_median


def test_even_gaps_imply_half_a_gap() -> None:
    assert gap_median([1.8] * 10) == pytest.approx(0.9, abs=1e-6)


def test_a_long_gap_weighs_by_the_arrivals_it_holds_and_their_waits() -> None:
    # 4 s of 1 s gaps and one 6 s gap: 6 of the 10 s hold arrivals that wait up to 6 s, so
    # the median wait is where the 6 s gap alone holds half of all arrivals: 6 - w = 5.
    assert gap_median([1.0, 1.0, 1.0, 1.0, 6.0]) == pytest.approx(1.0, abs=1e-6)
    assert gap_median([]) == 0.0


def test_the_floor_is_what_the_reserve_writes_and_other_polls_leave_the_received_poll() -> None:
    # 10 windows: writes 200 tokens (20 a window), other polls 100 (10), received 400.
    writes, others, floor = budget_floor(
        {"quotes_new": 200, "settlement_pools": 100, "rfqs_received": 400}, 10
    )
    assert (writes, others) == (20, 10)
    # 100 - reserve 20 - 20 - 10 = 50 tokens a window: a 10-token poll every 2 s, 1 s wait.
    assert floor == pytest.approx(1.0)
    assert budget_floor({"quotes_new": 900}, 10)[2] == float("inf")
