"""`Feed`: the desk's one scheduler of polls, and the policy it applies to what it polled.

Every poll first asks the shared `TokenBudget` whether its cost fits while leaving
`DESK_RESERVE_TOKENS` free, so the user's own actions (a quote, an accept, the kill switch)
never wait behind background polling. When the most urgent due poll does not fit, the scheduler
waits for it rather than letting cheaper polls starve it.

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
(`MONEY_TOPICS`) are kicked instead of waiting for their slow poll; a user action that moves
money schedules them a few seconds later, when the chain has confirmed it (`Feed.kick_money`).
Kicked polls go ahead of routine ones but obey the same budget: they too leave the reserve.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from textual.message import Message

from tui.api.budget import DESK_RESERVE_TOKENS, TokenBudget
from tui.api.client import CallInfo, ServiceClient
from tui.api.endpoints import BUDGET_TOKENS
from tui.api.errors import ApiError, AuthError, ConnectionLost
from tui.desk.feed.fetch import Fetcher, StatsSource
from tui.desk.feed.policy import (
    STEERING,
    Arrivals,
    FailureNews,
    hot_topics,
    pane_ages,
)
from tui.desk.feed.topics import (
    HOT_ONLY,
    MONEY_FOLLOW_UP_S,
    MONEY_TOPICS,
    SPECS,
    backoff_s,
    money_moved,
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


class Feed:
    """The desk's one scheduler of polls (see module docs)."""

    def __init__(
        self,
        client: ServiceClient,
        post: Callable[[Message], Any],
        *,
        clock: Callable[[], datetime],
        stats: StatsSource | None = None,
        keep_free: int = DESK_RESERVE_TOKENS,
        monotonic: Callable[[], float] = time.monotonic,
        tick_s: float = 0.25,
    ) -> None:
        self.client = client
        self.budget: TokenBudget = client.budget
        self.post = post
        self.clock = clock
        self.keep_free = keep_free
        self.monotonic = monotonic
        self.tick_s = tick_s
        self.hot: set[Topic] = set()
        self.last_ok: dict[Topic, datetime] = {}
        self.failing: dict[Topic, str] = {}
        self.connection = ConnectionState.CONNECTING
        self.tab: str | None = None
        """The tab on screen, once the desk has said; until then ``hot`` is left as set."""
        self._fetcher = Fetcher(client, clock, stats)
        self._arrivals = Arrivals()
        self._news = FailureNews()
        self._last_run: dict[Topic, float] = {}
        self._kicked: set[Topic] = set()
        self._kick_at: dict[Topic, float] = {}
        self._moved: dict[Topic, set[str]] = {}
        self._booked: set[str] = set()
        self._inflight: set[Topic] = set()
        self._pending: dict[Topic, int] = {}
        self._failures: dict[Topic, int] = {}
        self._marks_shown: tuple[tuple[str, bool], ...] | None = None
        """Failed polls in a row, per topic: how far its next poll is put off (`backoff_s`)."""
        self._tasks: set[asyncio.Task[bool]] = set()
        self._stopped = asyncio.Event()
        self.topics: tuple[Topic, ...] = tuple(
            t for t in SPECS if t is not Topic.STATS or stats is not None
        )

    # -- steering ---------------------------------------------------------------------------

    def set_hot(self, topics: Iterable[Topic]) -> None:
        """Poll these topics fast from now on; a topic that just turned hot polls at once."""
        new = set(topics)
        for topic in new - self.hot:
            self._kicked.add(topic)
        self.hot = new

    def kick(self, *topics: Topic, after_s: float = 0.0) -> None:
        """Poll these topics as soon as the budget allows (after a user action changed them).

        With ``after_s``, not now but that many seconds from now (sooner if already due
        sooner): for what the venue finishes a little later, like a deposit confirming on
        chain a block after it was sent.
        """
        if after_s <= 0:
            self._kicked.update(topics)
            return
        at = self.monotonic() + after_s
        for topic in topics:
            self._kick_at[topic] = min(at, self._kick_at.get(topic, at))

    def kick_money(self) -> None:
        """Money moves (an accept, a permit, a deposit, a withdrawal): refresh the summary,
        pools and positions once the chain has had time to confirm it.

        Not at once: right after the action the venue has only started (a transfer is
        pending, a trade is clearing), and the action itself just spent the budget the polls
        would need. A booking or a confirmation seen earlier kicks them sooner anyway.
        """
        self.kick(*MONEY_TOPICS, Topic.TRANSFERS, after_s=MONEY_FOLLOW_UP_S)

    def show_tab(self, tab: str) -> None:
        """The desk shows ``tab`` now: what it shows (and what waits for the user) polls fast."""
        self.tab = tab
        self._steer()

    def _steer(self) -> None:
        if self.tab is None:
            return
        records = self._fetcher.records
        self.set_hot(
            hot_topics(
                self.tab,
                records(Topic.RFQS_SENT),
                records(Topic.QUOTES_SENT),
                records(Topic.QUOTES_RECEIVED),
            )
        )

    def after_action(self, outcome: ActionOutcome) -> None:
        """A user action ended: poll what it changed, and the money topics if it moved money."""
        if outcome.refresh:
            self.kick(*outcome.refresh)
        if outcome.money and outcome.ok:
            self.kick_money()

    def polling(self) -> list[Topic]:
        """The topics polled now: all but the `HOT_ONLY` ones that are not hot."""
        return [t for t in self.topics if t not in HOT_ONLY or t in self.hot]

    def interval(self, topic: Topic) -> float:
        """Seconds between polls of ``topic`` right now."""
        spec = SPECS[topic]
        return spec.hot_s if topic in self.hot else spec.cold_s

    def wait_s(self, topic: Topic) -> float:
        """Seconds from one poll of ``topic`` to the next: its interval, backed off while its
        polls fail (see `tui.desk.feed.topics.backoff_s`); a kick polls at once regardless."""
        return backoff_s(self.interval(topic), self._failures.get(topic, 0))

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

    def due(self) -> list[Topic]:
        """Topics whose interval has passed (or that were kicked), most urgent first.

        Kicked topics come first: something the user did, or a booking, changed them, and
        the routine polls can wait the second it takes.
        """
        now = self.monotonic()
        for topic, at in list(self._kick_at.items()):
            if at <= now:
                del self._kick_at[topic]
                self._kicked.add(topic)
        waiting: list[tuple[bool, int, float, Topic]] = []
        for topic in self.polling():
            if topic in self._inflight:
                continue
            last = self._last_run.get(topic)
            interval = self.wait_s(topic)
            if topic in self._kicked or last is None:
                overdue = float("inf")
            elif now - last >= interval:
                overdue = (now - last) / interval
            else:
                continue
            kicked = topic in self._kicked
            waiting.append((not kicked, SPECS[topic].priority, -overdue, topic))
        waiting.sort()
        return [topic for *_, topic in waiting]

    def fits(self, topic: Topic) -> bool:
        """Whether a poll of ``topic`` may spend its cost now and leave the reserve free.

        Polls started but still in flight count as spent: the client charges the budget only
        when a poll's request goes out, so several polls started in one tick must not each
        see the same free tokens.
        """
        cost = SPECS[topic].cost
        if cost == 0:
            return True
        need = cost + sum(self._pending.values())
        if need + self.keep_free > self.budget.tokens:
            return False
        return self.budget.wait_time(need, self.keep_free) <= 0

    def tick(self) -> list[Topic]:
        """Start every due poll that fits the budget; stop at the first that does not."""
        started = []
        for topic in self.due():
            if not self.fits(topic):
                break
            self._start(topic)
            started.append(topic)
        return started

    def _start(self, topic: Topic) -> None:
        self._pending[topic] = SPECS[topic].cost
        self._kicked.discard(topic)
        self._last_run[topic] = self.monotonic()
        task = asyncio.ensure_future(self.poll(topic))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def run(self) -> None:
        """Poll forever (until `stop`): the desk's background schedule."""
        self._stopped.clear()
        while not self._stopped.is_set():
            self.tick()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopped.wait(), timeout=self.tick_s)

    async def idle(self) -> None:
        """Wait until no poll started by the scheduler is in flight."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def stop(self) -> None:
        """Stop scheduling and cancel polls in flight."""
        self._stopped.set()
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
            self._kicked.discard(topic)
            self._last_run[topic] = self.monotonic()
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
            self._inflight.discard(topic)
            self._pending.pop(topic, None)
            self.post(BudgetChanged(self.budget.used(), BUDGET_TOKENS))
        self.failing.pop(topic, None)
        self._failures.pop(topic, None)
        self.last_ok[topic] = self.clock()
        if self.connection is not ConnectionState.CONNECTED:
            self._resume()
        self._set_connection(ConnectionState.CONNECTED, "")
        self._news.polled(topic)
        self._watch_money(topic)
        if topic in STEERING:
            self._steer()
        if isinstance(message, RfqsUpdated) and message.direction == "received":
            message.arrived = self._arrivals.note(message.rfqs)
        self.post(message)
        self._report_new_marks()
        return True

    def _watch_money(self, topic: Topic) -> None:
        """Kick the money topics when this poll shows money moved since the last one.

        A booking seen on a quote also kicks the trades and transfers it made, and the RFQs it
        closed; when those
        polls then show its legs and deposits, the booking has already been acted on.
        """
        moved = money_moved(topic, self._fetcher.records(topic))
        if moved is None:
            return
        before = self._moved.get(topic)
        self._moved[topic] = set(moved)
        # The first poll only learns what is there: nothing has moved *since*.
        fresh = set(moved) - before if before is not None else set()
        if topic in (Topic.QUOTES_SENT, Topic.QUOTES_RECEIVED):
            self._booked.update(moved.values())
            if fresh:
                # The booking closed the RFQ too: its poll confirms what the book shows.
                rfqs = Topic.RFQS_SENT if topic is Topic.QUOTES_RECEIVED else Topic.RFQS_RECEIVED
                self.kick(*MONEY_TOPICS, Topic.TRADES, Topic.TRANSFERS, rfqs)
        elif any(moved[record] not in self._booked for record in fresh):
            self.kick(*MONEY_TOPICS)

    def _resume(self) -> None:
        """The venue answers again: what was failing polls now, not when its backoff ends."""
        self._kicked.update(self.failing)
        self._kicked.update(self._failures)
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
