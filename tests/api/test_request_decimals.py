"""Decimals and allowances in requests are bounded; records stay lenient but never blow up.

Regression tests of review findings #6, #7 and #15: ``"1e-999999"``, ``"9e999999"``,
``"1_000"`` or full-width digits could enter the system through a request, and an allowance had
no upper bound.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from tests.api.kit import records as rec
from tui.api.models import (
    MAX_BASE_UNITS,
    BaseAllowance,
    DecimalAllowance,
    NewTransferRequest,
    PermitTemplateRequest,
    Trade,
    allowance_units,
)
from tui.api.types import (
    MAX_DECIMAL_PLACES,
    MAX_SIGNIFICANT_DIGITS,
    DecimalStr,
    RequestDecimalStr,
    decimal_to_wire,
)


class _Amount(BaseModel):
    amount: RequestDecimalStr


def _refusal(value: Any) -> str:
    with pytest.raises(ValidationError) as caught:
        _Amount.model_validate({"amount": value})
    (error,) = caught.value.errors()
    assert error["loc"] == ("amount",)
    return str(error["msg"])


@pytest.mark.parametrize(
    "text",
    [
        "1_000",  # Python's Decimal reads underscores
        "\uff11",  # full-width 1
        "\u0663",  # Arabic-Indic 3
        "1\u00a0",  # a no-break space
        " 1",
        "1,5",
        "0x10",
        "NaN",
        "Infinity",
        "",
    ],
)
def test_only_ascii_decimal_syntax_is_accepted(text: str) -> None:
    assert "not a decimal number" in _refusal(text)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1e-999999", f"at most {MAX_DECIMAL_PLACES} decimal places"),
        ("9e999999", "below 1e18"),
        ("1e" + "9" * 40, "below 1e18"),
        ("1e-" + "9" * 40, f"at most {MAX_DECIMAL_PLACES} decimal places"),
        ("0.0000000000000000001", f"at most {MAX_DECIMAL_PLACES} decimal places"),
        ("1000000000000000000", "below 1e18"),
        ("-1e18", "below 1e18"),
        ("12345678901.123456789012345678", f"at most {MAX_SIGNIFICANT_DIGITS} significant"),
        ("1" * 65, "at most 64 characters"),
        (Decimal("1e-999999"), f"at most {MAX_DECIMAL_PLACES} decimal places"),
        # Issue 10: a JSON number (10**30, 1e300) is refused as one before any bound is
        # checked: see test_request_strictness.
    ],
)
def test_magnitude_places_and_digits_are_bounded(value: Any, message: str) -> None:
    assert message in _refusal(value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.000000000000000001", "0.000000000000000001"),
        ("999999999999999999", "999999999999999999"),
        ("-999999999999999999.5", "-999999999999999999.5"),
        ("1.5e3", "1500"),
        (".5", "0.5"),
        ("5.", "5"),
        ("+2", "2"),
        ("0E-50", "0"),  # zero however written
        ("1.00000000000000000000000000000", "1"),  # zeros past the 18th place carry nothing
        ("12.500", "12.500"),
    ],
)
def test_values_within_bounds_pass_and_go_out_plain(text: str, expected: str) -> None:
    amount = _Amount.model_validate({"amount": text})
    assert amount.model_dump(mode="json")["amount"] == expected
    assert amount.amount == Decimal(text)


@given(
    st.decimals(
        min_value=Decimal("-999999999999999999"),
        max_value=Decimal("999999999999999999"),
        places=8,
        allow_nan=False,
        allow_infinity=False,
    )
)
def test_request_decimals_round_trip_exactly(value: Decimal) -> None:
    wire = _Amount(amount=value).model_dump(mode="json")["amount"]
    assert _Amount.model_validate({"amount": wire}).amount == value


def test_request_models_use_the_bounded_decimals() -> None:
    body = {
        "qty": "1e-999999",
        "target_pool_location": rec.POOL_ID,
        "counterparty": rec.MAKER,
        "transfer_type": "deposit",
    }
    with pytest.raises(ValidationError) as caught:
        NewTransferRequest.model_validate(body)
    assert caught.value.errors()[0]["loc"] == ("qty",)
    assert NewTransferRequest.model_validate(dict(body, qty="2500.5")).qty == Decimal("2500.5")


class _Reading(BaseModel):
    amount: DecimalStr


@pytest.mark.parametrize("text", ["1e-999999", "9e999999", "-9e999999", "1E+1001"])
def test_records_read_extreme_magnitudes_without_blowing_up(text: str) -> None:
    reading = _Reading.model_validate({"amount": text})
    assert reading.amount == Decimal(text)
    wire = reading.model_dump(mode="json")["amount"]
    assert len(wire) < 20  # exponent notation, not a million zeros
    assert Decimal(wire) == Decimal(text)
    trade = Trade.model_validate(dict(rec.TRADE, price=text, qty=text))
    assert trade.price == Decimal(text)
    assert len(trade.model_dump_json()) < 2000


def test_ordinary_record_values_still_go_out_plain() -> None:
    assert decimal_to_wire(Decimal("1E+1000")) == "1" + "0" * 1000
    assert decimal_to_wire(Decimal("1E-7")) == "0.0000001"


# -- allowances ------------------------------------------------------------------------------


def _permit(allowance: dict[str, Any]) -> PermitTemplateRequest:
    return PermitTemplateRequest.model_validate(
        {"pool_address": rec.POOL_ADDRESS, "allowance": allowance}
    )


def _allowance_error(allowance: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as caught:
        _permit(allowance)
    (error,) = caught.value.errors()
    loc = error["loc"]
    assert (loc[0], loc[-1]) == ("allowance", "value")  # the union tag sits between
    return str(error["msg"])


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (MAX_BASE_UNITS + 1, "at most 2**256 - 1"),
        ("0x1" + "0" * 64, "at most 64 digits"),
        ("f" * 65, "at most 64 digits"),
        ("0x", "at most 64 digits"),
        ("12 34", "at most 64 digits"),
        ("0x1_0", "at most 64 digits"),
        ("0x\uff11", "at most 64 digits"),
        (True, "integer or a hex string"),
        (1.5, "integer or a hex string"),
        (0, "positive"),
        ("0x0", "positive"),
        (-5, "positive"),
    ],
)
def test_base_allowances_fit_a_uint256(value: Any, message: str) -> None:
    assert message in _allowance_error({"type": "base", "value": value})


def test_base_allowances_at_the_bound_pass() -> None:
    for value in (MAX_BASE_UNITS, "0x" + "f" * 64, "F" * 64, 1, "0x10"):
        permit = _permit({"type": "base", "value": value})
        assert isinstance(permit.allowance, BaseAllowance)
        assert 1 <= allowance_units(permit.allowance) <= MAX_BASE_UNITS
    assert BaseAllowance(value="0x10").units == 16


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1e30", "below 1e18"),
        ("1e-999999", "decimal places"),
        ("1_000", "not a decimal number"),
        ("0", "greater than 0"),
    ],
)
def test_decimal_allowances_are_bounded(value: str, message: str) -> None:
    assert message in _allowance_error({"type": "decimal", "value": value})


def test_the_largest_decimal_allowance_still_fits_base_units() -> None:
    largest = DecimalAllowance(value="999999999999999999.9999999999")
    units = allowance_units(largest)
    assert units == 10**24  # rounded up to whole base units
    assert units <= MAX_BASE_UNITS
    assert allowance_units(DecimalAllowance(value="0.000000000000000001")) == 1
