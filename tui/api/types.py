"""Wire scalars shared by every record: decimals as strings, RFC 3339 times, tolerant enums.

The venue carries every amount as a decimal *string* and every time as RFC 3339 with ``Z``.
These annotated types make that the default for every model: values are `Decimal` and aware
`datetime` in Python and go back on the wire exactly as the contract wants them.
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BeforeValidator, PlainSerializer, PlainValidator

__all__ = [
    "H160",
    "DecimalStr",
    "PositiveDecimalStr",
    "Timestamp",
    "UuidStr",
    "decimal_to_wire",
    "format_timestamp",
    "tolerant",
]


def decimal_to_wire(value: Decimal) -> str:
    """Render a Decimal as a plain decimal string, never in exponent notation.

    ``str(Decimal("1E+3"))`` is ``"1E+3"``, which many parsers refuse; the venue wants ``"1000"``.
    """
    if not value.is_finite():
        raise ValueError("decimal must be finite")
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


def _require_positive(value: Decimal) -> Decimal:
    if value <= 0:
        raise ValueError("must be greater than 0")
    return value


DecimalStr = Annotated[
    Decimal,
    PlainValidator(_parse_decimal, json_schema_input_type=str),
    PlainSerializer(decimal_to_wire, return_type=str),
]
"""A decimal number carried as a string on the wire and as `Decimal` in Python."""

PositiveDecimalStr = Annotated[DecimalStr, AfterValidator(_require_positive)]
"""A `DecimalStr` that must be strictly greater than zero (quantities, prices)."""


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

    def parse(value: Any) -> E | str:
        if isinstance(value, enum_cls):
            return value
        if isinstance(value, str):
            try:
                return enum_cls(value)
            except ValueError:
                return value
        raise ValueError(f"must be a string ({enum_cls.__name__})")

    return Annotated[
        enum_cls | str,
        PlainValidator(parse, json_schema_input_type=str),
        PlainSerializer(str, return_type=str),
    ]
