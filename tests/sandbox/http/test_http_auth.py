"""The sandbox's HTTP authentication over real HTTP on 127.0.0.1: missing, unknown and forged
credentials, the signature over the exact target and body, the clock-skew window, reader keys.

Requests are built by hand with raw httpx (`tests.sandbox.kit.http` says why).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.sandbox.kit.http import NIL, error_of
from tui.api.endpoints import ENDPOINTS, Method


def test_missing_unknown_and_forged_credentials_are_401_2000(sandbox: Any) -> None:
    none = sandbox.request("GET", "/v1/companies", as_company=None)
    assert error_of(none)[:2] == (401, 2000)
    partial = sandbox.request(
        "GET", "/v1/companies", as_company=None, headers={"X-Service-Key": "k"}
    )
    status, code, message = error_of(partial)
    assert (status, code) == (401, 2000) and "X-Request-Timestamp-Ms" in message
    unknown = sandbox.request("GET", "/v1/companies", headers={"X-Service-Key": NIL})
    assert error_of(unknown)[:2] == (401, 2000)
    bad = sandbox.request("GET", "/v1/companies", headers={"X-Service-Signature": "0" * 64})
    assert error_of(bad)[:2] == (401, 2000)
    other_company = sandbox.signed_headers("GET", "/v1/companies", as_company="ALPHA")
    swapped = sandbox.request(
        "GET",
        "/v1/companies",
        headers={"X-Service-Signature": other_company["X-Service-Signature"]},
    )
    assert error_of(swapped)[:2] == (401, 2000)
    secret = sandbox.credentials["DESK"]["api_secret"]
    assert all(secret not in r.text for r in (none, partial, unknown, bad, swapped))


def test_signature_covers_the_exact_query_and_body(sandbox: Any) -> None:
    signed_for = sandbox.signed_headers("GET", "/v1/companies?limit=5&offset=0")
    reordered = sandbox.request(
        "GET", "/v1/companies?offset=0&limit=5", as_company=None, headers=signed_for
    )
    assert error_of(reordered)[:2] == (401, 2000)
    exact = sandbox.request(
        "GET", "/v1/companies?limit=5&offset=0", as_company=None, headers=signed_for
    )
    assert exact.status_code == 200
    # Percent-encoding is part of what is signed: the raw target, not a re-encoded form.
    encoded = f"/v1/companies?id={NIL.replace('-', '%2D')}"
    assert sandbox.request("GET", encoded).status_code == 200
    body = json.dumps({"id": NIL}).encode()
    signed_body = sandbox.signed_headers("POST", "/v1/rfqs/cancel", body)
    tampered = sandbox.request(
        "POST",
        "/v1/rfqs/cancel",
        json.dumps({"id": NIL.replace("0", "1")}).encode(),
        as_company=None,
        headers=signed_body,
    )
    assert error_of(tampered)[:2] == (401, 2000)
    spaced = sandbox.request(
        "POST", "/v1/rfqs/cancel", body + b" ", as_company=None, headers=signed_body
    )
    assert error_of(spaced)[:2] == (401, 2000)
    original = sandbox.request(
        "POST", "/v1/rfqs/cancel", body, as_company=None, headers=signed_body
    )
    assert error_of(original)[:2] == (404, 3000)  # authenticated; the RFQ just does not exist


@pytest.mark.parametrize(
    ("skew_ms", "status", "code"),
    [(5000, 200, None), (-5000, 200, None), (5001, 401, 2001), (-5001, 401, 2001)],
)
def test_timestamp_skew_of_exactly_five_seconds_is_accepted(
    sandbox: Any, skew_ms: int, status: int, code: int | None
) -> None:
    sandbox.advance(30)  # the sandbox clock, not the wall clock, is the reference
    response = sandbox.request(
        "GET", "/v1/companies?limit=1", timestamp_ms=sandbox.clock.now_ms() + skew_ms
    )
    assert response.status_code == status
    if code is not None:
        assert error_of(response)[1] == code
        assert "GET /v1/status" in response.json()["error"]["message"]


def test_reader_keys_read_but_never_write(sandbox: Any) -> None:
    assert sandbox.request("GET", "/v1/portfolio/trades", reader=True).status_code == 200
    writes = [e for e in ENDPOINTS if e.writes]
    assert {e.method for e in writes} == {Method.POST}
    for endpoint in writes:
        response = sandbox.request("POST", endpoint.path, b"{}", reader=True)
        assert error_of(response)[:2] == (403, 2002), endpoint.name
    assert sandbox.app.budget.used(sandbox.company_ids["DESK"], sandbox.clock.now_ms()) == 1
