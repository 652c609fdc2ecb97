"""Alerts: a received RFQ, a last look, a deposit deadline, a booking and a rejection.

Each kind of alert can ring the bell, flash the screen and show a toast, each switchable
(`AlertSettings.ways`); quiet mode keeps the toasts and silences the bell and the flash, so
nothing is missed and nothing rings. An alert fires once per record and kind (an RFQ id, a
trade's quote id), remembered for the session: a record seen again on the next poll stays
quiet. Records that were already over when the session began (a trade booked or rejected
earlier, an RFQ received earlier) do not alert; a last look or a deposit waiting on the desk
does, whenever it is first seen.

`Alerts.news` reads the book and returns what to show (pure, testable); `Alerts.ring` shows
it on an app (bell, toast, and a short tint of the screen for the flash).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from textual.app import App
from textual.color import Color

from tui.api.lifecycle import clearing_is_booked, clearing_is_rejected
from tui.api.models import RFQStatus
from tui.desk.alert_settings import AlertKind, AlertSettings, AlertWays
from tui.desk.book import DeskBook
from tui.desk.clearing import NextStep, TrackedTrade
from tui.desk.widgets.common import fmt

FLASH_S = 0.35
"""How long the screen stays tinted for a flash."""

Severity = Literal["information", "warning", "error"]


@dataclass(frozen=True)
class Alert:
    """One alert to show: its record, its words, and the ways it shows."""

    kind: AlertKind
    record_id: str
    title: str
    text: str
    severity: Severity
    ways: AlertWays


def _final_at(trade: TrackedTrade) -> datetime | None:
    events = trade.quote.clearing_events
    return events[-1].created_at if events else None


class Alerts:
    """The session's alerts (see module docs)."""

    def __init__(self, settings: AlertSettings | None = None, *, since: datetime) -> None:
        """``since``: when the session began (records over before it do not alert)."""
        self.settings = settings or AlertSettings()
        self.since = since
        self._fired: set[tuple[str, AlertKind]] = set()

    def _alert(
        self,
        found: list[Alert],
        kind: AlertKind,
        record_id: str,
        title: str,
        text: str,
        severity: Severity = "information",
    ) -> None:
        if (record_id, kind) in self._fired:
            return
        self._fired.add((record_id, kind))
        found.append(Alert(kind, record_id, title, text, severity, self.settings.of(kind)))

    def news(self, book: DeskBook, now: datetime) -> list[Alert]:
        """The alerts the book holds that have not fired yet (each then counts as fired)."""
        found: list[Alert] = []
        for rfq in book.rfqs_received.values():
            if str(rfq.rfq_status) == RFQStatus.OPEN and rfq.created_at >= self.since:
                taker = book.company_name(rfq.taker_company)
                self._alert(
                    found,
                    AlertKind.RFQ_RECEIVED,
                    rfq.rfq_id,
                    "RFQ in",
                    f"new RFQ from {taker}: {fmt.structure_text(rfq.structure)}",
                )
        for trade in book.tracked_trades():
            on_rfq = fmt.short_id(trade.quote.target_rfq_id)
            left = f", {fmt.countdown(trade.deadline, now)} left" if trade.deadline else ""
            if trade.next_step is NextStep.LAST_LOOK:
                self._alert(
                    found,
                    AlertKind.LAST_LOOK,
                    trade.key,
                    "Your move",
                    f"LAST LOOK on RFQ {on_rfq}{left}: press g",
                    "warning",
                )
            elif trade.next_step is NextStep.APPROVE_DEPOSIT:
                self._alert(
                    found,
                    AlertKind.DEPOSIT_DEADLINE,
                    trade.key,
                    "Your move",
                    f"DEPOSIT APPROVAL on RFQ {on_rfq}{left}: press g, then p",
                    "warning",
                )
            final_at = _final_at(trade)
            if final_at is None or final_at < self.since:
                continue
            if clearing_is_booked(trade.status):
                self._alert(found, AlertKind.BOOKED, trade.key, "Booked", f"RFQ {on_rfq} booked")
            elif clearing_is_rejected(trade.status):
                self._alert(
                    found,
                    AlertKind.REJECTED,
                    trade.key,
                    "Rejected",
                    f"RFQ {on_rfq}: {fmt.status_words(trade.status)}",
                    "error",
                )
        return found

    def ring(self, app: App[Any], book: DeskBook, now: datetime) -> list[Alert]:
        """Show the book's new alerts on ``app`` (bell, flash, toast); the alerts shown."""
        found = self.news(book, now)
        if any(alert.ways.bell for alert in found):
            app.bell()  # once, however many arrived together
        if any(alert.ways.flash for alert in found):
            flash(app)
        for alert in found:
            if alert.ways.toast:
                app.notify(alert.text, title=alert.title, severity=alert.severity)
        return found


def flash(app: App[Any]) -> None:
    """Tint the screen for `FLASH_S` in the theme's warning colour."""
    screen = app.screen
    warning = getattr(app.current_theme, "warning", None) or "#ffa000"
    screen.styles.tint = Color.parse(warning).with_alpha(0.3)

    def clear() -> None:
        screen.styles.tint = Color(0, 0, 0, 0)

    app.set_timer(FLASH_S, clear)
