"""A quiet desk redraws what changed, once (issue 11).

A poll that changes nothing costs the desk nothing: the feed says `Unchanged` instead of a
snapshot, the app files and draws nothing for it, and a snapshot still goes out once
`RESEND_AFTER` has passed, so an unconfirmed answer never outlives the venue's word. The status
bar draws calls and clock syncs with the next second's ages, and the desk's second shows the
ages and moves the countdowns in the same turn, so the screen draws the second in one frame."""

from __future__ import annotations

from typing import Any

from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tests.desk.kit.panes import PaneApp, Refreshes
from tests.desk.kit.venue import perp_rfq
from tui.desk.feed.fetch import RESEND_AFTER, Unchanged
from tui.desk.feed.scheduler import Feed
from tui.desk.messages import (
    PaneAge,
    QuotesUpdated,
    RfqsUpdated,
    Snapshot,
    SummaryUpdated,
    Topic,
)
from tui.desk.widgets.status_bar import StatusBar


async def test_a_poll_that_finds_what_the_last_snapshot_carried_sends_no_snapshot(
    sandbox: Any,
) -> None:
    posted: list[Any] = []
    async with sandbox.client("DESK") as client, sandbox.client("EMBR") as embr:
        desk_id = sandbox.company_ids["DESK"]
        await embr.rfqs_new(perp_rfq([desk_id], "1", sandbox.clock.now()))
        feed = Feed(client, posted.append, clock=sandbox.clock.now)
        for topic in (Topic.RFQS_RECEIVED, Topic.SUMMARY):
            assert await feed.poll(topic)
        assert [type(m) for m in posted if isinstance(m, Snapshot)] == [
            RfqsUpdated,
            SummaryUpdated,
        ]

        posted.clear()
        for topic in (Topic.RFQS_RECEIVED, Topic.SUMMARY):
            assert await feed.poll(topic), "an unchanged poll is a poll that worked"
        # Not even the `Unchanged` the fetcher gave: the desk gets no message to route.
        assert not [m for m in posted if isinstance(m, Snapshot | Unchanged)]

        posted.clear()
        newer = await embr.rfqs_new(perp_rfq([desk_id], "2", sandbox.clock.now()))
        assert await feed.poll(Topic.RFQS_RECEIVED)
        (update,) = [m for m in posted if isinstance(m, RfqsUpdated)]
        assert update.rfqs[-1].rfq_id == newer.rfq_id and update.arrived == [newer.rfq_id]


async def test_an_unchanged_topic_is_sent_again_after_the_answers_time(sandbox: Any) -> None:
    posted: list[Any] = []
    async with sandbox.client("DESK") as client:
        feed = Feed(client, posted.append, clock=sandbox.clock.now)
        assert await feed.poll(Topic.QUOTES_SENT)
        assert await feed.poll(Topic.QUOTES_SENT)
        assert [type(m) for m in posted if isinstance(m, QuotesUpdated | Unchanged)] == [
            QuotesUpdated,
        ]
        posted.clear()
        sandbox.advance(RESEND_AFTER.total_seconds())
        assert await feed.poll(Topic.QUOTES_SENT)
        assert [type(m) for m in posted if isinstance(m, QuotesUpdated | Unchanged)] == [
            QuotesUpdated
        ]


async def test_an_unchanged_poll_files_and_draws_nothing(desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot)
        shown: list[Any] = []
        filed: list[Any] = []
        show, apply = app.panes.show, app.book.apply

        async def spy_show(snapshot: Any) -> None:
            shown.append(snapshot)
            await show(snapshot)

        def spy_apply(change: Any) -> None:
            filed.append(change)
            apply(change)

        app.panes.show = spy_show  # type: ignore[method-assign]
        app.book.apply = spy_apply  # type: ignore[method-assign]
        await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.QUOTES_SENT, Topic.SUMMARY)
        assert shown == [] and filed == []


async def test_the_status_bar_redraws_once_a_second_whatever_the_calls_and_syncs() -> None:
    status = StatusBar(id="status")
    async with PaneApp(status).run_test() as pilot:
        status.show_freshness((PaneAge("inbox", 1.0, False),), 10)
        await pilot.pause()
        seen = Refreshes(status)
        status.show_call(79, latency_ms=4, offset_ms=None)
        status.show_clock(latency_ms=9, offset_ms=+3)  # a clock sync
        status.show_call(85, latency_ms=None, offset_ms=None)  # red now, drawn with the second
        assert seen.layouts == []
        ages = (PaneAge("inbox", 2.0, False),)
        status.show_freshness(ages, 85)
        status.show_freshness(ages, 85)  # the same second told twice: the same text
        assert seen.layouts == [False], "one repaint, no layout"
        shown = str(status.render())
        assert "85/100" in shown and "latency 9 ms" in shown and "clock +3 ms" in shown


async def test_the_desks_second_shows_the_ages_before_it_moves_the_countdowns(
    desk: DeskFactory,
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.RFQS_RECEIVED)
        order: list[str] = []
        status = app.query_one(StatusBar)
        show_freshness, tick = status.show_freshness, app.panes.tick

        def spy_ages(*args: Any) -> None:
            order.append("ages")
            show_freshness(*args)

        def spy_tick() -> None:
            order.append("countdowns")
            tick()

        status.show_freshness = spy_ages  # type: ignore[method-assign]
        app.panes.tick = spy_tick  # type: ignore[method-assign]
        app._every_second()
        await pilot.pause()
        # Both in the same turn of the app's queue: the screen draws them in one frame.
        assert order[:2] == ["ages", "countdowns"]
