"""Replays, forwarded addresses and the budget's reset header, over real HTTP on 127.0.0.1.

- An exact replay of a signed write is refused (401/2000 naming the replay); the same write
  signed afresh is not; reads may be replayed.
- ``X-Forwarded-For`` means nothing unless the server was told to trust the proxy that sent it.
- ``X-Rate-Limit-Resets-In-Ms`` is exact: the refused call fits again at the server instant
  ``X-Request-Received-Ms + X-Rate-Limit-Resets-In-Ms`` and not a millisecond before.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.engine.exchange import Exchange
from tui.sandbox.http.hosting import BackgroundSandbox

RECEIVED = "X-Request-Received-Ms"
RESETS = "X-Rate-Limit-Resets-In-Ms"
NIL = "00000000-0000-4000-8000-000000000000"
START_MS = 1_767_614_400_000


def error_of(response: httpx.Response) -> tuple[int, int, str]:
    body = response.json()
    assert set(body) == {"error"}, body
    return response.status_code, body["error"]["code"], body["error"]["message"]


# -- replays -----------------------------------------------------------------------------------


def test_an_exact_replay_of_a_signed_write_is_refused(sandbox: Any) -> None:
    headers = sandbox.signed_headers("POST", "/v1/quotes/cancel_all")
    first = sandbox.request("POST", "/v1/quotes/cancel_all", as_company=None, headers=headers)
    assert first.status_code == 200
    sandbox.advance(4.999)  # still inside the 5 s window of the original timestamp
    replay = sandbox.request("POST", "/v1/quotes/cancel_all", as_company=None, headers=headers)
    status, code, message = error_of(replay)
    assert (status, code) == (401, 2000) and "replay" in message
    desk = sandbox.company_ids["DESK"]
    assert sandbox.app.budget.used(desk, sandbox.clock.now_ms()) == 20  # the replay cost nothing
    fresh = sandbox.request("POST", "/v1/quotes/cancel_all")  # signed afresh: a new timestamp
    assert fresh.status_code == 200
    sandbox.advance(0.002)  # past the window, the old timestamp is refused as stale
    stale = sandbox.request("POST", "/v1/quotes/cancel_all", as_company=None, headers=headers)
    assert error_of(stale)[:2] == (401, 2001)


def test_a_replayed_write_with_a_body_is_refused_and_does_nothing(sandbox: Any) -> None:
    body = b'{"id":"' + NIL.encode() + b'"}'
    headers = sandbox.signed_headers("POST", "/v1/rfqs/cancel", body)
    first = sandbox.request("POST", "/v1/rfqs/cancel", body, as_company=None, headers=headers)
    assert error_of(first)[:2] == (404, 3000)  # reached the engine (no such RFQ)
    again = sandbox.request("POST", "/v1/rfqs/cancel", body, as_company=None, headers=headers)
    assert error_of(again)[:2] == (401, 2000)
    # Another company's key signing the same bytes at the same instant is no replay.
    other = sandbox.signed_headers("POST", "/v1/rfqs/cancel", body, as_company="ALPHA")
    assert other["X-Request-Timestamp-Ms"] == headers["X-Request-Timestamp-Ms"]
    theirs = sandbox.request("POST", "/v1/rfqs/cancel", body, as_company=None, headers=other)
    assert error_of(theirs)[:2] == (404, 3000)


def test_refused_writes_are_not_remembered_and_reads_may_be_replayed(sandbox: Any) -> None:
    desk = sandbox.company_ids["DESK"]
    assert sandbox.request("POST", "/v1/quotes/cancel_all").status_code == 200  # 20 at t0
    sandbox.advance(6)
    for _ in range(4):  # distinct writes (each its own timestamp): the budget is spent
        sandbox.advance(0.001)
        assert sandbox.request("POST", "/v1/quotes/cancel_all").status_code == 200
    sandbox.advance(0.001)
    headers = sandbox.signed_headers("POST", "/v1/quotes/cancel_all")
    refused = sandbox.request("POST", "/v1/quotes/cancel_all", as_company=None, headers=headers)
    assert error_of(refused)[:2] == (429, 5000)
    sandbox.advance(int(refused.headers[RESETS]) / 1000)  # the 20 of t0 leave; 4 s later
    # The 429 never reached the engine, so the very same bytes are no replay.
    again = sandbox.request("POST", "/v1/quotes/cancel_all", as_company=None, headers=headers)
    assert again.status_code == 200
    sandbox.advance(10)
    read = sandbox.signed_headers("GET", "/v1/companies?limit=1")
    for _ in range(3):  # a GET changes nothing: the same signed read is served again
        response = sandbox.request("GET", "/v1/companies?limit=1", as_company=None, headers=read)
        assert response.status_code == 200
    assert sandbox.app.budget.used(desk, sandbox.clock.now_ms()) == 3


# -- X-Forwarded-For ---------------------------------------------------------------------------


def test_forwarded_for_is_ignored_without_a_trusted_proxy(sandbox: Any) -> None:
    for index in range(10):
        spoofed = {"X-Forwarded-For": f"9.9.9.{index}"} if index % 2 else {}
        stats = sandbox.request("GET", "/metadata/stats", as_company=None, headers=spoofed)
        assert stats.status_code == 200
    eleventh = sandbox.request(
        "GET", "/metadata/stats", as_company=None, headers={"X-Forwarded-For": "9.9.9.9"}
    )
    assert error_of(eleventh)[:2] == (429, 5000)  # limited as itself: 11 in 10 s
    admin = sandbox.request(
        "POST",
        "/admin/clock/advance",
        as_company=None,
        headers={"X-Forwarded-For": "9.9.9.9"},
        json_body={"seconds": 1},
    )
    assert admin.status_code == 200  # the admin check sees the loopback peer


@pytest.fixture
def behind_proxy(sandbox_template: Path, tmp_path: Path) -> Iterator[str]:
    """A sandbox told to trust 127.0.0.1 as its proxy; yields its base URL."""
    db = tmp_path / "proxied.db"
    shutil.copyfile(sandbox_template, db)
    clock = SandboxClock(frozen_at_ms=START_MS)
    server = BackgroundSandbox(
        lambda: Exchange.open(db, seed=7, clock=clock, block_delay_s=1.0),
        clock,
        admin=True,
        trusted_proxies=("127.0.0.1",),
    ).start()
    try:
        yield server.base_url
    finally:
        server.stop()


def test_a_trusted_proxy_names_the_client(behind_proxy: str) -> None:
    with httpx.Client(base_url=behind_proxy, timeout=10) as http:
        for index in range(10):
            assert http.get("/metadata/stats").status_code == 200, index
        assert http.get("/metadata/stats").status_code == 429
        forwarded = http.get("/metadata/stats", headers={"X-Forwarded-For": "9.9.9.9"})
        assert forwarded.status_code == 200  # the proxy's client has a budget of its own
        admin = http.post(
            "/admin/clock/advance",
            json={"seconds": 1},
            headers={"X-Forwarded-For": "9.9.9.9"},
        )
        assert error_of(admin)[:2] == (403, 2002)  # not loopback, as the proxy says


# -- the budget's reset header -----------------------------------------------------------------


def test_two_keys_of_one_company_are_admitted_exactly_when_the_reset_header_says(
    sandbox: Any,
) -> None:
    """Writer and reader share one window; the refused call fits at received + resets."""
    desk = sandbox.company_ids["DESK"]
    steps = [
        (0.0, "POST", "/v1/quotes/cancel_all", False),  # 20 at t0
        (1.0, "GET", "/v1/rfqs/received", True),  # 10 at t0 + 1 s
        (0.5, "GET", "/v1/rfqs/received", True),  # 10 at t0 + 1.5 s
        (0.7, "POST", "/v1/quotes/cancel_all", False),  # 20 at t0 + 2.2 s
        (0.3, "POST", "/v1/quotes/cancel_all", False),  # 20 at t0 + 2.5 s
        (0.25, "GET", "/v1/rfqs/sent", True),  # 10 at t0 + 2.75 s: 90 in all
    ]
    t0 = sandbox.clock.now_ms()
    for seconds, method, path, reader in steps:
        sandbox.advance(seconds)
        assert sandbox.request(method, path, reader=reader).status_code == 200, path
    assert sandbox.app.budget.used(desk, sandbox.clock.now_ms()) == 90
    sandbox.advance(0.25)
    refused = sandbox.request("POST", "/v1/quotes/cancel_all")
    assert error_of(refused)[:2] == (429, 5000)
    received, resets = int(refused.headers[RECEIVED]), int(refused.headers[RESETS])
    assert received + resets == t0 + 10_000  # the 20 tokens of t0 leave the window then
    sandbox.advance((resets - 1) / 1000)
    early = sandbox.request("POST", "/v1/quotes/cancel_all", reader=False)
    assert error_of(early)[:2] == (429, 5000) and early.headers[RESETS] == "1"
    sandbox.advance(0.001)
    assert sandbox.clock.now_ms() == received + resets
    assert sandbox.request("POST", "/v1/quotes/cancel_all").status_code == 200
    assert sandbox.app.budget.used(desk, sandbox.clock.now_ms()) == 90
