"""The quote ticket's head: which RFQ, from whom, how much, how long it has left, its structure
and its fair value, on three lines.

The inbox cursor moves the ticket from RFQ to RFQ many times a minute, and the head is the part
of the ticket that changes on every move. So it is drawn line by line (Textual's line API):
each line is a few runs of text, plain or in one of the head's styles, and a line whose runs
did not change keeps its drawn strip; a changed line alone is drawn again and sent to the
terminal. No markup is parsed and nothing is laid out on a move. A line longer than the head is
cut with an ellipsis, never wrapped onto the next.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.content import Content
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Static

from tui.desk.widgets.common import fmt

if TYPE_CHECKING:
    from tui.api.models import RFQ
    from tui.desk.book import DeskBook

Run = tuple[str, str]
"""Some text and how it is drawn: "" plain, "strong" or "closed"."""
Line = tuple[Run, ...]
Lines = tuple[Line, ...]

HEIGHT = 3
EMPTY: Lines = ((("Select a received RFQ to quote it.", ""),),)
"""What the head says with no RFQ to quote."""
ELLIPSIS = "…"


def head_lines(rfq: RFQ, book: DeskBook, now: datetime, closed: str) -> Lines:
    """The head of the ticket on ``rfq``: id, taker, quantity and its countdown; its structure;
    its structure price and delta. When it can no longer be quoted, why (``closed``) comes
    first, so a narrow head cuts the quantity, never the reason."""
    price = rfq.structure_price.price if rfq.structure_price else None
    delta = rfq.structure_price.delta if rfq.structure_price else None
    which: Line = (
        ("RFQ ", ""),
        (fmt.short_id(rfq.rfq_id), "strong"),
        (" from ", ""),
        (book.company_name(rfq.taker_company), "strong"),
        (f"  qty {fmt.qty(rfq.qty)}", ""),
    )
    first = (
        ((f"{closed.upper()}: this ticket cannot send", "closed"), ("  ", ""), *which)
        if closed
        else (*which, (f"  expires {fmt.countdown(rfq.rfq_expires_at, now)}", ""))
    )
    return (
        first,
        ((fmt.structure_text(rfq.structure), ""),),
        ((f"structure px {fmt.price(price)}  delta {fmt.greek(delta)}", ""),),
    )


class TicketHead(Static):
    """The ticket's head, redrawn only on the lines that changed (see module docs).

    A `Static` by kind (its `render` is the whole text, for whatever reads it), drawn through
    `render_line` from the lines last shown."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"ticket-head--strong", "ticket-head--closed"}
    DEFAULT_CSS = """
    TicketHead {
        height: 3;
    }
    TicketHead > .ticket-head--strong {
        text-style: bold;
    }
    TicketHead > .ticket-head--closed {
        color: $error;
        text-style: bold;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._lines: Lines = EMPTY
        self._strips: dict[int, Strip] = {}  # drawn lines, by line number, at `_width`
        self._width = 0
        self._styles: dict[str, Style] | None = None  # by run kind, until the styles change

    @property
    def lines(self) -> Lines:
        """The runs shown, line by line."""
        return self._lines

    def show(self, lines: Lines) -> None:
        """Show ``lines`` (at most three); only the lines that changed are drawn again."""
        lines = lines[:HEIGHT]
        shown, self._lines = self._lines, lines
        changed = [
            y
            for y in range(max(len(lines), len(shown)))
            if (shown[y] if y < len(shown) else ()) != (lines[y] if y < len(lines) else ())
        ]
        if not changed:
            return
        for y in changed:
            self._strips.pop(y, None)
        width = self.content_region.width  # a look-up on the screen: only for a change
        if width > 0:  # one refresh for all: each asks the app for a frame
            self.refresh(*(Region(0, y, width, 1) for y in changed))
        else:  # not laid out yet: its first frame draws it all
            self.refresh()

    def render(self) -> Content:
        """The whole text, plain (what a test or a text selection reads)."""
        return Content("\n".join("".join(text for text, _ in line) for line in self._lines))

    def notify_style_update(self) -> None:
        """The theme or the styles changed: every line is drawn again."""
        super().notify_style_update()
        self._strips.clear()
        self._styles = None

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the head, drawn once per change of its text or of the width."""
        width = self.content_region.width
        if width != self._width:
            self._width = width
            self._strips.clear()
        strip = self._strips.get(y)
        if strip is None:
            strip = self._strips[y] = self._draw(y, width)
        return strip

    def _draw(self, y: int, width: int) -> Strip:
        styles = self._styles
        if styles is None:
            base = self.rich_style
            strong = self.get_component_rich_style("ticket-head--strong", partial=True)
            closed = self.get_component_rich_style("ticket-head--closed", partial=True)
            styles = self._styles = {"": base, "strong": base + strong, "closed": base + closed}
        base = styles[""]
        runs = self._lines[y] if y < len(self._lines) else ()
        segments: list[Segment] = []
        room = width
        for text, kind in runs:
            if room <= 0:
                break
            length = cell_len(text)
            if length > room:  # cut, and said to be
                text = set_cell_size(text, room - 1) + ELLIPSIS
                length = room
            segments.append(Segment(text, styles.get(kind, base)))
            room -= length
        if room > 0:
            segments.append(Segment(" " * room, base))
        return Strip(segments, width)  # one strip per drawn line: a strip is not cheap
