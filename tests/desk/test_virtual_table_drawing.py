"""What the virtual table draws: only the lines on screen, clipped text, columns dropped or
grown to the width, records two lines high, live cells repainted on a tick."""

from __future__ import annotations

from decimal import Decimal
from operator import attrgetter
from typing import Any

from textual.app import App, ComposeResult
from textual.geometry import Region

from tests.desk.kit.fills import FORMATTED, SIZE, Fill, FillsApp, FillTable, fills
from tui.desk.widgets.common.columns import TableColumn
from tui.desk.widgets.common.virtual_table import VirtualTable


async def test_only_the_visible_lines_are_drawn_and_formatted() -> None:
    app = FillsApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(FillTable)
        await pilot.pause()
        table.drawn = 0
        FORMATTED.clear()
        table.merge(fills(10_000))
        await pilot.pause()
        assert table.drawn <= 2 * SIZE[1]  # a frame or two of 12 lines, not 10,000
        assert sorted(set(FORMATTED)) == [f"f{i:05d}" for i in range(9989, 10_000)]
        FORMATTED.clear()
        await pilot.press("down")
        assert FORMATTED == []  # the cursor moving redraws two lines, formats nothing


async def test_clipped_text_ends_with_an_ellipsis() -> None:
    app = FillsApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(FillTable)
        table.merge([Fill("f1", Decimal(1), note="a very long remark"), Fill("f2", Decimal(2))])
        await pilot.pause()
        line = next(text for text in table.lines.values() if text.startswith(" f1"))
        assert "a very lo… " in line
        assert table.row_fields("f1")[-1] == ("Note", "a very long remark")  # `v` shows it whole


async def test_a_narrow_table_leaves_out_its_droppable_columns() -> None:
    app = FillsApp()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(FillTable)
        table.merge([Fill("f1", Decimal(1), note="kept for v")])
        await pilot.pause()
        assert "Note" not in table.lines[0] and table.column_width("note") == 0
        assert table.column_width("price") == 8
        assert table.row_fields("f1")[-1] == ("Note", "kept for v")


class TwoLineApp(App[None]):
    """Fills two lines high (bid over ask), with a live column reading a clock by hand."""

    def __init__(self) -> None:
        super().__init__()
        self.tick = 0
        self.read: list[str] = []

    def compose(self) -> ComposeResult:
        def age(fill: Fill) -> int:
            self.read.append(fill.id)
            return self.tick

        columns: list[TableColumn[Fill]] = [
            TableColumn("id", "Fill", 6, attrgetter("id")),
            TableColumn("two", "Bid/ask", 9, attrgetter("price"), cell=lambda p: f"{p}\n{p + 1}"),
            TableColumn("age", "Age", 4, age, numeric=True, live=True),
        ]
        yield VirtualTable(columns, key=attrgetter("id"), row_height=2, id="two")


async def test_a_record_two_lines_high_shows_each_line_of_its_cells() -> None:
    app = TwoLineApp()
    async with app.run_test(size=(60, 24)) as pilot:
        table: VirtualTable[Fill] = app.query_one("#two", VirtualTable)
        table.merge(fills(40))
        table.focus()
        await pilot.pause()
        lines = [strip.text for strip in table.render_lines(table.region.reset_offset)]
        assert lines[1].split() == ["f00000", "100", "0"] and lines[2].split() == ["101"]
        assert lines[3].split()[:2] == ["f00001", "101"]
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_id == "f00039"
        assert table.scroll_y == 40 * 2 + 1 - table.size.height  # its two lines on screen


async def test_a_tick_reads_and_repaints_only_the_live_cells_on_screen() -> None:
    app = TwoLineApp()
    async with app.run_test(size=(60, 24)) as pilot:
        table: VirtualTable[Fill] = app.query_one("#two", VirtualTable)
        table.merge(fills(1000))
        await pilot.pause()
        on_screen = (table.size.height - 1) // 2 + 1
        app.read.clear()
        table.refresh_live()
        assert len(set(app.read)) <= on_screen  # nothing moved: looked at, not redrawn
        assert str(table.cell_value("f00000", "age")) == "0"
        app.tick = 7
        app.read.clear()
        table.refresh_live()
        await pilot.pause()
        assert set(app.read) <= {f"f{i:05d}" for i in range(on_screen)}
        assert str(table.cell_value("f00000", "age")) == "7"
        assert str(table.cell_value("f00999", "age")) == "7"  # off screen: read when asked


async def test_a_tick_asks_once_for_the_lines_it_moved_and_keeps_the_styles() -> None:
    """The desk's second on a table: one refresh for all the countdowns that moved (each asks
    the app for a frame), none when none moved; and the frame that draws them reuses the
    component styles looked up before, which a style change or a whole redraw looks up again
    (counted by refreshes and look-ups, not by time)."""
    app = TwoLineApp()
    async with app.run_test(size=(60, 24)) as pilot:
        table: VirtualTable[Fill] = app.query_one("#two", VirtualTable)
        table.merge(fills(100))
        await pilot.pause()
        refreshes: list[tuple[Region, ...]] = []
        looked_up: list[tuple[str, ...]] = []
        refresh, look_up = table.refresh, table.get_component_rich_style

        def counted_refresh(*regions: Region, **options: Any) -> Any:
            refreshes.append(regions)
            return refresh(*regions, **options)

        def counted_look_up(*names: str, **options: Any) -> Any:
            looked_up.append(names)
            return look_up(*names, **options)

        table.refresh = counted_refresh  # type: ignore[method-assign]
        table.get_component_rich_style = counted_look_up  # type: ignore[method-assign]
        table.refresh_live()
        assert refreshes == []  # nothing moved: nothing to draw
        app.tick = 7
        table.refresh_live()
        await pilot.pause()
        on_screen = (table.size.height - 1) // 2 + 1
        assert len(refreshes) == 1 and len(refreshes[0]) == 2 * on_screen - 1  # its lines
        assert str(table.cell_value("f00000", "age")) == "7"
        assert looked_up == []  # the countdowns' frame: the styles looked up before
        table.refresh()
        await pilot.pause()
        assert looked_up  # a whole redraw (a pseudo-class changed) looks them up again
        looked_up.clear()
        table.focus()
        await pilot.pause()
        assert looked_up  # and so does a style change


class NotesApp(App[None]):
    """A table whose last column takes the width the others leave."""

    def compose(self) -> ComposeResult:
        yield VirtualTable(
            [
                TableColumn("id", "Fill", 6, attrgetter("id")),
                TableColumn("note", "Note", 10, attrgetter("note"), flex=True, least=5),
            ],
            key=attrgetter("id"),
        )


async def test_rows_that_fill_the_view_leave_no_sideways_scrolling() -> None:
    """The vertical scrollbar the rows bring takes its width from the flex column: no
    horizontal scrollbar (a line lost, every line cropped) for a table that fitted."""
    app = NotesApp()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(VirtualTable)
        await pilot.pause()
        assert not table.show_vertical_scrollbar
        table.merge(fills(100))
        await pilot.pause()
        assert table.show_vertical_scrollbar and not table.show_horizontal_scrollbar
        assert table.virtual_size.width <= table.scrollable_content_region.width
        table.merge(fills(2))  # back to a few rows: the scrollbar goes, the column grows
        await pilot.pause()
        assert not table.show_vertical_scrollbar
        assert table.column_width("note") == table.scrollable_content_region.width - 6 - 4 - 1
