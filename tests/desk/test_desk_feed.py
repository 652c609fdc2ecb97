"""The live data engine against the sandbox: budget reserve, priorities, no overlap, failures."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest

from tui.api.budget import DESK_RESERVE_TOKENS, TokenBudget
from tui.api.client import ServiceClient
from tui.api.endpoints import BUDGET_TOKENS, BUDGET_WINDOW_S
from tui.desk.feed.scheduler import Feed
from tui.desk.feed.topics import SPECS, stale_after
from tui.desk.messages import (
    ClockSynced,
    CompaniesUpdated,
    ConnectionChanged,
    ConnectionState,
    PollFailed,
    RfqsUpdated,
    Topic,
)

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


class Ticker:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_feed(client: ServiceClient, posted: list[Any], ticker: Ticker | None = None) -> Feed:
    return Feed(client, posted.append, clock=lambda: NOW, monotonic=ticker or Ticker())


async def test_polls_leave_the_reserve_free(sandbox: Any) -> None:
    posted: list[Any] = []
    async with sandbox.client("DESK") as client:
        feed = make_feed(client, posted)
        # Every topic is due at start; the scheduler starts what fits and stops there.
        started = feed.tick()
        await feed.idle()
        assert started, "nothing was polled"
        assert client.budget.used() <= client.budget.tokens - feed.keep_free
        # The reserve is untouched however often it ticks.
        for _ in range(5):
            feed.kick(*feed.topics)
            feed.tick()
            await feed.idle()
        assert client.budget.used() <= client.budget.tokens - feed.keep_free
        assert client.budget.available() >= feed.keep_free


async def test_most_urgent_poll_is_not_starved_by_cheaper_ones(sandbox: Any) -> None:
    posted: list[Any] = []
    async with sandbox.client("DESK") as client:
        feed = make_feed(client, posted)
        # Leave 9 tokens above the reserve: the cheap priority-0 polls fit, an RFQ poll (10)
        # does not, and nothing behind it may jump the queue.
        assert client.budget.try_acquire(client.budget.tokens - feed.keep_free - 9)
        due = feed.due()
        assert set(due[:3]) == {Topic.QUOTES_SENT, Topic.QUOTES_RECEIVED, Topic.COMPANIES}
        started = feed.tick()
        await feed.idle()
        assert started == due[:3]
        assert feed.due()[0] in (Topic.RFQS_RECEIVED, Topic.RFQS_SENT)
        assert Topic.STATUS not in started and Topic.TRANSFERS not in started


async def test_a_topic_never_has_two_polls_in_flight(sandbox: Any) -> None:
    posted: list[Any] = []
    async with sandbox.client("DESK") as client:
        feed = make_feed(client, posted)
        first, second = await asyncio.gather(feed.poll(Topic.COMPANIES), feed.poll(Topic.COMPANIES))
        assert sorted([first, second]) == [False, True]
        assert sum(isinstance(m, CompaniesUpdated) for m in posted) == 1


async def test_snapshots_arrive_as_messages(sandbox: Any) -> None:
    posted: list[Any] = []
    async with sandbox.client("DESK") as client:
        feed = make_feed(client, posted)
        await feed.refresh(Topic.STATUS, Topic.RFQS_RECEIVED, Topic.COMPANIES)
    clock = next(m for m in posted if isinstance(m, ClockSynced))
    assert clock.company_id == sandbox.company_ids["DESK"]
    rfqs = next(m for m in posted if isinstance(m, RfqsUpdated))
    assert rfqs.direction == "received" and rfqs.rfqs == []
    companies = next(m for m in posted if isinstance(m, CompaniesUpdated))
    assert {c.short_name for c in companies.companies} >= {"DESK", "ALPHA"}
    assert feed.last_ok[Topic.COMPANIES] == NOW
    assert not feed.is_stale(Topic.COMPANIES, NOW)


async def test_a_failed_poll_is_a_stale_mark_and_a_message_not_a_crash(sandbox: Any) -> None:
    posted: list[Any] = []
    entry = sandbox.credentials["DESK"]
    # Nothing listens on port 9 of loopback: every poll fails to connect.
    client = ServiceClient(
        "http://127.0.0.1:9", entry["api_key"], entry["api_secret"], max_attempts=1
    )
    async with client:
        feed = make_feed(client, posted)
        ok = await feed.poll(Topic.COMPANIES)
    assert ok is False
    failed = next(m for m in posted if isinstance(m, PollFailed))
    assert failed.topic is Topic.COMPANIES and "connection" in failed.error
    state = next(m for m in posted if isinstance(m, ConnectionChanged))
    assert state.state is ConnectionState.DISCONNECTED
    assert feed.is_stale(Topic.COMPANIES, NOW)


def test_hot_topics_poll_faster_and_go_stale_sooner() -> None:
    # The schedule itself needs no network: a stand-in with just the shared budget.
    offline: Any = SimpleNamespace(budget=TokenBudget())
    feed = Feed(offline, [].append, clock=lambda: NOW, monotonic=Ticker())
    spec = SPECS[Topic.RFQS_RECEIVED]
    assert feed.interval(Topic.RFQS_RECEIVED) == spec.cold_s
    feed.set_hot({Topic.RFQS_RECEIVED})
    assert feed.interval(Topic.RFQS_RECEIVED) == spec.hot_s < spec.cold_s
    assert stale_after(spec, hot=True) < stale_after(spec, hot=False)
    # A hot topic polled every 1.8 s is not stale while a poll waits one budget window for
    # tokens behind the trader's writes.
    assert stale_after(spec, hot=True) > BUDGET_WINDOW_S
    assert Topic.STATS not in feed.topics  # no stats source, no stats polls
    # The topic that just turned hot polls at once; the rest by priority.
    due = feed.due()
    assert due[0] is Topic.RFQS_RECEIVED
    priorities = [SPECS[t].priority for t in due[1:]]
    assert priorities == sorted(priorities)


@pytest.mark.parametrize("topic", list(SPECS))
def test_every_topic_has_a_sane_schedule(topic: Topic) -> None:
    spec = SPECS[topic]
    assert 0 < spec.hot_s <= spec.cold_s
    assert spec.cost <= 10


async def test_settled_records_are_not_fetched_again(sandbox: Any) -> None:
    from tests.desk.kit.venue import perp_rfq

    posted: list[Any] = []
    desk_id = sandbox.company_ids["DESK"]
    async with sandbox.client("DESK") as client, sandbox.client("EMBR") as embr:
        for _ in range(3):
            await embr.rfqs_new(perp_rfq([desk_id], "1", sandbox.clock.now()))
        sandbox.advance(400)  # past their five-minute expiry: settled for good
        late = await embr.rfqs_new(perp_rfq([desk_id], "1", sandbox.clock.now()))

        asked: list[dict[str, Any]] = []
        iterate = client.iterate

        def spy(method: Any, **filters: Any) -> Any:
            asked.append(filters)
            return iterate(method, **filters)

        client.iterate = spy  # type: ignore[method-assign]
        feed = Feed(client, posted.append, clock=sandbox.clock.now, monotonic=Ticker())
        await feed.refresh(Topic.RFQS_RECEIVED)
        newer = await embr.rfqs_new(perp_rfq([desk_id], "1", sandbox.clock.now()))
        await feed.refresh(Topic.RFQS_RECEIVED)  # an unchanged list would post no snapshot
        assert asked[0].get("offset") is None and asked[1]["offset"] == 3
        first, second = (m for m in posted if isinstance(m, RfqsUpdated))
        assert [r.rfq_id for r in second.rfqs[:4]] == [r.rfq_id for r in first.rfqs]
        assert [r.rfq_id for r in second.rfqs[3:]] == [late.rfq_id, newer.rfq_id]
        assert [r.rfq_status for r in second.rfqs] == ["expired"] * 3 + ["open"] * 2


async def test_a_booked_trade_refreshes_the_money_topics_early(sandbox: Any) -> None:
    from tests.desk.kit.venue import accept, perp_rfq, pool_between, quote_rfq
    from tui.api.models import MakerLastLookRequest, RequestAction, TradeSide
    from tui.desk.feed.topics import HOT_ONLY, MONEY_TOPICS

    posted: list[Any] = []
    ticker = Ticker()
    async with sandbox.client("DESK") as client, sandbox.client("ALPHA") as alpha:
        feed = Feed(client, posted.append, clock=sandbox.clock.now, monotonic=ticker)
        feed.show_tab("positions")  # the aggregated positions poll only while it shows
        # A second desk on the same company that watches only its trades and transfers.
        blotter_only = Feed(client, posted.append, clock=sandbox.clock.now, monotonic=ticker)
        await feed.refresh_all()
        await blotter_only.refresh_all()
        assert not set(MONEY_TOPICS) & set(feed.due()), "just polled: not due yet"

        rfq = await client.rfqs_new(perp_rfq([sandbox.company_ids["ALPHA"]], "1", NOW))
        (view,) = (await alpha.rfqs_received(id=rfq.rfq_id)).result
        pool = await pool_between(alpha, sandbox.company_ids["DESK"])
        quote = await quote_rfq(alpha, view, sandbox.clock.now(), pool_id=pool.pool_id)
        await accept(client, quote, TradeSide.BUY)
        await feed.refresh(Topic.QUOTES_RECEIVED, Topic.TRADES, Topic.TRANSFERS)
        # Accepted, not booked: nothing has moved yet.
        assert not set(MONEY_TOPICS) & set(feed.due())

        await alpha.quotes_maker_last_look(
            MakerLastLookRequest(
                parent_quote_id=quote.parent_quote_id,
                rfq_id=rfq.rfq_id,
                action=RequestAction.ACCEPT,
            )
        )
        sandbox.advance(3)
        await feed.refresh(Topic.QUOTES_RECEIVED)
        # The feed saw the booking: the trades and transfers it made are due at once, and so
        # is everything money moved, the dear topics once their kick gap has passed (a run of
        # bookings refreshes them once).
        cheap = {t for t in MONEY_TOPICS if not SPECS[t].kick_gap_s}
        assert cheap | {Topic.TRADES, Topic.TRANSFERS} <= set(feed.due())
        assert not (set(MONEY_TOPICS) - cheap) & set(feed.due())
        ticker.now += max(SPECS[t].kick_gap_s for t in MONEY_TOPICS)
        assert set(MONEY_TOPICS) | {Topic.TRADES, Topic.TRANSFERS} <= set(feed.due())
        await feed.refresh(*MONEY_TOPICS, Topic.TRADES, Topic.TRANSFERS)
        # Its legs in the trades poll are the same booking: no second round.
        assert not set(MONEY_TOPICS) & set(feed.due())

        # A desk that did not see the quote booked learns it from the new trade legs.
        await blotter_only.refresh(Topic.TRADES)
        assert set(MONEY_TOPICS) - HOT_ONLY <= set(blotter_only.due())
        assert not HOT_ONLY & set(blotter_only.due())  # no Positions tab: never polled


async def test_a_money_action_refreshes_once_the_chain_has_confirmed(sandbox: Any) -> None:
    from tui.desk.feed.topics import HOT_ONLY, MONEY_FOLLOW_UP_S, MONEY_TOPICS

    money = set(MONEY_TOPICS) - HOT_ONLY  # the aggregated positions: only while their tab shows

    posted: list[Any] = []
    ticker = Ticker()
    async with sandbox.client("DESK") as client:
        feed = Feed(client, posted.append, clock=sandbox.clock.now, monotonic=ticker)
        await feed.refresh_all()
        feed.kick_money()
        # Not at once (the chain has not confirmed anything yet), but well before the slow poll.
        assert not money & set(feed.due())
        ticker.now += MONEY_FOLLOW_UP_S / 2
        assert not money & set(feed.due())
        ticker.now += MONEY_FOLLOW_UP_S / 2
        assert money <= set(feed.due())
        # Kicked polls go first, but obey the budget like any poll: with the window spent
        # down to the reserve, the follow-up waits instead of eating into it.
        assert feed.due()[0] in (*MONEY_TOPICS, Topic.TRANSFERS)
        spend = client.budget.available() - feed.keep_free - SPECS[Topic.SUMMARY].cost + 1
        assert client.budget.try_acquire(spend)
        started = feed.tick()
        await feed.idle()
        assert Topic.SUMMARY not in started and Topic.POOLS not in started
        assert client.budget.available() >= feed.keep_free


def test_the_busiest_view_leaves_room_for_the_users_writes() -> None:
    from tui.desk.feed.topics import HOT_ONLY, ROUTINE_SHARE_TOKENS

    # Trade tab, an RFQ of mine open, a trade in clearing: what polls fast then.
    hot = {Topic.RFQS_RECEIVED, Topic.RFQS_SENT, Topic.QUOTES_SENT, Topic.QUOTES_RECEIVED}

    def per_window(topic: Topic) -> float:
        spec = SPECS[topic]
        return spec.cost * BUDGET_WINDOW_S / (spec.hot_s if topic in hot else spec.cold_s)

    polled = [t for t in SPECS if t not in HOT_ONLY or t in hot]
    urgent = sum(per_window(t) for t in polled if SPECS[t].urgent and t in hot)
    routine = sum(per_window(t) for t in polled if not (SPECS[t].urgent and t in hot))
    assert urgent, "a new RFQ for me is urgent on the Trade tab"
    # The routine polls keep well inside their share (at it, they would stall after a kick),
    # and with the urgent ones they leave a write's room: a quiet desk's steady schedule
    # never makes the trader's next action wait.
    assert routine <= 0.9 * ROUTINE_SHARE_TOKENS
    assert urgent + routine <= BUDGET_TOKENS - DESK_RESERVE_TOKENS
