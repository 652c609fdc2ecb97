"""The feed's timing without a network (`tui.desk.feed.schedule.PollSchedule`): what polls
first, what the routine polls may spend, that a waiting action holds every poll off, and how
long the schedule sleeps."""

from __future__ import annotations

import asyncio

from tests.api.kit.clocks import FakeTime
from tui.api.budget import DESK_RESERVE_TOKENS, TokenBudget
from tui.desk.feed.schedule import MIN_NAP_S, WAITING_ACTION_NAP_S, PollSchedule
from tui.desk.feed.topics import ROUTINE_FLOOR_TOKENS, ROUTINE_SHARE_TOKENS, SPECS
from tui.desk.messages import Topic

ROUTINE_DEAR = (Topic.SUMMARY, Topic.POOLS, Topic.RFQS_SENT)
"""Routine topics that cost 10 a poll."""


def schedule(fake: FakeTime) -> PollSchedule:
    budget = TokenBudget(clock=fake.clock, sleep=fake.sleep)
    return PollSchedule(
        tuple(t for t in SPECS if t is not Topic.STATS),
        budget,
        keep_free=DESK_RESERVE_TOKENS,
        monotonic=fake.clock,
        max_nap_s=5.0,
    )


def poll(plan: PollSchedule, topic: Topic) -> None:
    """A poll of ``topic`` starts, charges the budget as the client would, and ends."""
    plan._started(topic)
    assert plan.budget.try_acquire(SPECS[topic].cost)
    plan._ended(topic)


def share_spent(plan: PollSchedule) -> int:
    """Tokens the routine share holds now (the polls whose tokens still count)."""
    return sum(cost for _, cost, in_share in plan._spent_lately(plan.monotonic()) if in_share)


def test_a_new_rfq_for_me_polls_ahead_of_kicks_and_priorities() -> None:
    fake = FakeTime()
    plan = schedule(fake)
    for topic in plan.polling():
        poll(plan, topic)
    plan.set_hot({Topic.RFQS_RECEIVED})
    poll(plan, Topic.RFQS_RECEIVED)
    plan.follow_up(Topic.QUOTES_SENT, Topic.TRADES)  # a user action changed these
    fake.advance(SPECS[Topic.RFQS_RECEIVED].hot_s + 0.01)
    due = plan.due()
    assert due[0] is Topic.RFQS_RECEIVED
    assert set(due[1:3]) == {Topic.QUOTES_SENT, Topic.TRADES}
    # Not hot (another tab on screen), it is a routine poll again and waits for the kicks.
    plan.set_hot(set())
    fake.advance(SPECS[Topic.RFQS_RECEIVED].cold_s)
    assert plan.due().index(Topic.RFQS_RECEIVED) >= 2


def test_routine_polls_keep_to_their_share_while_a_new_rfq_is_urgent() -> None:
    fake = FakeTime()
    plan = schedule(fake)
    plan.set_hot({Topic.RFQS_RECEIVED})
    spent = 0
    while spent + 10 <= ROUTINE_SHARE_TOKENS:
        poll(plan, ROUTINE_DEAR[spent // 10 % len(ROUTINE_DEAR)])
        spent += 10
    # The routine share is spent; the budget is not: the urgent poll still fits.
    assert not plan.fits(Topic.SUMMARY)
    assert plan.fits(Topic.RFQS_RECEIVED)
    # The share frees as its polls leave the window (and the schedule sleeps until then).
    assert plan.wait_for_tokens(Topic.SUMMARY) > 0
    # A kick is the user's (or the desk filling its panes again): it does not wait for the share.
    plan.kick(Topic.POOLS)
    assert plan.fits(Topic.POOLS)
    fake.advance(plan.wait_for_tokens(Topic.SUMMARY))
    assert plan.fits(Topic.SUMMARY)
    # With nothing urgent on screen, the routine polls may use the whole budget bar the reserve.
    fresh = schedule(FakeTime())
    for n in range(ROUTINE_SHARE_TOKENS // 10 + 1):
        poll(fresh, ROUTINE_DEAR[n % len(ROUTINE_DEAR)])
    assert fresh.fits(Topic.SUMMARY)


def test_routine_polls_leave_room_for_the_next_urgent_one() -> None:
    fake = FakeTime()
    plan = schedule(fake)
    plan.set_hot({Topic.RFQS_RECEIVED})
    urgent = SPECS[Topic.RFQS_RECEIVED].cost
    # Exactly room for the reserve, one urgent poll and one routine poll of the same cost.
    spend = plan.budget.tokens - DESK_RESERVE_TOKENS - urgent - SPECS[Topic.SUMMARY].cost
    assert plan.budget.try_acquire(spend - 1)
    assert plan.fits(Topic.SUMMARY) and plan.fits(Topic.RFQS_RECEIVED)
    assert plan.budget.try_acquire(1)
    assert plan.fits(Topic.SUMMARY) and plan.fits(Topic.RFQS_RECEIVED)
    assert plan.budget.try_acquire(1)
    assert not plan.fits(Topic.SUMMARY), "it would leave no room for the next new-RFQ poll"
    assert plan.fits(Topic.RFQS_RECEIVED)
    plan.kick(Topic.SUMMARY)  # the user's f5 does not wait for the urgent poll's room
    assert plan.fits(Topic.SUMMARY)


def test_every_poll_leaves_a_write_of_room_and_waits_while_an_action_waits() -> None:
    fake = FakeTime()
    plan = schedule(fake)
    assert plan.budget.try_acquire(plan.budget.tokens - DESK_RESERVE_TOKENS - 5)
    assert not plan.fits(Topic.RFQS_RECEIVED), "it would eat into the trader's reserve"
    assert plan.fits(Topic.QUOTES_SENT), "a 1-token poll still fits"
    plan.budget.waiting = 1  # the trader's quote waits for tokens
    assert not plan.fits(Topic.QUOTES_SENT)
    plan.kick(Topic.QUOTES_SENT)
    assert plan.next_wake_s() == WAITING_ACTION_NAP_S
    plan.budget.waiting = 0
    assert plan.fits(Topic.QUOTES_SENT)


async def test_the_budget_counts_who_waits_for_tokens() -> None:
    fake = FakeTime()
    released = asyncio.Event()

    async def sleep(seconds: float) -> None:
        await released.wait()
        fake.advance(seconds)

    budget = TokenBudget(clock=fake.clock, sleep=sleep)
    assert budget.try_acquire(budget.tokens)
    action = asyncio.create_task(budget.acquire(20))
    await asyncio.sleep(0)
    assert budget.waiting == 1
    released.set()
    await action
    assert budget.waiting == 0


def test_an_idle_schedule_sleeps_until_its_next_poll_and_a_kick_wakes_it() -> None:
    fake = FakeTime()
    plan = schedule(fake)
    assert plan.next_wake_s() == MIN_NAP_S, "never polled: everything is due"
    for topic in plan.polling():
        poll(plan, topic)
    soonest = min(plan.wait_s(t) for t in plan.polling())
    assert plan.next_wake_s() == min(plan.max_nap_s, soonest)
    fake.advance(1.0)
    assert plan.next_wake_s() == min(plan.max_nap_s, soonest - 1.0)
    plan._wake.clear()
    plan.kick(Topic.TRADES)
    assert plan._wake.is_set()
    assert plan.next_wake_s() == MIN_NAP_S
    # A kick a few seconds off: the schedule wakes for it, not before.
    poll(plan, Topic.TRADES)
    plan.follow_up(Topic.TRADES, after_s=0.5)
    assert plan.next_wake_s() == 0.5


def test_a_kick_of_a_dear_money_topic_waits_for_its_gap() -> None:
    fake = FakeTime()
    plan = schedule(fake)
    for topic in plan.polling():
        poll(plan, topic)
    gap = SPECS[Topic.SUMMARY].kick_gap_s
    assert gap > 0
    plan.follow_up(Topic.SUMMARY, gap=True)  # a booking seen by a poll
    assert Topic.SUMMARY not in plan.due()
    assert plan.next_wake_s() <= gap
    fake.advance(gap)
    assert plan.due()[0] is Topic.SUMMARY
    # The user's own kick (f5) polls at once, gap or not.
    poll(plan, Topic.SUMMARY)
    plan.follow_up(Topic.SUMMARY, gap=True)
    plan.kick(Topic.SUMMARY)
    assert plan.due()[0] is Topic.SUMMARY


def test_follow_ups_keep_to_the_routine_share_and_what_the_trader_asks_for_does_not() -> None:
    fake = FakeTime()
    plan = schedule(fake)
    plan.set_hot({Topic.RFQS_RECEIVED})
    for topic in plan.polling():
        poll(plan, topic)
    fake.advance(plan.budget.window_s + plan.budget.margin_s + 0.1)  # their tokens have left
    assert plan.routine_share() == ROUTINE_SHARE_TOKENS, "no writes: the whole share"
    spent = 0
    while spent + 10 <= plan.routine_share():
        poll(plan, ROUTINE_DEAR[spent // 10 % len(ROUTINE_DEAR)])
        spent += 10
    # What a booking implies (a poll saw it) and what an action changed wait for the share...
    plan.follow_up(Topic.SUMMARY)
    plan.follow_up(Topic.POOLS, gap=True)
    fake.advance(SPECS[Topic.POOLS].kick_gap_s)
    assert Topic.SUMMARY in plan.due()
    assert not plan.fits(Topic.SUMMARY) and not plan.fits(Topic.POOLS)
    # ...while what the trader asked for (f5, a tab just shown) does not.
    plan.kick(Topic.POOLS)
    assert plan.fits(Topic.POOLS)
    assert plan.fits(Topic.RFQS_RECEIVED)


def test_a_follow_up_leaves_a_hot_urgent_topic_to_its_own_pace() -> None:
    fake = FakeTime()
    plan = schedule(fake)
    for topic in plan.polling():
        poll(plan, topic)
    plan.set_hot({Topic.RFQS_RECEIVED})
    poll(plan, Topic.RFQS_RECEIVED)
    # A quote was sent: its outcome names the received RFQs and my quotes.
    plan.follow_up(Topic.RFQS_RECEIVED, Topic.QUOTES_SENT)
    plan.follow_up(Topic.RFQS_RECEIVED, gap=True)  # a booking seen by a poll
    assert plan.due() == [Topic.QUOTES_SENT], "the new-RFQ poll keeps its own pace"
    fake.advance(SPECS[Topic.RFQS_RECEIVED].hot_s + 0.01)
    assert plan.due()[0] is Topic.RFQS_RECEIVED
    # On another tab it is cold, and a follow-up polls it soon as any other topic.
    poll(plan, Topic.RFQS_RECEIVED)
    plan.set_hot(set())
    plan.follow_up(Topic.RFQS_RECEIVED)
    assert Topic.RFQS_RECEIVED in plan.due()
    # A follow-up left to the pace is not lost when the trader leaves the tab before it.
    plan.set_hot({Topic.RFQS_RECEIVED})
    fake.advance(plan.budget.window_s + 1)  # the tokens of the polls before have left
    poll(plan, Topic.RFQS_RECEIVED)
    plan.follow_up(Topic.RFQS_RECEIVED)
    assert Topic.RFQS_RECEIVED not in plan.due()
    plan.set_hot(set())  # another tab: the received RFQs poll every 12 s from now
    assert Topic.RFQS_RECEIVED in plan.due()
    poll(plan, Topic.RFQS_RECEIVED)
    plan.set_hot({Topic.RFQS_RECEIVED})
    fake.advance(plan.budget.window_s + 1)  # the tokens of the polls before have left
    poll(plan, Topic.RFQS_RECEIVED)
    plan.set_hot(set())
    assert Topic.RFQS_RECEIVED not in plan.due(), "its poll came first: nothing kept"
    # While its polls fail (backing off far beyond its pace), a follow-up polls it now.
    plan.set_hot({Topic.RFQS_RECEIVED})
    fake.advance(plan.budget.window_s + 1)  # the tokens of the polls before have left
    poll(plan, Topic.RFQS_RECEIVED)
    plan._failures[Topic.RFQS_RECEIVED] = 3
    plan.follow_up(Topic.RFQS_RECEIVED)
    assert Topic.RFQS_RECEIVED in plan.due()
    plan._failures.clear()
    # The trader's own ask (f5) polls it at once, hot or not.
    poll(plan, Topic.RFQS_RECEIVED)
    plan.set_hot({Topic.RFQS_RECEIVED})
    poll(plan, Topic.RFQS_RECEIVED)
    plan.kick(Topic.RFQS_RECEIVED)
    assert plan.due()[0] is Topic.RFQS_RECEIVED


def test_the_traders_writes_shrink_the_routine_share_down_to_its_floor() -> None:
    fake = FakeTime()
    plan = schedule(fake)
    plan.set_hot({Topic.RFQS_RECEIVED})
    urgent = SPECS[Topic.RFQS_RECEIVED]
    need = -(-urgent.cost * plan.budget.window_s // urgent.hot_s)
    assert plan.routine_share() == min(ROUTINE_SHARE_TOKENS, plan.budget.tokens - need)
    assert plan.budget.try_acquire(20)  # a quote
    assert plan.routine_share() == min(ROUTINE_SHARE_TOKENS, plan.budget.tokens - need - 20)
    assert plan.budget.try_acquire(20)  # an accept
    assert plan.routine_share() == ROUTINE_FLOOR_TOKENS
    while sum(cost for _, cost, _ in plan._spent) + 10 <= ROUTINE_FLOOR_TOKENS:
        poll(plan, Topic.SUMMARY)  # what the polls spend is not a write
    assert plan.routine_share() == ROUTINE_FLOOR_TOKENS
    assert not plan.fits(Topic.RFQS_SENT), "the floor is spent"
    # A cheap poll (a last look due shows on the quotes) keeps to no share.
    assert plan.fits(Topic.QUOTES_SENT)
    # The writes leave the window: the share is whole again.
    fake.advance(plan.budget.window_s + plan.budget.margin_s + 0.01)
    assert plan.routine_share() == ROUTINE_SHARE_TOKENS
    assert plan.fits(Topic.RFQS_SENT)


def test_the_routine_floor_holds_any_routine_poll() -> None:
    dearest = max(spec.cost for spec in SPECS.values() if not spec.urgent)
    assert dearest <= ROUTINE_FLOOR_TOKENS


def test_a_poll_held_only_by_the_share_lets_the_cheap_polls_behind_it_go() -> None:
    from datetime import UTC, datetime
    from types import SimpleNamespace
    from typing import Any

    from tui.desk.feed.scheduler import Feed

    fake = FakeTime()
    offline: Any = SimpleNamespace(budget=TokenBudget(clock=fake.clock, sleep=fake.sleep))
    feed = Feed(offline, [].append, clock=lambda: datetime.now(UTC), monotonic=fake.clock)
    feed.set_hot({Topic.RFQS_RECEIVED})
    for topic in feed.polling():
        poll(feed, topic)
    fake.advance(feed.budget.window_s + feed.budget.margin_s + 0.1)
    for topic in feed.polling():
        if topic is not Topic.QUOTES_SENT:
            poll(feed, topic)  # all fresh but the quotes
    while share_spent(feed) + 10 <= feed.routine_share():
        poll(feed, Topic.POOLS)
    feed.follow_up(Topic.SUMMARY)  # a booking implies it: ahead of the quotes, but share-bound
    due = feed.due()
    assert due.index(Topic.SUMMARY) < due.index(Topic.QUOTES_SENT)
    assert not feed.fits(Topic.SUMMARY) and feed.waits_only_for_share(Topic.SUMMARY)
    started: list[Topic] = []
    feed._start = started.append  # type: ignore[method-assign]
    feed.tick()
    assert Topic.QUOTES_SENT in started and Topic.SUMMARY not in started
    # The schedule wakes for the share, not a nap later.
    assert feed.next_wake_s() <= feed.wait_for_tokens(Topic.SUMMARY)


def test_what_a_poll_turns_hot_keeps_to_the_share_and_a_tab_shown_does_not() -> None:
    fake = FakeTime()
    plan = schedule(fake)
    plan.set_hot({Topic.RFQS_RECEIVED})
    for topic in plan.polling():
        poll(plan, topic)
    fake.advance(plan.budget.window_s + plan.budget.margin_s + 0.1)
    while share_spent(plan) + 10 <= plan.routine_share():
        poll(plan, Topic.POOLS)
    plan.set_hot({Topic.RFQS_RECEIVED, Topic.RFQS_SENT}, asked=False)  # my RFQ opened
    assert Topic.RFQS_SENT in plan.due() and not plan.fits(Topic.RFQS_SENT)
    plan.set_hot({Topic.RFQS_RECEIVED}, asked=False)
    plan.set_hot({Topic.RFQS_RECEIVED, Topic.RFQS_SENT})  # the trader showed a tab
    assert plan.fits(Topic.RFQS_SENT)
