"""The sandbox's HTTP layer over real HTTP on 127.0.0.1: routing, envelopes and headers, the
status endpoint, a generic 500 for an engine failure, the admin clock.

Requests are built by hand with raw httpx (`tests.sandbox.kit.http` says why).
"""

from __future__ import annotations

from typing import Any

from tests.sandbox.kit.http import NIL, RECEIVED, error_of


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
