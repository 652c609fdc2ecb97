"""`MoneyWatch`: what a poll says about money having moved, and so what to poll again at once.

A booking seen on a quote, a new trade leg, a transfer confirmed on chain: each changes the
portfolio summary, the pools and the positions (`MONEY_TOPICS`), which otherwise poll slowly.
The watch remembers what each topic showed last time, so only what moved *since* counts, and
the first look at a topic only learns what is there.
"""

from __future__ import annotations

from typing import Any

from tui.desk.feed.topics import MONEY_TOPICS, money_moved
from tui.desk.messages import Topic


class MoneyWatch:
    """Which polls a fresh snapshot of a topic should kick because money moved since the last."""

    def __init__(self) -> None:
        self._moved: dict[Topic, set[str]] = {}
        self._booked: set[str] = set()
        """Quotes whose booking was seen on a quote poll: their legs and deposits are known."""

    def kicks(self, topic: Topic, records: list[Any]) -> tuple[Topic, ...]:
        """The topics to poll now that ``topic`` listed ``records`` (empty: nothing moved).

        A booking seen on a quote also kicks the trades and transfers it made, and the RFQs it
        closed; when those polls then show its legs and deposits, the booking has already been
        acted on and kicks nothing more.
        """
        moved = money_moved(topic, records)
        if moved is None:
            return ()
        before = self._moved.get(topic)
        self._moved[topic] = set(moved)
        fresh = set(moved) - before if before is not None else set()
        if topic in (Topic.QUOTES_SENT, Topic.QUOTES_RECEIVED):
            self._booked.update(moved.values())
            if not fresh:
                return ()
            # The booking closed the RFQ too: its poll confirms what the book shows.
            rfqs = Topic.RFQS_SENT if topic is Topic.QUOTES_RECEIVED else Topic.RFQS_RECEIVED
            return (*MONEY_TOPICS, Topic.TRADES, Topic.TRANSFERS, rfqs)
        if any(moved[record] not in self._booked for record in fresh):
            return MONEY_TOPICS
        return ()
