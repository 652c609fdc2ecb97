"""The virtual table's cursor: bound to a record through re-sorts, arrivals, filters and
removals; the keys, the wheel and a click that move it or choose a record."""

from __future__ import annotations

from textual import events

from tests.desk.kit.fills import SIZE, FillsApp, FillTable, fills, shown_ids


async def test_cursor_stays_on_its_record_through_a_resort() -> None:
    app = FillsApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(FillTable)
        table.merge(fills(50))
        assert table.move_cursor_to("f00020")
        table.sort_by("id")  # ascending ids: f00020 moves from row 29 to row 20
        await pilot.pause()
        assert table.cursor_id == "f00020" and table.cursor_row == 20
        assert "f00020" in shown_ids(table)  # the view follows the cursor through a re-sort
        table.sort_by("price", descending=True)
        assert table.cursor_id == "f00020" and table.cursor_row == 29


async def test_cursor_stays_on_its_record_when_records_arrive_above_it() -> None:
    app = FillsApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(FillTable)
        table.merge(fills(50))
        await pilot.press("down", "down")
        assert table.cursor_id == "f00047"
        table.merge(fills(55))  # five higher prices arrive at the top
        await pilot.pause()
        assert table.cursor_id == "f00047" and table.cursor_row == 7
        assert shown_ids(table)[:2] == ["f00054", "f00053"]


async def test_a_scrolled_view_stays_put_when_records_arrive_above() -> None:
    app = FillsApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(FillTable)
        table.merge(fills(100))
        await pilot.press("end")
        before = shown_ids(table)
        table.merge(fills(120))
        await pilot.pause()
        assert shown_ids(table) == before  # the trader reading history is not pushed down
        assert table.cursor_id == "f00000"


async def test_cursor_stays_through_a_filter_that_keeps_its_record() -> None:
    app = FillsApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(FillTable)
        table.merge(fills(50))
        table.move_cursor_to("f00021")
        table.filter_by(lambda fill: fill.side == "buy")  # the odd ones
        await pilot.pause()
        assert table.row_count == 25 and table.record_count == 50
        assert table.cursor_id == "f00021" and table.cursor_row == 14
        table.filter_by(None)
        assert table.cursor_id == "f00021" and table.cursor_row == 28


async def test_cursor_moves_to_the_record_that_took_its_place_when_removed() -> None:
    """The documented rule: to the record that followed it in display order; to the new
    last record when it was the last one."""
    app = FillsApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(FillTable)
        day = fills(50)
        table.merge(day)
        table.move_cursor_to("f00030")
        table.remove_records(["f00030", "f00029"])
        assert table.cursor_id == "f00028"
        table.merge([fill for fill in day if fill.id not in {"f00028", "f00030", "f00029"}])
        assert table.cursor_id == "f00027"  # the same rule through a snapshot's prune
        table.action_cursor_last()
        assert table.cursor_id == "f00000"
        table.remove_records(["f00000"])
        await pilot.pause()
        assert table.cursor_id == "f00001" and table.cursor_row == table.row_count - 1
        assert app.highlighted[-1] == "f00001"


async def test_cursor_moves_to_a_neighbour_when_filtered_out() -> None:
    app = FillsApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(FillTable)
        table.merge(fills(50))
        table.move_cursor_to("f00020")
        table.filter_by(lambda fill: fill.side == "buy")
        await pilot.pause()
        assert table.cursor_id == "f00019"  # the next one down the list that is still shown
        table.search("F0000", columns=["id"])  # a search is a filter of its own, any case
        assert table.row_ids() == [f"f{i:05d}" for i in range(9, -1, -1)]
        assert table.cursor_id == "f00009"
        table.filter_by(lambda fill: False)
        assert table.cursor_id is None and table.cursor_row == -1
        await pilot.pause()
        assert app.highlighted[-1] is None


async def test_end_shows_the_last_record_and_home_the_first() -> None:
    app = FillsApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(FillTable)
        table.merge(fills(10_000))
        await pilot.press("end")
        assert shown_ids(table)[-1] == "f00000" and table.cursor_id == "f00000"
        assert "f00000" in table.lines[SIZE[1] - 1]
        await pilot.press("pageup")
        assert table.cursor_row == 10_000 - 1 - 11
        await pilot.press("home")
        assert shown_ids(table)[0] == "f09999" and table.cursor_id == "f09999"
        await pilot.press("enter")
        assert app.selected == ["f09999"]


async def test_the_wheel_scrolls_the_view_and_a_click_chooses_a_record() -> None:
    app = FillsApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(FillTable)
        table.merge(fills(100))
        await pilot.pause()
        for _ in range(3):
            table.post_message(events.MouseScrollDown(table, 5, 5, 0, 1, 0, False, False, False))
        await pilot.pause()
        assert table.scroll_y > 0 and table.cursor_id == "f00099"  # the cursor stays put
        top = round(table.scroll_y)
        await pilot.click(FillTable, offset=(3, 2))  # the second record line on screen
        assert table.cursor_row == top + 1 and app.selected == [table.cursor_id]
        assert app.highlighted[-1] == table.cursor_id
        await pilot.press("v")
        assert app.viewed[0][0] == ("Fill", table.cursor_id)
