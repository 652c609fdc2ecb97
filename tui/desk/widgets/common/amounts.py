"""What a typed number means: the one parser of every amount, price, size and count field.

A field takes the text exactly as typed (no field drops a character it does not like), and this
parser either reads it as a plain decimal or refuses it, naming what is wrong: a sign where none
is allowed, an exponent, a misplaced thousands separator, too many decimal places, a value out of
bounds. It never guesses: ``1e30`` is refused, not read as 130 or as 10^30, and ``-5`` is
refused, not read as 5. The refusal is a `FormError` for the field, shown under it.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.forms import FormError

_PLAIN = re.compile(r"^[+-]?(\d[\d,]*)?(\.\d*)?$")
"""Digits with an optional sign, thousands commas and one decimal point: nothing else."""
_GROUPED = re.compile(r"^\d{1,3}(,\d{3})*$")
"""An integer part written with thousands separators: 1,000 / 12,345,678."""
_EXPONENT = re.compile(r"^[+-]?[\d.,]*\d[eE][+-]?\d+$")


def parse_amount(
    text: str,
    *,
    field: str,
    minimum: Decimal | None = None,
    maximum: Decimal | None = None,
    places: int | None = None,
    allow_negative: bool = False,
    positive: bool = False,
) -> Decimal:
    """The decimal typed into ``field``, or a `FormError` for ``field`` saying what is wrong.

    Accepted: digits, a leading ``+`` (or ``-`` when ``allow_negative``), one decimal point, and
    commas as thousands separators in groups of three. Refused, each with its own message: an
    empty field, any other character, an exponent (``1e30``), a misplaced separator, more than
    ``places`` decimal places, a negative number (unless allowed), zero when ``positive``, and a
    value below ``minimum`` or above ``maximum``. Surrounding blanks are not part of the number.
    """
    typed = text.strip()
    if not typed:
        raise FormError({field: "required"})
    if "," in typed.partition(".")[2]:
        raise FormError({field: f"{typed!r}: no thousands separator after the decimal point"})
    if _EXPONENT.match(typed):
        raise FormError({field: f"{typed!r}: write the number out in full, without an exponent"})
    match = _PLAIN.match(typed)
    if match is None or not any(ch.isdigit() for ch in typed):
        raise FormError({field: f"{typed!r} is not a number"})
    whole = match.group(1) or ""
    fraction = match.group(2) or ""
    if "," in whole and not _GROUPED.match(whole):
        raise FormError(
            {field: f"{typed!r}: a thousands separator must come every three digits (1,000)"}
        )
    try:
        value = Decimal(typed.replace(",", ""))
    except InvalidOperation:
        raise FormError({field: f"{typed!r} is not a number"}) from None
    if positive and value <= 0:
        raise FormError({field: f"must be greater than 0, not {typed}"})
    if value < 0 and not allow_negative:
        raise FormError({field: f"must not be negative, not {typed}"})
    decimals = len(fraction) - 1 if fraction else 0
    if places is not None and decimals > places:
        unit = "a whole number" if places == 0 else f"at most {places} decimal places"
        raise FormError({field: f"must be {unit} (typed {decimals})"})
    if minimum is not None and value < minimum:
        raise FormError({field: f"must be at least {fmt.exact(minimum)}"})
    if maximum is not None and value > maximum:
        raise FormError({field: f"must be at most {fmt.exact(maximum)}"})
    return value


def parse_optional_amount(text: str, *, field: str, **rules: object) -> Decimal | None:
    """Like `parse_amount`, but an empty field is None (a leg quoted on one side only)."""
    if not text.strip():
        return None
    return parse_amount(text, field=field, **rules)  # type: ignore[arg-type]


def parse_whole(
    text: str, *, field: str, minimum: int | None = None, maximum: int | None = None
) -> int:
    """A count typed into ``field`` (seconds, a ratio): a whole number within the bounds."""
    try:
        value = parse_amount(
            text,
            field=field,
            places=0,
            allow_negative=True,
            minimum=None if minimum is None else Decimal(minimum),
            maximum=None if maximum is None else Decimal(maximum),
        )
    except FormError as error:
        message = error.errors[field]
        if message.startswith("must be a whole number"):
            raise FormError({field: "must be a whole number"}) from None
        raise
    return int(value)
