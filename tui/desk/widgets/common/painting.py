"""How one table line becomes segments: cells at fixed widths, an ellipsis on clipped text.

A cell is painted the way Textual's `DataTable` paints it (one blank each side, the row's
style under the cell's own, the cursor's colour over it), so a virtual table looks the same
as the desk's other tables. Plain one-line text, which is every cell of a trading table, takes
a direct path of a few string operations; anything richer (spans, several lines) goes through
Rich, at the cost of a full render.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size
from rich.console import Console, ConsoleOptions
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.renderables.styled import Styled

from tui.desk.widgets.common.columns import CELL_PADDING, Cell

ELLIPSIS = "…"
_PAD = " " * CELL_PADDING


def clip(plain: str, width: int) -> str:
    """``plain`` cut to ``width`` cells, ending in an ellipsis when it did not fit."""
    if cell_len(plain) <= width:
        return plain
    if width <= 0:
        return ""
    return set_cell_size(plain, width - 1) + ELLIPSIS


class CellPainter:
    """Paints cells for one console (see module docs)."""

    def __init__(self, console: Console, options: ConsoleOptions) -> None:
        self._console = console
        self._options = options.update(no_wrap=True, height=1)
        self._styles: dict[str | Style, Style] = {}

    def line(
        self,
        cells: Sequence[Cell],
        widths: Sequence[int],
        justify: Sequence[str],
        pre: Sequence[Style],
        post: Style | None,
    ) -> list[Segment]:
        """The segments of one line: each cell at its width, ``pre[i]`` under cell ``i``."""
        segments: list[Segment] = []
        extend = segments.extend
        for cell, width, how, under in zip(cells, widths, justify, pre, strict=True):
            extend(self.cell(cell, width, how, under, post))
        return segments

    def cell(
        self, cell: Cell, width: int, justify: str, pre: Style, post: Style | None
    ) -> list[Segment]:
        """One cell, ``width`` cells of text plus the padding either side."""
        if isinstance(cell, str):
            plain, own, how = cell, None, justify
            simple = "\n" not in plain and "\t" not in plain
        else:
            plain, how = cell.plain, cell.justify or justify
            own = self._style(cell.style) if cell.style else None
            simple = not cell.spans and "\n" not in plain and "\t" not in plain
        if not simple or how not in ("default", "left", "right"):
            return self._rich(cell, width, how, pre, post)
        body = pre + own if own is not None else pre
        if post:
            body += post
            pad = pre + post
        else:
            pad = pre
        if how == "right":
            text = clip(plain.rstrip(), width)
            text = " " * (width - cell_len(text)) + text
            spare = ""
        else:
            text = clip(plain, width)
            spare = " " * (width - cell_len(text))
            if how == "left":
                text, spare = text + spare, ""
        if own is None or not text:  # one segment where the text has no colour of its own
            return [Segment(_PAD + text + spare + _PAD, pad)]
        return [Segment(_PAD, pad), Segment(text, body), Segment(spare + _PAD, pad)]

    def blank(self, width: int, style: Style) -> Segment:
        """Blank cells in the row's colour (a row reaching the widget's edge)."""
        return Segment(" " * width, style)

    def _style(self, style: str | Style) -> Style:
        if isinstance(style, Style):
            return style
        parsed = self._styles.get(style)
        if parsed is None:
            parsed = self._styles[style] = self._console.get_style(style, default=Style.null())
        return parsed

    def _rich(
        self, cell: Cell, width: int, justify: str, pre: Style, post: Style | None
    ) -> list[Segment]:
        """Any other cell, through Rich: clipped to one line, ellipsis on overflow."""
        text = Text(cell, end="") if isinstance(cell, str) else cell.copy()
        text.justify = justify  # type: ignore[assignment]
        text.overflow = "ellipsis"
        text.no_wrap = True
        options = self._options.update_width(width + 2 * CELL_PADDING)
        lines = self._console.render_lines(
            Styled(Padding(text, (0, CELL_PADDING)), pre_style=pre, post_style=post or Style()),
            options,
        )
        return lines[0]
