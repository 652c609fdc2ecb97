"""The probes that look at a sandbox before the first frame (`tui.desk.probes`): a plain-HTTP
sandbox is asked over a bare socket, with no HTTP client built (issue 11), and the answer is
still only yes for a 200 from ``/v1/status``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from tui.desk.probes import answers_status, listening


@asynccontextmanager
async def answering(status_line: bytes) -> AsyncIterator[str]:
    """A loopback server that reads a request and answers ``status_line``; its base URL."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(status_line + b"\r\ncontent-length: 2\r\n\r\n{}")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.close()
        await server.wait_closed()


def _no_http_client(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("an HTTP client was built to ask a plain-HTTP sandbox")

    monkeypatch.setattr(httpx, "AsyncClient", refuse)


async def test_a_running_sandbox_answers_without_an_http_client(
    sandbox: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_http_client(monkeypatch)
    assert await answers_status(sandbox.base_url)
    assert await listening(sandbox.base_url)


async def test_only_a_200_from_the_status_endpoint_is_an_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _no_http_client(monkeypatch)
    async with answering(b"HTTP/1.1 200 OK") as up:
        assert await answers_status(up)
    async with answering(b"HTTP/1.1 503 Service Unavailable") as busy:
        assert not await answers_status(busy)
    async with answering(b"SSH-2.0-OpenSSH") as other:
        assert not await answers_status(other)
    async with answering(b"HTTP/1.1 200 OK") as gone:
        pass
    assert not await answers_status(gone, wait_s=0.5)
    assert not await listening(gone, wait_s=0.5)
    assert not await answers_status("http://127.0.0.1:notaport")


async def test_an_address_is_watched_with_a_bare_connect(monkeypatch: pytest.MonkeyPatch) -> None:
    """The attached sandbox's watch, every second: an IP address is connected to with a bare
    socket, no streams built; whether it listens is told the same way."""

    def no_streams(*args: object, **kwargs: object) -> None:
        raise AssertionError("an address needs no stream")

    monkeypatch.setattr(asyncio, "open_connection", no_streams)
    async with answering(b"HTTP/1.1 200 OK") as up:
        assert await listening(up)
    assert not await listening(up, wait_s=0.5)
