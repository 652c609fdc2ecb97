"""My actions' answers against the polls in flight: the book keeps the newer of the two.

An action's answer is filed at once (`DeskBook.apply`), but a poll that had already started
when the answer came lists the record as it was before the action; filed after the answer, it
would show the old state again for a few seconds. `Answers` keeps each record an answer filed
until a poll shows it at least as far along (the record's own progress: its clearing events,
its final state), or until `ANSWER_KEPT` has passed on the venue's clock, and lays it over the
polls meanwhile. A poll that shows the record further along confirms the answer and wins.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from tui.api.lifecycle import clearing_is_final, quote_state_is_final, rfq_is_final
from tui.desk.clearing import STEP_ORDER

if TYPE_CHECKING:
    from tui.api.models import RFQ, Quote

ANSWER_KEPT = timedelta(seconds=30)
"""How long an answer outweighs polls that do not show it yet (a poll in flight takes
seconds; an answer no poll ever confirms must not hide the venue's word for longer)."""

Record = TypeVar("Record")
Progress = tuple[int, ...]

_STEPS = {status.value: index for index, status in enumerate(STEP_ORDER)}


def clearing_rank(status: object) -> int:
    """How far along the clearing path a status is: none, each step in order, then final."""
    if status is None:
        return 0
    if clearing_is_final(status):
        return len(STEP_ORDER) + 1
    return _STEPS.get(str(status), 0) + 1


def quote_progress(quote: Quote) -> Progress:
    """A quote moves on by clearing events, then by reaching a final state."""
    state = (quote.model_extra or {}).get("quote_status")
    return (len(quote.clearing_events), int(quote_state_is_final(state)))


def rfq_progress(rfq: RFQ) -> Progress:
    """An RFQ moves on by its trade's clearing, and by closing."""
    return (int(rfq_is_final(rfq.rfq_status)), clearing_rank(rfq.clearing_status))


PROGRESS: dict[str, Callable[[Any], Progress]] = {
    "rfqs_received": rfq_progress,
    "rfqs_sent": rfq_progress,
    "quotes_sent": quote_progress,
    "quotes_received": quote_progress,
}
"""The book's stores an answer can change, and how each store's records move on."""


@dataclass
class Answers:
    """The records my actions' answers filed, until a poll confirms them (see module docs)."""

    kept: dict[str, dict[str, tuple[datetime | None, Any]]] = field(default_factory=dict)

    def remember(
        self,
        before: Mapping[str, Mapping[str, Any]],
        after: Mapping[str, Mapping[str, Any]],
        at: datetime | None,
    ) -> None:
        """Keep every record an answer changed: the stores as they were and as they are."""
        for name, store in after.items():
            old = before.get(name, {})
            for key, record in store.items():
                if old.get(key) is not record:
                    self.kept.setdefault(name, {})[key] = (at, record)

    def overlay(self, name: str, polled: dict[str, Record], at: datetime) -> None:
        """Lay the kept answers over a poll of store ``name`` where the poll is behind them."""
        kept = self.kept.get(name)
        if not kept:
            return
        progress = PROGRESS[name]
        for key, (filed_at, record) in list(kept.items()):
            seen = polled.get(key)
            expired = filed_at is not None and at - filed_at > ANSWER_KEPT
            if expired or (seen is not None and progress(seen) >= progress(record)):
                del kept[key]
            else:
                polled[key] = record
