"""One line of figures in a width it may not fit: whole figures, or none.

A pane narrower than its line used to cut it at the edge with an ellipsis, and a figure cut
there reads as another number (``IM 19,692.6…``, ``fair 101,…``). `whole_figures` leaves the
last figures out, each whole, and ends the line with `MORE` so the trader knows there is more
(a wider terminal, or the row's ``v``, shows it).
"""

from __future__ import annotations

from textual.content import Content

from tui.desk.widgets.common.fmt import LEG_JOIN

MORE = "…"
"""Ends a line that left figures out: there is more, a wider pane shows it."""


def whole_figures(parts: list[str], width: int) -> str:
    """``parts`` (markup) joined by two spaces as far as each fits whole within ``width``
    cells, then `MORE` when some were left out (``width`` 0, not laid out yet: all of them).

    The first part says what the line is about and is kept as far as its whole legs, else
    its whole words, fit (a structure keeps whole instrument names); nothing is ever cut
    inside a word, and the line never runs past ``width`` (past it the pane would cut it,
    mid-figure).
    """
    if not width:
        return "  ".join(parts)
    tail = 1 + len(MORE)
    first = Content.from_markup(parts[0]).cell_length
    if first > width or (len(parts) > 1 and first + tail > width):
        return _whole_words(parts[0], width - tail)
    line, used = parts[0], first
    for n, part in enumerate(parts[1:], start=1):
        more = 2 + Content.from_markup(part).cell_length
        last = n == len(parts) - 1
        if used + more + (0 if last else tail) > width:
            return f"{line} {MORE}"
        line, used = f"{line}  {part}", used + more
    return line


def _whole_words(markup: str, room: int) -> str:
    """The whole legs of ``markup``, else its whole words, that fit ``room`` cells, then
    `MORE` (`MORE` alone when not even the first word does): a side is never shown without
    its instrument when a whole leg fits."""
    for sep in (LEG_JOIN, " "):
        units = markup.split(sep)
        kept = 0
        for n in range(1, len(units) + 1):
            if Content.from_markup(sep.join(units[:n])).cell_length > room:
                break
            kept = n
        if kept:
            return f"{sep.join(units[:kept])} {MORE}"
    return MORE
