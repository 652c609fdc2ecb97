"""The virtual table's merges by record id: a snapshot or a delta changes exactly the records
that changed, adds the new and drops the missing; its index keeps order through any merge."""

from __future__ import annotations

import random
from dataclasses import replace
from decimal import Decimal
from operator import attrgetter
from typing import Any

from tests.desk.kit.fills import FORMATTED, SIZE, Fill, FillsApp, FillTable, fills
from tui.desk.widgets.common.record_index import Merged, RecordIndex


async def test_a_merge_of_100_changed_rows_changes_exactly_those() -> None:
    app = FillsApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(FillTable)
        day = fills(10_000)
        table.merge(day)
        await pilot.pause()
        # Every other one of the 11 on screen, and the rest spread over the day.
        chosen = {fill.id for fill in day[-11::2]} | {fill.id for fill in day[: 100 * 94 : 100]}
        assert len(chosen) == 100
        snapshot = [replace(f, status="booked") if f.id in chosen else f for f in day]
        FORMATTED.clear()
        assert table.merge(snapshot) == Merged(changed=100)
        await pilot.pause()
        assert FORMATTED == []  # of the changed rows on screen only the status is formatted
        for fill in day:
            expected = "booked" if fill.id in chosen else "pending"
            assert table.record(fill.id).status == expected  # type: ignore[union-attr]
        on_screen = [line.split() for y, line in table.lines.items() if y]
        assert all(("booked" in words) == (words[0] in chosen) for words in on_screen)
        assert table.merge(snapshot) == Merged()  # the same snapshot again changes nothing
        assert table.upsert([replace(day[1], status="booked")]) == Merged(changed=1)


async def test_a_snapshot_adds_new_records_and_drops_missing_ones() -> None:
    app = FillsApp()
    async with app.run_test(size=SIZE):
        table = app.query_one(FillTable)
        table.merge(fills(10))
        merged = table.merge([*fills(5), *fills(2, start=20)])
        assert merged == Merged(added=2, removed=5)
        assert table.row_ids() == [
            "f00021",
            "f00020",
            "f00004",
            "f00003",
            "f00002",
            "f00001",
            "f00000",
        ]
        assert table.upsert(fills(1, start=30)) == Merged(added=1)
        assert table.record_count == 8
        table.clear()
        assert table.row_count == 0 and table.cursor_id is None


def test_the_index_keeps_order_through_random_merges() -> None:
    """Against a plain sort of a dictionary, through snapshots, deltas, removals and filters."""
    rng = random.Random(11)
    for _ in range(60):
        index: RecordIndex[Fill] = RecordIndex(
            attrgetter("id"), version=attrgetter("price", "status"), sort_value=attrgetter("price")
        )
        held: dict[str, Fill] = {}
        keep: Any = None
        for _ in range(30):
            batch = [
                Fill(
                    f"f{rng.randrange(400):03d}",
                    Decimal(rng.randrange(20)),
                    status=rng.choice("ab"),
                )
                for _ in range(rng.randrange(0, 120))
            ]
            step = rng.random()
            if step < 0.4:
                snapshot = [f for f in held.values() if rng.random() < 0.8] + batch
                rng.shuffle(snapshot)
                index.merge(snapshot, prune=True)
                held = {fill.id: fill for fill in snapshot}
            elif step < 0.75:
                index.merge(batch[:10], prune=False)
                held.update((fill.id, fill) for fill in batch[:10])
            elif step < 0.9:
                gone = rng.sample(sorted(held), min(len(held), 5))
                index.remove(gone)
                for record_id in gone:
                    del held[record_id]
            else:
                keep = rng.choice([None, lambda f: f.status == "a"])
                index.filter_by(keep)
            expected = sorted(
                (f for f in held.values() if keep is None or keep(f)), key=lambda f: (f.price, f.id)
            )
            assert index.ids() == [fill.id for fill in expected]
            assert all(index.row_of(fill.id) == row for row, fill in enumerate(expected))
