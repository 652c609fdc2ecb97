"""`LiveText`: a line of text that changes often (a countdown, an age) and costs only its redraw.

A `Static.update` lays the whole screen out again, as its new text might change its size. Text
that ticks every second (``expires 41s`` -> ``expires 40s``) almost never does, and a screen
layout per tick is most of an idle desk's work. `LiveText` skips an update whose text did not
change, and asks for a layout only when the text's *shape* changed: the lengths of its words,
line by line. Greedy word wrapping depends on nothing else, so text of the same shape takes the
same lines at any width, and the widget keeps its size whatever its CSS says (``height: auto``,
``width: auto``).

Text of the same shape is redrawn only where it changed: the cells whose character or style is
not the one shown (`changed_cells`), so a countdown's tick rewrites its four cells, not the
lines around it, and the terminal is sent only those. That holds where the cells of a character
cannot move: every line fits the widget unwrapped, aligned left and top; elsewhere the whole
widget is redrawn.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.cells import cell_len
from textual.content import Content
from textual.geometry import Region
from textual.visual import VisualType
from textual.widgets import Static

Shape = tuple[tuple[int, ...], ...]
Cells = dict[int, tuple[int, int]]
"""Line -> the first and the end column of its cells that changed."""


def text_shape(plain: str) -> Shape:
    """The cell width of every word, line by line: what wrapping and auto sizes depend on."""
    return tuple(tuple(cell_len(word) for word in line.split(" ")) for line in plain.split("\n"))


def _span_changes(before: Content, after: Content) -> list[tuple[int, int]]:
    """The character ranges styled differently: every span one of them has and the other not."""
    old, new = list(before.spans), list(after.spans)
    if old == new:
        return []
    return [(s.start, s.end) for s in old if s not in new] + [
        (s.start, s.end) for s in new if s not in old
    ]


def changed_cells(before: Content, after: Content) -> Cells | None:
    """Where ``after`` differs from ``before``, line by line, in cell columns; None when their
    lines do not hold as many characters each (a character's cells may have moved)."""
    old_lines, new_lines = before.plain.split("\n"), after.plain.split("\n")
    if len(old_lines) != len(new_lines):
        return None
    ranges: dict[int, tuple[int, int]] = {}  # line -> changed characters [first, end)
    starts: list[int] = []
    offset = 0
    for line, (old, new) in enumerate(zip(old_lines, new_lines, strict=True)):
        if len(old) != len(new):
            return None
        starts.append(offset)
        offset += len(new) + 1
        if old != new:
            differ = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
            ranges[line] = (differ[0], differ[-1] + 1)
    for start, end in _span_changes(before, after):
        for line, first in enumerate(starts):
            last = first + len(new_lines[line])
            low, high = max(start, first), min(end, last)
            if low < high:
                was = ranges.get(line, (low - first, high - first))
                ranges[line] = (min(was[0], low - first), max(was[1], high - first))
    cells: Cells = {}
    for line, (first, end) in ranges.items():
        old, new = old_lines[line], new_lines[line]
        cells[line] = (
            min(cell_len(old[:first]), cell_len(new[:first])),
            max(cell_len(old[:end]), cell_len(new[:end])),
        )
    return cells


class LiveText(Static):
    """A `Static` redrawn only when its text changed, and only where (see module docs)."""

    FIXED_SIZE: ClassVar[bool] = False
    """True where the CSS fixes the widget's width and height: no text change lays it out."""

    def __init__(self, content: str = "", *, fixed_size: bool | None = None, **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self.fixed_size = self.FIXED_SIZE if fixed_size is None else fixed_size
        self._markup: str | None = None
        self._shape: Shape | None = None
        self._shown: Content | None = None
        self._dirty_cells: tuple[Region, ...] | None = None  # what `refresh` marks, once

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        """Show ``content`` (markup, or any visual): nothing to do when the markup is the one
        shown, no layout when its shape is the one shown, only the changed cells redrawn when
        they can be told."""
        if not isinstance(content, str):
            self._markup = self._shape = self._shown = None
            super().update(content, layout=layout)
            return
        if content == self._markup:
            return
        parsed = Content.from_markup(content)
        shape = text_shape(parsed.plain)
        same_shape = shape == self._shape
        self._dirty_cells = self._cells_to_redraw(parsed) if same_shape else None
        try:
            super().update(parsed, layout=layout and not self.fixed_size and not same_shape)
        finally:
            self._dirty_cells = None
        self._markup, self._shape, self._shown = content, shape, parsed

    def refresh(self, *regions: Region, **options: Any) -> LiveText:
        """Redraw (see `Widget.refresh`); an update of the same shape marks only its cells."""
        dirty = self._dirty_cells
        if dirty is not None and not regions and not any(options.values()):
            self._dirty_cells = None
            if not dirty:
                return self  # the same cells as shown: nothing to draw
            regions = dirty
        super().refresh(*regions, **options)
        return self

    def _cells_to_redraw(self, content: Content) -> tuple[Region, ...] | None:
        """The regions (content coordinates) of the cells ``content`` changes, when every
        character keeps its cells; else None (the whole widget is redrawn)."""
        if self._shown is None or not self.is_mounted:
            return None
        styles = self.styles
        width, height = self.content_region.size
        lines = content.plain.split("\n")
        if (
            styles.text_align not in ("left", "start")
            or styles.content_align_horizontal != "left"
            or styles.content_align_vertical != "top"
            or len(lines) > height
            or any(cell_len(line) > width for line in lines)
        ):
            return None
        cells = changed_cells(self._shown, content)
        if cells is None:
            return None
        return tuple(Region(first, line, end - first, 1) for line, (first, end) in cells.items())
