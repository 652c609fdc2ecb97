"""Next to the header: the trade that waits for me, and how long it still can.

A maker's last look shows its countdown (and blinks, once a second on the venue's clock, so a
frozen test clock gives a still picture); a deposit approval shows its deadline and the amount
owed, exact and in USDC (what the permit will sign). The keys that answer are named: ``g``
then ``a``/``r`` or ``p``, which work wherever the focus is (the app takes ``g`` before a text
field can while something waits). Hidden while nothing waits.

While the trades in clearing are stale (the venue is down, or their polls fail) the countdown
carries the stale mark and the data's age: the trade may have moved on without the desk seeing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from tui.desk.book import DeskBook
from tui.desk.clearing import NextStep
from tui.desk.messages import PaneAge
from tui.desk.widgets.common import fmt
from tui.desk.widgets.live_text import LiveText
from tui.desk.widgets.portfolio_header import stale_mark

URGENT = timedelta(seconds=10)
"""Under this much time left, the countdown turns to the error colour."""
CLEARING_PANE = "clearing"
"""The status bar's pane whose freshness is that of the trades waiting here."""


class Attention(LiveText):
    """The most urgent trade waiting for me, with its countdown (see module docs)."""

    def __init__(
        self, book: DeskBook, clock: Callable[[], datetime], *, id: str | None = None
    ) -> None:
        super().__init__("", id=id)
        self.book = book
        self.clock = clock
        self.freshness: PaneAge | None = None

    def show_freshness(self, ages: tuple[PaneAge, ...]) -> None:
        """The feed's pane ages: the trades in clearing's marks the countdown stale or not."""
        freshness = next((age for age in ages if age.pane == CLEARING_PANE), None)
        changed = stale_mark(freshness) != stale_mark(self.freshness)
        self.freshness = freshness
        if changed and self.is_mounted:
            self.tick()

    def on_mount(self) -> None:
        """Hidden until something waits."""
        self.display = False

    def tick(self) -> None:
        """Show the most urgent waiting trade and its time left (or hide); the desk's second
        calls it (`tui.desk.panes.DeskPanes.tick`), so the countdown moves in the same frame
        as every other."""
        waiting = self.book.needs_me()
        if not waiting:
            if self.display:  # hiding lays the screen out: only when it shows
                self.display = False
            self.remove_class("flash", "blink")
            return
        trade = waiting[0]
        now = self.clock()
        left = fmt.countdown(trade.deadline, now) if trade.deadline else "no deadline"
        urgent = trade.deadline is not None and trade.deadline - now < URGENT
        tone = "$error" if urgent else "$needs-action"
        more = f" +{len(waiting) - 1}" if len(waiting) > 1 else ""
        if mark := stale_mark(self.freshness):
            more = f"{more} {mark}"
        if trade.next_step is NextStep.LAST_LOOK:
            head = f"[b]LAST LOOK[/b] [b {tone}]{left}[/]{more}"
            keys = "g a accept · g r reject"
            self.add_class("flash")
            self.set_class(int(now.timestamp()) % 2 == 1, "blink")
        else:
            hint = self.book.deposit_hint(trade)
            # What the venue asks is what the permit signs: exact, never rounded.
            amount = f" {fmt.usdc(hint.amount)} USDC" if hint.amount is not None else ""
            head = f"[b]APPROVE DEPOSIT[/b]{amount} [b {tone}]{left}[/]{more}"
            keys = "g p sign the permit"
            self.remove_class("flash", "blink")
        self.update(f"{head}\n[$text-muted]{keys}[/]")
        self.display = True
