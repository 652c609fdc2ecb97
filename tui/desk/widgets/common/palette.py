"""Theme colours for text that tcss cannot reach (DataTable cells are Rich text).

A cell's colour is looked up in the running app's theme variables at render time, so a theme
switch recolours the tables on their next update, and no colour is ever written in the code.
"""

from __future__ import annotations

from functools import lru_cache

from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.color import Color, ColorParseError

from tui.desk.themes import DESK_VARIABLES


def tone(app: App[object], name: str) -> Style:
    """A Rich style in the colour of theme variable ``name`` (a desk or Textual variable)."""
    return _style(app.theme_variables.get(name) or DESK_VARIABLES.get(name) or "")


@lru_cache(maxsize=256)
def _style(raw: str) -> Style:
    # Cached by the variable's value: a 10,000-row table asks for the same few colours.
    first = raw.split()[0] if raw.strip() else ""
    try:
        return Style(color=Color.parse(first).rich_color)
    except ColorParseError:
        return Style()


def toned(app: App[object], text: str, name: str, *, bold: bool = False) -> Text:
    """``text`` in the colour of ``name``."""
    style = tone(app, name)
    if bold:
        style += Style(bold=True)
    return Text(text, style=style, end="")


def right(text: str | Text) -> Text:
    """Right-aligned cell content (numbers)."""
    cell = Text(text, end="") if isinstance(text, str) else text.copy()
    cell.justify = "right"
    return cell
