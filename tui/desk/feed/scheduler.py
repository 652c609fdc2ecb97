"""`Feed`: the desk's one scheduler of polls, and the policy it applies to what it polled.

When each topic polls, in what order, and what it may spend is the `PollSchedule` it is
(``schedule``): every poll leaves `DESK_RESERVE_TOKENS` free for the user's own next action
and none starts while an action waits for tokens; a new RFQ for me, while the Trade tab shows,
is urgent and polls first, the routine polls keeping to their share so it always has room.
The loop sleeps until the next poll falls due (a kick or a poll's end wakes it): an idle desk
wakes only when it has work.

Results leave as messages (`tui.desk.messages`) through ``post``: each topic's snapshot, and
how fresh every pane now is (`FreshnessChanged`) when a poll turned a pane fresh or stale (the
ages themselves are reported with the desk's second, `Feed.report_freshness`, so a quiet desk
draws its status once a second, not after every poll). A failure becomes a `PollFailed` (the pane is
marked stale, the desk says so once per streak) and never an exception. A failing topic backs
off (its interval doubles with each failure in a row, up to a cap) and, once any poll gets
through again, every failing topic polls at once: the desk resumes by itself. A kick (f5, an
action) polls now, backoff or not. While the venue cannot be reached, every pane is stale. A
topic never has two polls in flight. In tests the scheduler need not run at all:
``await feed.refresh(...)`` and ``await feed.refresh_all()`` poll on demand, deterministically.

What polls fast follows the tab on screen (`Feed.show_tab`) and what the polls show: an open
RFQ of mine, a trade in clearing (`tui.desk.feed.policy`). Money moves show at once: when a
poll sees a trade booked into its pool (a quote reaching ``success_trades_booked_into_pool``, a
new trade leg) or a transfer confirmed, the portfolio summary, pools and positions
(`MONEY_TOPICS`, `MoneyWatch`) are kicked instead of waiting for their slow poll; a user
action that moves money schedules them a few seconds later, when the chain has confirmed it
(`Feed.kick_money`). Kicked polls go ahead of routine ones but obey the same budget; while a
new RFQ for me is urgent, only what the trader asked for (`kick`) goes outside the routine
polls' share, and what actions and polls imply (`follow_up`) keeps to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from textual.message import Message

from tui.api.budget import DESK_RESERVE_TOKENS
from tui.api.client import CallInfo, ServiceClient
from tui.api.endpoints import BUDGET_TOKENS
from tui.api.errors import ApiError, AuthError, ConnectionLost
from tui.desk.feed.fetch import Fetcher, StatsSource, Unchanged
from tui.desk.feed.money_watch import MoneyWatch
from tui.desk.feed.policy import (
    STEERING,
    Arrivals,
    FailureNews,
    hot_topics,
    pane_ages,
)
from tui.desk.feed.schedule import PollSchedule
from tui.desk.feed.topics import (
    MONEY_FOLLOW_UP_S,
    MONEY_TOPICS,
    SPECS,
    stale_after,
)
from tui.desk.messages import (
    ActionOutcome,
    BudgetChanged,
    ConnectionChanged,
    ConnectionState,
    FreshnessChanged,
    PollFailed,
    RfqsUpdated,
    Topic,
)

_log = logging.getLogger(__name__)


class Feed(PollSchedule):
    """The desk's one scheduler of polls (see module docs): a `PollSchedule` that polls."""

    def __init__(
        self,
        client: ServiceClient,
        post: Callable[[Message], Any],
        *,
        clock: Callable[[], datetime],
        stats: StatsSource | None = None,
        keep_free: int = DESK_RESERVE_TOKENS,
        monotonic: Callable[[], float] = time.monotonic,
        max_nap_s: float = 5.0,
    ) -> None:
        super().__init__(
            tuple(t for t in SPECS if t is not Topic.STATS or stats is not None),
            client.budget,
            keep_free=keep_free,
            monotonic=monotonic,
            max_nap_s=max_nap_s,
        )
        self.client = client
        self.post = post
        self.clock = clock
        self.last_ok: dict[Topic, datetime] = {}
        self.failing: dict[Topic, str] = {}
        self.connection = ConnectionState.CONNECTING
        self.tab: str | None = None
        """The tab on screen, once the desk has said; until then ``hot`` is left as set."""
        self._fetcher = Fetcher(client, clock, stats)
        self._arrivals = Arrivals()
        self._news = FailureNews()
        self._money = MoneyWatch()
        self._marks_shown: tuple[tuple[str, bool], ...] | None = None
        self._tasks: set[asyncio.Task[bool]] = set()
        self._stopped = asyncio.Event()

    # -- steering ---------------------------------------------------------------------------

    def kick_money(self) -> None:
        """Money moves (an accept, a permit, a deposit, a withdrawal): refresh the summary,
        pools and positions once the chain has had time to confirm it.

        Not at once: right after the action the venue has only started (a transfer is
        pending, a trade is clearing), and the action itself just spent the budget the polls
        would need. A booking or a confirmation seen earlier kicks them sooner anyway.
        """
        self.follow_up(*MONEY_TOPICS, Topic.TRANSFERS, after_s=MONEY_FOLLOW_UP_S, gap=True)

    def show_tab(self, tab: str) -> None:
        """The desk shows ``tab`` now: what it shows (and what waits for the user) polls fast."""
        self.tab = tab
        self._steer(asked=True)

    def _steer(self, *, asked: bool = False) -> None:
        """What is hot now: the tab shown (the trader asked) and what the polls show."""
        if self.tab is None:
            return
        records = self._fetcher.records
        hot = hot_topics(
            self.tab,
            records(Topic.RFQS_SENT),
            records(Topic.QUOTES_SENT),
            records(Topic.QUOTES_RECEIVED),
            self.clock(),
        )
        self.set_hot(hot, asked=asked)

    def after_action(self, outcome: ActionOutcome) -> None:
        """A user action ended: poll what it changed, and the money topics if it moved money."""
        if outcome.refresh:
            self.follow_up(*outcome.refresh)
        if outcome.money and outcome.ok:
            self.kick_money()

    def is_stale(self, topic: Topic, now: datetime) -> bool:
        """Whether a topic's data is older than it should be (or failed, or never came).

        While the venue cannot be reached at all, everything it said is stale: a topic whose
        own poll has not failed yet only has not asked since.
        """
        if topic in self.failing or self.connection is ConnectionState.DISCONNECTED:
            return True
        last = self.last_ok.get(topic)
        if last is None:
            return True
        return (now - last).total_seconds() > stale_after(SPECS[topic], topic in self.hot)

    # -- what the status bar shows ----------------------------------------------------------

    def freshness(self) -> FreshnessChanged:
        """Every pane's data age and staleness now, and the request tokens in use."""
        now = self.clock()
        ages = pane_ages(
            self.polling(), self.hot, self.last_ok, lambda topic: self.is_stale(topic, now), now
        )
        # Tokens leave the window as time passes, polls or not.
        return FreshnessChanged(ages, self.budget.used())

    def report_freshness(self) -> None:
        """Post `freshness` (whenever the desk's clock ticks, and after a failed poll)."""
        freshness = self.freshness()
        self._marks_shown = _stale_marks(freshness)
        self.post(freshness)

    def _report_new_marks(self) -> None:
        """After a poll: report the freshness at once only when a pane turned fresh or stale
        (or the panes polled changed); its age is drawn with the next second."""
        freshness = self.freshness()
        if _stale_marks(freshness) != self._marks_shown:
            self._marks_shown = _stale_marks(freshness)
            self.post(freshness)

    async def go_offline(self, reason: str) -> None:
        """The venue went away: stop polling, and every pane says it is stale, and why, now."""
        await self.stop()
        self.failing.update(dict.fromkeys(self.topics, reason))
        self.report_freshness()

    def on_call(self, info: CallInfo) -> None:
        """The client's hook: every call it made, polls and actions alike, in the token figure."""
        self.post(
            BudgetChanged(
                info.tokens_used, BUDGET_TOKENS, round(info.latency_ms), info.clock_offset_ms
            )
        )

    # -- the schedule -----------------------------------------------------------------------

    def tick(self) -> list[Topic]:
        """Start every due poll that fits the budget, in order; stop at the first that waits
        for tokens (one waiting only for the routine share is passed over)."""
        started = []
        for topic in self.due():
            if self.fits(topic):
                self._start(topic)
                started.append(topic)
            elif not self.waits_only_for_share(topic):
                break  # the tokens it waits for are not for the polls behind it
        return started

    def _start(self, topic: Topic) -> None:
        self._started(topic)
        task = asyncio.ensure_future(self.poll(topic))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def run(self) -> None:
        """Poll forever (until `stop`): the desk's background schedule."""
        self._stopped.clear()
        while not self._stopped.is_set():
            self._wake.clear()
            self.tick()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self.next_wake_s())

    async def idle(self) -> None:
        """Wait until no poll started by the scheduler is in flight."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def stop(self) -> None:
        """Stop scheduling and cancel polls in flight."""
        self._stopped.set()
        self._wake.set()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    # -- on demand --------------------------------------------------------------------------

    async def refresh(self, *topics: Topic) -> None:
        """Poll these topics now, one after the other.

        An on-demand refresh is the user's (or a test's) own request: it waits for budget like
        a user action does (inside the client), without the polls' reserve.
        """
        for topic in topics:
            if topic not in self.topics:
                continue
            self._spend_kick(topic)
            await self.poll(topic)

    async def refresh_all(self) -> None:
        """Poll every topic polled now once (start-up, tests, the refresh key)."""
        await self.refresh(*sorted(self.polling(), key=lambda t: SPECS[t].priority))

    # -- one poll ---------------------------------------------------------------------------

    async def poll(self, topic: Topic) -> bool:
        """Fetch one topic and post its message; False when it failed or was already running."""
        if topic in self._inflight:
            return False
        self._inflight.add(topic)
        try:
            message = await self._fetcher.fetch(topic)
        except asyncio.CancelledError:
            raise
        except ApiError as error:
            self._failed(topic, error)
            return False
        except Exception as error:  # a bug in a fetcher must not kill the desk
            _log.exception("poll of %s failed", topic)
            self._failed(topic, error)
            return False
        finally:
            self._ended(topic)  # its tokens: the client's `on_call` has told the status bar
        self.failing.pop(topic, None)
        self._failures.pop(topic, None)
        self.last_ok[topic] = self.clock()
        if self.connection is not ConnectionState.CONNECTED:
            self._resume()
        self._set_connection(ConnectionState.CONNECTED, "")
        self._news.polled(topic)
        if kicks := self._money.kicks(topic, self._fetcher.records(topic)):
            self.follow_up(*kicks, gap=True)
        if topic in STEERING:
            self._steer()
        if isinstance(message, RfqsUpdated) and message.direction == "received":
            message.arrived = self._arrivals.note(message.rfqs)
        if not isinstance(message, Unchanged):  # nothing to file or draw
            self.post(message)
        self._report_new_marks()
        return True

    def _resume(self) -> None:
        """The venue answers again: what was failing polls now, not when its backoff ends."""
        self.kick(*self.failing, *self._failures)
        self._failures.clear()

    def _failed(self, topic: Topic, error: Exception) -> None:
        text = str(error) or type(error).__name__
        self.failing[topic] = text
        self._failures[topic] = self._failures.get(topic, 0) + 1
        self.post(PollFailed(topic, text, self.clock(), self._news.failed(topic)))
        if isinstance(error, AuthError):
            self._set_connection(ConnectionState.DISCONNECTED, "the venue refused the API key")
        elif isinstance(error, ConnectionLost):
            self._set_connection(ConnectionState.DISCONNECTED, "no answer from the venue")
        else:
            self._set_connection(ConnectionState.DEGRADED, text)
        self.report_freshness()

    def _set_connection(self, state: ConnectionState, detail: str) -> None:
        if state is self.connection:
            return
        self.connection = state
        recovered = state is ConnectionState.CONNECTED and self._news.reconnected()
        self.post(ConnectionChanged(state, detail, recovered))


def _stale_marks(freshness: FreshnessChanged) -> tuple[tuple[str, bool], ...]:
    """The panes of a freshness report and whether each is marked stale (what colours the
    status bar, the header and the countdown)."""
    return tuple((age.pane, age.stale) for age in freshness.ages)
