"""Wire scalars shared by every record: decimals as strings, RFC 3339 times, tolerant enums.

The venue carries every amount as a decimal *string* and every time as RFC 3339 with ``Z``.
These annotated types make that the default for every model: values are `Decimal` and aware
`datetime` in Python and go back on the wire exactly as the contract wants them.

Decimals come in two strengths. `DecimalStr` (records: what the server sends) takes any finite
number Python's `Decimal` can read, whatever its magnitude, so a surprising value never fails a
page. `RequestDecimalStr` (requests: what the client sends and the sandbox accepts) takes only
plain ASCII decimal syntax with at most `MAX_DECIMAL_PLACES` places, at most
`MAX_SIGNIFICANT_DIGITS` significant digits and a magnitude below ``1e18``, so values such as
``"1e-999999"``, ``"1_000"`` or full-width digits never enter the system; a JSON number is
refused (a request decimal is a string on the wire, or a `Decimal` in Python).
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    PlainSerializer,
    PlainValidator,
    Strict,
)
from pydantic_core import PydanticCustomError

__all__ = [
    "H160",
    "MAX_DECIMAL_PLACES",
    "MAX_REQUEST_DECIMAL_CHARS",
    "MAX_SIGNIFICANT_DIGITS",
    "REQUEST_DECIMAL_LIMIT_EXP",
    "DecimalStr",
    "JsonNumber",
    "PositiveDecimalStr",
    "RequestDecimalStr",
    "RequestInt",
    "RequestPositiveDecimalStr",
    "Timestamp",
    "UuidStr",
    "decimal_to_wire",
    "format_timestamp",
    "tolerant",
]


MAX_DECIMAL_PLACES = 18
"""Most digits after the point a request decimal may carry (trailing zeros do not count)."""

MAX_SIGNIFICANT_DIGITS = 28
"""Most significant digits of a request decimal: Python's default decimal precision, so
arithmetic on one value is exact."""

REQUEST_DECIMAL_LIMIT_EXP = 18
"""Request decimals must be below ``10 ** REQUEST_DECIMAL_LIMIT_EXP`` in magnitude."""

MAX_REQUEST_DECIMAL_CHARS = 64
"""Longest decimal string a request may carry (a bound before any parsing is attempted)."""

# Past this exponent the plain form would be thousands of characters (only a broken server
# can send such a value: requests refuse it), so it keeps exponent notation instead.
_MAX_PLAIN_EXPONENT = 1000


def decimal_to_wire(value: Decimal) -> str:
    """Render a Decimal as a plain decimal string, never in exponent notation.

    ``str(Decimal("1E+3"))`` is ``"1E+3"``, which many parsers refuse; the venue wants ``"1000"``.
    A value whose exponent is beyond +-1000 (a record from a broken server; requests never
    hold one) is rendered in exponent notation rather than as a string of a million zeros.
    """
    if not value.is_finite():
        raise ValueError("decimal must be finite")
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and abs(exponent) > _MAX_PLAIN_EXPONENT:
        return str(value)
    text = format(value, "f")
    if text in ("-0", "-0.0") or (text.startswith("-") and Decimal(text) == 0):
        text = text[1:]
    return text


def _parse_decimal(value: Any) -> Decimal:
    if isinstance(value, bool):
        raise ValueError("must be a decimal string, not a boolean")
    if isinstance(value, Decimal):
        parsed = value
    elif isinstance(value, int):
        parsed = Decimal(value)
    elif isinstance(value, float):
        # A tolerant reader: a server that sends a JSON number still parses, through its
        # shortest repr, so 0.1 stays 0.1 rather than 0.1000000000000000055...
        parsed = Decimal(repr(value))
    elif isinstance(value, str):
        try:
            parsed = Decimal(value.strip())
        except InvalidOperation:
            raise ValueError(f"{value[:40]!r} is not a decimal number") from None
    else:
        raise ValueError("must be a decimal string")
    if not parsed.is_finite():
        raise ValueError("must be a finite decimal number")
    return parsed


_ASCII_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?)[0-9]+)?")


class JsonNumber(Decimal):
    """A number with a fraction as a JSON document wrote it, read exactly: a `Decimal`, marked.

    A decoder that must never make floats reads numbers with ``json.loads(...,
    parse_float=JsonNumber)`` (the sandbox does); the mark lets a request decimal, which is due
    as a string, refuse a JSON number while still taking a `Decimal` built in Python.
    """

    __slots__ = ()


def _parse_request_decimal(value: Any) -> Decimal:
    """A request decimal: ASCII syntax only, bounded places, digits and magnitude."""
    if isinstance(value, str):
        if len(value) > MAX_REQUEST_DECIMAL_CHARS:
            raise ValueError(f"must be at most {MAX_REQUEST_DECIMAL_CHARS} characters")
        syntax = _ASCII_DECIMAL.fullmatch(value)
        if syntax is None:
            raise ValueError(
                f"{value[:40]!r} is not a decimal number (digits 0-9, an optional sign, "
                "point and exponent)"
            )
        try:
            parsed = Decimal(value)
        except InvalidOperation:
            # Well-formed, so only an exponent beyond what Decimal holds gets here.
            if syntax.group(1) == "-":
                raise ValueError(f"must have at most {MAX_DECIMAL_PLACES} decimal places") from None
            raise ValueError(f"must be below 1e{REQUEST_DECIMAL_LIMIT_EXP} in magnitude") from None
    elif isinstance(value, bool | int | float | JsonNumber):
        # A request carries amounts as decimal strings: a JSON number (float or int) may
        # already have lost digits, so it is refused as the wrong type, not read.
        raise PydanticCustomError(
            "decimal_type", "must be a decimal string (or Decimal), not a JSON number"
        )
    else:
        parsed = _parse_decimal(value)
    sign, digits, written_exponent = parsed.as_tuple()
    assert isinstance(written_exponent, int)  # finite: checked by _parse_decimal
    trailing = len(digits) - len("".join(map(str, digits)).rstrip("0"))
    if trailing == len(digits):
        # Zero, however it was written ("0E-50", "-0.000").
        return Decimal(0)
    significant = digits[: len(digits) - trailing]
    exponent = written_exponent + trailing
    if exponent + len(significant) > REQUEST_DECIMAL_LIMIT_EXP:
        raise ValueError(f"must be below 1e{REQUEST_DECIMAL_LIMIT_EXP} in magnitude")
    if -exponent > MAX_DECIMAL_PLACES:
        raise ValueError(f"must have at most {MAX_DECIMAL_PLACES} decimal places")
    if len(significant) > MAX_SIGNIFICANT_DIGITS:
        raise ValueError(f"must have at most {MAX_SIGNIFICANT_DIGITS} significant digits")
    if written_exponent < -MAX_DECIMAL_PLACES:
        # Zeros written past the last allowed place carry no value: drop them, exactly.
        return Decimal((sign, significant, exponent))
    return parsed


def _require_positive(value: Decimal) -> Decimal:
    if value <= 0:
        raise ValueError("must be greater than 0")
    return value


DecimalStr = Annotated[Decimal, PlainSerializer(decimal_to_wire, return_type=str)]
"""A decimal number carried as a string on the wire and as `Decimal` in Python.

Read by pydantic's own decimal validator (no Python call per value, so a page parses on the
JSON path at native speed): a string (blanks around it ignored), an integer or a JSON number
(through its shortest form), any finite magnitude; a boolean, ``NaN`` or an infinity refused."""

PositiveDecimalStr = Annotated[DecimalStr, AfterValidator(_require_positive)]
"""A `DecimalStr` that must be strictly greater than zero (quantities, prices)."""

RequestDecimalStr = Annotated[
    Decimal,
    PlainValidator(_parse_request_decimal, json_schema_input_type=str),
    PlainSerializer(decimal_to_wire, return_type=str),
]
"""A decimal in a request: ASCII syntax, below 1e18, at most 18 places and 28 digits."""

RequestPositiveDecimalStr = Annotated[RequestDecimalStr, AfterValidator(_require_positive)]
"""A `RequestDecimalStr` that must be strictly greater than zero (quantities, prices)."""

RequestInt = Annotated[int, Strict()]
"""An integer in a request: a JSON integer only, never a boolean, a float or a string
(``true``, ``2.0``, ``"1_000"`` are refused as the wrong type)."""


def format_timestamp(value: datetime) -> str:
    """RFC 3339 in UTC with microseconds and a ``Z``, the venue's own timestamp format."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _assume_utc(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


Timestamp = Annotated[
    datetime,
    AfterValidator(_assume_utc),
    PlainSerializer(format_timestamp, return_type=str),
]
"""An RFC 3339 timestamp; naive values are taken as UTC, output always ends in ``Z``."""


def _parse_uuid(value: Any) -> str:
    if isinstance(value, uuid.UUID):
        return str(value)
    if not isinstance(value, str):
        raise ValueError("must be a UUID string")
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise ValueError(f"{value[:40]!r} is not a valid UUID") from None


UuidStr = Annotated[str, PlainValidator(_parse_uuid, json_schema_input_type=str)]
"""A UUID carried as its canonical lowercase string."""

_H160 = re.compile(r"^0x[0-9a-fA-F]{40}$")


def _parse_h160(value: Any) -> str:
    if not isinstance(value, str) or not _H160.match(value):
        raise ValueError("must be a 0x-prefixed 20-byte hex address")
    return value.lower()


H160 = Annotated[str, BeforeValidator(_parse_h160)]
"""An address (settlement pool, wallet): ``0x`` and 40 hex digits, kept lowercase."""

E = TypeVar("E", bound=StrEnum)


def tolerant(enum_cls: type[E]) -> Any:
    """An enum field for records read from the server that keeps unknown values as raw strings.

    A newer venue may add a clearing status or transfer type; the desk must show it rather than
    crash. Known values come back as members of ``enum_cls`` (a `StrEnum`, so they compare equal
    to their string), unknown values as the plain `str` the server sent.
    """

    # The member first, the raw string only when no member matches: both checks are
    # pydantic's own, so a record's enums cost no Python call (a string is required: a number
    # or a boolean is refused by both sides of the union).
    return Annotated[
        enum_cls | str,
        Field(union_mode="left_to_right"),
        PlainSerializer(str, return_type=str),
    ]
