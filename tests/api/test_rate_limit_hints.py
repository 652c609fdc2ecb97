"""429 reset hints are believed only within reason, and budgets made by a client use its time.

Regression tests of review findings #11 (``X-Rate-Limit-Resets-In-Ms: inf`` raised
OverflowError; ``1e15`` blocked the budget for millennia) and #18 (a ServiceClient's own
budget slept for real whatever ``sleep`` was injected).
"""

from __future__ import annotations

import random

import httpx
import pytest

from tests.api.kit import (
    API_KEY,
    API_SECRET,
    BASE_URL,
    FakeTime,
    FakeVenue,
    fail,
    make_client,
    ok,
    page,
)
from tests.api.kit import records as rec
from tui.api.budget import TokenBudget
from tui.api.client import ServiceClient
from tui.api.endpoints import BUDGET_WINDOW_S, STATS_WINDOW_S
from tui.api.errors import MAX_RESET_HINT_MS, RateLimited, error_from_response
from tui.api.stats import STATS_PATH, StatsClient

BODY = {"error": {"code": 5000, "message": "request-token budget exhausted"}}
SLACK_S = 0.25


def _rate_limited(hint: str) -> RateLimited:
    request = httpx.Request("GET", "http://venue.test/v1/quotes")
    response = httpx.Response(
        429, json=BODY, request=request, headers={"X-Rate-Limit-Resets-In-Ms": hint}
    )
    error = error_from_response(response)
    assert isinstance(error, RateLimited)
    return error


@pytest.mark.parametrize(
    ("hint", "expected"),
    [
        ("inf", None),
        ("-inf", None),
        ("Infinity", None),
        ("nan", None),
        ("-5", None),
        ("soon", None),
        ("", None),
        ("1e15", MAX_RESET_HINT_MS),
        ("9" * 400, MAX_RESET_HINT_MS),
        ("9e999999999", MAX_RESET_HINT_MS),
        ("2500.7", 2500),
        ("0", 0),
    ],
)
def test_the_reset_hint_is_a_finite_non_negative_bounded_number(
    hint: str, expected: int | None
) -> None:
    assert _rate_limited(hint).resets_in_ms == expected


def _budget(fake: FakeTime) -> TokenBudget:
    return TokenBudget(clock=fake.clock, sleep=fake.sleep, slack_s=SLACK_S)


@pytest.mark.parametrize("hint", [float("inf"), float("nan"), -5, -0.5, None])
def test_garbage_hints_block_one_default_window(fake_time: FakeTime, hint: float | None) -> None:
    budget = _budget(fake_time)
    budget.penalize(hint)
    assert budget.blocked_for() == pytest.approx(BUDGET_WINDOW_S)


@pytest.mark.parametrize("hint", [1e15, 10**400, 10_250, 60_000])
def test_huge_hints_are_clamped_to_the_window_and_slack(fake_time: FakeTime, hint: float) -> None:
    budget = _budget(fake_time)
    budget.penalize(hint)
    assert budget.blocked_for() == pytest.approx(BUDGET_WINDOW_S + SLACK_S)


def test_reasonable_hints_are_obeyed(fake_time: FakeTime) -> None:
    budget = _budget(fake_time)
    budget.penalize(0)
    assert budget.blocked_for() == 0
    budget.penalize(2500)
    assert budget.blocked_for() == pytest.approx(2.5)


@pytest.mark.parametrize("hint", ["inf", "1e15", "-1", "nan"])
async def test_the_client_waits_at_most_a_window_then_retries(
    fake_time: FakeTime, hint: str
) -> None:
    venue = FakeVenue().on(
        "GET",
        "/v1/portfolio/summary",
        fail(429, 5000, "budget", **{"X-Rate-Limit-Resets-In-Ms": hint}),
        ok(rec.PORTFOLIO_SUMMARY),
    )
    start = fake_time.now
    async with make_client(venue, fake_time) as client:
        summary = await client.portfolio_summary()
    assert summary.sum_balance is not None
    assert len(venue.requests) == 2
    waited = fake_time.now - start
    assert BUDGET_WINDOW_S <= waited <= BUDGET_WINDOW_S + SLACK_S + 0.01


async def test_a_client_made_budget_waits_with_the_injected_time(fake_time: FakeTime) -> None:
    venue = FakeVenue().on("GET", "/v1/rfqs/received", page([rec.RFQ]))
    client = ServiceClient(
        BASE_URL,
        API_KEY,
        API_SECRET,
        transport=httpx.MockTransport(venue.handler),
        sleep=fake_time.sleep,
        monotonic=fake_time.clock,
        rng=random.Random(1),
    )
    async with client:
        for _ in range(11):
            await client.rfqs_received()  # 10 tokens each: the 11th must wait
    assert len(venue.requests) == 11
    assert sum(fake_time.sleeps) >= BUDGET_WINDOW_S


async def test_a_stats_client_made_budget_waits_with_the_injected_time(
    fake_time: FakeTime,
) -> None:
    venue = FakeVenue().on("GET", STATS_PATH, httpx.Response(200, json=rec.MARKET_STATS))
    client = StatsClient(
        "http://stats.test",
        httpx.MockTransport(venue.handler),
        sleep=fake_time.sleep,
        monotonic=fake_time.clock,
    )
    async with client:
        for _ in range(11):
            await client.stats()
    assert sum(fake_time.sleeps) >= STATS_WINDOW_S
