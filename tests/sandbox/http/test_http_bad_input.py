"""Bad input over real HTTP on 127.0.0.1: always a 400 (or 413) naming the field, never a 500.

Requests are built by hand with raw httpx (`tests.sandbox.kit.http` says why).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tests.sandbox.kit.http import NIL, error_of
from tui.api.types import format_timestamp


def rfq_body(sandbox: Any, **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "structure": {
            "legs": [
                {
                    "side": "buy",
                    "ratio": 1,
                    "instrument": {
                        "instrument_type": "perpetual_future",
                        "underlying": "BTC",
                        "settlement_asset": "USDC",
                        "funding_interval_s": 3600,
                    },
                }
            ]
        },
        "qty": "1",
        "expires_at": format_timestamp(sandbox.clock.now() + timedelta(minutes=5)),
        "target_companies": [sandbox.company_ids["ALPHA"]],
    }
    body.update(changes)
    return body


def test_a_well_formed_rfq_is_accepted(sandbox: Any) -> None:
    response = sandbox.request("POST", "/v1/rfqs/new", json_body=rfq_body(sandbox))
    assert response.status_code == 200, response.text
    assert response.json()["result"]["rfq_status"] == "open"


@pytest.mark.parametrize(
    ("body", "code", "fragment"),
    [
        (b'{"structure": ', 1000, "not valid JSON"),
        (b"[]", 1000, "JSON object"),
        (b"", 1000, "JSON object body is required"),
        (b"\x80\x81", 1000, "not valid JSON"),
        (b'{"qty": Infinity}', 1000, "not valid JSON"),
    ],
)
def test_malformed_bodies(sandbox: Any, body: bytes, code: int, fragment: str) -> None:
    status, got, message = error_of(sandbox.request("POST", "/v1/rfqs/new", body))
    assert (status, got) == (400, code)
    assert fragment in message


@pytest.mark.parametrize(
    ("changes", "code", "fragment"),
    [
        ({"qty": "0"}, 1001, "qty: must be greater than 0"),
        ({"qty": "-1"}, 1001, "qty: must be greater than 0"),
        ({"qty": "lots"}, 1001, "qty"),
        ({"qty": None}, 1001, "qty"),
        ({"target_companies": "ALPHA"}, 1000, "target_companies"),
        ({"target_companies": ["not-a-uuid"]}, 1001, "target_companies.0"),
        ({"expires_at": [12]}, 1000, "expires_at"),
        ({"expires_at": 12}, 1001, "expires_at: must be in the future"),
        ({"expires_at": "yesterday"}, 1000, "expires_at"),
        ({"structure": {"legs": []}}, 1001, "structure.legs"),
        ({"structure": {"legs": [{"side": "buy"}]}}, 1000, "structure.legs.0.instrument"),
        (
            {
                "structure": {
                    "legs": [
                        {
                            "side": "buy",
                            "ratio": 0,
                            "instrument": {"instrument_type": "spot", "underlying": "BTC"},
                        }
                    ]
                }
            },
            1001,
            "structure.legs.0.ratio",
        ),
    ],
)
def test_bad_rfq_fields_are_named(
    sandbox: Any, changes: dict[str, Any], code: int, fragment: str
) -> None:
    response = sandbox.request("POST", "/v1/rfqs/new", json_body=rfq_body(sandbox, **changes))
    status, got, message = error_of(response)
    assert (status, got) == (400, code), message
    assert fragment in message


def test_missing_keys_and_engine_range_checks(sandbox: Any) -> None:
    body = rfq_body(sandbox)
    del body["qty"]
    status, code, message = error_of(sandbox.request("POST", "/v1/rfqs/new", json_body=body))
    assert (status, code) == (400, 1000) and "qty: field required" in message
    past = rfq_body(sandbox, expires_at=format_timestamp(sandbox.clock.now() - timedelta(1)))
    status, code, message = error_of(sandbox.request("POST", "/v1/rfqs/new", json_body=past))
    assert (status, code) == (400, 1001) and "expires_at" in message
    pool = sandbox.request(
        "POST",
        "/v1/settlement_pools/new",
        json_body={"pool_name": "p" * 51, "company_other": NIL},
    )
    status, code, message = error_of(pool)
    assert status == 400 and "pool_name" in message
    transfer = sandbox.request(
        "POST",
        "/v1/transfers/new",
        json_body={
            "asset": "ETH",
            "qty": "1",
            "target_pool_location": NIL,
            "counterparty": NIL,
            "transfer_type": "deposit",
        },
    )
    status, code, message = error_of(transfer)
    assert (status, code) == (400, 1001) and "asset" in message


@pytest.mark.parametrize(
    ("target", "fragment"),
    [
        ("/v1/portfolio/trades?id=123", "'id'"),
        ("/v1/portfolio/trades?pool=%ZZ", "'pool'"),
        ("/v1/transfers?limit=10001", "'limit'"),
        ("/v1/quotes?limit=1001", "'limit'"),
        ("/v1/quotes?offset=-5", "'offset'"),
        ("/v1/rfqs/sent?price=maybe", "'price'"),
        ("/v1/companies?colour=blue", "'colour'"),
        ("/v1/companies?limit=1&limit=2", "'limit'"),
    ],
)
def test_bad_query_parameters_over_http(sandbox: Any, target: str, fragment: str) -> None:
    status, code, message = error_of(sandbox.request("GET", target))
    assert (status, code) == (400, 1000)
    assert fragment in message


def test_oversized_body_is_refused_before_authentication(sandbox: Any) -> None:
    huge = b'{"pad": "' + b"x" * (1 << 20) + b'"}'
    response = sandbox.request("POST", "/v1/rfqs/new", huge, as_company=None)
    status, code, message = error_of(response)
    assert (status, code) == (413, 1001) and "larger than" in message
