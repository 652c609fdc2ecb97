"""Any terminal: how the Trade tab is laid out for the terminal's size and where the focus is.

Below `SHORT` rows the inbox shares the tab's height with the rest; below `NARROW` columns the
header takes two lines and the tracker and the ticket (or board) show in turns: the tracker while
it has the focus, else the ticket. The app calls these on a resize and on every focus change.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.screen import ModalScreen
from textual.widget import Widget

from tui.desk.widgets.portfolio_header import PortfolioHeader
from tui.desk.widgets.trade_tracker import TradeTracker

SHORT = 36
"""Terminals with fewer rows share the Trade tab's height between the inbox and the rest."""
NARROW = 120
"""Terminals with fewer columns show the tracker and the ticket (or board) in turns."""


def fit_terminal(app: App[Any], width: int, height: int) -> None:
    """Mark the desk's screen short and/or narrow, and the header one or two lines."""
    screen = app.screen if not isinstance(app.screen, ModalScreen) else app.screen_stack[0]
    narrow = width < NARROW
    offers_tracker = screen.has_class("-narrow")  # `t` is offered on a narrow terminal only
    screen.set_class(height < SHORT, "-short")
    screen.set_class(narrow, "-narrow")
    app.query_one("#top").set_class(narrow, "-two-lines")
    app.query_one(PortfolioHeader).two_lines = narrow
    if narrow != offers_tracker:
        app.refresh_bindings()


def is_narrow(app: App[Any]) -> bool:
    """Whether the tracker and the ticket take turns (so the tracker can be out of sight)."""
    return app.screen_stack[0].has_class("-narrow")


def follow_focus(app: App[Any], widget: Widget) -> None:
    """The tracker shows while it has the focus, else the ticket (narrow terminals)."""
    if not app.screen_stack:
        return  # the desk is closing: its screens are gone
    main = app.screen_stack[0]
    if not any(node is main for node in widget.ancestors):
        return  # a modal's field (or one already gone): the panes behind stay as they are
    tracker = app.query_one(TradeTracker)
    lower = app.query_one("#trade-lower")
    lower.set_class(widget is tracker or tracker in widget.ancestors, "-tracker")


def show_tracker(app: App[Any]) -> None:
    """Bring the tracker into sight and give it the focus."""
    app.query_one("#trade-lower").add_class("-tracker")
    app.screen.set_focus(app.query_one(TradeTracker).options)
