"""A pane on its own in an app with the desk's theme, and a spy on what it asks to redraw."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widget import Widget

from tui.desk.themes import DESK_VARIABLES


class PaneApp(App[None]):
    """Some panes on their own, with the desk's theme variables."""

    def __init__(self, *panes: Widget) -> None:
        super().__init__()
        self.panes = panes

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **DESK_VARIABLES}

    def compose(self) -> ComposeResult:
        yield from self.panes


class Refreshes:
    """Every `refresh` a widget asks for from now on: whether each wanted a layout, and the
    regions it named (none: the whole widget)."""

    def __init__(self, widget: Widget) -> None:
        self.layouts: list[bool] = []
        self.regions: list[tuple[Region, ...]] = []
        original = widget.refresh

        def spy(*regions: Region, **options: Any) -> Any:
            self.layouts.append(bool(options.get("layout")))
            self.regions.append(regions)
            return original(*regions, **options)

        widget.refresh = spy  # type: ignore[method-assign]
