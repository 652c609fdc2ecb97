"""`PollSchedule`: when each topic polls next, in what order, and whether its tokens fit now.

The timing half of the feed, with no network in it: which topics are hot, which were kicked
(now, or a few seconds from now), which are in flight, how far a failing one is put off, and
how long the scheduler may sleep. `Feed` (``scheduler``) is a schedule that also polls.

The order of polls due at once: a hot urgent topic first (a new RFQ for me waits for nobody:
`PollSpec.urgent`), then what was kicked (something the user did, or a booking, changed it),
then by priority and by how overdue each is. A kick never polls a topic sooner than its
`PollSpec.kick_gap_s` after its last poll, so a run of bookings refreshes the dear money
topics once, not once per booking.

Two kinds of kick: one the trader *asked* for (f5, a tab just shown, the venue back after an
outage: `kick`) goes at once within the budget; a *follow-up* (what an action or a poll implies
may have changed: `follow_up`) goes ahead of the schedule's own polls but, while an urgent
topic is hot, keeps to the routine share with them (`routine_share`), so a busy trader's
bookings do not push a new RFQ for me off the screen. A follow-up of the hot urgent topic
itself is left to its pace (it polls within its hot interval anyway), unless its polls are
failing or it turns cold first.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterable

from tui.api.budget import TokenBudget
from tui.desk.feed.topics import (
    CHEAP_POLL_TOKENS,
    HOT_ONLY,
    ROUTINE_FLOOR_TOKENS,
    ROUTINE_SHARE_TOKENS,
    SPECS,
    backoff_s,
)
from tui.desk.messages import Topic

MIN_NAP_S = 0.01
"""The shortest sleep of the schedule: a wait for tokens never spins."""
WAITING_ACTION_NAP_S = 0.05
"""How often the schedule looks again while a trader's action waits for tokens."""


class PollSchedule:
    """The feed's timing (see module docs): set up with the topics polled and the budget."""

    def __init__(
        self,
        topics: tuple[Topic, ...],
        budget: TokenBudget,
        *,
        keep_free: int,
        monotonic: Callable[[], float],
        max_nap_s: float,
    ) -> None:
        self.topics = topics
        self.budget = budget
        self.keep_free = keep_free
        """Tokens the polls leave free in every window, for the user's own next action."""
        self.monotonic = monotonic
        self.max_nap_s = max_nap_s
        """The longest the schedule sleeps with nothing due (a kick, a poll's end wakes it)."""
        self.hot: set[Topic] = set()
        self._last_run: dict[Topic, float] = {}
        self._kicked: set[Topic] = set()
        self._asked: set[Topic] = set()
        """Kicked topics the trader asked for (`kick`): they never keep to the routine share."""
        self._kick_at: dict[Topic, float] = {}
        self._gapped: set[Topic] = set()
        """Kicked topics whose kick came from a poll: they keep their kick gap."""
        self._inflight: set[Topic] = set()
        self._pending: dict[Topic, int] = {}
        """Tokens of the polls started and not yet ended (charged when their request leaves)."""
        self._spent: list[tuple[float, int, bool]] = []
        """When each poll started, its cost, and whether it was routine (not urgent): what the
        polls spent in the window, and the routine share's part of it."""
        self._paced: set[Topic] = set()
        """Hot urgent topics a follow-up was left to their own pace for (`follow_up`), until
        their next poll."""
        self._failures: dict[Topic, int] = {}
        """Failed polls in a row, per topic: how far its next poll is put off (`backoff_s`)."""
        self._wake = asyncio.Event()
        """Set when the schedule may have changed: a kick, a new hot set, a poll's end, a stop."""

    def set_hot(self, topics: Iterable[Topic], *, asked: bool = True) -> None:
        """Poll these topics fast from now on; a topic that just turned hot polls at once:
        asked for by the trader (a tab shown: `kick`), or, when what a poll showed turned it
        hot (``asked=False``: my RFQ opened, a trade is clearing), as a `follow_up`."""
        new = set(topics)
        turned = new - self.hot
        if asked:
            self.kick(*turned)
        else:
            self.follow_up(*turned)
        self.hot = new
        if cooled := self._paced - new:
            self._paced -= cooled
            self.follow_up(*cooled)  # left to a pace that is no longer its own
        self._wake.set()

    def kick(self, *topics: Topic) -> None:
        """Poll these topics now, as soon as the budget allows: the trader asked (f5, a tab
        just shown, the venue answering again after an outage)."""
        self._asked.update(topics)
        self._gapped.difference_update(topics)
        self._kicked.update(topics)
        self._wake.set()

    def follow_up(self, *topics: Topic, after_s: float = 0.0, gap: bool = False) -> None:
        """Poll these topics soon: an action, or what a poll saw, may have changed them.

        Ahead of the schedule's own polls, within the routine share while an urgent topic is
        hot (module docs). With ``after_s``, not now but that many seconds from now (sooner if
        already due sooner): for what the venue finishes a little later, like a deposit
        confirming on chain a block after it was sent. With ``gap`` (what a poll saw, not what
        the user did), not sooner than each topic's `PollSpec.kick_gap_s` after its last poll.

        A hot urgent topic whose polls do not fail is left to its own pace: its next poll is
        at most one hot interval away, and an extra poll of it (10 tokens on the Trade tab
        after every quote or booking) would come out of the very budget that pace needs. It
        is kept in mind until that poll, and followed up after all if it turns cold first
        (the trader left the Trade tab).
        """
        paced = {t for t in topics if self._urgent(t) and not self._failures.get(t)}
        self._paced.update(paced)
        topics = tuple(t for t in topics if t not in paced)
        self._wake.set()
        if gap:
            self._gapped.update(t for t in topics if t not in self._kicked)
        else:
            self._gapped.difference_update(topics)
        if after_s <= 0:
            self._kicked.update(topics)
            return
        at = self.monotonic() + after_s
        for topic in topics:
            self._kick_at[topic] = min(at, self._kick_at.get(topic, at))

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

    def _kick_waits(self, topic: Topic, now: float) -> float:
        """Seconds a kicked ``topic`` still waits for its `PollSpec.kick_gap_s` (0: none)."""
        last = self._last_run.get(topic)
        if last is None or topic not in self._gapped:
            return 0.0
        return max(0.0, last + SPECS[topic].kick_gap_s - now)

    def due(self) -> list[Topic]:
        """Topics whose interval has passed (or that were kicked), most urgent first."""
        now = self.monotonic()
        for topic, at in list(self._kick_at.items()):
            if at <= now:
                del self._kick_at[topic]
                self._kicked.add(topic)
        waiting: list[tuple[bool, bool, int, float, Topic]] = []
        for topic in self.polling():
            if topic in self._inflight:
                continue
            last = self._last_run.get(topic)
            kicked = topic in self._kicked and not self._kick_waits(topic, now)
            if kicked or last is None:
                overdue = float("inf")
            elif now - last >= self.wait_s(topic):
                overdue = (now - last) / self.wait_s(topic)
            else:
                continue
            urgent = SPECS[topic].urgent and topic in self.hot
            waiting.append((not urgent, not kicked, SPECS[topic].priority, -overdue, topic))
        waiting.sort()
        return [topic for *_, topic in waiting]

    def _urgent(self, topic: Topic) -> bool:
        return SPECS[topic].urgent and topic in self.hot

    def _is_routine(self, topic: Topic) -> bool:
        """Whether a poll of ``topic`` is routine now: not urgent, while an urgent one is hot,
        and not asked for by the trader (`kick`: f5, a tab shown, the desk filling its panes
        again after the venue came back). A routine poll leaves room for the next urgent one;
        a dear one also keeps to the routine share (`routine_share`). A cheap one
        (`CHEAP_POLL_TOKENS`: the quotes, what shows a last look or a deposit due) does not."""
        return (
            not self._urgent(topic)
            and topic not in self._asked
            and any(self._urgent(hot) for hot in self.hot)
        )

    def _in_share(self, topic: Topic) -> bool:
        """Whether a poll of ``topic`` counts in the routine share: a dear one, not urgent
        (`CHEAP_POLL_TOKENS`)."""
        return not self._urgent(topic) and SPECS[topic].cost > CHEAP_POLL_TOKENS

    def _keeps_share(self, topic: Topic) -> bool:
        """Whether a poll of ``topic`` waits for room in the routine share now."""
        return self._in_share(topic) and self._is_routine(topic)

    def _spent_lately(self, now: float) -> list[tuple[float, int, bool]]:
        """The polls whose tokens still count: one window and the budget's margin from their
        start (oldest first)."""
        keep = self.budget.window_s + self.budget.margin_s
        self._spent = [entry for entry in self._spent if entry[0] + keep > now]
        return self._spent

    def routine_share(self) -> int:
        """Tokens the dear routine polls may spend in one window while an urgent topic is hot.

        What the urgent poll needs at its pace and what the trader's own writes spent lately
        (everything in the window the polls did not spend) come first; the routine polls get
        the rest, never more than `ROUTINE_SHARE_TOKENS` and never less than
        `ROUTINE_FLOOR_TOKENS` (a dear poll now and then: the money panes and my RFQs' status
        still move while the trader is busy; the cheap polls are not counted in it).
        """
        polled = sum(cost for _, cost, _ in self._spent_lately(self.monotonic()))
        writes = max(0, self.budget.used() - polled)
        left = self.budget.tokens - self._urgent_need() - writes
        return max(ROUTINE_FLOOR_TOKENS, min(ROUTINE_SHARE_TOKENS, left))

    def _urgent_need(self) -> int:
        """Tokens per window the hot urgent polls spend at their pace."""
        return sum(
            math.ceil(SPECS[t].cost * self.budget.window_s / SPECS[t].hot_s)
            for t in self.hot
            if self._urgent(t)
        )

    def _routine_wait(self, cost: int, now: float) -> float:
        """Seconds until a routine poll of ``cost`` fits the routine share (0: now): until
        enough of the routine polls before it leave the window (the share is never smaller
        than a poll: `ROUTINE_FLOOR_TOKENS`)."""
        routine = [(at, spent) for at, spent, in_share in self._spent_lately(now) if in_share]
        over = sum(spent for _, spent in routine) + cost - self.routine_share()
        keep = self.budget.window_s + self.budget.margin_s
        wait = 0.0
        for at, spent in routine:  # oldest first: they leave first
            if over <= 0:
                break
            over -= spent
            wait = at + keep - now
        return wait

    def wait_for_tokens(self, topic: Topic) -> float:
        """Seconds until a poll of ``topic`` may spend its cost (0: now; inf: not before a
        poll in flight ends or a waiting action is served, which wakes the schedule).

        Polls started but still in flight count as spent: the client charges the budget only
        when a poll's request goes out, so several polls started in one tick must not each see
        the same free tokens. Every poll leaves the reserve free; the routine ones also keep
        to their share (`_is_routine`) and leave room for the next urgent poll on top of the
        reserve, so an urgent one never waits behind them; none starts while a trader's action
        waits for tokens.
        """
        wait = self._budget_wait(topic)
        if wait < math.inf and self._keeps_share(topic):
            wait = max(wait, self._routine_wait(SPECS[topic].cost, self.monotonic()))
        return wait

    def _budget_wait(self, topic: Topic) -> float:
        """`wait_for_tokens` but for the routine share: the budget's own wait."""
        cost = SPECS[topic].cost
        if cost == 0:
            return 0.0
        need = cost + sum(self._pending.values())
        routine = self._is_routine(topic)
        reserve = self.keep_free + (self._urgent_cost() if routine else 0)
        if self.budget.waiting or need + reserve > self.budget.tokens:
            return float("inf")
        return self.budget.wait_time(need, reserve)

    def waits_only_for_share(self, topic: Topic) -> bool:
        """Whether the budget has room for a poll of ``topic`` now and only the routine share
        holds it back: the polls due after it may go ahead (the share is theirs to wait for,
        not the budget's tokens a poll before them needs)."""
        return self._keeps_share(topic) and self._budget_wait(topic) <= 0

    def _urgent_cost(self) -> int:
        """Tokens of the dearest urgent poll now hot (0: none)."""
        return max((SPECS[t].cost for t in self.hot if self._urgent(t)), default=0)

    def fits(self, topic: Topic) -> bool:
        """Whether a poll of ``topic`` may spend its cost now (`wait_for_tokens`)."""
        return self.wait_for_tokens(topic) <= 0

    def next_wake_s(self) -> float:
        """Seconds the schedule may sleep: until the next poll falls due or, when a due poll
        waits for tokens, until they are free (the due ones passed over while they wait for
        the routine share count, and so do the polls not due yet). A kick, a new hot set or the
        end of a poll wakes it sooner, so an idle desk wakes only when it has work."""
        now = self.monotonic()
        due = self.due()
        if due and self.budget.waiting:
            return WAITING_ACTION_NAP_S
        waits = [at - now for at in self._kick_at.values()]
        for topic in due:
            waits.append(self.wait_for_tokens(topic))
            if not self.waits_only_for_share(topic):
                break  # the polls behind it wait for it
        for topic in self.polling():
            if topic in due or topic in self._inflight or topic not in self._last_run:
                continue
            waits.append(self._last_run[topic] + self.wait_s(topic) - now)
            if topic in self._kicked:
                waits.append(self._kick_waits(topic, now))
        return min(self.max_nap_s, max(MIN_NAP_S, min(waits, default=self.max_nap_s)))

    def _started(self, topic: Topic) -> None:
        """A poll of ``topic`` starts now: its tokens are pending and its kick is spent."""
        self._pending[topic] = SPECS[topic].cost
        self._spend_kick(topic)
        if SPECS[topic].cost:
            self._spent.append((self._last_run[topic], SPECS[topic].cost, self._in_share(topic)))

    def _spend_kick(self, topic: Topic) -> None:
        """A poll of ``topic`` starts now (by the schedule or on demand): its kick is spent."""
        self._kicked.discard(topic)
        self._asked.discard(topic)
        self._gapped.discard(topic)
        self._paced.discard(topic)
        self._last_run[topic] = self.monotonic()

    def _ended(self, topic: Topic) -> None:
        """A poll of ``topic`` ended (either way): its tokens are the budget's to count."""
        self._inflight.discard(topic)
        self._pending.pop(topic, None)
        self._wake.set()
