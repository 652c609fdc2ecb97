"""The table's cell painter: cells styled as a DataTable paints them, and a line's neighbouring
text of one style joined into one segment."""

from __future__ import annotations

from rich.console import Console
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.renderables.styled import Styled

from tui.desk.widgets.common.painting import CellPainter


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
