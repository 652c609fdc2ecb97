"""The status bar: request tokens used (of the budget per window), latency, clock offset, and
each pane's data age.

A pane whose data is older than its poll schedule allows (or whose last poll failed) is marked
stale in the stale colour, so a trader never acts on a price that stopped moving. The ages tick
every second: the bar is a `LiveText`, so a tick redraws this one line and lays nothing out.

Every call changes the token figure and the latency (`show_call`), and every clock sync the
latency and the clock offset (`show_clock`): those are drawn with the next second's ages
(`show_freshness`), never on their own, so the bar redraws at most once a second, in the frame
that moves the desk's countdowns. A figure set directly (``bar.latency_ms = 3``) is drawn at once.
"""

from __future__ import annotations

from textual.reactive import reactive

from tui.api.endpoints import BUDGET_TOKENS, BUDGET_WINDOW_S
from tui.desk.messages import PaneAge
from tui.desk.widgets.common import fmt
from tui.desk.widgets.live_text import LiveText


def _tone(used: int) -> str:
    """The colour of the token figure: a warning past 60 tokens, an error past 80."""
    return "$error" if used >= 80 else "$warning" if used >= 60 else "$foreground"


class StatusBar(LiveText):
    """One line of link health and data freshness (see module docs)."""

    FIXED_SIZE = True  # one line, the screen's width (desk.tcss)

    # The watchers redraw, and only when the text changed: a new value alone repaints nothing.
    tokens_used: reactive[int] = reactive(0, repaint=False)
    latency_ms: reactive[int | None] = reactive(None, repaint=False)
    offset_ms: reactive[int | None] = reactive(None, repaint=False)
    ages: reactive[tuple[PaneAge, ...]] = reactive(tuple, repaint=False)

    def show_call(self, used: int, latency_ms: int | None, offset_ms: int | None) -> None:
        """A call's tokens, latency and clock offset (None: unchanged), drawn with the next
        ages."""
        self.set_reactive(StatusBar.tokens_used, used)
        self.show_clock(latency_ms, offset_ms)

    def show_clock(self, latency_ms: int | None, offset_ms: int | None) -> None:
        """The latency and the clock offset (None: unchanged), drawn with the next ages."""
        if latency_ms is not None:
            self.set_reactive(StatusBar.latency_ms, latency_ms)
        if offset_ms is not None:
            self.set_reactive(StatusBar.offset_ms, offset_ms)

    def show_freshness(self, ages: tuple[PaneAge, ...], tokens_used: int) -> None:
        """The desk's second: every pane's age and the tokens in use, with what the calls
        since the last second changed, in one redraw (none when the text is the one shown)."""
        self.set_reactive(StatusBar.tokens_used, tokens_used)
        self.set_reactive(StatusBar.ages, ages)
        self._redraw()

    def markup(self) -> str:
        """The markup of the bar."""
        used = self.tokens_used
        tone = _tone(used)
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
