"""How the desk writes numbers, times, ids and states: one place, so every pane agrees.

One formatter per kind of number, with thousands separators everywhere:

- `exact`: a figure the trader typed or the venue sent, with every significant decimal it has
  and no zero added: how a price or a size reads in a sentence (a toast, a trade's terms, a
  guardrail's reason). `price`, `usdc` and `qty` are this rule too; nothing here rounds a
  typed or sent figure.
- `price`: a price in a column, exactly, padded to at least 2 places (``98,342.10``,
  ``167.60001``): the zeros line a column up, a digit is never dropped.
- `usdc`: an amount of USDC (a balance, a deposit owed, a permit, a transfer) wherever it is
  shown, in money style (at least 2 places) with every place it has: up to USDC's 6 decimals,
  and any further one, so an amount owed never looks smaller than it is.
- `qty`: a quantity, exactly, without trailing zeros.
- `money`: a figure derived to be read (notional, P&L, exposure, $ greeks), rounded to 2
  places. Never for an amount of an asset: that is `usdc`.
- `cents`: such a figure where the reader must not take it for exact: to the cent, marked
  ``≈`` only when the rounding dropped a digit (``+130.45``, ``≈+130.45``).
- `bps`: basis points.
- `greek`: a greek in its own units (per underlying; never summed across underlyings).

A column that lines its figures up by the point pads them with `places_of`, which counts every
significant place of every figure: alignment adds zeros and never drops a digit.

All amounts are `Decimal`; nothing here ever goes through float. A field the user types into
holds the plain decimal that will be sent; what it means is `amounts.parse_amount`'s.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import TYPE_CHECKING

from tui.api.models import ClearingStatus

if TYPE_CHECKING:
    from tui.api.models import Leg, RFQLeg, Structure

DASH = "-"


def money(value: Decimal | None, places: int = 2, *, signed: bool = False) -> str:
    """``1,234,567.89``: a derived figure to read, rounded to ``places``; ``-`` for a missing
    value; ``+`` in front when ``signed``. An amount of an asset is `usdc`, not this."""
    if value is None:
        return DASH
    quant = Decimal(1).scaleb(-places)
    rounded = value.quantize(quant, rounding=ROUND_HALF_EVEN)
    return _signed(f"{rounded:,.{places}f}", rounded, signed=signed)


def exact(value: Decimal | None, low: int = 0, *, signed: bool = False) -> str:
    """``1,234.56789``: every significant decimal ``value`` has, at least ``low`` places (zeros
    added, never a digit dropped), thousands separators; ``-`` for a missing value."""
    if value is None:
        return DASH
    if not value.is_finite():
        return str(value)
    return _signed(f"{value:,.{max(low, decimal_places(value))}f}", value, signed=signed)


ROUNDED = "≈"
"""In front of a figure shown rounded (`cents`): a figure without it is exact."""


def cents(value: Decimal | None, *, signed: bool = False) -> str:
    """``+130.45`` when that is the whole figure, ``≈+130.45`` when rounding to the cent
    dropped a digit: a rounded figure never reads as exact; ``-`` for a missing value."""
    text = money(value, signed=signed)
    if value is None or not value.is_finite() or decimal_places(value) <= 2:
        return text
    return ROUNDED + text


def _signed(text: str, value: Decimal, *, signed: bool) -> str:
    """``+`` in front of a positive figure when asked; never a ``-`` in front of a zero."""
    if signed and value > 0:
        return "+" + text
    if text.startswith("-") and value == 0:
        return text[1:]
    return text


def usdc(value: Decimal | None) -> str:
    """``18,771.804583`` / ``500.00``: an amount of USDC exactly, at least 2 places, every
    place it has (see module docs)."""
    return exact(value, 2)


def bps(value: Decimal | None) -> str:
    """``12.5 bp``: basis points, without trailing zeros."""
    if value is None:
        return DASH
    return f"{qty(value)} bp"


def price(value: Decimal | None) -> str:
    """``98,342.10`` / ``167.60001`` / ``0.000184125``: a price in a column, exactly, at least
    2 places (in a sentence a price is `exact`)."""
    return exact(value, 2)


def decimal_places(value: Decimal) -> int:
    """How many decimal places ``value`` has, trailing zeros not counted (no rounding: the
    context's precision never applies)."""
    _sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int) or not any(digits):
        return 0
    trailing = len(digits) - len("".join(map(str, digits)).rstrip("0"))
    return max(0, -(exponent + trailing))


def places_of(*values: Decimal | None, low: int = 2, high: int | None = None) -> int:
    """Decimal places enough for every value (so a column's figures line up by the point), at
    least ``low``; ``high`` only for a derived figure, never for one typed or sent."""
    found = max([low, *(decimal_places(v) for v in values if v is not None and v.is_finite())])
    return found if high is None else min(found, high)


def qty(value: Decimal | None) -> str:
    """A quantity exactly, without trailing zeros: ``1.5``, ``1,000``, ``140.84``."""
    return exact(value)


def greek(value: Decimal | None) -> str:
    """A greek: 4 significant places is what a trader reads at a glance."""
    if value is None:
        return DASH
    return money(value, 4, signed=True)


def percent(value: Decimal | None, places: int = 4) -> str:
    """A decimal fraction as percent: ``0.0001`` -> ``0.0100%``."""
    if value is None:
        return DASH
    return money(value * 100, places, signed=True) + "%"


def short_id(value: str | None) -> str:
    """The first 8 characters of an id: enough to tell records apart on a screen."""
    if not value:
        return DASH
    return value[:8]


def clock_time(value: datetime | None) -> str:
    """``14:03:27`` in UTC."""
    if value is None:
        return DASH
    return value.strftime("%H:%M:%S")


def countdown(until: datetime | None, now: datetime) -> str:
    """Time left as ``4:59`` / ``1:02:03``; ``expired`` once passed."""
    if until is None:
        return DASH
    left = until - now
    if left <= timedelta(0):
        return "expired"
    seconds = int(left.total_seconds())
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def age(seconds: float | None) -> str:
    """How old data is: ``3s``, ``2m``, ``1h``; ``never`` before the first answer."""
    if seconds is None:
        return "never"
    whole = max(0, int(seconds))
    if whole < 120:
        return f"{whole}s"
    if whole < 7200:
        return f"{whole // 60}m"
    return f"{whole // 3600}h"


def duration_s(seconds: int) -> str:
    """An interval in seconds as ``8h`` / ``1h30m`` / ``45s``."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = []
    if hours:
        parts.append(f"{hours}h")
    if minutes:
        parts.append(f"{minutes}m")
    if secs or not parts:
        parts.append(f"{secs}s")
    return "".join(parts)


def leg_text(leg: Leg | RFQLeg, *, ratio: bool = True) -> str:
    """``B BTC-PERP x2`` for a structure leg, ``B BTC-PERP 10`` for an RFQ leg."""
    from tui.api.models import RFQLeg, instrument_label  # a leg to show: the models are loaded

    side = str(leg.side)[:1].upper()
    label = instrument_label(leg.instrument)
    if isinstance(leg, RFQLeg):
        return f"{side} {label} {qty(leg.qty)}"
    return f"{side} {label}" + (f" x{leg.ratio}" if ratio and leg.ratio != 1 else "")


LEG_JOIN = " / "
"""Between the legs of a structure written on one line."""


def structure_text(structure: Structure) -> str:
    """The legs of a structure on one line: ``B BTC-PERP / S ETH-PERP x2``."""
    return LEG_JOIN.join(leg_text(leg) for leg in structure.legs)


_STATUS_WORDS: dict[str, str] = {
    ClearingStatus.PENDING_POOL_CREATION: "creating the settlement pool",
    ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL: "waiting for the taker's deposit approval",
    ClearingStatus.PENDING_MAKER_LAST_LOOK: "waiting for the maker's last look",
    ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL: "waiting for the maker's deposit approval",
    ClearingStatus.PENDING_ATOMIC_DEPOSIT: "deposits moving on-chain",
    ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL: "booked into the pool",
    ClearingStatus.REJECTED_FAILED_TAKER_DEPOSIT_APPROVAL: (
        "rejected: the taker did not approve the deposit in time"
    ),
    ClearingStatus.REJECTED_FAILED_MAKER_DEPOSIT_APPROVAL: (
        "rejected: the maker did not approve the deposit in time"
    ),
    ClearingStatus.REJECTED_MAKER_LAST_LOOK_REJECTED: "rejected: the maker declined at last look",
    ClearingStatus.REJECTED_MAKER_LAST_LOOK_EXPIRED: (
        "rejected: the maker did not answer the last look before the quote expired"
    ),
    ClearingStatus.REJECTED_FAILED_POOL_CREATION: "rejected: the settlement pool was not created",
    ClearingStatus.REJECTED_FAILED_RISK_CHECKS: "rejected: failed the risk checks",
    ClearingStatus.REJECTED_FAILED_TAKER_ACCEPT_NO_QUOTE: "rejected: the quote no longer exists",
    ClearingStatus.REJECTED_FAILED_TAKER_ACCEPT_QUOTE_EXPIRED: (
        "rejected: the quote had expired when it was accepted"
    ),
    ClearingStatus.REJECTED_FAILED_TAKER_ACCEPT_RFQ_EXPIRED: (
        "rejected: the RFQ had expired when the quote was accepted"
    ),
    ClearingStatus.REJECTED_FAILED_TAKER_FUNDING: "rejected: the taker's funding failed",
    ClearingStatus.REJECTED_FAILED_MAKER_FUNDING: "rejected: the maker's funding failed",
    ClearingStatus.REJECTED_FAILED_ATOMIC_DEPOSIT: "rejected: the on-chain deposit failed",
    ClearingStatus.REJECTED_FAILED_REDUCE_ONLY_CHECK: "rejected: failed the reduce-only check",
}


def status_words(status: str | None) -> str:
    """A clearing status in words; an unknown status is shown as the venue sent it."""
    if status is None:
        return DASH
    return _STATUS_WORDS.get(str(status), str(status).replace("_", " "))
