"""The feed's judgement: what polls fast, how fresh each pane is, what is news.

What the user looks at, and what waits for the user's action, is *hot*. A pane's age is that of
its data that should be freshest, and it is stale when any of its topics missed its polls or
failed. A received RFQ is news the first time it is seen open; a failing poll is news the first
time in a streak. None of this needs the screen: the desk only says which tab is showing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from tui.api.lifecycle import clearing_is_final
from tui.api.models import RFQStatus
from tui.desk.clearing import quote_is_open
from tui.desk.messages import PaneAge, Topic

if TYPE_CHECKING:
    from tui.api.models import RFQ, Quote

TAB_TOPICS: dict[str, set[Topic]] = {
    "trade": {Topic.RFQS_RECEIVED},  # and the quotes while something of mine is live on them
    "pools": {Topic.POOLS, Topic.TRANSFERS, Topic.POSITIONS},
    "blotter": {Topic.TRADES},
    "market": {Topic.STATS},
    "positions": {Topic.AGGREGATED, Topic.POSITIONS, Topic.TRADES},
}
"""Topics polled fast while their tab is on screen."""

PANE_TOPICS: tuple[tuple[str, tuple[Topic, ...]], ...] = (
    ("inbox", (Topic.RFQS_RECEIVED, Topic.RFQS_SENT)),
    ("clearing", (Topic.QUOTES_SENT, Topic.QUOTES_RECEIVED)),
    ("book", (Topic.SUMMARY, Topic.AGGREGATED)),  # the aggregated ones only while polled
    ("pools", (Topic.POOLS, Topic.TRANSFERS, Topic.POSITIONS)),
    ("trades", (Topic.TRADES,)),
    ("market", (Topic.STATS,)),
)
"""Status-bar panes and the topics whose freshness they show, the lead topic first: the age
shown is the lead's when it is polled fast (the inbox's is that of the RFQs sent to me, what a
maker watches; my own RFQs' prices come from the 2 s quotes poll, their status from a 20 s
one), and the pane turns stale when any of its topics does."""

NOT_CONNECTED: tuple[PaneAge, ...] = tuple(PaneAge(pane, None, False) for pane, _ in PANE_TOPICS)
"""Every pane before there is a feed: no data yet, and not stale either."""

STEERING: frozenset[Topic] = frozenset({Topic.RFQS_SENT, Topic.QUOTES_SENT, Topic.QUOTES_RECEIVED})
"""Topics whose records change what is hot (an open RFQ of mine, a trade in clearing)."""


def hot_topics(
    tab: str,
    rfqs_sent: Sequence[RFQ],
    quotes_sent: Sequence[Quote],
    quotes_received: Sequence[Quote],
    now: datetime,
) -> set[Topic]:
    """What polls fast: the tab's topics, what of mine is live on the Trade tab, trades in
    clearing.

    On the Trade tab my open RFQs poll fast, and so do the quotes on them (the board's prices);
    my own quotes poll fast while one is open (its fill shows there). An accepted quote that has
    not reached a final state keeps its side's quotes hot (mine as maker, received as taker) on
    every tab: a last look or a deposit may be waiting. With nothing of mine live, the quotes
    polls are cold: an idle desk asks for what cannot have changed only now and then.
    """
    hot = set(TAB_TOPICS.get(tab, set()))
    if tab == "trade":
        if any(r.rfq_status == RFQStatus.OPEN for r in rfqs_sent):
            hot.update((Topic.RFQS_SENT, Topic.QUOTES_RECEIVED))
        if any(quote_is_open(q, now) for q in quotes_sent):
            hot.add(Topic.QUOTES_SENT)
    for topic, quotes in (
        (Topic.QUOTES_SENT, quotes_sent),
        (Topic.QUOTES_RECEIVED, quotes_received),
    ):
        if any(
            q.clearing_status is not None and not clearing_is_final(str(q.clearing_status))
            for q in quotes
        ):
            hot.add(topic)
    return hot


def pane_ages(
    polled: Iterable[Topic],
    hot: set[Topic],
    last_ok: Mapping[Topic, datetime],
    is_stale: Callable[[Topic], bool],
    now: datetime,
) -> tuple[PaneAge, ...]:
    """Each status-bar pane's age and staleness, for the panes whose topics are polled
    (`PANE_TOPICS` says whose age is shown)."""
    polled = set(polled)
    ages = []
    for pane, pane_topics in PANE_TOPICS:
        topics = tuple(t for t in pane_topics if t in polled)
        if not topics:
            continue
        # The lead topic's age when it polls fast; else the oldest hot one's (a cold companion
        # topic would always look old), or the oldest of all when none is hot.
        lead = topics[0]
        shown = [lead] if lead in hot else [t for t in topics if t in hot] or list(topics)
        known = [last_ok[t] for t in shown if t in last_ok]
        age = (now - min(known)).total_seconds() if len(known) == len(shown) else None
        ages.append(PaneAge(pane, age, any(is_stale(t) for t in topics)))
    return tuple(ages)


class Arrivals:
    """Which received RFQs are new: open, and not in any earlier snapshot.

    The first snapshot only learns what is there; nothing in it has *arrived*.
    """

    def __init__(self) -> None:
        self.seen: set[str] | None = None

    def note(self, rfqs: Sequence[RFQ]) -> list[str]:
        """The ids of the RFQs in this snapshot that arrived since the last one."""
        fresh = (
            []
            if self.seen is None
            else [
                r.rfq_id
                for r in rfqs
                if r.rfq_id not in self.seen and r.rfq_status == RFQStatus.OPEN
            ]
        )
        self.seen = (self.seen or set()) | {r.rfq_id for r in rfqs}
        return fresh


class FailureNews:
    """Which failing polls the user has heard of, so each streak is told once.

    A topic is forgotten when it polls fine again; all are forgotten when the link comes back
    (the user is told that instead).
    """

    def __init__(self) -> None:
        self.told: set[Topic] = set()

    def failed(self, topic: Topic) -> bool:
        """A poll of ``topic`` failed: whether that is news."""
        news = topic not in self.told
        self.told.add(topic)
        return news

    def polled(self, topic: Topic) -> None:
        """A poll of ``topic`` worked: its next failure is news again."""
        self.told.discard(topic)

    def reconnected(self) -> bool:
        """The link is back: whether the user had heard it was failing."""
        heard = bool(self.told)
        self.told.clear()
        return heard
