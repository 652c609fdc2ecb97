"""The wire scalars: decimals as strings, RFC 3339 times, tolerant enums and unknown variants."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from tui.api.lifecycle import clearing_is_final, clearing_is_rejected
from tui.api.models import (
    RFQ,
    ClearingStatus,
    NewRfqRequest,
    NewTransferRequest,
    PerpetualFutureInstrument,
    Position,
    Trade,
    UnknownVariant,
    instrument_label,
)
from tui.api.types import DecimalStr, Timestamp, UuidStr, decimal_to_wire, format_timestamp


class _Money(BaseModel):
    amount: DecimalStr


@given(st.decimals(allow_nan=False, allow_infinity=False, places=8))
def test_decimal_round_trips_through_the_wire_exactly(value: Decimal) -> None:
    wire = _Money(amount=value).model_dump(mode="json")["amount"]
    assert isinstance(wire, str)
    assert "E" not in wire and "e" not in wire
    assert _Money.model_validate({"amount": wire}).amount == value


def test_decimal_never_goes_out_in_exponent_notation() -> None:
    assert decimal_to_wire(Decimal("1E+3")) == "1000"
    assert decimal_to_wire(Decimal("1E-7")) == "0.0000001"
    assert decimal_to_wire(Decimal("-0")) == "0"


def test_decimal_refuses_garbage_naming_the_field() -> None:
    with pytest.raises(ValidationError) as caught:
        _Money.model_validate({"amount": "12,5"})
    assert caught.value.errors()[0]["loc"] == ("amount",)
    with pytest.raises(ValidationError):
        _Money.model_validate({"amount": "NaN"})
    with pytest.raises(ValidationError):
        _Money.model_validate({"amount": True})


def test_a_json_number_from_a_lenient_server_keeps_its_shortest_form() -> None:
    assert _Money.model_validate_json('{"amount": 0.1}').amount == Decimal("0.1")


class _When(BaseModel):
    at: Timestamp
    id: UuidStr | None = None


def test_timestamps_go_out_as_rfc3339_utc_with_z() -> None:
    when = _When.model_validate({"at": "2024-02-02T07:13:45.323432+01:00"})
    assert when.at == datetime(2024, 2, 2, 6, 13, 45, 323432, tzinfo=UTC)
    assert when.model_dump(mode="json")["at"] == "2024-02-02T06:13:45.323432Z"
    assert format_timestamp(datetime(2026, 1, 1)) == "2026-01-01T00:00:00.000000Z"


def test_uuid_fields_refuse_non_uuids_and_canonicalise() -> None:
    with pytest.raises(ValidationError) as caught:
        _When.model_validate({"at": "2026-01-01T00:00:00Z", "id": "not-a-uuid"})
    assert caught.value.errors()[0]["loc"] == ("id",)
    upper = "6F1C0D2E-4B7A-4C1E-9A51-2F3D8E7B6A10"
    assert _When(at=datetime.now(UTC), id=upper).id == upper.lower()


_TRADE = {
    "id": "t1",
    "source_rfq": "r1",
    "source_rfq_leg_id": "l1",
    "source_quote": "q1",
    "company": "c1",
    "counterparty": "c2",
    "created_at": "2024-02-02T06:13:45.323432Z",
    "side": "buy",
    "instrument": {
        "instrument_type": "perpetual_future",
        "underlying": "BTC",
        "settlement_asset": "USDC",
        "funding_interval_s": 3600,
    },
    "price": "218205.58082",
    "qty": "0.5",
    "pool_location": "p1",
    "role": "taker",
    "trade_type": "trade",
    "status": "success_trades_booked_into_pool",
}


def _leg(ratio: int) -> dict[str, object]:
    return {"side": "buy", "ratio": ratio, "instrument": _TRADE["instrument"]}


def test_unknown_enum_values_and_fields_are_kept_not_fatal() -> None:
    raw = dict(_TRADE, status="pending_new_thing", role="observer", venue_extra={"a": 1})
    trade = Trade.model_validate(raw)
    assert trade.status == "pending_new_thing"
    assert not isinstance(trade.status, ClearingStatus)
    assert trade.role == "observer"
    assert trade.model_extra == {"venue_extra": {"a": 1}}
    assert trade.model_dump(mode="json")["status"] == "pending_new_thing"


def test_known_enum_values_become_members() -> None:
    trade = Trade.model_validate(_TRADE)
    assert trade.status is ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL
    assert clearing_is_final(trade.status) and not clearing_is_rejected(trade.status)
    assert isinstance(trade.instrument, PerpetualFutureInstrument)
    assert trade.price == Decimal("218205.58082")


def test_an_unknown_instrument_type_parses_as_an_unknown_variant() -> None:
    position = Position.model_validate(
        {
            "company": "c",
            "instrument": {"instrument_type": "variance_swap", "underlying": "ETH"},
            "updated_at": "2026-01-01T00:00:00Z",
            "qty": "1",
            "avg_entry_price": "10",
        }
    )
    assert isinstance(position.instrument, UnknownVariant)
    assert instrument_label(position.instrument) == "ETH variance_swap"


def test_rfq_best_bid_and_ask() -> None:
    rfq = RFQ.model_validate(
        {
            "rfq_id": "r",
            "created_at": "2026-01-01T00:00:00Z",
            "structure": {"legs": [_leg(ratio=1)]},
            "rfq_expires_at": "2026-01-01T00:05:00Z",
            "taker_company": "t",
            "rfq_status": "open",
            "qty": "1",
            "bids": [
                {"parent_quote_id": "a", "quote_price": "99"},
                {"parent_quote_id": "b", "quote_price": "100"},
            ],
            "asks": [
                {"parent_quote_id": "c", "quote_price": "102"},
                {"parent_quote_id": "d", "quote_price": "101"},
            ],
        }
    )
    assert rfq.best_bid is not None and rfq.best_bid.parent_quote_id == "b"
    assert rfq.best_ask is not None and rfq.best_ask.parent_quote_id == "d"


def test_requests_name_the_offending_fields() -> None:
    with pytest.raises(ValidationError) as caught:
        NewRfqRequest.model_validate(
            {
                "structure": {"legs": [_leg(ratio=0)]},
                "qty": "0",
                "expires_at": "2026-01-01T00:00:00Z",
                "target_companies": ["nope"],
            }
        )
    locations = {error["loc"] for error in caught.value.errors()}
    assert ("structure", "legs", 0, "ratio") in locations
    assert ("qty",) in locations
    assert ("target_companies", 0) in locations


def test_transfers_are_usdc_only() -> None:
    with pytest.raises(ValidationError) as caught:
        NewTransferRequest.model_validate(
            {
                "asset": "ETH",
                "qty": "10",
                "target_pool_location": "0b9e0c5e-2f1a-4a8e-9d3c-7e6f5a4b3c2d",
                "counterparty": "0b9e0c5e-2f1a-4a8e-9d3c-7e6f5a4b3c2e",
                "transfer_type": "deposit",
            }
        )
    assert caught.value.errors()[0]["loc"] == ("asset",)
