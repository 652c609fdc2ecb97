"""The sandbox's request-token budget over real HTTP on 127.0.0.1: refusals at the boundary
charge nothing, liveness calls still answer, anonymous and stats calls limited per address.

Requests are built by hand with raw httpx (`tests.sandbox.kit.http` says why).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import httpx

from tests.sandbox.kit.http import RECEIVED, RESETS, error_of


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
