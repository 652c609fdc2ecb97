"""The httpx connection pools of the API clients, made without TLS work for plain HTTP.

httpx builds a TLS context for every client it makes, loading the whole CA bundle (~20 ms
each), even for a client that only ever talks ``http://`` to the sandbox on loopback. A client
whose base URL is plain HTTP gets a bare TLS context instead: nothing is loaded, and should a
request ever leave for an ``https://`` URL it cannot verify any certificate, so it fails closed
rather than trusting anything.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from typing import Any

import httpx

__all__ = ["connection_pool"]


def connection_pool(
    base_url: str,
    *,
    transport: httpx.AsyncBaseTransport | None,
    timeout: float | httpx.Timeout,
    headers: Mapping[str, str],
    **options: Any,
) -> httpx.AsyncClient:
    """An `httpx.AsyncClient` for ``base_url``; no CA bundle is loaded for an ``http://`` one."""
    if httpx.URL(base_url).scheme == "http":
        # Verification stays required: with no CA loaded, no certificate can pass.
        options["verify"] = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    return httpx.AsyncClient(
        base_url=base_url, transport=transport, timeout=timeout, headers=headers, **options
    )
