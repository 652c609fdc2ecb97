"""HMAC-SHA256 request signing of the trading API, as a pure function and as an `httpx.Auth`.

The signed message is ``<key>|<timestamp_ms>|<METHOD>|<path_and_query>``, extended by ``|`` and
the exact body bytes when the request has a body (an empty body adds nothing). The HMAC key is
the hex-decoded API secret; the signature travels as lowercase hex. `signing_message` is the one
spelling of those bytes and `message_signature` the one spelling of the HMAC: the client's
`ServiceAuth` signs with them and the sandbox verifies with them, so the two cannot drift apart.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    from pydantic import SecretStr

__all__ = [
    "KEY_HEADER",
    "SIGNATURE_HEADER",
    "TIMESTAMP_HEADER",
    "ServiceAuth",
    "message_signature",
    "sign",
    "signing_message",
    "system_time_ms",
    "verify",
]

_READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

TIMESTAMP_HEADER = "X-Request-Timestamp-Ms"
KEY_HEADER = "X-Service-Key"
SIGNATURE_HEADER = "X-Service-Signature"


def _secret_key(api_secret: str | SecretStr) -> bytes:
    # Duck-typed: importing pydantic's SecretStr here would cost the client's import ~20 ms.
    reveal = getattr(api_secret, "get_secret_value", None)
    raw: Any = reveal() if callable(reveal) else api_secret
    try:
        return bytes.fromhex(raw.strip())
    except (ValueError, AttributeError):
        # Never echo the secret, not even a fragment of it.
        raise ValueError("api_secret must be a hexadecimal string") from None


def signing_message(
    api_key: str,
    timestamp_ms: int,
    method: str,
    path_and_query: str | bytes,
    body: bytes | None,
) -> bytes:
    """The exact bytes that get signed for one request (useful to debug a signature mismatch).

    ``path_and_query`` is the request target exactly as on the wire: the client passes the text
    it sends, the sandbox the raw bytes it received (building the message from those bytes, not
    from a decoded and re-encoded URL, is what makes "exactly as sent" hold on its side).
    """
    target = path_and_query if isinstance(path_and_query, bytes) else path_and_query.encode()
    head = f"{api_key}|{int(timestamp_ms)}|{method.upper()}|".encode() + target
    return head + b"|" + body if body else head


def message_signature(secret_key: bytes, message: bytes) -> str:
    """The lowercase hex HMAC-SHA256 of ``message`` under the (hex-decoded) ``secret_key``."""
    return hmac.new(secret_key, message, hashlib.sha256).hexdigest()


def sign(
    api_key: str,
    api_secret: str | SecretStr,
    timestamp_ms: int,
    method: str,
    path_and_query: str,
    body: bytes | None,
) -> str:
    """The lowercase hex HMAC-SHA256 signature of one request.

    ``path_and_query`` is the path with its query string exactly as sent; ``body`` the exact
    request body bytes (None or empty when there is none).
    """
    message = signing_message(api_key, timestamp_ms, method, path_and_query, body)
    return message_signature(_secret_key(api_secret), message)


def verify(
    api_key: str,
    api_secret: str | SecretStr,
    timestamp_ms: int,
    method: str,
    path_and_query: str,
    body: bytes | None,
    signature: str,
) -> bool:
    """True when ``signature`` is the valid signature of this request (constant-time compare)."""
    expected = sign(api_key, api_secret, timestamp_ms, method, path_and_query, body)
    return hmac.compare_digest(expected.encode(), signature.strip().lower().encode())


def system_time_ms() -> int:
    """The local wall clock in Unix milliseconds (the default timestamp source)."""
    return time.time_ns() // 1_000_000


class ServiceAuth(httpx.Auth):
    """Signs every request httpx sends with the three authentication headers.

    The signature covers what goes on the wire: ``request.url.raw_path`` (path and query as
    encoded) and ``request.content`` (the body bytes). ``timestamp_ms`` is called at signing
    time, so a clock corrected for server offset keeps requests inside the 5 s skew window,
    and a retried request is signed afresh. The secret is held as a `SecretStr`; neither repr
    nor str of this object shows it.

    Writes are stamped strictly later than the previous write (one millisecond on when the
    clock has not moved): the server carries out a signed write at most once and refuses the
    same signed bytes again as a replay, so two identical writes sent within one millisecond
    (or on a frozen test clock) must not sign alike. Reads keep the clock's value.
    """

    requires_request_body = True

    def __init__(
        self,
        api_key: str,
        api_secret: str | SecretStr,
        timestamp_ms: Callable[[], int] = system_time_ms,
    ) -> None:
        from pydantic import SecretStr  # at first use, not at import (see `_secret_key`)

        _secret_key(api_secret)  # fail early, and clearly, on a malformed secret
        self.api_key = api_key
        self._secret = (
            api_secret if isinstance(api_secret, SecretStr) else SecretStr(api_secret.strip())
        )
        self._timestamp_ms = timestamp_ms
        self._last_write_ms: int | None = None

    def __repr__(self) -> str:
        return f"ServiceAuth(api_key={self.api_key!r}, api_secret=SecretStr('**********'))"

    __str__ = __repr__

    def headers_for(
        self, method: str, path_and_query: str, body: bytes | None, timestamp_ms: int | None = None
    ) -> dict[str, str]:
        """The three authentication headers for one request (``timestamp_ms`` None: now,
        strictly after the previous write when this is a write)."""
        if timestamp_ms is not None:
            ts = timestamp_ms
        else:
            ts = self._timestamp_ms()
            if method.upper() not in _READ_METHODS:
                if self._last_write_ms is not None and ts <= self._last_write_ms:
                    ts = self._last_write_ms + 1
                self._last_write_ms = ts
        signature = sign(self.api_key, self._secret, ts, method, path_and_query, body)
        return {
            TIMESTAMP_HEADER: str(ts),
            KEY_HEADER: self.api_key,
            SIGNATURE_HEADER: signature,
        }

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        """Add the signature headers to ``request`` (httpx calls this for every send)."""
        path_and_query = request.url.raw_path.decode("ascii")
        request.headers.update(
            self.headers_for(request.method, path_and_query, request.content or None)
        )
        yield request
