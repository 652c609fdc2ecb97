"""One line of figures in a width it may not fit: whole figures, or none.

A pane narrower than its line used to cut it at the edge with an ellipsis, and a figure cut
there reads as another number (``IM 19,692.6…``, ``fair 101,…``). `whole_figures` leaves the
last figures out, each whole, and ends the line with `MORE` so the trader knows there is more
(a wider terminal, or the row's ``v``, shows it).
"""

from __future__ import annotations

from textual.content import Content

MORE = "…"
"""Ends a line that left figures out: there is more, a wider pane shows it."""


def whole_figures(parts: list[str], width: int) -> str:
    """``parts`` (markup) joined by two spaces as far as each fits whole within ``width``
    cells, then `MORE` when some were left out (``width`` 0, not laid out yet: all of them).

    The first part is always kept (it says what the line is about); a narrow pane drops a
    figure, never cuts one.
    """
    line, used = parts[0], Content.from_markup(parts[0]).cell_length
    for n, part in enumerate(parts[1:], start=1):
        more = 2 + Content.from_markup(part).cell_length
        last = n == len(parts) - 1
        if width and used + more + (0 if last else 1 + len(MORE)) > width:
            return f"{line} {MORE}"
        line, used = f"{line}  {part}", used + more
    return line
