"""Every ``--faults`` fault over real HTTP on 127.0.0.1, each at rate 1.0 with a seeded spec.

Faults go into the running app between requests (`SandboxApp.faults`), and come out again
before the test reads back what the engine did.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.sandbox.kit import rfq_request
from tui.api.client import ServiceClient
from tui.sandbox.engine.exchange import Exchange
from tui.sandbox.faults import FaultInjector, fault_clock, parse_faults
from tui.sandbox.http.hosting import BackgroundSandbox

RECEIVED = "X-Request-Received-Ms"
RESETS = "X-Rate-Limit-Resets-In-Ms"


def inject(sandbox: Any, spec: str | None) -> None:
    """Switch the faults of ``spec`` on (None: off), on the server's thread between requests."""
    injector = FaultInjector(parse_faults(spec)) if spec is not None else None
    sandbox.call(lambda _ex: setattr(sandbox.app, "faults", injector))


def new_rfq(sandbox: Any) -> tuple[bytes, dict[str, str]]:
    """An RFQ body DESK may send, and its signed headers (sent as they are, twice if need be)."""
    body = rfq_request(sandbox).model_dump_json(exclude_none=True).encode()
    return body, sandbox.signed_headers("POST", "/v1/rfqs/new", body)


def send(sandbox: Any, body: bytes, headers: dict[str, str]) -> httpx.Response:
    return sandbox.request("POST", "/v1/rfqs/new", body, as_company=None, headers=headers)


def rfqs_of_desk(sandbox: Any) -> int:
    desk = sandbox.caller("DESK")
    return int(sandbox.call(lambda ex: len(ex.rfqs_sent(desk, limit=1000, offset=0).items)))


def tokens_used(sandbox: Any) -> int:
    return int(sandbox.app.budget.used(sandbox.company_ids["DESK"], sandbox.clock.now_ms()))


def test_drop_before_closes_the_connection_and_the_engine_never_sees_the_write(
    sandbox: Any,
) -> None:
    before = rfqs_of_desk(sandbox)
    body, headers = new_rfq(sandbox)
    inject(sandbox, "drop_before=1,seed=7")
    with pytest.raises(httpx.TransportError):  # no status line, no 500: a broken connection
        send(sandbox, body, headers)
    with pytest.raises(httpx.TransportError):
        sandbox.request("GET", "/v1/status", as_company=None)
    inject(sandbox, None)
    assert rfqs_of_desk(sandbox) == before
    assert tokens_used(sandbox) == 0  # nothing charged
    # The server never took the write in, so the very same bytes now go through, once.
    assert send(sandbox, body, headers).status_code == 200
    assert rfqs_of_desk(sandbox) == before + 1


def test_drop_after_commits_the_write_and_loses_only_the_answer(sandbox: Any) -> None:
    before = rfqs_of_desk(sandbox)
    body, headers = new_rfq(sandbox)
    inject(sandbox, "drop_after=1,seed=7")
    with pytest.raises(httpx.TransportError):
        send(sandbox, body, headers)
    inject(sandbox, None)
    assert rfqs_of_desk(sandbox) == before + 1  # committed: read back
    assert tokens_used(sandbox) == 20
    # Sending the same signed bytes again cannot double it: the server knows them already.
    again = send(sandbox, body, headers)
    assert again.status_code == 401 and "replay" in again.json()["error"]["message"]
    assert rfqs_of_desk(sandbox) == before + 1


@pytest.mark.parametrize(
    ("spec", "status", "error", "headers"),
    [
        ("5xx=1", 500, {"code": 9000, "message": "internal server error"}, {}),
        (
            "429=1:2s",
            429,
            {
                "code": 5000,
                "message": "too many requests (an injected 429 storm); retry in 2000 ms",
            },
            {RESETS: "2000"},
        ),
    ],
)
def test_5xx_and_429_are_the_contract_envelopes_and_touch_nothing(
    sandbox: Any, spec: str, status: int, error: dict[str, Any], headers: dict[str, str]
) -> None:
    before = rfqs_of_desk(sandbox)
    body, signed = new_rfq(sandbox)
    inject(sandbox, f"{spec},seed=7")
    response = send(sandbox, body, signed)
    assert (response.status_code, response.json()) == (status, {"error": error})
    assert response.headers[RECEIVED] == str(sandbox.clock.now_ms())
    assert response.headers["content-type"] == "application/json"
    assert {name: response.headers[name] for name in headers} == headers
    assert sandbox.request("GET", "/v1/status").status_code == status  # every endpoint
    inject(sandbox, None)
    assert rfqs_of_desk(sandbox) == before and tokens_used(sandbox) == 0
    assert send(sandbox, body, signed).status_code == 200  # it never reached the engine


def test_latency_and_spikes_delay_the_answer(sandbox: Any) -> None:
    sandbox.request("GET", "/v1/status", as_company=None)  # the connection is open already
    inject(sandbox, "latency=120ms,seed=7")
    started = time.perf_counter()
    assert sandbox.request("GET", "/v1/status", as_company=None).status_code == 200
    assert time.perf_counter() - started >= 0.12
    inject(sandbox, "latency=50ms,spike=1:150ms,seed=7")
    started = time.perf_counter()
    assert sandbox.request("GET", "/v1/status", as_company=None).status_code == 200
    assert time.perf_counter() - started >= 0.2
    inject(sandbox, None)


def test_admin_is_never_faulted(sandbox: Any) -> None:
    inject(sandbox, "5xx=1,seed=7")
    moved = sandbox.request(
        "POST", "/admin/clock/advance", as_company=None, json_body={"seconds": 1}
    )
    assert moved.status_code == 200


def test_the_same_seed_meets_the_same_faults(sandbox: Any) -> None:
    spec = "5xx=0.3,429=0.2:1ms,drop_before=0.2,drop_after=0.2,seed=11"

    def outcomes() -> list[str]:
        inject(sandbox, spec)
        seen = []
        for _ in range(15):
            sandbox.advance(1)  # new anonymous budget, storms over
            try:
                seen.append(str(sandbox.request("GET", "/v1/status", as_company=None).status_code))
            except httpx.TransportError:
                seen.append("dropped")
        inject(sandbox, None)
        return seen

    first = outcomes()
    assert first == outcomes()
    assert {"200", "500", "429", "dropped"} <= set(first)


@pytest.fixture
def skewed(sandbox_template: Path, tmp_path: Path) -> Iterator[BackgroundSandbox]:
    """A sandbox on the real clock run 7 s behind it (``--faults skew=-7s``)."""
    db = tmp_path / "skewed.db"
    shutil.copyfile(sandbox_template, db)
    clock = fault_clock(parse_faults("skew=-7s"))
    server = BackgroundSandbox(
        lambda: Exchange.open(db, seed=7, clock=clock, block_delay_s=1.0), clock
    ).start()
    try:
        yield server
    finally:
        server.stop()


async def test_skew_runs_the_server_clock_off_real_time(skewed: BackgroundSandbox) -> None:
    async with httpx.AsyncClient(base_url=skewed.base_url, timeout=10) as http:
        sent = time.time_ns() // 1_000_000
        status = await http.get("/v1/status")
        back = time.time_ns() // 1_000_000
    server_ms = status.json()["result"]["server_timestamp_ms"]
    assert sent - 7_000 - 5 <= server_ms <= back - 7_000 + 5
    # The header is stamped on receipt, the body's time when the answer is made: both skewed.
    assert sent - 7_000 - 5 <= int(status.headers[RECEIVED]) <= server_ms
    # A client that learns the server's clock trades across the skew.
    entry = next(e for e in skewed.call(lambda ex: ex.credentials()) if e["short_name"] == "DESK")
    async with ServiceClient(skewed.base_url, entry["api_key"], entry["api_secret"]) as client:
        assert len((await client.companies()).result) > 1
