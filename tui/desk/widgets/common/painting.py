"""How one table line becomes segments: cells at fixed widths, an ellipsis on clipped text.

A cell is painted the way Textual's `DataTable` paints it (one blank each side, the row's
style under the cell's own, the cursor's colour over it), so a virtual table looks the same
as the desk's other tables. Plain one-line text, which is every cell of a trading table, takes
a direct path of a few string operations; anything richer (spans, several lines) goes through
Rich, at the cost of a full render. A line joins neighbouring text of one style into one
segment (a row of twelve plain cells is two segments, plus two for each coloured cell): every
later stage (Textual's line cache, colour filters, the compositor's cuts) works per segment, and
a screen of changed rows costs far less than with a segment per cell. No segment starts with
blanks (they end the segment before, where they look the same), so an SVG screenshot places
every text exactly even in viewers that drop a text's leading blanks.
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

KEPT = 4096
"""Cells whose painted text a painter keeps (a few screens' worth): a row that changed in one
cell, a cursor that moved, a scroll back paint the others from here."""

Pieces = tuple[str, str, str, "Style | None"]
"""A plain cell painted: the blanks before its text, its text (clipped), the blanks after it
and its own style."""


def cell_justify(cell: Cell, justify: str) -> str:
    """How ``cell`` sits in a column that aligns ``justify``: its own alignment first."""
    return justify if isinstance(cell, str) else cell.justify or justify


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
        self._kept: dict[tuple[object, int, str], tuple[Cell, Pieces | None]] = {}
        self._looks: dict[Style, tuple[object, ...]] = {}

    def line(
        self,
        cells: Sequence[Cell],
        widths: Sequence[int],
        justify: Sequence[str],
        row: Style,
        post: Style | None,
        trail: int = 0,
    ) -> list[Segment]:
        """The segments of one line: each cell at its width over the ``row`` style (``post``
        over it: the cursor), then ``trail`` blank cells in the row's style."""
        pad = row + post if post else row
        segments: list[Segment] = []
        run: list[str] = []  # text waiting to be one segment in the ``pad`` style
        kept, get = self._kept, self._kept.get
        for cell, width, how in zip(cells, widths, justify, strict=True):
            key = (cell if isinstance(cell, str) else id(cell), width, how)
            known = get(key)
            if known is not None and (known[0] is cell or isinstance(cell, str)):
                pieces = known[1]
            else:
                pieces = self._plain(cell, width, how)
                if len(kept) >= KEPT:
                    kept.clear()
                kept[key] = (cell, pieces)
            if pieces is None:
                self._add(segments, "".join(run), pad)
                run = []
                for segment in self._rich(cell, width, cell_justify(cell, how), row, post):
                    self._add(segments, segment.text, segment.style or row)
                continue
            lead, text, spare, own = pieces
            if own is None or not text:
                run += (_PAD, lead, text, spare, _PAD)
                continue
            body = row + own
            if post:
                body += post
            run += (_PAD, lead)
            self._add(segments, "".join(run), pad)
            self._add(segments, text, body)
            run = [spare, _PAD]
        if trail:
            if pad is not row and self._look(pad) != self._look(row):
                self._add(segments, "".join(run), pad)
                run = []
                pad = row
            run.append(" " * trail)
        self._add(segments, "".join(run), pad)
        return segments

    def _add(self, segments: list[Segment], text: str, style: Style) -> None:
        """Add ``text`` in ``style`` to a line, never starting a segment with blanks: they go
        at the end of the segment before when they look the same there, else on their own
        (an SVG viewer may drop a text's leading blanks, shifting what follows)."""
        if not text:
            return
        stripped = text.lstrip(" ")
        if len(stripped) < len(text):
            blanks = text[: len(text) - len(stripped)]
            last = segments[-1] if segments else None
            if last is not None and last.style and self._look(last.style) == self._look(style):
                segments[-1] = Segment(last.text + blanks, last.style)
            else:
                segments.append(Segment(blanks, style))
        if stripped:
            segments.append(Segment(stripped, style))

    def _look(self, style: Style) -> tuple[object, ...]:
        """What a blank shows of ``style``: its background and whatever is drawn across it."""
        look = self._looks.get(style)
        if look is None:
            look = self._looks[style] = (
                style.bgcolor,
                style.color if style.reverse else None,
                style.underline,
                style.underline2,
                style.strike,
                style.overline,
                style.frame,
                style.encircle,
                style.link,
            )
        return look

    def cell(
        self, cell: Cell, width: int, justify: str, pre: Style, post: Style | None
    ) -> list[Segment]:
        """One cell, ``width`` cells of text plus the padding either side."""
        return self.line([cell], [width], [justify], pre, post)

    def _plain(self, cell: Cell, width: int, justify: str) -> Pieces | None:
        """A one-line cell without spans as the blanks before its text, its text (clipped),
        the blanks after it and its own style; None for a cell only Rich can paint."""
        if isinstance(cell, str):
            plain, own, how = cell, None, justify
            if "\n" in plain or "\t" in plain:
                return None
        else:
            plain, how = cell.plain, cell.justify or justify
            if cell.spans or "\n" in plain or "\t" in plain:
                return None
            own = self._style(cell.style) if cell.style else None
        if how == "right":
            text = clip(plain.rstrip(), width)
            return " " * (width - cell_len(text)), text, "", own
        if how not in ("default", "left"):
            return None
        text = clip(plain, width)
        return "", text, " " * (width - cell_len(text)), own

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
