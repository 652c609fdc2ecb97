"""Over a real socket on 127.0.0.1: reads seconds apart reuse one connection (issue 11: every
poll used to open a new one), while a write never goes out on a connection idle for longer than
`WRITES_KEEPALIVE_S`. The server tells connections apart by the client's port."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn

from tests.api.kit import API_KEY, API_SECRET
from tui.api.client import ServiceClient
from tui.api.client.transport import READS_KEEPALIVE_S, WRITES_KEEPALIVE_S

PAUSE_S = WRITES_KEEPALIVE_S + 0.2
"""Between two calls: longer than a write's keep-alive, far shorter than a read's."""


class CountingApp:
    """Answers the status and cancel-all calls; keeps each request's client address."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, tuple[str, int]]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        self.seen.append((scope["method"], tuple(scope["client"])))
        if scope["path"] == "/v1/status":
            result: Any = {"auth": None, "server_timestamp_ms": 1}
        else:
            result = True
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": json.dumps({"result": result}).encode()})

    def connections(self, method: str) -> int:
        """How many connections the ``method`` requests came on."""
        return len({client for seen, client in self.seen if seen == method})


@pytest.fixture
async def venue() -> AsyncIterator[tuple[str, CountingApp]]:
    """A server that keeps idle connections open for 30 s (as nginx or a load balancer do)."""
    app = CountingApp()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_keep_alive=30)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", app
    finally:
        server.should_exit = True
        await task
        sock.close()


async def test_reads_seconds_apart_reuse_one_connection(venue: tuple[str, CountingApp]) -> None:
    assert READS_KEEPALIVE_S > 10 * PAUSE_S
    base_url, app = venue
    async with ServiceClient(base_url, API_KEY, API_SECRET) as client:
        await client.sync_clock()
        await asyncio.sleep(PAUSE_S)
        await client.sync_clock()
    assert [method for method, _ in app.seen] == ["GET"] * 2
    assert app.connections("GET") == 1


async def test_a_write_never_goes_out_on_a_long_idle_connection(
    venue: tuple[str, CountingApp],
) -> None:
    base_url, app = venue
    async with ServiceClient(base_url, API_KEY, API_SECRET) as client:
        assert await client.quotes_cancel_all() is True
        await asyncio.sleep(PAUSE_S)
        assert await client.quotes_cancel_all() is True
    assert app.connections("POST") == 2
