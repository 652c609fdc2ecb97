"""The feed against a faulty sandbox: polls back off while the venue fails, resume by themselves
when it answers again, and a kick (f5) polls at once whatever the backoff.

The sandbox's faults are those of ``rfq-desk sandbox --faults`` (`tui.sandbox.faults`), switched
on and off in the running server. Time is the test's: the feed's monotonic clock and the
sandbox's frozen clock move together by hand, so the schedule seen does not depend on the
machine's speed.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from tui.api.client import ServiceClient
from tui.api.endpoints import BUDGET_WINDOW_S
from tui.desk.feed.scheduler import Feed
from tui.desk.feed.topics import BACKOFF_CAP_S, SPECS, backoff_s
from tui.desk.messages import ConnectionState, PollFailed, Topic
from tui.sandbox.faults import FaultInjector, parse_faults

STEP_S = 0.5
"""How far the test moves time between two ticks of the scheduler."""


class Ticker:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def no_wait(_seconds: float) -> None:
    """The client's backoff between retries of one call: not waited for in these tests."""


def impatient_client(sandbox: Any) -> ServiceClient:
    """DESK's client on sandbox time, its retries within one call not waited for."""
    client: ServiceClient = sandbox.client("DESK", sleep=no_wait)
    return client


async def run_for(feed: Feed, sandbox: Any, ticker: Ticker, seconds: float) -> None:
    """Let the schedule run ``seconds`` of test time (the sandbox's clock moves with it)."""
    for _step in range(round(seconds / STEP_S)):
        ticker.now += STEP_S
        sandbox.advance(STEP_S)
        feed.tick()
        await feed.idle()


def poll_times(posted: list[Any], at: dict[int, float], topic: Topic) -> list[float]:
    """When (test time) the failed polls of ``topic`` ended."""
    return [
        at[index]
        for index, m in enumerate(posted)
        if isinstance(m, PollFailed) and m.topic is topic
    ]


def test_the_backoff_doubles_up_to_a_cap_and_never_polls_faster_than_the_interval() -> None:
    assert backoff_s(2.0, 0) == 2.0
    assert [backoff_s(2.0, n) for n in range(1, 6)] == [
        4.0,
        8.0,
        16.0,
        BACKOFF_CAP_S,
        BACKOFF_CAP_S,
    ]
    assert backoff_s(300.0, 3) == 300.0  # a slow topic is never polled faster for failing
    assert backoff_s(2.0, 10_000) == BACKOFF_CAP_S


@pytest.mark.parametrize(
    ("faults", "state"),
    [("5xx=1", ConnectionState.DEGRADED), ("drop_before=1", ConnectionState.DISCONNECTED)],
)
async def test_polls_back_off_while_the_venue_fails_and_resume_when_it_answers(
    sandbox: Any, faults: str, state: ConnectionState
) -> None:
    posted: list[Any] = []
    at: dict[int, float] = {}
    ticker = Ticker()

    def post(message: Any) -> None:
        at[len(posted)] = ticker.now
        posted.append(message)

    async with impatient_client(sandbox) as client:
        feed = Feed(client, post, clock=sandbox.clock.now, monotonic=ticker)
        await feed.refresh_all()
        assert feed.connection is ConnectionState.CONNECTED

        sandbox.app.faults = FaultInjector(parse_faults(faults))
        await run_for(feed, sandbox, ticker, 60)
        assert feed.connection is state
        due_in_a_minute = {t for t in feed.topics if SPECS[t].cold_s < 60}
        assert set(feed.failing) == due_in_a_minute, "every topic due tried and failed"
        # The quickest topic: its gaps between failed polls double, up to the cap.
        topic = Topic.QUOTES_SENT
        times = poll_times(posted, at, topic)
        gaps = [round(later - earlier) for earlier, later in pairwise(times)]
        interval = SPECS[topic].cold_s
        assert gaps[:2] == [interval * 2, interval * 4], gaps
        assert all(gap <= BACKOFF_CAP_S + STEP_S for gap in gaps), gaps
        # Without backing off, a minute would have been 10 polls of it (every 6 s).
        assert len(times) <= 5, times
        # Every pane is stale while it fails.
        assert all(age.stale for age in feed.freshness().ages)

        # The venue answers again: the first poll that gets through brings every other
        # topic back at once, not when its own backoff ends.
        sandbox.app.faults = None
        while feed.connection is not ConnectionState.CONNECTED:
            await run_for(feed, sandbox, ticker, STEP_S)
        assert feed.failing, "one poll got through, the rest have not polled yet"
        assert set(feed.failing) <= set(feed.due())
        # Due at once; they start as the request budget allows (one window at most).
        await run_for(feed, sandbox, ticker, BUDGET_WINDOW_S)
        assert not feed.failing
        assert not any(age.stale for age in feed.freshness().ages)
        # And the schedule is the usual one again: no topic is still backed off.
        assert all(feed.wait_s(t) == feed.interval(t) for t in feed.topics)


async def test_a_kick_polls_at_once_whatever_the_backoff(sandbox: Any) -> None:
    posted: list[Any] = []
    ticker = Ticker()
    async with impatient_client(sandbox) as client:
        feed = Feed(client, posted.append, clock=sandbox.clock.now, monotonic=ticker)
        await feed.refresh_all()
        sandbox.app.faults = FaultInjector(parse_faults("5xx=1"))
        await run_for(feed, sandbox, ticker, 40)
        assert feed.wait_s(Topic.QUOTES_SENT) > feed.interval(Topic.QUOTES_SENT)
        assert Topic.QUOTES_SENT not in feed.due()
        feed.kick(*feed.topics)  # what f5 does
        assert set(feed.due()) == set(feed.polling())  # not a tab's hot-only topics
