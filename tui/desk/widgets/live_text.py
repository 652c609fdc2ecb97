"""`LiveText`: a line of text that changes often (a countdown, an age) and costs only its redraw.

A `Static.update` lays the whole screen out again, as its new text might change its size. Text
that ticks every second (``expires 41s`` -> ``expires 40s``) almost never does, and a screen
layout per tick is most of an idle desk's work. `LiveText` skips an update whose text did not
change, and asks for a layout only when the text's *shape* changed: the lengths of its words,
line by line. Greedy word wrapping depends on nothing else, so text of the same shape takes the
same lines at any width, and the widget keeps its size whatever its CSS says (``height: auto``,
``width: auto``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.cells import cell_len
from textual.content import Content
from textual.visual import VisualType
from textual.widgets import Static

Shape = tuple[tuple[int, ...], ...]


def text_shape(plain: str) -> Shape:
    """The cell width of every word, line by line: what wrapping and auto sizes depend on."""
    return tuple(tuple(cell_len(word) for word in line.split(" ")) for line in plain.split("\n"))


class LiveText(Static):
    """A `Static` redrawn only when its text changed, re-laid-out only when its shape did."""

    FIXED_SIZE: ClassVar[bool] = False
    """True where the CSS fixes the widget's width and height: no text change lays it out."""

    def __init__(self, content: str = "", *, fixed_size: bool | None = None, **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self.fixed_size = self.FIXED_SIZE if fixed_size is None else fixed_size
        self._markup: str | None = None
        self._shape: Shape | None = None

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        """Show ``content`` (markup, or any visual): nothing to do when the markup is the one
        shown, no layout when its shape is the one shown."""
        if not isinstance(content, str):
            self._markup = self._shape = None
            super().update(content, layout=layout)
            return
        if content == self._markup:
            return
        parsed = Content.from_markup(content)
        shape = text_shape(parsed.plain)
        super().update(parsed, layout=layout and not self.fixed_size and shape != self._shape)
        self._markup, self._shape = content, shape
