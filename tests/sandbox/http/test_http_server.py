"""The sandbox's HTTP layer over real HTTP on 127.0.0.1: routing, auth, limits, refusals.

Requests here are built by hand (raw httpx, signed with the shared signing function) so the
tests can send exactly the malformed, mis-signed or over-budget requests a good client never
would. The happy paths through `ServiceClient` are in ``test_e2e_*``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest

from tui.api.endpoints import ENDPOINTS, Method
from tui.api.types import format_timestamp

RECEIVED = "X-Request-Received-Ms"
RESETS = "X-Rate-Limit-Resets-In-Ms"
NIL = "00000000-0000-4000-8000-000000000000"


def error_of(response: httpx.Response) -> tuple[int, int, str]:
    """(HTTP status, error code, message) of a refusal, checking the envelope's shape."""
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message"}
    return response.status_code, body["error"]["code"], body["error"]["message"]


# -- routing and envelopes ---------------------------------------------------------------------


def test_unknown_path_is_404_and_wrong_method_405(sandbox: Any) -> None:
    missing = sandbox.request("GET", "/v1/nothing/here")
    assert error_of(missing)[:2] == (404, 3000)
    trailing = sandbox.request("GET", "/v1/companies/")
    assert error_of(trailing)[:2] == (404, 3000)
    wrong = sandbox.request("GET", "/v1/quotes/new")
    assert error_of(wrong)[:2] == (405, 1000)
    assert wrong.headers["allow"] == "POST"
    stats_post = sandbox.request("POST", "/metadata/stats", as_company=None)
    assert error_of(stats_post)[:2] == (405, 1000)
    admin_get = sandbox.request("GET", "/admin/clock/advance", as_company=None)
    assert error_of(admin_get)[:2] == (405, 1000)


def test_received_header_on_every_response(sandbox: Any) -> None:
    now = str(sandbox.clock.now_ms())
    responses = [
        sandbox.request("GET", "/v1/status", as_company=None),  # 200
        sandbox.request("GET", "/v1/companies?limit=2"),  # 200 page
        sandbox.request("GET", "/v1/companies", as_company=None),  # 401
        sandbox.request("GET", "/v1/companies?limit=0"),  # 400
        sandbox.request("POST", "/v1/quotes/cancel", json_body={"id": NIL}),  # 404 engine
        sandbox.request("GET", "/nowhere", as_company=None),  # 404 route
        sandbox.request("PUT", "/v1/companies", as_company=None),  # 405
        sandbox.request("GET", "/metadata/stats", as_company=None),  # 200 stats
        sandbox.request("POST", "/v1/rfqs/new", b"x" * (1 << 20 | 1)),  # 413
    ]
    statuses = [r.status_code for r in responses]
    assert statuses == [200, 200, 401, 400, 404, 404, 405, 200, 413]
    assert all(r.headers[RECEIVED] == now for r in responses)
    assert all(r.headers["content-type"] == "application/json" for r in responses)


def test_page_and_single_envelopes(sandbox: Any) -> None:
    page = sandbox.request("GET", "/v1/companies?limit=3").json()
    assert set(page) == {"result", "pagination"}
    assert len(page["result"]) == 3
    assert page["pagination"] == {"next_page": {"limit": "3", "offset": "3"}}
    last = sandbox.request("GET", "/v1/companies?limit=3&offset=6").json()
    assert len(last["result"]) == 1 and last["pagination"] == {"next_page": None}
    summary = sandbox.request("GET", "/v1/portfolio/summary").json()
    assert set(summary) == {"result"} and isinstance(summary["result"]["sum_balance"], str)
    assets = sandbox.request("GET", "/v1/metadata/supported_assets", as_company=None).json()
    assert "BTC" in assets["result"] and isinstance(assets["result"]["BTC"], list)
    stats = sandbox.request("GET", "/metadata/stats", as_company=None).json()
    assert "result" not in stats and isinstance(stats["num_markets"], int)


def test_status_reports_the_key_and_ignores_bad_credentials(sandbox: Any) -> None:
    anonymous = sandbox.request("GET", "/v1/status", as_company=None).json()["result"]
    assert anonymous == {"auth": None, "server_timestamp_ms": sandbox.clock.now_ms()}
    signed = sandbox.request("GET", "/v1/status").json()["result"]
    desk = sandbox.credentials["DESK"]
    assert signed["auth"] == {"key_id": desk["key_id"], "company_id": desk["id"], "role": "writer"}
    reader = sandbox.request("GET", "/v1/status", reader=True).json()["result"]
    assert reader["auth"]["role"] == "reader"
    # A wrong signature or clock on status is no refusal: the caller still learns server time.
    skewed = sandbox.request("GET", "/v1/status", timestamp_ms=sandbox.clock.now_ms() - 60_000)
    assert skewed.status_code == 200 and skewed.json()["result"]["auth"] is None
    forged = sandbox.request("GET", "/v1/status", headers={"X-Service-Signature": "ab" * 32})
    assert forged.status_code == 200 and forged.json()["result"]["auth"] is None


# -- authentication ----------------------------------------------------------------------------


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


# -- request-token budget ----------------------------------------------------------------------


def cancel_all(sandbox: Any, stamps: Iterator[int]) -> httpx.Response:
    """``POST /v1/quotes/cancel_all`` signed afresh: the same signed write twice is a replay,
    so on the frozen clock each call signs a timestamp of its own (a few ms back, well inside
    the skew window); the server still takes it in at the clock's instant."""
    return sandbox.request(
        "POST",
        "/v1/quotes/cancel_all",
        timestamp_ms=sandbox.clock.now_ms() - next(stamps),
    )


def test_budget_refuses_exactly_at_the_boundary_and_charges_nothing_when_refused(
    sandbox: Any,
) -> None:
    desk = sandbox.company_ids["DESK"]
    now = sandbox.clock.now_ms

    def used() -> int:
        return int(sandbox.app.budget.used(desk, now()))

    stamps = itertools.count()
    for _ in range(5):  # 5 x 20 tokens: exactly the budget
        assert cancel_all(sandbox, stamps).json() == {"result": True}
    assert used() == 100
    refused = cancel_all(sandbox, stamps)
    assert error_of(refused)[:2] == (429, 5000)
    assert refused.headers[RESETS] == "10000"
    assert refused.headers[RECEIVED] == str(now())
    assert error_of(sandbox.request("GET", "/v1/companies?limit=1"))[:2] == (429, 5000)
    assert used() == 100  # refusals charged nothing
    # The budget is the company's: its reader key shares it, other companies have their own.
    assert sandbox.request("GET", "/v1/companies", reader=True).status_code == 429
    assert sandbox.request("POST", "/v1/quotes/cancel_all", as_company="ALPHA").status_code == 200

    sandbox.advance(9.999)
    assert sandbox.request("GET", "/v1/companies?limit=1").headers[RESETS] == "1"
    sandbox.advance(0.001)  # the first spend has left the 10 s window
    assert sandbox.request("POST", "/v1/quotes/cancel_all").status_code == 200

    sandbox.advance(10)
    for _ in range(4):
        assert cancel_all(sandbox, stamps).status_code == 200
    assert sandbox.request("GET", "/v1/rfqs/received").status_code == 200  # 10 tokens: 90
    too_big = cancel_all(sandbox, stamps)
    assert error_of(too_big)[:2] == (429, 5000)
    for _ in range(10):  # ... but ten 1-token calls still fit
        assert sandbox.request("GET", "/v1/companies?limit=1").status_code == 200
    assert used() == 100
    assert sandbox.request("GET", "/v1/companies?limit=1").status_code == 429


def test_refusals_before_the_budget_cost_nothing_and_bad_input_costs_its_price(
    sandbox: Any,
) -> None:
    desk = sandbox.company_ids["DESK"]
    sandbox.request("GET", "/v1/companies", headers={"X-Service-Signature": "0" * 64})
    sandbox.request("POST", "/v1/quotes/new", b"{}", reader=True)
    assert sandbox.app.budget.used(desk, sandbox.clock.now_ms()) == 0
    # Input is parsed after the charge (as a gateway would): a malformed POST still costs 20.
    assert sandbox.request("POST", "/v1/quotes/new", b"{").status_code == 400
    assert sandbox.app.budget.used(desk, sandbox.clock.now_ms()) == 20


def test_liveness_endpoints_answer_a_company_whose_budget_is_spent(sandbox: Any) -> None:
    desk = sandbox.company_ids["DESK"]
    now = sandbox.clock.now_ms
    assert sandbox.request("GET", "/v1/status").status_code == 200
    assert sandbox.app.budget.used(desk, now()) == 1  # charged while tokens are there
    sandbox.advance(10)
    stamps = itertools.count()
    for _ in range(5):
        cancel_all(sandbox, stamps)
    assert error_of(sandbox.request("GET", "/v1/companies?limit=1"))[:2] == (429, 5000)
    status = sandbox.request("GET", "/v1/status")
    assert status.status_code == 200
    assert status.json()["result"]["auth"]["company_id"] == desk
    assets = sandbox.request("GET", "/v1/metadata/supported_assets")
    assert assets.status_code == 200 and "BTC" in assets.json()["result"]
    assert sandbox.request("GET", "/v1/status", reader=True).status_code == 200
    assert sandbox.app.budget.used(desk, now()) == 100  # ... and never over the budget


def test_anonymous_liveness_calls_are_limited_per_address(sandbox: Any) -> None:
    for index in range(20):
        path = "/v1/status" if index % 2 else "/v1/metadata/supported_assets"
        assert sandbox.request("GET", path, as_company=None).status_code == 200
    refused = sandbox.request("GET", "/v1/status", as_company=None)
    status, code, message = error_of(refused)
    assert (status, code) == (429, 5000) and "sign the request" in message
    assert refused.headers[RESETS] == "10000"
    assert refused.headers[RECEIVED] == str(sandbox.clock.now_ms())
    # A bad signature counts as anonymous; a good one is not limited by address.
    forged = sandbox.request("GET", "/v1/status", headers={"X-Service-Signature": "ab" * 32})
    assert forged.status_code == 429
    assert sandbox.request("GET", "/v1/status").status_code == 200
    sandbox.advance(10)
    assert sandbox.request("GET", "/v1/status", as_company=None).status_code == 200


def test_stats_limit_per_client_address(sandbox: Any) -> None:
    for _ in range(10):
        assert sandbox.request("GET", "/metadata/stats", as_company=None).status_code == 200
    refused = sandbox.request("GET", "/metadata/stats", as_company=None)
    assert error_of(refused)[:2] == (429, 5000)
    assert refused.headers[RESETS] == "10000"
    # Signed trading calls are not affected by the stats limit, nor the other way round.
    assert sandbox.request("GET", "/v1/companies?limit=1").status_code == 200
    sandbox.advance(10)
    assert sandbox.request("GET", "/metadata/stats", as_company=None).status_code == 200


# -- bad input: always a 400 naming the field, never a 500 ---------------------------------------


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


def test_unexpected_engine_failure_is_a_generic_500(sandbox: Any) -> None:
    def boom(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("secret internal detail /etc/passwd")

    sandbox.call(lambda ex: setattr(ex, "companies", boom))
    response = sandbox.request("GET", "/v1/companies")
    status, code, message = error_of(response)
    assert (status, code, message) == (500, 9000, "internal server error")
    assert "secret internal detail" not in response.text and "Traceback" not in response.text
    assert response.headers[RECEIVED] == str(sandbox.clock.now_ms())
    assert sandbox.request("GET", "/v1/status", as_company=None).status_code == 200


# -- admin -------------------------------------------------------------------------------------


def test_admin_clock_advance(sandbox: Any, sandbox_factory: Any) -> None:
    before = sandbox.clock.now_ms()
    moved = sandbox.request(
        "POST", "/admin/clock/advance", as_company=None, json_body={"seconds": 90}
    )
    assert moved.json() == {"result": {"server_timestamp_ms": before + 90_000}}
    assert sandbox.clock.now_ms() == before + 90_000
    for bad in ({"seconds": -1}, {"seconds": "soon"}, {"seconds": True}, {}):
        response = sandbox.request("POST", "/admin/clock/advance", as_company=None, json_body=bad)
        assert response.status_code == 400, bad
    closed = sandbox_factory(admin=False)
    response = closed.request(
        "POST", "/admin/clock/advance", as_company=None, json_body={"seconds": 1}
    )
    assert error_of(response)[:2] == (404, 3000)
