"""The ``[guardrails]`` and ``[alerts]`` tables of config.toml, as the settings the desk takes.

    [guardrails]
    max_bps_from_fair = 300      # a quote or accept further from fair value asks again
    max_notional = 1000000       # USDC; a bigger quote or accept asks again
    duplicate_rfq_s = 30         # the same structure asked again within this warns
    max_deposit = 1000000        # USDC; a bigger pool deposit is refused before signing

    [alerts]
    quiet = false                # true: toasts only, no bell, no flash
    [alerts.last_look]
    bell = true
    flash = true
    toast = true

Each table is checked field by field (`tui.desk.config` names the file and line of a refused
value) and turned into the settings dataclass its module reads: `GuardrailsTable.settings` gives
`tui.desk.guardrails.GuardrailSettings`, `AlertsTable.settings` gives
`tui.desk.alerts.AlertSettings`. The defaults live in those dataclasses only; a field left out
here keeps theirs (an ``[alerts.KIND]`` way left out keeps that kind's default way).
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tui.desk.alert_settings import DEFAULT_WAYS, AlertKind, AlertSettings, AlertWays
from tui.desk.guardrails import DEFAULTS as GUARDRAIL_DEFAULTS
from tui.desk.guardrails import GuardrailSettings


class GuardrailsTable(BaseModel):
    """``[guardrails]``: when a quote, an accept or an RFQ asks for a second confirmation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_bps_from_fair: Decimal = Field(
        default=GUARDRAIL_DEFAULTS.max_bps_from_fair,
        ge=0,
        allow_inf_nan=False,
        description="A quote, or an accept, priced more than this many basis points from the "
        "structure's fair value (either way) asks for a second confirmation saying so "
        f"(default {GUARDRAIL_DEFAULTS.max_bps_from_fair}).",
    )
    max_notional: Decimal = Field(
        default=GUARDRAIL_DEFAULTS.max_notional,
        gt=0,
        allow_inf_nan=False,
        description="A quote, or an accept, whose gross notional passes this many USDC asks "
        f"for a second confirmation (default {GUARDRAIL_DEFAULTS.max_notional}).",
    )
    duplicate_rfq_s: int = Field(
        default=GUARDRAIL_DEFAULTS.duplicate_rfq_s,
        ge=0,
        description="An RFQ for the same structure as one sent less than this many seconds "
        f"ago warns of a duplicate (default {GUARDRAIL_DEFAULTS.duplicate_rfq_s}; 0: never).",
    )

    max_deposit: Decimal = Field(
        default=GUARDRAIL_DEFAULTS.max_deposit,
        gt=0,
        allow_inf_nan=False,
        description="A pool deposit above this many USDC is refused before its permit is "
        "signed (a trade's deposit is what the venue asks, never capped: the form says so) "
        f"(default {GUARDRAIL_DEFAULTS.max_deposit}).",
    )

    @field_validator(
        "max_bps_from_fair", "max_notional", "duplicate_rfq_s", "max_deposit", mode="before"
    )
    @classmethod
    def _a_number(cls, value: Any) -> Any:
        if isinstance(value, bool):  # pydantic would read true as 1
            raise ValueError("a number, not true or false")
        return value

    def settings(self) -> GuardrailSettings:
        """The guardrails these values set (`tui.desk.guardrails`)."""
        return GuardrailSettings(
            max_bps_from_fair=self.max_bps_from_fair,
            max_notional=self.max_notional,
            duplicate_rfq_s=self.duplicate_rfq_s,
            max_deposit=self.max_deposit,
        )


def _ways_words(kind: AlertKind) -> str:
    ways = DEFAULT_WAYS[kind]
    named = [way for way in ("bell", "flash", "toast") if getattr(ways, way)]
    return ", ".join(named) or "nothing"


class AlertWaysTable(BaseModel):
    """``[alerts.KIND]``: how one kind of alert shows; a way left out keeps the kind's default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bell: bool | None = Field(default=None, description="Ring the terminal bell.")
    flash: bool | None = Field(default=None, description="Tint the screen for a moment.")
    toast: bool | None = Field(default=None, description="Show a notification in the corner.")

    def ways(self, kind: AlertKind) -> AlertWays:
        """The ways ``kind`` shows: the ones set here over the kind's defaults."""
        given = {way: on for way, on in self.model_dump().items() if on is not None}
        return replace(DEFAULT_WAYS[kind], **given)


def _kind(kind: AlertKind, what: str) -> Any:
    return Field(
        default_factory=AlertWaysTable,
        description=f"{what} (default: {_ways_words(kind)}).",
    )


class AlertsTable(BaseModel):
    """``[alerts]``: quiet mode, and an ``[alerts.KIND]`` table per kind of alert."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    quiet: bool = Field(
        default=AlertSettings.quiet,
        description="Toasts only: no bell and no flash for any alert, whatever the kinds say.",
    )
    rfq_received: AlertWaysTable = _kind(AlertKind.RFQ_RECEIVED, "An RFQ sent to you")
    last_look: AlertWaysTable = _kind(AlertKind.LAST_LOOK, "A last look waiting for you")
    deposit_deadline: AlertWaysTable = _kind(
        AlertKind.DEPOSIT_DEADLINE, "A deposit approval waiting for you, with its deadline"
    )
    booked: AlertWaysTable = _kind(AlertKind.BOOKED, "A trade of yours booked")
    rejected: AlertWaysTable = _kind(AlertKind.REJECTED, "A trade of yours rejected")

    def settings(self) -> AlertSettings:
        """The alert settings these values set (`tui.desk.alerts`)."""
        tables: dict[str, AlertWaysTable] = {
            name: value for name, value in self if isinstance(value, AlertWaysTable)
        }
        return AlertSettings(
            ways={kind: tables[kind.value].ways(kind) for kind in AlertKind}, quiet=self.quiet
        )
