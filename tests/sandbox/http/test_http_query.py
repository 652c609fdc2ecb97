"""Query strings and JSON bodies: what the sandbox accepts and how it names what it refuses."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from tui.api.endpoints import DEFAULT_PAGE_SIZE, endpoint_named
from tui.api.models import ErrorCode, NewRfqRequest
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.http.query import parse_body, parse_json_object, parse_query
from tui.sandbox.http.routes import page_envelope, single_envelope

UUID = "4b0f745f-945b-4d91-8165-204f08404431"


def refused(fn: Any, *args: Any) -> ServiceError:
    with pytest.raises(ServiceError) as info:
        fn(*args)
    return info.value


def test_defaults_are_capped_at_the_endpoint_maximum() -> None:
    companies = parse_query(endpoint_named("companies"), b"")
    assert (companies.limit, companies.offset, companies.filters) == (DEFAULT_PAGE_SIZE, 0, {})
    rfqs = parse_query(endpoint_named("rfqs_received"), b"")
    assert rfqs.limit == min(DEFAULT_PAGE_SIZE, 1000)


def test_filters_are_parsed_and_normalised() -> None:
    query = parse_query(
        endpoint_named("portfolio_trades"),
        f"pool={UUID.upper()}&id={UUID}&limit=10000&offset=20".encode(),
    )
    assert query.limit == 10_000 and query.offset == 20
    assert query.filters == {"pool": UUID, "id": UUID}
    rfqs = parse_query(endpoint_named("rfqs_sent"), b"price=FALSE")
    assert rfqs.filters == {"price": False}
    assets = parse_query(endpoint_named("supported_assets"), b"verified=true")
    assert assets.filters == {"verified": True} and assets.limit is None


@pytest.mark.parametrize(
    ("name", "query", "named"),
    [
        ("companies", b"limit=0", "limit"),
        ("companies", b"limit=10001", "limit"),
        ("quotes", b"limit=1001", "limit"),
        ("companies", b"limit=ten", "limit"),
        ("companies", b"limit=1.5", "limit"),
        ("companies", b"limit=", "limit"),
        ("companies", b"offset=-1", "offset"),
        ("companies", b"offset=x", "offset"),
        ("companies", b"id=not-a-uuid", "id"),
        ("companies", b"id=", "id"),
        ("portfolio_assets", b"pool=123", "pool"),
        ("rfqs_received", b"price=yes", "price"),
        ("supported_assets", b"verified=1", "verified"),
        ("companies", b"limit=1&limit=2", "limit"),
        ("companies", b"pool=" + UUID.encode(), "pool"),  # companies take no pool filter
        ("portfolio_summary", b"limit=5", "limit"),  # not a list endpoint
        ("status", b"verbose=true", "verbose"),
    ],
)
def test_bad_query_parameters_are_400_naming_the_parameter(
    name: str, query: bytes, named: str
) -> None:
    error = refused(parse_query, endpoint_named(name), query)
    assert error.code is ErrorCode.BAD_REQUEST and error.http_status == 400
    assert f"'{named}'" in error.message


def test_non_ascii_query_is_refused() -> None:
    error = refused(parse_query, endpoint_named("companies"), "id=é".encode())
    assert error.code is ErrorCode.BAD_REQUEST


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b"", "required"),
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (b'"text"', "JSON object"),
        (b'{"qty": NaN}', "not valid JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "JSON"),
        (b"\xff\xfe{", "not valid JSON"),
    ],
)
def test_bodies_must_be_json_objects(body: bytes, fragment: str) -> None:
    error = refused(parse_json_object, body)
    assert error.code is ErrorCode.BAD_REQUEST
    assert fragment in error.message


def test_json_numbers_become_decimals_never_floats() -> None:
    assert parse_json_object(b'{"qty": 0.1}') == {"qty": Decimal("0.1")}
    assert parse_json_object(b"", required=False) == {}


def rfq_body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "structure": {
            "legs": [
                {
                    "side": "buy",
                    "ratio": 1,
                    "instrument": {
                        "instrument_type": "perpetual_future",
                        "underlying": "BTC",
                        "funding_interval_s": 3600,
                    },
                }
            ]
        },
        "qty": "1.5",
        "expires_at": "2030-01-01T00:00:00Z",
        "target_companies": [UUID],
    }
    body.update(changes)
    return body


def quote_body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "rfq_id": UUID,
        "expires_at": "2030-01-01T00:00:00Z",
        "leg_quotes": [{"target_rfq_leg_id": "leg-1", "bid": "99", "ask": "101"}],
        "pool_strategy": {"strategy": "use_existing", "pool_id": UUID},
    }
    body.update(changes)
    return body


def test_valid_body_becomes_the_request_model() -> None:
    request = parse_body("rfqs_new", json.dumps(rfq_body()).encode())
    assert isinstance(request, NewRfqRequest)
    assert request.qty == Decimal("1.5")
    assert parse_body("quotes_cancel_all", b"") is None
    assert parse_body("quotes_cancel_all", b"{}") is None


@pytest.mark.parametrize(
    ("name", "body", "code", "path"),
    [
        ("rfqs_new", {**rfq_body(), "qty": None}, ErrorCode.OUT_OF_RANGE, "qty"),
        ("rfqs_new", rfq_body(qty="0"), ErrorCode.OUT_OF_RANGE, "qty: must be greater than 0"),
        ("rfqs_new", rfq_body(qty="-2"), ErrorCode.OUT_OF_RANGE, "qty"),
        (
            "rfqs_new",
            rfq_body(target_companies=["nope"]),
            ErrorCode.OUT_OF_RANGE,
            "target_companies.0",
        ),
        ("rfqs_new", rfq_body(expires_at="whenever"), ErrorCode.BAD_REQUEST, "expires_at"),
        ("rfqs_new", rfq_body(structure="BTC"), ErrorCode.BAD_REQUEST, "structure"),
        (
            "rfqs_new",
            {k: v for k, v in rfq_body().items() if k != "qty"},
            ErrorCode.BAD_REQUEST,
            "qty: field required",
        ),
        (
            "rfqs_new",
            rfq_body(
                structure={
                    "legs": [
                        {
                            "side": "buy",
                            "ratio": 1,
                            "instrument": {"instrument_type": "spot", "underlying": "X" * 21},
                        }
                    ]
                }
            ),
            ErrorCode.OUT_OF_RANGE,
            "structure.legs.0.instrument.underlying",
        ),
        (
            "quotes_new",
            quote_body(leg_quotes=[{"target_rfq_leg_id": "leg-1", "bid": "0"}]),
            ErrorCode.OUT_OF_RANGE,
            "leg_quotes.0.bid: must be greater than 0",
        ),
        (
            "quotes_new",
            quote_body(client_quote_id="q" * 51),
            ErrorCode.OUT_OF_RANGE,
            "client_quote_id",
        ),
        (
            "quotes_new",
            quote_body(
                pool_strategy={
                    "strategy": "create_new",
                    "name": "n" * 51,
                    "creator_params": {"margin_mode": "simple"},
                    "other_params": {"margin_mode": "simple"},
                }
            ),
            ErrorCode.BAD_REQUEST,
            "pool_strategy.name",
        ),
        ("quotes_new", quote_body(leg_quotes="all"), ErrorCode.BAD_REQUEST, "leg_quotes"),
        (
            "quotes_accept",
            {"parent_quote_id": UUID, "rfq_id": UUID, "side": "hold"},
            ErrorCode.OUT_OF_RANGE,
            "side",
        ),
        ("quotes_cancel", {"id": "x"}, ErrorCode.OUT_OF_RANGE, "id"),
        ("quotes_cancel", {}, ErrorCode.BAD_REQUEST, "id: field required"),
        (
            "transfers_new",
            {
                "asset": "BTC",
                "qty": "1",
                "target_pool_location": UUID,
                "counterparty": UUID,
                "transfer_type": "deposit",
            },
            ErrorCode.OUT_OF_RANGE,
            "asset",
        ),
        (
            "transfers_new",
            {
                "asset": "USDC",
                "qty": "1",
                "target_pool_location": UUID,
                "counterparty": UUID,
                "transfer_type": "fee",
            },
            ErrorCode.OUT_OF_RANGE,
            "transfer_type",
        ),
        ("settlement_pools_new", {"pool_name": "p" * 51}, ErrorCode.BAD_REQUEST, "pool_name"),
        (
            "transfers_permit_template",
            {"pool_address": "0x12", "allowance": {"type": "decimal", "value": "1"}},
            ErrorCode.OUT_OF_RANGE,
            "pool_address",
        ),
    ],
)
def test_body_refusals_name_the_field(
    name: str, body: dict[str, Any], code: ErrorCode, path: str
) -> None:
    error = refused(parse_body, name, json.dumps(body).encode())
    assert error.code is code, error.message
    assert error.http_status == 400
    assert path in error.message


def test_refusal_never_echoes_the_input() -> None:
    secret_like = "s3cr3t-value-that-must-not-come-back"
    error = refused(
        parse_body, "quotes_new", json.dumps(quote_body(expires_at=secret_like)).encode()
    )
    assert secret_like not in error.message


def test_envelopes() -> None:
    assert page_envelope([1, 2], has_more=True, limit=2, offset=4) == {
        "result": [1, 2],
        "pagination": {"next_page": {"limit": "2", "offset": "6"}},
    }
    assert page_envelope([], has_more=False, limit=2, offset=0)["pagination"] == {"next_page": None}
    assert single_envelope({"a": Decimal("1E+3")}) == {"result": {"a": "1000"}}


def test_deep_nesting_is_refused_before_decoding() -> None:
    error = refused(parse_json_object, b"[" * 500_000)
    assert error.code is ErrorCode.BAD_REQUEST and "nested deeper than" in error.message
    inside_a_string = b'{"note": "' + b"[" * 1000 + b'"}'
    assert parse_json_object(inside_a_string) == {"note": "[" * 1000}
    escaped_quote = b'{"note": "\\"' + b"{" * 1000 + b'"}'
    assert parse_json_object(escaped_quote) == {"note": '"' + "{" * 1000}
    assert parse_json_object(b'{"a":' * 60 + b"1" + b"}" * 60)


def test_body_refusals_say_what_is_wrong_in_words_not_with_internals():
    with pytest.raises(ServiceError) as huge:
        parse_json_object(b'{"qty": ' + b"9" * 5000 + b"}")
    assert huge.value.message == "the body is not valid JSON: a number has too many digits"
    with pytest.raises(ServiceError) as nan:
        parse_json_object(b'{"qty": NaN}')
    assert nan.value.message == "the body is not valid JSON: NaN is not a JSON number"
