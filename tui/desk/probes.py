"""Looking at a sandbox from outside: does it answer, does it listen, is its owning desk alive.

None of these is a client of the venue: they cost no request tokens (`listening` sends no
request at all) and never raise; each says yes or no (or which `Owner`). A plain-HTTP sandbox is
asked over a bare socket: the desk asks before its first frame, and an HTTP client (with its TLS
context) would cost more than the question.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Mapping
from enum import Enum
from typing import Any
from urllib.parse import urlsplit

__all__ = ["Owner", "answers_status", "listening", "owner_of"]


class Owner(Enum):
    """Whether the desk that started an attached sandbox is still there to restart it."""

    ALIVE = "alive"
    GONE = "gone"
    UNKNOWN = "unknown"
    """Not a desk's child (started by hand), or a credentials file that does not say."""


def owner_of(document: Mapping[str, Any]) -> tuple[Owner, int | None]:
    """The owner of the sandbox a credentials document describes, and its pid when known."""
    pid = document.get("owner_pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return Owner.UNKNOWN, None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return Owner.GONE, pid
    except PermissionError:  # there, but another user's: alive all the same
        return Owner.ALIVE, pid
    return Owner.ALIVE, pid


async def answers_status(base_url: str, wait_s: float = 2.0) -> bool:
    """Whether a sandbox (or venue) answers ``GET /v1/status`` at ``base_url`` with a 200."""
    url = urlsplit(base_url)
    if url.scheme == "http" and url.hostname:
        port = _port(base_url)
        return port is not None and await _plain_status(url.hostname, port, url.path, wait_s)
    import httpx  # only a TLS venue is asked through an HTTP client

    try:
        async with httpx.AsyncClient(base_url=base_url, timeout=wait_s) as client:
            response = await client.get("/v1/status")
    except httpx.HTTPError:
        return False
    return response.status_code == 200


async def _plain_status(host: str, port: int, prefix: str, wait_s: float) -> bool:
    """``GET {prefix}/v1/status`` over a bare connection: whether the status line says 200."""
    request = (
        f"GET {prefix.rstrip('/')}/v1/status HTTP/1.1\r\nHost: {host}:{port}\r\n"
        "Accept: application/json\r\nConnection: close\r\n\r\n"
    )
    writer = None
    try:
        async with asyncio.timeout(wait_s):
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(request.encode("ascii"))
            await writer.drain()
            status_line = await reader.readline()
    except (OSError, TimeoutError, UnicodeError):
        return False
    finally:
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
    parts = status_line.split()
    return len(parts) >= 2 and parts[0].startswith(b"HTTP/") and parts[1] == b"200"


async def listening(base_url: str, wait_s: float = 2.0) -> bool:
    """Whether anything accepts a TCP connection at ``base_url``'s host and port.

    How an attached sandbox is watched: no request is made, so the watch costs no rate limit
    and writes nothing to the sandbox's log.
    """
    host, port = urlsplit(base_url).hostname, _port(base_url)
    if not host or port is None:
        return False
    family = _ip_family(host)
    try:
        async with asyncio.timeout(wait_s):
            if family is not None:
                # An address (the sandbox's 127.0.0.1): a bare socket's connect, asked every
                # second, without the streams, transport and protocol a connection builds.
                with socket.socket(family, socket.SOCK_STREAM) as probe:
                    probe.setblocking(False)
                    await asyncio.get_running_loop().sock_connect(probe, (host, port))
                return True
            _reader, writer = await asyncio.open_connection(host, port)
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


def _ip_family(host: str) -> socket.AddressFamily | None:
    """The address family of ``host`` when it is an IP address, else None (a name)."""
    for family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            socket.inet_pton(family, host)
            return family
    return None


def _port(base_url: str) -> int | None:
    """The port ``base_url`` names, else its scheme's; None when it names no valid port."""
    url = urlsplit(base_url)
    try:
        return url.port or (443 if url.scheme == "https" else 80)
    except ValueError:
        return None
