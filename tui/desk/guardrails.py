"""Pre-trade guardrails: the checks that ask for a second confirmation, and why.

Three checks, each a pure function returning None (fine) or the reason in words, to be shown
in the second confirmation (`confirmation_words`):

- `quote_off_fair` / `accept_off_fair`: a price more than `GuardrailSettings.max_bps_from_fair`
  basis points from the structure's fair value (the RFQ's structure price), either way; the
  bps are `tui.desk.analytics.edge`'s, against ``|fair|`` or the reference the caller names
  (a package's legs' gross value at the mark, as the board's edge), and the words say which;
- `notional_over`: a gross notional (`tui.desk.clearing.gross_notional`) over
  `GuardrailSettings.max_notional` USDC;
- `duplicate_rfq`: the same structure (same legs, in any order) asked within
  `GuardrailSettings.duplicate_rfq_s` seconds of an RFQ already sent.

`GuardrailSettings.max_deposit` is no question but a refusal: the permit rule
(`tui.desk.roles.permit_terms`) refuses a pool deposit above it before anything is signed.

No Textual, no network: the roles and the builder call these with what the book holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from tui.api.models import TradeSide
from tui.desk.widgets.common import fmt

if TYPE_CHECKING:  # the settings are read before the first frame; the models load later
    from tui.api.models import RFQ, Structure


@dataclass(frozen=True)
class GuardrailSettings:
    """Where the guardrails stand; every field has a sensible default."""

    max_bps_from_fair: Decimal = Decimal(300)
    """A quote or accept further than this from fair (bps, either way) asks again."""
    max_notional: Decimal = Decimal(1_000_000)
    """A quote or accept whose gross notional passes this (USDC) asks again."""
    duplicate_rfq_s: int = 30
    """The same structure asked again within this many seconds warns of a duplicate RFQ."""
    max_deposit: Decimal = Decimal(1_000_000)
    """A pool deposit above this (USDC) is refused before its permit is signed (a trade's
    deposit, the exact amount the venue asks, is not capped: the form says it is above)."""

    def lines(self) -> list[str]:
        """The guardrails in force, one per line (`rfq-desk config` lists them)."""
        return [
            f"max {fmt.exact(self.max_bps_from_fair)} bps from fair value (quote or accept)",
            f"max notional {fmt.exact(self.max_notional)} USDC (quote or accept)",
            f"duplicate RFQ warning within {self.duplicate_rfq_s} s",
            f"max deposit {fmt.exact(self.max_deposit)} USDC (a pool deposit's permit)",
        ]


DEFAULTS = GuardrailSettings()

FAIR_IS = "the venue's structure price"
"""What "fair value" is, in the guardrails' words: the RFQ's structure price, as the board's
and the ticket's edges take it."""


def _side_off(
    side: str, price: Decimal, fair: Decimal, limit: Decimal, reference: Decimal | None
) -> str | None:
    from tui.desk.analytics.edge import quote_edge  # with the first check, not the settings

    edge = quote_edge(
        fair,
        price if side == "bid" else None,
        price if side == "ask" else None,
        reference=reference,
    )
    found = edge.bid if side == "bid" else edge.ask
    if found is None or found.bps is None:
        return None
    distance = abs(found.bps)
    if distance <= limit:
        return None
    where = "above" if price > fair else "below"
    base = (
        ""
        if reference is None
        else f"; bps of {fmt.money(abs(reference))}, the legs' gross value at the mark"
    )
    return (
        f"{side} {fmt.exact(price)} is {distance.quantize(Decimal(1))} bps {where} fair value "
        f"{fmt.exact(fair)}, {FAIR_IS}{base} (limit {fmt.exact(limit)} bps)"
    )


def quote_off_fair(
    bid: Decimal | None,
    ask: Decimal | None,
    fair: Decimal | None,
    settings: GuardrailSettings = DEFAULTS,
    *,
    reference: Decimal | None = None,
) -> str | None:
    """Why a maker's bid or ask is too far from fair, or None (no fair value: no check)."""
    if fair is None:
        return None
    reasons = [
        reason
        for side, price in (("bid", bid), ("ask", ask))
        if price is not None
        and (reason := _side_off(side, price, fair, settings.max_bps_from_fair, reference))
    ]
    return "; ".join(reasons) or None


def accept_off_fair(
    side: TradeSide,
    price: Decimal,
    fair: Decimal | None,
    settings: GuardrailSettings = DEFAULTS,
    *,
    reference: Decimal | None = None,
) -> str | None:
    """Why trading a quote at ``price`` (buying its ask, or selling into its bid) is too far
    from fair, or None."""
    if fair is None:
        return None
    quote_side = "ask" if side is TradeSide.BUY else "bid"
    return _side_off(quote_side, price, fair, settings.max_bps_from_fair, reference)


def notional_over(notional: Decimal | None, settings: GuardrailSettings = DEFAULTS) -> str | None:
    """Why a gross notional is too large, or None (an unknown notional: no check)."""
    if notional is None or notional <= settings.max_notional:
        return None
    return (
        f"notional {fmt.money(notional)} USDC is over the limit of "
        f"{fmt.exact(settings.max_notional)} USDC"
    )


def structure_key(structure: Structure) -> tuple[tuple[str, ...], ...]:
    """What makes two structures the same: each leg's side, ratio and instrument (type,
    underlying, expiry, strike, payoff), in any order of legs."""
    keys = []
    for leg in structure.legs:
        instrument = leg.instrument
        expiry = getattr(instrument, "expiry", None)
        strike = getattr(instrument, "strike", None)
        parts = (
            str(leg.side),
            str(leg.ratio),
            str(getattr(instrument, "instrument_type", "?")),
            str(getattr(instrument, "underlying", "?")),
            expiry.astimezone(UTC).isoformat() if isinstance(expiry, datetime) else "",
            format(strike.normalize(), "f") if isinstance(strike, Decimal) else "",
            str(getattr(instrument, "payoff", "")) if strike is not None else "",
        )
        keys.append(parts)
    return tuple(sorted(keys))


def duplicate_rfq(
    structure: Structure,
    sent: Iterable[RFQ],
    now: datetime,
    settings: GuardrailSettings = DEFAULTS,
) -> str | None:
    """Why this structure looks like a duplicate (the same asked within the window), or None."""
    key = structure_key(structure)
    recent = [
        rfq
        for rfq in sent
        if 0 <= (now - rfq.created_at).total_seconds() <= settings.duplicate_rfq_s
        and structure_key(rfq.structure) == key
    ]
    if not recent:
        return None
    newest = max(recent, key=lambda rfq: rfq.created_at)
    seconds = int((now - newest.created_at).total_seconds())
    return (
        f"the same structure was asked {seconds} s ago (RFQ {newest.rfq_id[:8]}, "
        f"qty {fmt.exact(newest.qty)}): a duplicate RFQ?"
    )


def confirmation_words(action: str, reasons: Sequence[str]) -> tuple[str, str]:
    """Title and body of the second confirmation: what is about to be done, and every reason
    it is asked again (for `tui.desk.screens.confirm.ConfirmScreen` with ``second_question``,
    which says under it which keys answer, as the keymap has them)."""
    lines = "\n".join(f"  • {reason}" for reason in reasons)
    return (f"Check again: {action}", f"[b $warning]Asked again because[/]\n{lines}")


def reasons(*found: str | None) -> list[str]:
    """The reasons among the checks' answers (None dropped), for `confirmation_words`."""
    return [reason for reason in found if reason]


__all__ = [
    "DEFAULTS",
    "FAIR_IS",
    "GuardrailSettings",
    "accept_off_fair",
    "confirmation_words",
    "duplicate_rfq",
    "notional_over",
    "quote_off_fair",
    "reasons",
    "structure_key",
]
