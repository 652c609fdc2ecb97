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
from textual.widget import Widget

Placed = tuple[Widget, Region, int, int, int, int]
"""A visible widget, its region, and the part of it shown: left, top, right, bottom."""


class ChangedFrameCompositor(Compositor):
    """A compositor whose partial updates draw only the widgets under the changes."""

    def __init__(self) -> None:
        super().__init__()
        self._placed: tuple[object, list[Placed]] | None = None

    def _placements(self) -> list[Placed]:
        """Each visible widget with the part of it shown, front to back, in plain numbers;
        worked out once per layout (the map of visible widgets is new after each)."""
        visible = self.visible_widgets
        if self._placed is None or self._placed[0] is not visible:
            placed = []
            for widget, (region, clip) in visible.items():
                shown = region.intersection(clip)
                if shown:
                    x, y, width, height = shown
                    placed.append((widget, region, x, y, x + width, y + height))
            self._placed = (visible, placed)
        return self._placed[1]

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
        boxes = [(x, y, x + width, y + height) for x, y, width, height in changes]
        left = min(box[0] for box in boxes)
        top_all = min(box[1] for box in boxes)
        right = max(box[2] for box in boxes)
        bottom_all = max(box[3] for box in boxes)
        for widget, region, x1, y1, x2, y2 in self._placements():
            # Most widgets are nowhere near a change: told apart with four comparisons.
            if x2 <= left or x1 >= right or y2 <= top_all or y1 >= bottom_all:
                continue
            crossed = [
                box for box in boxes if x1 < box[2] and box[0] < x2 and y1 < box[3] and box[1] < y2
            ]
            if not crossed:
                continue
            # The widget's whole width (its cuts are its edges), on the lines the changes cross.
            top = max(y1, min(box[1] for box in crossed))
            bottom = min(y2, max(box[3] for box in crossed))
            drawn = Region(x1, top, x2 - x1, bottom - top)
            if _covered(drawn, spans_on, cuts, chops):
                continue  # the widgets in front of it fill every changed cell it has
            strips = widget.render_lines(drawn.translate((-region.x, -region.y)))
            for y, strip in zip(drawn.line_range, strips, strict=False):
                if y not in spans_on:
                    continue
                line = chops[y]
                line_cuts = [cut for cut in cuts[y] if x2 >= cut >= x1]
                pieces = strip.divide([cut - x1 for cut in line_cuts[1:]])
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
