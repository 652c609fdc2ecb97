"""The data behind a virtual table: records by id, in order, filtered, merged cheaply.

Records live in *slots*: parallel lists (id, record, version, sort value, stamp) indexed by
slot number, with a dictionary from record id to slot. The display order is an index: a list
of slots sorted by sort value, ties by record id, so each record has one place, found by
bisection, and a re-sort or a filter never touches a record (how slots sort is
`tui.desk.widgets.common.record_order`'s). A filter is a second index, the sorted slots that
pass it. Descending order is the same index read from the end.

A merge works a column at a time (``map`` over the snapshot, list comparisons, all at C
speed): a first load of 100,000 records or a snapshot repeating the last one costs a few list
passes, and only new, changed and removed records are handled one by one. A record counts as
changed when its *version* (what the caller says can change, such as a trade's status)
differs; its stamp then moves on, which is how the table knows to format it again.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import compress, islice, repeat
from operator import is_, ne
from typing import Any, Generic, TypeVar

from tui.desk.widgets.common.record_order import place_of, sort_order, sort_values

R = TypeVar("R")

RESORT_SHARE = 8
"""A batch adding more than 1/RESORT_SHARE of the table is sorted in whole, not inserted."""


@dataclass(frozen=True)
class Merged:
    """What a merge did: how many records were added, changed (version moved on), removed."""

    added: int = 0
    changed: int = 0
    removed: int = 0

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.removed)


class RecordIndex(Generic[R]):
    """Records by id, sorted and filtered by index (see module docs)."""

    def __init__(
        self,
        key: Callable[[R], str],
        *,
        version: Callable[[R], object] | None = None,
        sort_value: Callable[[R], Any] | None = None,
        descending: bool = False,
    ) -> None:
        self._key = key
        self._version = version
        self._sort_value = sort_value
        self.descending = descending
        self._ids: list[Any] = []
        self._records: list[Any] = []
        self._versions: list[Any] = []
        self._values: list[Any] = []
        self._stamps: list[int] = []
        self._slot_of: dict[str, int] = {}
        self._free: list[int] = []
        self._order: list[int] = []
        self._view: list[int] = self._order
        self._predicate: Callable[[R], bool] | None = None
        self._next_stamp = 1
        self._layout: tuple[list[str], list[int]] | None = None

    # -- reading ----------------------------------------------------------------------------

    def __len__(self) -> int:
        """How many records are shown (passing the filter)."""
        return len(self._view)

    @property
    def total(self) -> int:
        """How many records are held, filtered out or not."""
        return len(self._slot_of)

    def __contains__(self, record_id: object) -> bool:
        return record_id in self._slot_of

    def record(self, record_id: str) -> R | None:
        """The record with this id (None when there is none)."""
        slot = self._slot_of.get(record_id)
        return None if slot is None else self._records[slot]

    def slot_of(self, record_id: str) -> int | None:
        """The slot holding this record (None when there is none)."""
        return self._slot_of.get(record_id)

    def slot_at(self, row: int) -> int:
        """The slot shown on display row ``row``."""
        return self._view[~row] if self.descending else self._view[row]

    def id_at(self, row: int) -> str:
        """The id of the record on display row ``row``."""
        return self._ids[self.slot_at(row)]

    def record_at(self, row: int) -> R:
        """The record on display row ``row``."""
        return self._records[self.slot_at(row)]

    def record_in(self, slot: int) -> R:
        """The record held in ``slot``."""
        return self._records[slot]

    def stamp(self, slot: int) -> int:
        """A number that changes whenever the record in ``slot`` changes."""
        return self._stamps[slot]

    def sort_key(self, record_id: str) -> tuple[Any, str] | None:
        """Where a record sits in the order: its sort value and id."""
        slot = self._slot_of.get(record_id)
        return None if slot is None else (self._values[slot], record_id)

    def row_of(self, record_id: str) -> int | None:
        """The display row of a record; None when it is absent or filtered out."""
        slot = self._slot_of.get(record_id)
        position = None if slot is None else self._position(self._view, slot)
        if position is None:
            return None
        return len(self._view) - 1 - position if self.descending else position

    def row_near(self, key: tuple[Any, str]) -> int | None:
        """The display row of the first record after ``key`` in display order, or the last
        row when none follows; None when nothing is shown. (Where a cursor goes when its
        record leaves: to the record that took its place.)"""
        size = len(self._view)
        if not size:
            return None
        position = place_of(self._view, self._values, self._ids, *key)
        row = size - position if self.descending else position
        return min(max(row, 0), size - 1)

    def ids(self) -> list[str]:
        """Ids of the shown records, in display order."""
        slots = self._view[::-1] if self.descending else self._view
        return list(map(self._ids.__getitem__, slots))

    # -- order and filter -------------------------------------------------------------------

    def sort_by(self, sort_value: Callable[[R], Any] | None, *, descending: bool) -> None:
        """Order the rows by ``sort_value`` (by record id when None)."""
        self._sort_value = sort_value
        self.descending = descending
        live = list(self._slot_of.values())
        values = self._sort_values(list(map(self._records.__getitem__, live)))
        deque(map(self._values.__setitem__, live, values), maxlen=0)
        self._resort()

    def filter_by(self, predicate: Callable[[R], bool] | None) -> None:
        """Show only the records ``predicate`` keeps (all when None)."""
        self._predicate = predicate
        self._refilter()

    # -- merging ----------------------------------------------------------------------------

    def merge(self, records: Iterable[R], *, prune: bool) -> Merged:
        """Add new records, take changed ones; with ``prune``, drop those not given."""
        batch = records if isinstance(records, list) else list(records)
        ids = list(map(self._key, batch))
        versions = batch if self._version is None else list(map(self._version, batch))
        if not self._slot_of:
            slots: list[Any] = [None] * len(ids)
            added = self._add_slots(slots, ids, batch, versions)
            self._place(added)
            self._layout = (ids, slots)
            return Merged(added=len(added))
        slots = self._slots_for(ids)
        added = self._add_slots(slots, ids, batch, versions) if None in slots else []
        old = list(map(self._versions.__getitem__, slots))
        changed: set[int] = set()
        if old != versions:
            moved = compress(slots, map(ne, old, versions))
            changed = set(moved).difference(added)
        # Every slot takes the snapshot's record, changed or not, so the caller's old objects
        # are not kept alive by the table.
        deque(map(self._records.__setitem__, slots, batch), maxlen=0)
        deque(map(self._versions.__setitem__, slots, versions), maxlen=0)
        for slot in changed:
            self._restamp(slot)
        removed = 0
        if prune and len(self._slot_of) != len(set(slots)):
            gone = self._slot_of.keys() - set(ids)
            removed = len(gone)
            self._drop(list(map(self._slot_of.__getitem__, gone)))
        self._place(added)
        self._layout = (ids, slots)
        return Merged(len(added), len(changed), removed)

    def remove(self, record_ids: Iterable[str]) -> int:
        """Drop these records (ids not held are ignored); how many went."""
        found = (self._slot_of.get(record_id) for record_id in record_ids)
        slots = list(dict.fromkeys(slot for slot in found if slot is not None))
        self._drop(slots)
        return len(slots)

    def clear(self) -> None:
        """Drop every record (sort and filter stay)."""
        for column in (self._ids, self._records, self._versions, self._values, self._stamps):
            column.clear()
        self._slot_of.clear()
        self._free.clear()
        self._order.clear()
        self._view = self._order if self._predicate is None else []
        self._layout = None

    # -- inside: slots ----------------------------------------------------------------------

    def _slots_for(self, ids: list[str]) -> list[Any]:
        """The slot of each id (None for new ones); a snapshot laid out like the last one
        (the same ids, new ones only at the front or the back) reuses its slots whole."""
        lookup = self._slot_of.get
        if self._layout is not None:
            last_ids, last_slots = self._layout
            extra = len(ids) - len(last_ids)
            if extra >= 0 and ids[extra:] == last_ids:
                return [*map(lookup, ids[:extra]), *last_slots]
            if extra > 0 and ids[: len(last_ids)] == last_ids:
                return [*last_slots, *map(lookup, ids[len(last_ids) :])]
        return list(map(lookup, ids))

    def _add_slots(
        self, slots: list[Any], ids: list[str], batch: list[R], versions: list[Any]
    ) -> list[int]:
        """Give each new record a slot (filling the Nones of ``slots``); the new slots, not
        yet placed in the order. An id given twice keeps its last record."""
        if len(slots) and slots[0] is None and slots.count(None) == len(slots):
            positions: list[int] | range = range(len(slots))
            new_ids, records, new_versions = ids, batch, versions
        else:
            positions = list(compress(range(len(slots)), map(is_, slots, repeat(None))))
            new_ids = list(map(ids.__getitem__, positions))
            records = list(map(batch.__getitem__, positions))
            new_versions = list(map(versions.__getitem__, positions))
        count = len(new_ids)
        reused = self._free[len(self._free) - min(count, len(self._free)) :]
        del self._free[len(self._free) - len(reused) :]
        start = len(self._ids)
        new_slots = reused + list(range(start, start + count - len(reused)))
        stamps = range(self._next_stamp, self._next_stamp + count)
        self._next_stamp += count
        columns: list[tuple[list[Any], Sequence[Any]]] = [
            (self._ids, new_ids),
            (self._records, records),
            (self._versions, new_versions),
            (self._values, self._sort_values(records)),
            (self._stamps, stamps),
        ]
        for column, data in columns:
            deque(map(column.__setitem__, reused, data), maxlen=0)
            column.extend(islice(data, len(reused), None))
        before = len(self._slot_of)
        self._slot_of.update(zip(new_ids, new_slots, strict=True))
        if len(self._slot_of) - before != count:
            new_slots = self._release_duplicates(new_ids, new_slots)
            deque(map(slots.__setitem__, positions, map(self._slot_of.get, new_ids)), maxlen=0)
        else:
            deque(map(slots.__setitem__, positions, new_slots), maxlen=0)
        return new_slots

    def _release_duplicates(self, new_ids: list[str], new_slots: list[int]) -> list[int]:
        """An id came twice: its last slot holds it, the others are freed."""
        owner = self._slot_of
        spare = [slot for slot, rid in zip(new_slots, new_ids, strict=True) if owner[rid] != slot]
        self._forget(spare)
        kept = set(spare)
        return [slot for slot in new_slots if slot not in kept]

    def _sort_values(self, records: list[R]) -> list[Any]:
        return sort_values(records, self._key, self._sort_value)

    def _restamp(self, slot: int) -> None:
        """A record changed: new stamp; if its sort value moved, move it in the indexes."""
        self._stamps[slot] = self._next_stamp
        self._next_stamp += 1
        record = self._records[slot]
        value = self._sort_values([record])[0]
        shown = self._view is self._order or self._position(self._view, slot) is not None
        if value != self._values[slot]:
            self._unplace(slot, shown)
            self._values[slot] = value
            self._place([slot])
        elif self._predicate is not None:
            keep = self._predicate(record)
            if keep and not shown:
                self._insert(self._view, slot)
            elif shown and not keep:
                del self._view[self._position(self._view, slot)]  # type: ignore[arg-type]

    def _drop(self, slots: list[int]) -> None:
        if not slots:
            return
        if len(slots) * RESORT_SHARE > len(self._order):
            going = set(slots)
            self._order[:] = [slot for slot in self._order if slot not in going]
            if self._view is not self._order:
                self._view[:] = [slot for slot in self._view if slot not in going]
        else:
            for slot in slots:
                shown = self._view is self._order or self._position(self._view, slot) is not None
                self._unplace(slot, shown)
        for slot in slots:
            del self._slot_of[self._ids[slot]]
        self._forget(slots)
        self._layout = None

    def _forget(self, slots: list[int]) -> None:
        """Empty these slots for reuse."""
        for slot in slots:
            self._ids[slot] = self._records[slot] = self._versions[slot] = None
            self._values[slot] = None
        self._free.extend(slots)

    # -- inside: order (its rules: `record_order`) -------------------------------------------

    def _position(self, index: list[int], slot: int) -> int | None:
        """Where ``slot`` is in a sorted index; None when it is not there."""
        values, ids = self._values, self._ids
        position = place_of(index, values, ids, values[slot], ids[slot])
        if position < len(index) and index[position] == slot:
            return position
        return None

    def _insert(self, index: list[int], slot: int) -> None:
        values, ids = self._values, self._ids
        index.insert(place_of(index, values, ids, values[slot], ids[slot]), slot)

    def _place(self, slots: list[int]) -> None:
        """Put new (or moved) slots into the order and, if they pass, the filtered view."""
        if not slots:
            return
        if len(slots) * RESORT_SHARE > len(self._order):
            self._order.extend(slots)
            self._resort()
            return
        for slot in slots:
            self._insert(self._order, slot)
        if self._predicate is not None:
            predicate, records = self._predicate, self._records
            for slot in slots:
                if predicate(records[slot]):
                    self._insert(self._view, slot)

    def _unplace(self, slot: int, shown: bool) -> None:
        del self._order[self._position(self._order, slot)]  # type: ignore[arg-type]
        if shown and self._view is not self._order:
            del self._view[self._position(self._view, slot)]  # type: ignore[arg-type]

    def _resort(self) -> None:
        """Sort the order by value, then each run of equal values by id; filter again."""
        sort_order(self._order, self._values, self._ids)
        self._refilter()

    def _refilter(self) -> None:
        predicate, records = self._predicate, self._records
        if predicate is None:
            self._view = self._order
        else:
            self._view = [slot for slot in self._order if predicate(records[slot])]
