"""Stale and offline marks on every pane: which pane shows which data's freshness, and the mark.

The feed says, every second, how old each status-bar pane's data is and whether it is stale
(`FreshnessChanged`, one `PaneAge` per entry of `tui.desk.feed.policy.PANE_TOPICS`), and says
when the venue is gone (`ConnectionChanged`). Each pane of the desk shows the data of some of
those entries (`PANE_FRESHNESS`: the ticket shows the RFQ and my quote on it, the positions
their records, the marks they are valued at and today's trades ...); while any of them is stale
the pane's border title ends in ``STALE 12s``, the age of its oldest stale data, in the stale
colour; while the venue cannot be reached at all it says ``OFFLINE 12s``. A word, never colour
alone; the mark goes when the data is fresh again. The header marks its own figures
(`tui.desk.widgets.portfolio_header`).

A title is written only when its mark's text changed, and a pane is looked up only then: while
everything is fresh the second's news costs a few comparisons, no look-up and no repaint. A pane
built later (a tab shown for the first time) gets its mark when it is built
(`StaleMarks.show_all`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from textual.css.query import NoMatches

from tui.desk.messages import ConnectionChanged, ConnectionState, FreshnessChanged, PaneAge
from tui.desk.widgets.common import fmt

if TYPE_CHECKING:
    from textual.app import App
    from textual.message import Message
    from textual.widget import Widget

PANE_FRESHNESS: dict[str, tuple[str, ...]] = {
    "inbox": ("inbox", "clearing"),  # the RFQs, and the best bid and ask quoted on them
    "tracker": ("clearing",),
    "ticket": ("inbox", "clearing"),  # the RFQ, and my live quote on it
    "board": ("inbox", "clearing"),  # my RFQ, and the quotes on it
    "pools-pane": ("pools",),
    "blotter-pane": ("trades",),
    "market-pane": ("market",),
    "positions-pane": ("book", "pools", "trades", "market"),  # marks value them
    "history-pane": ("inbox", "clearing"),
}
"""Each pane's id -> the status-bar panes (`PANE_TOPICS`) whose data it shows."""


def pane_mark(sources: Iterable[str], ages: Iterable[PaneAge], offline: bool) -> str:
    """The mark of a pane showing the data of ``sources``: ``OFFLINE 12s`` while the venue is
    gone, ``STALE 12s`` while any source is stale (the oldest stale age), else ""."""
    wanted = set(sources)
    mine = [age for age in ages if age.pane in wanted]
    shown = mine if offline else [age for age in mine if age.stale]
    if not offline and not shown:
        return ""
    known = [age.age_s for age in shown if age.age_s is not None]
    word = "OFFLINE" if offline else "STALE"
    return f"{word} {fmt.age(max(known))}" if known else word


def titled(title: str, mark: str) -> str:
    """A border title (markup) with the pane's mark after it, in the stale colour."""
    return f"{title} [$stale]· {mark}[/]" if mark else title


class StaleMarks:
    """Writes each pane's mark into its border title, only when the mark changed."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.ages: tuple[PaneAge, ...] = ()
        self.offline = False
        self._shown: dict[str, str] = {}  # pane id -> the mark its title carries
        self._titles: dict[str, str] = {}  # pane id -> its own title, without the mark
        self._unbuilt: set[str] = set()  # pane ids looked up and not found since `show_all`

    def link(self, news: Message) -> None:
        """The feed's ages (every second), or the link's state (OFFLINE on every pane while
        the venue cannot be reached): every pane's mark follows. Other news is not theirs."""
        if isinstance(news, FreshnessChanged):
            self.ages = news.ages
        elif isinstance(news, ConnectionChanged):
            self.offline = news.state is ConnectionState.DISCONNECTED
        else:
            return
        self._show_moved()

    def show_all(self) -> None:
        """Every pane built so far shows its mark (or none): called when a pane was built."""
        self._unbuilt.clear()
        self._show_moved()

    def _show_moved(self) -> None:
        """The panes whose mark is not the one they show. A look-up walks the desk's widgets,
        so it is made only then, and not again for a pane not built yet (`show_all`)."""
        for pane_id in PANE_FRESHNESS:
            if pane_id in self._unbuilt or self._shown.get(pane_id, "") == self.mark_of(pane_id):
                continue
            try:
                pane = self.app.query_one(f"#{pane_id}")
            except NoMatches:  # a tab not shown yet: marked when it is built
                self._unbuilt.add(pane_id)
                continue
            self.show(pane)

    def mark_of(self, pane_id: str) -> str:
        """The mark pane ``pane_id`` should carry now."""
        return pane_mark(PANE_FRESHNESS.get(pane_id, ()), self.ages, self.offline)

    def show(self, pane: Widget) -> None:
        """Write ``pane``'s mark into its border title if it is not the one shown."""
        pane_id = pane.id or ""
        mark = self.mark_of(pane_id)
        if self._shown.get(pane_id, "") == mark:
            return
        title = self._titles.setdefault(pane_id, pane.border_title or "")
        pane.border_title = titled(title, mark)
        self._shown[pane_id] = mark
