"""Over a real socket on 127.0.0.1: what the server receives verifies against `sign()`.

MockTransport sees the request object httpx built; this checks the bytes that actually cross
the wire (path and query as the server's ASGI scope reports them, the body as read), with a
tiny ASGI app on uvicorn, so the signing contract holds end to end.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn

from tests.api.kit import API_KEY, API_SECRET
from tests.api.kit import records as rec
from tui.api.client import ServiceClient
from tui.api.errors import AuthError
from tui.api.models import NewSettlementPoolRequest
from tui.api.signing import verify

Scope = dict[str, Any]


class VerifyingApp:
    """Answers every request after checking its signature the way the sandbox does."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, bytes, bool]] = []

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        path = scope["raw_path"].decode()
        if scope["query_string"]:
            path += "?" + scope["query_string"].decode()
        valid = "x-service-signature" in headers and verify(
            headers.get("x-service-key", ""),
            API_SECRET,
            int(headers.get("x-request-timestamp-ms", "0")),
            scope["method"],
            path,
            body or None,
            headers["x-service-signature"],
        )
        self.seen.append((scope["method"], path, body, valid))
        if scope["path"] == "/v1/status":
            payload: Any = {"result": {"auth": None, "server_timestamp_ms": 1}}
            status = 200
        elif not valid:
            payload = {"error": {"code": 2000, "message": "bad signature"}}
            status = 401
        elif scope["path"] == "/v1/companies":
            payload = {"result": [rec.COMPANY], "pagination": {"next_page": None}}
            status = 200
        elif scope["path"] == "/v1/quotes/cancel_all":
            payload = {"result": True}
            status = 200
        else:
            payload = {"result": rec.SETTLEMENT_POOL}
            status = 200
        raw = json.dumps(payload).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": raw})


@pytest.fixture
async def loopback() -> AsyncIterator[tuple[str, VerifyingApp]]:
    app = VerifyingApp()
    # The socket listens before the server starts, so early connections just queue.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        await task
        sock.close()


async def test_signatures_verify_on_the_server_side(loopback: tuple[str, VerifyingApp]) -> None:
    base_url, app = loopback
    pool = NewSettlementPoolRequest.model_validate(
        {
            "pool_name": "Désk ↔ Alpha",
            "company_other": rec.MAKER,
            "creator_params": rec.MARGIN_PARAMS,
            "other_params": rec.MARGIN_PARAMS,
        }
    )
    async with ServiceClient(base_url, API_KEY, API_SECRET) as client:
        await client.sync_clock()
        await client.companies(id=rec.ME, limit=10)
        await client.settlement_pools_new(pool)
        assert await client.quotes_cancel_all() is True
    assert [(method, valid) for method, _, _, valid in app.seen] == [
        ("GET", False),  # the clock sync is deliberately unsigned
        ("GET", True),
        ("POST", True),
        ("POST", True),
    ]
    assert app.seen[1][1] == f"/v1/companies?id={rec.ME}&limit=10"
    assert json.loads(app.seen[2][2]) == pool.to_wire()
    assert app.seen[3][2] == b""


async def test_a_wrong_secret_is_refused(loopback: tuple[str, VerifyingApp]) -> None:
    base_url, _ = loopback
    async with ServiceClient(base_url, API_KEY, "00" * 32) as client:
        with pytest.raises(AuthError):
            await client.companies()
