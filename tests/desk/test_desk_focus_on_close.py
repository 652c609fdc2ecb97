"""A focus change that lands while the desk is closing (its screens already gone) is ignored: it
raised an IndexError from the narrow-terminal fitting during a test's shutdown."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tui.desk.fitting import follow_focus


def test_a_focus_change_after_the_screens_are_gone_does_nothing() -> None:
    closing: Any = SimpleNamespace(screen_stack=[])
    widget: Any = SimpleNamespace(ancestors=[])
    follow_focus(closing, widget)
