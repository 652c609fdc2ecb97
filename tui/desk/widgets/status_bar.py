"""The status bar: request tokens used (of the budget per window), latency, clock offset, and
each pane's data age.

A pane whose data is older than its poll schedule allows (or whose last poll failed) is marked
stale in the stale colour, so a trader never acts on a price that stopped moving. The ages tick
every second: the bar is a `LiveText`, so a tick redraws this one line and lays nothing out.
"""

from __future__ import annotations

from textual.reactive import reactive

from tui.api.endpoints import BUDGET_TOKENS, BUDGET_WINDOW_S
from tui.desk.messages import PaneAge
from tui.desk.widgets.common import fmt
from tui.desk.widgets.live_text import LiveText


class StatusBar(LiveText):
    """One line of link health and data freshness (see module docs)."""

    FIXED_SIZE = True  # one line, the screen's width (desk.tcss)

    # The watchers redraw, and only when the text changed: a new value alone repaints nothing.
    tokens_used: reactive[int] = reactive(0, repaint=False)
    latency_ms: reactive[int | None] = reactive(None, repaint=False)
    offset_ms: reactive[int | None] = reactive(None, repaint=False)
    ages: reactive[tuple[PaneAge, ...]] = reactive(tuple, repaint=False)

    def markup(self) -> str:
        """The markup of the bar."""
        used = self.tokens_used
        tone = "$error" if used >= 80 else "$warning" if used >= 60 else "$foreground"
        latency = f"{self.latency_ms} ms" if self.latency_ms is not None else fmt.DASH
        offset = f"{self.offset_ms:+d} ms" if self.offset_ms is not None else fmt.DASH
        parts = [
            f"tokens used [{tone}]{used}/{BUDGET_TOKENS}[/] per {BUDGET_WINDOW_S:g}s",
            f"latency {latency}",
            f"clock {offset}",
        ]
        for age in self.ages:
            text = f"{age.pane} {fmt.age(age.age_s)}"
            parts.append(f"[$stale]{text} STALE[/]" if age.stale else text)
        return " │ ".join(parts)

    def _redraw(self) -> None:
        self.update(self.markup())

    def watch_tokens_used(self) -> None:
        """Redraw."""
        self._redraw()

    def watch_latency_ms(self) -> None:
        """Redraw."""
        self._redraw()

    def watch_offset_ms(self) -> None:
        """Redraw."""
        self._redraw()

    def watch_ages(self) -> None:
        """Redraw."""
        self._redraw()
