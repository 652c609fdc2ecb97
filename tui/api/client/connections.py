"""The httpx connection pools of the API clients, made without TLS work for plain HTTP.

httpx builds a TLS context for every client it makes, loading the whole CA bundle (~20 ms
each), even for a client that only ever talks ``http://`` to the sandbox on loopback. A client
whose base URL is plain HTTP gets a bare TLS context instead: nothing is loaded, and should a
request ever leave for an ``https://`` URL it cannot verify any certificate, so it fails closed
rather than trusting anything.

httpcore asks, on every request (twice), whether ``sniffio`` can tell it which event loop runs;
without sniffio installed each ask is a failed import that searches every folder of the path
again (~0.15 ms each, a third of a poll's own CPU). `remember_missing_sniffio` files the
answer once, the way Python files any module known to be missing, and httpcore goes on with
asyncio as it would anyway.
"""

from __future__ import annotations

import importlib.util
import ssl
import sys
from collections.abc import Mapping
from typing import Any

import httpx

__all__ = ["connection_pool", "remember_missing_sniffio"]


def remember_missing_sniffio() -> None:
    """When ``sniffio`` is not installed, say so in `sys.modules` (None: known missing), so
    ``import sniffio`` fails at once instead of searching the path on every request."""
    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        sys.modules["sniffio"] = None  # type: ignore[assignment]


def connection_pool(
    base_url: str,
    *,
    transport: httpx.AsyncBaseTransport | None,
    timeout: float | httpx.Timeout,
    headers: Mapping[str, str],
    **options: Any,
) -> httpx.AsyncClient:
    """An `httpx.AsyncClient` for ``base_url``; no CA bundle is loaded for an ``http://`` one."""
    remember_missing_sniffio()
    if httpx.URL(base_url).scheme == "http":
        # Verification stays required: with no CA loaded, no certificate can pass.
        options["verify"] = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    return httpx.AsyncClient(
        base_url=base_url, transport=transport, timeout=timeout, headers=headers, **options
    )
