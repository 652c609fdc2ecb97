"""Quitting the desk: at once, unless a trade waits for my action; then asked first.

A trade waiting for me (a deposit to approve, a last look to take: `DeskBook.needs_me`) is
left undone by a desk that is not running, and fails when its time runs out. So ``ctrl+q``
then asks, naming each trade that waits and how long it has left; ``y`` (or ``ctrl+q`` once
more) quits anyway, ``n`` stays.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from tui.desk.clearing import NextStep
from tui.desk.screens.confirm import ConfirmScreen
from tui.desk.widgets.common import fmt

if TYPE_CHECKING:
    from tui.desk.book import DeskBook
    from tui.desk.clearing import TrackedTrade


class QuitScreen(ConfirmScreen):
    """The question before quitting with a trade that waits for me."""


def waiting_words(book: DeskBook, trade: TrackedTrade, now: datetime) -> str:
    """One trade that waits for me, in a line: ``APPROVE DEPOSIT: your trade with ALPHA on
    RFQ 1a2b3c4d, 4:10 left``."""
    what = "LAST LOOK" if trade.next_step is NextStep.LAST_LOOK else "APPROVE DEPOSIT"
    who = f" with {book.company_name(trade.counterparty)}" if trade.counterparty else ""
    left = f", {fmt.countdown(trade.deadline, now)} left" if trade.deadline else ""
    rfq = fmt.short_id(trade.quote.target_rfq_id)
    return f"[b]{what}[/b]: your trade{who} on RFQ {rfq}{left}"


def quit_or_ask(desk: Any) -> None:
    """Quit now; or, while a trade waits for my action, ask first (a second ``ctrl+q`` on the
    question quits)."""
    waiting = desk.book.needs_me()
    if not waiting or isinstance(desk.screen, QuitScreen):
        desk.exit()
        return
    now = desk.clock()
    lines = "\n".join(f"• {waiting_words(desk.book, t, now)}" for t in waiting)
    count = "A trade waits" if len(waiting) == 1 else f"{len(waiting)} trades wait"
    body = (
        f"{count} for your action:\n{lines}\n\n"
        "Quitting leaves it undone: a trade nobody acts on fails when its time runs out."
    )

    def answered(yes: bool | None) -> None:
        if yes:
            desk.exit()

    desk.push_screen(
        QuitScreen("Quit the desk?", body, confirm_label="Quit anyway", danger=True), answered
    )
