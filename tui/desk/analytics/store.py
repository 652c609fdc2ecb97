"""The history kept across restarts: a JSON-lines file in the data folder, mode 0600.

`HistoryLog` builds the entries from the records the book holds (RFQs sent and received,
quotes sent and received), keeps every entry it ever made (the venue's lists may forget old
records; the desk's history does not) and appends each new or changed entry to the file, one
JSON object a line; the newest line of an id wins when the file is read back, and the file is
rewritten compactly when it has grown to twice its entries. A line that cannot be read is
skipped (a crash mid-line loses that line, never the file). An entry whose outcome is final
(and whose RFQ's is too) is not built again, unless a booked quote says otherwise: polls come
in any order, so a quote or an RFQ built from an older word (``traded away`` from an RFQ seen
closed before my quote was seen booked) is built again once the booking is seen. The first
time the desk saw a quote is its time when the venue gives none.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path

from tui.api.lifecycle import clearing_is_booked
from tui.api.models import RFQ, Quote
from tui.desk.analytics.history import (
    EntryKind,
    HistoryEntry,
    Outcome,
    entry_from_json,
    entry_to_json,
    quote_entry,
    rfq_entry,
    with_seen,
)
from tui.paths import private_folder

HISTORY_FILE = "history.jsonl"
_RFQS = (EntryKind.RFQ_SENT, EntryKind.RFQ_RECEIVED)
FILE_MODE = 0o600


class HistoryLog:
    """Every history entry, built from records and kept in a file (see module docs)."""

    def __init__(self, path: Path | None) -> None:
        """``path``: the JSON-lines file (None: kept in memory only, for tests and demos)."""
        self.path = path
        self._entries: dict[str, HistoryEntry] = {}
        self._lines = 0
        if path is not None and path.exists():
            self._load(path)

    def _load(self, path: Path) -> None:
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                self._lines += 1
                try:
                    entry = entry_from_json(json.loads(line))
                except (ValueError, KeyError, TypeError):
                    continue
                self._entries[entry.key] = entry

    def entries(self) -> list[HistoryEntry]:
        """Every entry, newest first."""
        return sorted(
            self._entries.values(),
            key=lambda e: (e.at.timestamp() if e.at else 0.0, e.key),
            reverse=True,
        )

    def entry(self, key: str) -> HistoryEntry | None:
        """The entry with this key (``kind:record id``)."""
        return self._entries.get(key)

    def _settled(self, key: str, rfq_key: str, *, booked: bool = False) -> bool:
        """Whether an entry is final and built from all it needs, so it is not built again.

        Its RFQ must be known and final too (at start-up quotes are polled before RFQs: a
        quote built without its RFQ has no structure or qty yet); an RFQ that traded must
        know its maker and the prices it traded on (the RFQ may be polled before the quote
        that traded); and an entry ``booked`` (a booked quote is among its records) must say
        traded (it may have been built from an RFQ seen closed before the booking was seen).
        """
        entry = self._entries.get(key)
        rfq = self._entries.get(rfq_key)
        if entry is None or rfq is None or not entry.outcome.final or not rfq.outcome.final:
            return False
        if booked and entry.outcome is not Outcome.TRADED:
            return False
        if entry.kind in _RFQS and entry.outcome is Outcome.TRADED:
            return entry.maker is not None and (entry.bid, entry.ask) != (None, None)
        return True

    def update(
        self,
        *,
        rfqs_sent: Mapping[str, RFQ],
        rfqs_received: Mapping[str, RFQ],
        quotes_sent: Iterable[Quote],
        quotes_received: Iterable[Quote],
        me: str | None,
        now: datetime,
    ) -> list[HistoryEntry]:
        """Build the entries of these records (skipping settled ones), keep and save the
        ones that are new or changed, and return them."""
        by_rfq: dict[str, list[Quote]] = {}
        made = list(quotes_sent)
        received = list(quotes_received)
        booked: set[str] = set()  # the ids of the booked quotes and of their RFQs
        for quote in (*made, *received):
            by_rfq.setdefault(quote.target_rfq_id, []).append(quote)
            if clearing_is_booked(quote.clearing_status):
                booked.update((quote.parent_quote_id, quote.target_rfq_id))
        fresh: list[HistoryEntry] = []
        for kind, quotes, rfqs in (
            (EntryKind.QUOTE_MADE, made, rfqs_received),
            (EntryKind.QUOTE_RECEIVED, received, rfqs_sent),
        ):
            rfq_kind = EntryKind.RFQ_RECEIVED if rfqs is rfqs_received else EntryKind.RFQ_SENT
            # A quote's rivals: the quotes of the same list on the same RFQ (grouped once:
            # comparing records one by one grew with the square of the quotes ever seen).
            same_side: dict[str, list[Quote]] = {}
            for quote in quotes:
                same_side.setdefault(quote.target_rfq_id, []).append(quote)
            for quote in quotes:
                key = f"{kind.value}:{quote.parent_quote_id}"
                rfq_key = f"{rfq_kind.value}:{quote.target_rfq_id}"
                if self._settled(key, rfq_key, booked=quote.parent_quote_id in booked):
                    continue
                known = self._entries.get(key)
                rfq = rfqs.get(quote.target_rfq_id)
                entry = quote_entry(quote, kind, rfq, same_side[quote.target_rfq_id], now)
                fresh.append(with_seen(entry, known.at if known else now))
        for kind, rfqs in (
            (EntryKind.RFQ_SENT, rfqs_sent),
            (EntryKind.RFQ_RECEIVED, rfqs_received),
        ):
            for rfq in rfqs.values():
                key = f"{kind.value}:{rfq.rfq_id}"
                if self._settled(key, key, booked=rfq.rfq_id in booked):
                    continue
                fresh.append(rfq_entry(rfq, kind, by_rfq.get(rfq.rfq_id, []), me, now))
        changed = [e for e in fresh if self._entries.get(e.key) != e]
        for entry in changed:
            self._entries[entry.key] = entry
        self._save(changed)
        return changed

    def _save(self, changed: list[HistoryEntry]) -> None:
        if self.path is None or not changed:
            return
        private_folder(self.path.parent)
        if self._lines + len(changed) > 2 * max(len(self._entries), 64):
            self._rewrite(self.path)
            return
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
        with os.fdopen(fd, "a", encoding="utf-8") as out:
            for entry in changed:
                out.write(json.dumps(entry_to_json(entry), separators=(",", ":")) + "\n")
        self._lines += len(changed)

    def _rewrite(self, path: Path) -> None:
        spare = path.with_name(path.name + ".new")
        fd = os.open(spare, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            for entry in self._entries.values():
                out.write(json.dumps(entry_to_json(entry), separators=(",", ":")) + "\n")
        os.replace(spare, path)
        self._lines = len(self._entries)
