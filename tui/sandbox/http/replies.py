"""What the sandbox sends back: JSON bytes, the contract's envelopes and its headers.

Every answer, success or refusal, is compact UTF-8 JSON with ``content-type``,
``content-length`` and `RECEIVED_HEADER` in that order, then the refusal's own headers (``Allow``
on a 405, ``X-Rate-Limit-Resets-In-Ms`` on a 429). A refusal is the error envelope
``{"error": {"code": ..., "message": ...}}``; the 500 one has fixed bytes so it cannot fail.
Encoding happens when the answer is built, so a write can have its answer in bytes before its
transaction commits.

`DroppedConnection` is the one answer that is not one: the connection closes and no byte of a
response goes out (the ``--faults`` drops). uvicorn turns an app that raises, or returns without
starting a response, into its own plain-text 500, and one that starts a response and stops into
a half-sent answer; neither is a dropped connection. So the sandbox's hosting hands every
request a way to close its connection (`DROP_CONNECTION` in the scope's ``state``), and the
app, having closed it, returns only once the server has seen the disconnect, which makes
uvicorn send nothing and log nothing. The client sees a transport error (``httpx``'s
``RemoteProtocolError`` "Server disconnected without sending a response", or ``ReadError``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from tui.api.models import ErrorCode
from tui.sandbox.engine.errors import ServiceError

__all__ = [
    "DROP_CONNECTION",
    "RECEIVED_HEADER",
    "BodyTooLarge",
    "DroppedConnection",
    "MethodNotAllowed",
    "answer",
    "internal_error",
    "json_bytes",
    "refusal",
]

RECEIVED_HEADER = "X-Request-Received-Ms"
"""Header on every response: when the server received the request, Unix ms (sandbox clock)."""

DROP_CONNECTION = "sandbox.drop_connection"
"""Key, in a request scope's ``state``, of the callable that closes that request's connection."""

_DISCONNECT_WAIT_S = 2.0
log = logging.getLogger(__name__)

_INTERNAL_BODY = json.dumps(
    {"error": {"code": int(ErrorCode.INTERNAL), "message": "internal server error"}},
    separators=(",", ":"),
).encode()


class BodyTooLarge(ServiceError):
    """A body over the size cap: 413 with the usual error envelope (code 1001)."""

    def __init__(self, limit: int) -> None:
        super().__init__(ErrorCode.OUT_OF_RANGE, f"request body larger than {limit} bytes")

    @property
    def http_status(self) -> int:
        """413 Content Too Large."""
        return 413


class MethodNotAllowed(ServiceError):
    """A known path asked with a method it does not serve: 405/1000 with ``Allow``."""

    def __init__(self, method: str, path: str, allowed: Sequence[str]) -> None:
        super().__init__(
            ErrorCode.BAD_REQUEST,
            f"method {method[:10]} not allowed on {path}; use {' or '.join(allowed)}",
            headers={"Allow": ", ".join(allowed)},
        )

    @property
    def http_status(self) -> int:
        """405 Method Not Allowed."""
        return 405


def json_bytes(payload: Any) -> bytes:
    """The payload as compact UTF-8 JSON.

    Text that cannot be UTF-8 encoded (a lone surrogate stored before requests were checked
    for it) falls back to ASCII with ``\\u`` escapes, which is still valid JSON: one bad record
    must not make every answer that shows it fail for good. Raises when the payload is not
    JSON data at all (the caller turns that into a 500).
    """
    try:
        return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(payload, separators=(",", ":")).encode("ascii")


def _response(
    status: int, data: bytes, received_ms: int, headers: Mapping[str, str] | None = None
) -> Response:
    all_headers = {
        "content-type": "application/json",
        "content-length": str(len(data)),
        RECEIVED_HEADER.lower(): str(received_ms),
    }
    for name, value in (headers or {}).items():
        all_headers[name.lower()] = value
    return Response(data, status_code=status, headers=all_headers)


def answer(payload: Any, received_ms: int) -> Response:
    """A 200 with ``payload`` encoded now (raises if it cannot be)."""
    return _response(200, json_bytes(payload), received_ms)


def refusal(error: ServiceError, received_ms: int) -> Response:
    """The error envelope of ``error`` with its status and headers."""
    payload = {"error": {"code": int(error.code), "message": error.message}}
    return _response(error.http_status, json_bytes(payload), received_ms, error.headers)


def internal_error(received_ms: int) -> Response:
    """The 500/9000 envelope: fixed bytes, no detail (the traceback goes to the log only)."""
    return _response(ErrorCode.INTERNAL.http_status, _INTERNAL_BODY, received_ms)


class DroppedConnection(Response):
    """No answer at all: the request's connection is closed before any byte of a response.

    Without the hosting's `DROP_CONNECTION` (another ASGI server), it starts an answer and
    stops, which a server like uvicorn ends by closing the connection mid-answer: still a
    transport error for the client, though no longer a silent one.
    """

    def __init__(self) -> None:
        super().__init__(b"", status_code=500)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Close the connection and return once the server has noticed (a bounded wait)."""
        close = scope.get("state", {}).get(DROP_CONNECTION)
        if close is None:
            log.warning("no way to drop the connection here; cutting the answer short instead")
            await send({"type": "http.response.start", "status": 500, "headers": []})
            return
        close()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(_DISCONNECT_WAIT_S):
                while (await receive())["type"] != "http.disconnect":
                    pass  # body bytes still on their way in; nobody will read them
