"""The virtual table: a cursor bound to a record, merges by id, only what is on screen drawn."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from decimal import Decimal
from operator import attrgetter
from typing import Any

from rich.console import Console
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.renderables.styled import Styled
from textual.strip import Strip

from tui.desk.widgets.common.columns import TableColumn
from tui.desk.widgets.common.painting import CellPainter
from tui.desk.widgets.common.record_index import Merged, RecordIndex
from tui.desk.widgets.common.virtual_table import VirtualTable


@dataclass(frozen=True)
class Fill:
    """A small trade-like record."""

    id: str
    price: Decimal
    side: str = "buy"
    status: str = "pending"
    note: str = ""


def fills(count: int, start: int = 0) -> list[Fill]:
    """``count`` fills, ids ``f00000``..., the price rising with the number."""
    return [
        Fill(f"f{i:05d}", Decimal(100 + i), "buy" if i % 2 else "sell")
        for i in range(start, start + count)
    ]


FORMATTED: list[str] = []
"""Ids whose cell was formatted, in order (every cell formatting of a row starts there)."""


def format_id(record_id: str) -> str:
    FORMATTED.append(record_id)
    return record_id


COLUMNS: list[TableColumn[Fill]] = [
    TableColumn("id", "Fill", 6, attrgetter("id"), cell=format_id),
    TableColumn("price", "Price", 8, attrgetter("price"), cell=lambda p: f"{p:,}", numeric=True),
    TableColumn(
        "side",
        "Side",
        4,
        attrgetter("side"),
        cell=lambda s: Text(s.upper(), style="green" if s == "buy" else "red"),
        repeats=True,
    ),
    TableColumn("status", "Status", 8, attrgetter("status"), repeats=True),
    TableColumn("note", "Note", 10, attrgetter("note"), drop=1),
]


class FillTable(VirtualTable[Fill]):
    """Fills by price, highest first, counting what it draws and formats."""

    def __init__(self) -> None:
        super().__init__(
            COLUMNS,
            key=attrgetter("id"),
            version=attrgetter("price", "status", "note"),
            sort="price",
            descending=True,
            id="fills",
        )
        self.lines: dict[int, str] = {}
        self.drawn = 0

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        self.lines[y] = strip.text
        self.drawn += 1
        return strip


class FillsApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.highlighted: list[str | None] = []
        self.selected: list[str] = []
        self.viewed: list[list[tuple[str, str]]] = []

    def compose(self) -> ComposeResult:
        yield FillTable()

    def on_mount(self) -> None:
        self.query_one(FillTable).focus()

    def on_virtual_table_record_highlighted(self, event: VirtualTable.RecordHighlighted) -> None:
        self.highlighted.append(event.record_id)

    def on_virtual_table_record_selected(self, event: VirtualTable.RecordSelected) -> None:
        self.selected.append(event.record_id)

    def on_virtual_table_view_record(self, event: VirtualTable.ViewRecord) -> None:
        self.viewed.append(event.fields)


SIZE = (80, 12)  # a header and 11 rows


def shown_ids(table: FillTable) -> list[str]:
    """The fill ids on the painted lines, top to bottom."""
    return [table.lines[y].split()[0] for y in sorted(table.lines) if y and table.lines[y].strip()]


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


def test_cells_are_painted_as_a_datatable_paints_them() -> None:
    """The direct path gives the same styled characters as Rich's (so it looks the same)."""
    console = Console(width=100)
    painter = CellPainter(console, console.options)
    row = Style(bgcolor="#203040", color="white")
    cursor = Style.from_color(Style(color="yellow").color)
    cells: list[str | Text] = [
        "abc",
        "",
        "instrument name too long",
        Text("SELL", style="red"),
        Text("12,345.6", justify="right"),
        Text("1,234,567,890.12", justify="right", style="bold"),
        Text("two\nlines"),
    ]
    for cell in cells:
        for width in (1, 4, 12):
            for post in (None, cursor):
                rich = Text(cell) if isinstance(cell, str) else cell.copy()
                rich.overflow, rich.no_wrap = "ellipsis", True
                expected = console.render_lines(
                    Styled(Padding(rich, (0, 1)), pre_style=row, post_style=post or Style()),
                    console.options.update_dimensions(width + 2, 1).update(no_wrap=True),
                )[0]
                painted = painter.cell(cell, width, "default", row, post)
                assert _chars(painted) == _chars(expected), (cell, width, post)


def test_a_line_joins_neighbouring_text_of_one_style() -> None:
    """Plain cells side by side are one segment, a coloured cell two more (fewer segments,
    less work downstream); no segment but the first starts with blanks (SVG viewers may drop
    them); the line reads exactly as its cells painted one by one."""
    console = Console(width=100)
    painter = CellPainter(console, console.options)
    row = Style(bgcolor="#203040", color="white")
    cells: list[str | Text] = [
        "12:00:01",
        "t0001",
        Text("BUY", style="green"),
        "BTC-PERP",
        Text("0.1", justify="right"),
        Text("booked", style="blue"),
    ]
    widths, justify = [8, 8, 4, 12, 6, 8], ["default"] * 6
    for post in (None, Style.from_color(Style(color="yellow").color)):
        line = painter.line(cells, widths, justify, row, post, trail=3)
        # The first blank, a plain run, BUY, a plain run, "booked" (the blanks after it end it).
        assert [segment.text.strip() for segment in line] == [
            "",
            "12:00:01  t0001",
            "BUY",
            "BTC-PERP         0.1",
            "booked",
        ]
        assert not any(segment.text.startswith(" ") for segment in line[1:])
        one_by_one = [
            segment
            for cell, width in zip(cells, widths, strict=True)
            for segment in painter.cell(cell, width, "default", row, post)
        ]
        assert _chars(line) == _chars([*one_by_one, Segment("   ", row)])
        assert painter.line(cells, widths, justify, row, post, trail=3) == line  # kept cells


def _chars(segments: list[Segment]) -> list[tuple[str, object]]:
    """Each character with its style; a blank with what it shows of it (its background)."""
    return [
        (char, segment.style if char != " " else _blank(segment.style))
        for segment in segments
        for char in segment.text
    ]


def _blank(style: Style | None) -> object:
    style = style or Style()
    return style.bgcolor, style.reverse and style.color, style.underline, style.strike


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
