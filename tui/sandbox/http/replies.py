"""What the sandbox sends back: JSON bytes, the contract's envelopes and its headers.

Every answer, success or refusal, is compact UTF-8 JSON with ``content-type``,
``content-length`` and `RECEIVED_HEADER` in that order, then the refusal's own headers (``Allow``
on a 405, ``X-Rate-Limit-Resets-In-Ms`` on a 429). A refusal is the error envelope
``{"error": {"code": ..., "message": ...}}``; the 500 one has fixed bytes so it cannot fail.
Encoding happens when the answer is built, so a write can have its answer in bytes before its
transaction commits.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from starlette.responses import Response

from tui.api.models import ErrorCode
from tui.sandbox.engine.errors import ServiceError

__all__ = [
    "RECEIVED_HEADER",
    "BodyTooLarge",
    "MethodNotAllowed",
    "answer",
    "internal_error",
    "json_bytes",
    "refusal",
]

RECEIVED_HEADER = "X-Request-Received-Ms"
"""Header on every response: when the server received the request, Unix ms (sandbox clock)."""

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
