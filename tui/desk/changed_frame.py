"""The desk's screen, whose frames draw only the widgets under what changed.

Textual draws a frame by asking every widget inside the bounding box of the frame's changes for
its lines. The desk's second changes a few cells far apart (the inbox's countdowns near the top,
the ticket's in the middle, the status bar at the bottom), so that box is nearly the whole
screen and some fifty widgets were drawn every second to send the terminal a few dozen cells.
`ChangedFrameCompositor` asks only the widgets that overlap a change, and only for their lines
that a change crosses; the terminal is sent exactly what Textual would have sent (the changed
spans, each taken from the frontmost widget there), so what a trader sees is the same.

A full frame (a resize, a new layout of the whole screen) is Textual's own.
"""

from __future__ import annotations

from itertools import pairwise

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip


class ChangedFrameCompositor(Compositor):
    """A compositor whose partial updates draw only the widgets under the changes."""

    def render_partial_update(self) -> ChopsUpdate | None:
        """The changed spans of the screen, drawn from the widgets that overlap them."""
        changes = [
            change
            for change in (region.intersection(self.size.region) for region in self._dirty_regions)
            if change
        ]
        self._dirty_regions.clear()
        if not changes:
            return None
        spans = list(self._regions_to_spans(changes))
        spans_on: dict[int, list[tuple[int, int]]] = {}
        for y, start, end in spans:
            spans_on.setdefault(y, []).append((start, end))
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [
            dict.fromkeys(line_cuts[:-1]) if y in spans_on else {}
            for y, line_cuts in enumerate(cuts)
        ]
        for widget, (region, clip) in self.visible_widgets.items():
            shown = region.intersection(clip)
            crossed = [change for change in changes if shown.overlaps(change)]
            if not crossed:
                continue
            # The widget's whole width (its cuts are its edges), on the lines the changes cross.
            top = max(shown.y, min(change.y for change in crossed))
            bottom = min(shown.bottom, max(change.bottom for change in crossed))
            drawn = Region(shown.x, top, shown.width, bottom - top)
            first_cut, last_cut = drawn.column_span
            if _covered(drawn, spans_on, cuts, chops):
                continue  # the widgets in front of it fill every changed cell it has
            strips = widget.render_lines(drawn.translate((-region.x, -region.y)))
            for y, strip in zip(drawn.line_range, strips, strict=False):
                if y not in spans_on:
                    continue
                line = chops[y]
                line_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
                pieces = strip.divide([cut - drawn.x for cut in line_cuts[1:]])
                for cut, piece in zip(line_cuts, pieces, strict=False):
                    if line.get(cut) is None:  # front to back: the first widget there wins
                        line[cut] = piece
        return ChopsUpdate(chops, spans, [line_cuts[1:] for line_cuts in cuts])


def _covered(
    drawn: Region,
    spans_on: dict[int, list[tuple[int, int]]],
    cuts: list[list[int]],
    chops: list[dict[int, Strip | None]],
) -> bool:
    """Whether every piece of ``drawn`` (between two cuts) that a changed span crosses is
    already filled by a widget in front."""
    left, right = drawn.column_span
    for y in drawn.line_range:
        line_spans = spans_on.get(y)
        if line_spans is None:
            continue
        line_cuts, line = cuts[y], chops[y]
        for cut, end in pairwise(line_cuts):
            if cut < left or end > right or line[cut] is not None:
                continue
            if any(start < end and cut < stop for start, stop in line_spans):
                return False
    return True


class ChangedFrameScreen(Screen[None]):
    """The desk's main screen: Textual's screen with `ChangedFrameCompositor` (module docs)."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self._compositor = ChangedFrameCompositor()
