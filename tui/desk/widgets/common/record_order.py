"""The display order of a record table: slots sorted by sort value, ties broken by record id.

An order is a list of slot numbers kept sorted by (sort value, record id), both read from the
table's parallel columns (`tui.desk.widgets.common.record_index` keeps the records in those
columns). A record's place is found by bisection; a whole order is sorted in one pass with the
runs of equal values sorted by id; a missing sort value sorts before any other (`LOWEST`).
Apart from the record columns because how rows sort is a rule of its own, with one home.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from itertools import compress, islice
from operator import eq
from typing import Any, TypeVar

R = TypeVar("R")


class _Lowest:
    """Sorts before any value: what a missing (None) sort value becomes."""

    def __lt__(self, other: object) -> bool:
        return other is not self

    def __gt__(self, other: object) -> bool:
        return False

    def __eq__(self, other: object) -> bool:
        return other is self

    def __hash__(self) -> int:
        return 0


LOWEST = _Lowest()


def sort_values(
    records: list[R], key: Callable[[R], str], sort_value: Callable[[R], Any] | None
) -> list[Any]:
    """What each record sorts by: ``sort_value`` (a None becoming `LOWEST`), or its id."""
    if sort_value is None:
        return list(map(key, records))
    values = list(map(sort_value, records))
    if None in values:
        values = [LOWEST if value is None else value for value in values]
    return values


def place_of(
    order: list[int], values: list[Any], ids: list[Any], value: Any, record_id: str
) -> int:
    """Where a record with this sort value and id sits (or would sit) in ``order``."""
    value_in = values.__getitem__
    low = bisect_left(order, value, key=value_in)
    high = bisect_right(order, value, low, key=value_in)
    if high - low <= 1 and (low == high or ids[order[low]] == record_id):
        return low
    return bisect_left(order, record_id, low, high, key=ids.__getitem__)


def sort_order(order: list[int], values: list[Any], ids: list[Any]) -> None:
    """Sort ``order`` in place by value, then each run of equal values by id."""
    order.sort(key=values.__getitem__)
    ordered = list(map(values.__getitem__, order))
    ties = list(compress(range(1, len(ordered)), map(eq, ordered, islice(ordered, 1, None))))
    by_id = ids.__getitem__
    run = 0
    while run < len(ties):
        start = end = ties[run]
        while run + 1 < len(ties) and ties[run + 1] == end + 1:
            run, end = run + 1, end + 1
        order[start - 1 : end + 1] = sorted(order[start - 1 : end + 1], key=by_id)
        run += 1
