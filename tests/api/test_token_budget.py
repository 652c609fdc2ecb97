"""The client-side token budget: waits instead of overspending, keeps a reserve, obeys 429s."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.api.kit import FakeTime
from tui.api.budget import DESK_RESERVE_TOKENS, TokenBudget
from tui.api.endpoints import BUDGET_TOKENS, BUDGET_WINDOW_S, endpoint_named


def _budget(fake: FakeTime, **kwargs: float) -> TokenBudget:
    return TokenBudget(clock=fake.clock, sleep=fake.sleep, **kwargs)  # type: ignore[arg-type]


def test_defaults_come_from_the_endpoint_catalogue(fake_time: FakeTime) -> None:
    budget = _budget(fake_time)
    assert budget.tokens == BUDGET_TOKENS == 100
    assert budget.window_s == BUDGET_WINDOW_S == 10


async def test_acquire_charges_and_tokens_return_after_the_window(fake_time: FakeTime) -> None:
    budget = _budget(fake_time, slack_s=0.0)
    quote = endpoint_named("quotes_new").cost
    for _ in range(5):
        await budget.acquire(quote)
        fake_time.advance(1)
    assert budget.used() == 100
    assert fake_time.sleeps == []
    start = fake_time.now
    await budget.acquire(1)  # must wait for the first charge to leave the window
    assert fake_time.now - start == pytest.approx(BUDGET_WINDOW_S - 5)
    assert budget.used() == 81


async def test_slack_extends_the_wait(fake_time: FakeTime) -> None:
    budget = _budget(fake_time, slack_s=0.5)
    await budget.acquire(100)
    start = fake_time.now
    await budget.acquire(1)
    assert fake_time.now - start == pytest.approx(10.5)


def test_try_acquire_and_available_respect_the_reserve(fake_time: FakeTime) -> None:
    budget = _budget(fake_time)
    rfqs = endpoint_named("rfqs_received").cost
    polls = 0
    while budget.try_acquire(rfqs, keep_free=DESK_RESERVE_TOKENS):
        polls += 1
    polled = 100 - DESK_RESERVE_TOKENS
    assert polls == polled // rfqs  # the rest stays for the user
    assert budget.used() == polled
    assert budget.available() == DESK_RESERVE_TOKENS
    assert budget.available(keep_free=DESK_RESERVE_TOKENS) == 0
    quote = endpoint_named("quotes_new").cost
    assert quote <= DESK_RESERVE_TOKENS
    assert budget.try_acquire(quote)  # the user's quote still goes through at once
    assert not budget.try_acquire(1)


async def test_user_action_is_not_stuck_behind_a_waiting_poll(fake_time: FakeTime) -> None:
    budget = _budget(fake_time)
    assert budget.try_acquire(100 - DESK_RESERVE_TOKENS)
    order: list[str] = []
    events: list[asyncio.Event] = []

    async def sleep(seconds: float) -> None:
        event = asyncio.Event()
        events.append(event)
        await event.wait()
        fake_time.advance(seconds)

    budget._sleep = sleep  # the poll parks until released by the test

    async def poll() -> None:
        await budget.acquire(10, keep_free=DESK_RESERVE_TOKENS)
        order.append("poll")

    async def user() -> None:
        await budget.acquire(20)
        order.append("user")

    poll_task = asyncio.create_task(poll())
    await asyncio.sleep(0)
    await user()
    assert order == ["user"]
    assert not poll_task.done()
    events[0].set()
    await poll_task
    assert order == ["user", "poll"]


async def test_penalize_blocks_until_reset(fake_time: FakeTime) -> None:
    budget = _budget(fake_time)
    budget.penalize(resets_in_ms=3500)
    assert budget.available() == 0
    assert budget.blocked_for() == pytest.approx(3.5)
    assert not budget.try_acquire(1)
    start = fake_time.now
    await budget.acquire(1)
    assert fake_time.now - start == pytest.approx(3.5)
    assert budget.blocked_for() == 0


def test_penalize_without_hint_waits_a_whole_window(fake_time: FakeTime) -> None:
    budget = _budget(fake_time)
    budget.penalize(None)
    assert budget.blocked_for() == pytest.approx(BUDGET_WINDOW_S)
    budget.penalize(1000)  # a shorter penalty never shortens a longer one
    assert budget.blocked_for() == pytest.approx(BUDGET_WINDOW_S)


def test_impossible_requests_are_refused(fake_time: FakeTime) -> None:
    budget = _budget(fake_time)
    with pytest.raises(ValueError, match="never fit"):
        budget.try_acquire(101)
    with pytest.raises(ValueError, match="never fit"):
        budget.try_acquire(101 - DESK_RESERVE_TOKENS, keep_free=DESK_RESERVE_TOKENS)
    with pytest.raises(ValueError, match="cost"):
        budget.try_acquire(-1)


def test_wait_time_predicts_when_room_appears(fake_time: FakeTime) -> None:
    budget = _budget(fake_time, slack_s=0.0)
    assert budget.try_acquire(50)
    fake_time.advance(4)
    assert budget.try_acquire(50)
    assert budget.wait_time(10) == pytest.approx(6)
    assert budget.wait_time(60) == pytest.approx(10)
    assert budget.wait_time(10, keep_free=40) == pytest.approx(6)
    assert budget.wait_time(10, keep_free=41) == pytest.approx(10)


steps = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=BUDGET_TOKENS),
        st.integers(min_value=0, max_value=12_000),  # ms of time passing before the call
        st.sampled_from([0, 0, DESK_RESERVE_TOKENS]),
        st.booleans(),  # wait (acquire) or not (try_acquire)
    ),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(steps=steps, slack_ms=st.sampled_from([0, 250]))
def test_no_window_ever_holds_more_than_the_budget(
    steps: list[tuple[int, int, int, bool]], slack_ms: int
) -> None:
    fake = FakeTime(start=0.0)
    budget = TokenBudget(clock=fake.clock, sleep=fake.sleep, slack_s=slack_ms / 1000)
    charges: list[tuple[float, int]] = []

    async def run() -> None:
        for cost, advance_ms, keep_free, wait in steps:
            fake.advance(advance_ms / 1000)
            keep = keep_free if cost + keep_free <= BUDGET_TOKENS else 0
            if wait:
                await budget.acquire(cost, keep_free=keep)
                charges.append((fake.now, cost))
            elif budget.try_acquire(cost, keep_free=keep):
                charges.append((fake.now, cost))
            assert 0 <= budget.used() <= BUDGET_TOKENS

    asyncio.run(run())
    # Every window [t, t + 10 s) that starts at a charge holds at most the budget; a window
    # starting anywhere else holds no more than the one starting at its first charge.
    for start, _ in charges:
        in_window = sum(c for at, c in charges if start <= at < start + BUDGET_WINDOW_S)
        assert in_window <= BUDGET_TOKENS
