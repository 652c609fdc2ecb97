"""How each kind of alert shows: the settings ``[alerts]`` of config.toml fills.

Plain data with nothing heavy to import, so the desk's start can read its settings before
Textual is loaded (`tui.desk.config.desk_start`); the alerts themselves, which show on a Textual
app, are `tui.desk.alerts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class AlertKind(StrEnum):
    """What an alert is about."""

    RFQ_RECEIVED = "rfq_received"
    LAST_LOOK = "last_look"
    DEPOSIT_DEADLINE = "deposit_deadline"
    BOOKED = "booked"
    REJECTED = "rejected"


@dataclass(frozen=True)
class AlertWays:
    """How one kind of alert shows: the terminal bell, a flash of the screen, a toast."""

    bell: bool = True
    flash: bool = False
    toast: bool = True


DEFAULT_WAYS: Mapping[AlertKind, AlertWays] = {
    AlertKind.RFQ_RECEIVED: AlertWays(bell=True, flash=False, toast=True),
    AlertKind.LAST_LOOK: AlertWays(bell=True, flash=True, toast=True),
    AlertKind.DEPOSIT_DEADLINE: AlertWays(bell=True, flash=True, toast=True),
    AlertKind.BOOKED: AlertWays(bell=False, flash=False, toast=True),
    AlertKind.REJECTED: AlertWays(bell=True, flash=False, toast=True),
}
"""The ways of each kind when the config says nothing: what needs the trader now rings and
flashes, a received RFQ rings, a booking only shows."""


@dataclass(frozen=True)
class AlertSettings:
    """The ways of each kind of alert, and quiet mode (toasts only)."""

    ways: Mapping[AlertKind, AlertWays] = field(default_factory=lambda: dict(DEFAULT_WAYS))
    quiet: bool = False

    def of(self, kind: AlertKind) -> AlertWays:
        """How ``kind`` shows, quiet mode applied."""
        ways = self.ways.get(kind, DEFAULT_WAYS[kind])
        if self.quiet:
            return AlertWays(bell=False, flash=False, toast=ways.toast)
        return ways
