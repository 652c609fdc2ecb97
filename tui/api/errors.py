"""The errors the API client raises: one class per row of the error catalogue, plus transport.

Every error is an `ApiError` carrying the HTTP ``status`` (0 when no response came back), the
catalogue ``code`` (None when the server sent none), a human ``message`` and the ``endpoint``
(``"GET /v1/companies"``: method and path, never the query string or any header). Nothing
secret is ever put into an error: not the API secret, not the signature, not a wallet key.
"""

from __future__ import annotations

import random
from decimal import Decimal, InvalidOperation
from types import EllipsisType
from typing import TYPE_CHECKING, Any, ClassVar

from tui.api.jsonwire import decode_json
from tui.api.models import ErrorCode

if TYPE_CHECKING:  # httpx loads with the client that sends, not with its errors
    import httpx

__all__ = [
    "MAX_RESET_HINT_MS",
    "RATE_LIMIT_RESET_HEADER",
    "ApiError",
    "AuthError",
    "BadRequest",
    "Conflict",
    "ConnectionLost",
    "Forbidden",
    "InvalidArgument",
    "MalformedResponse",
    "NotFound",
    "OutOfRange",
    "RateLimited",
    "RequestTimeout",
    "ServerError",
    "TimestampSkew",
    "backoff_delay",
    "error_from_response",
    "transport_error",
]

RATE_LIMIT_RESET_HEADER = "X-Rate-Limit-Resets-In-Ms"
MAX_RESET_HINT_MS = 60_000
"""The longest reset hint believed: the longest window of any venue limit (the public
statistics' per-minute cap). A budget clamps further, to its own window (`TokenBudget.penalize`)."""
_MAX_MESSAGE = 300


class ApiError(Exception):
    """Any failure of a call to the service, with what the desk needs to show it."""

    default_status: ClassVar[int] = 0
    default_code: ClassVar[int | None] = None

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: int | EllipsisType | None = ...,
        endpoint: str = "",
    ) -> None:
        self.status: int = self.default_status if status is None else status
        # ``...`` means "the catalogue code of this class"; None means the server sent none.
        self.code: int | None = self.default_code if code is ... else code
        self.message: str = message
        self.endpoint: str = endpoint
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.endpoint}: " if self.endpoint else ""
        detail = [f"HTTP {self.status}"] if self.status else []
        if self.code is not None:
            detail.append(f"code {self.code}")
        suffix = f" ({', '.join(detail)})" if detail else ""
        return f"{where}{self.message}{suffix}"

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status={self.status}, code={self.code}, "
            f"message={self.message!r}, endpoint={self.endpoint!r})"
        )


class BadRequest(ApiError):
    """400/1000: malformed JSON, wrong types, missing keys, bad query parameters."""

    default_status = 400
    default_code = ErrorCode.BAD_REQUEST.value


class OutOfRange(BadRequest):
    """400/1001: a value out of range (too long, not positive, expiry in the past ...)."""

    default_code = ErrorCode.OUT_OF_RANGE.value


class AuthError(ApiError):
    """401/2000: missing headers, unknown key or bad signature: the credentials are wrong."""

    default_status = 401
    default_code = ErrorCode.UNAUTHENTICATED.value


class TimestampSkew(AuthError):
    """401/2001: the request timestamp was more than 5 s from server time."""

    default_code = ErrorCode.TIMESTAMP_SKEW.value


class Forbidden(ApiError):
    """403/2002: a reader key on a writing endpoint, or a record of another company."""

    default_status = 403
    default_code = ErrorCode.FORBIDDEN.value


class NotFound(ApiError):
    """404/3000: no such id (or not one the caller may see)."""

    default_status = 404
    default_code = ErrorCode.NOT_FOUND.value


class Conflict(ApiError):
    """409/4000: the record is not in a state that allows this (closed RFQ, quote gone ...)."""

    default_status = 409
    default_code = ErrorCode.CONFLICT.value


class RateLimited(ApiError):
    """429/5000: the request-token budget is exhausted; ``resets_in_ms`` says for how long."""

    default_status = 429
    default_code = ErrorCode.RATE_LIMITED.value

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: int | EllipsisType | None = ...,
        endpoint: str = "",
        resets_in_ms: int | None = None,
    ) -> None:
        self.resets_in_ms: int | None = resets_in_ms
        super().__init__(message, status=status, code=code, endpoint=endpoint)


class ServerError(ApiError):
    """500/9000 or any 5xx: the service failed; the request may or may not have taken effect."""

    default_status = 500
    default_code: ClassVar[int | None] = ErrorCode.INTERNAL.value


class MalformedResponse(ServerError):
    """A 200 whose body is not JSON or does not match the record the endpoint promises."""

    default_code: ClassVar[int | None] = None


class ConnectionLost(ApiError):
    """No response: the connection failed or broke.

    ``maybe_sent`` is True when the request may have reached the server before the failure
    (so a write may have happened and must be checked, not blindly resent).
    """

    def __init__(self, message: str, *, endpoint: str = "", maybe_sent: bool = False) -> None:
        self.maybe_sent: bool = maybe_sent
        super().__init__(message, status=0, code=None, endpoint=endpoint)


class RequestTimeout(ConnectionLost):
    """No response in time (a `ConnectionLost`, so one handler covers both)."""


class InvalidArgument(ApiError, ValueError):
    """A call refused by the client before anything was sent; ``field`` names the culprit."""

    def __init__(self, field: str, message: str, *, endpoint: str = "") -> None:
        self.field: str = field
        super().__init__(f"{field}: {message}", status=0, code=None, endpoint=endpoint)


_BY_CODE: dict[int, type[ApiError]] = {
    ErrorCode.BAD_REQUEST: BadRequest,
    ErrorCode.OUT_OF_RANGE: OutOfRange,
    ErrorCode.UNAUTHENTICATED: AuthError,
    ErrorCode.TIMESTAMP_SKEW: TimestampSkew,
    ErrorCode.FORBIDDEN: Forbidden,
    ErrorCode.NOT_FOUND: NotFound,
    ErrorCode.CONFLICT: Conflict,
    ErrorCode.RATE_LIMITED: RateLimited,
    ErrorCode.INTERNAL: ServerError,
}

_BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequest,
    401: AuthError,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    429: RateLimited,
}


def _error_body(response: httpx.Response) -> tuple[int | None, str | None]:
    """The catalogue code and message of an error body, tolerating anything else."""
    try:
        data: Any = decode_json(response.content)
    except (ValueError, UnicodeDecodeError):
        return None, None
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict):
        return None, None
    raw_code = error.get("code")
    code = raw_code if isinstance(raw_code, int) and not isinstance(raw_code, bool) else None
    raw_message = error.get("message")
    message = raw_message if isinstance(raw_message, str) and raw_message else None
    return code, message


def _resets_in_ms(response: httpx.Response) -> int | None:
    """The reset hint of a 429 in ms, at most `MAX_RESET_HINT_MS`; None when absent or garbage.

    Only a finite, non-negative number is a hint: ``inf``, ``nan``, ``-5`` or text give None,
    which the budget treats as "wait one whole window".
    """
    raw = response.headers.get(RATE_LIMIT_RESET_HEADER)
    if raw is None:
        return None
    try:
        # Decimal, not float: a long digit string stays finite (and is clamped) instead of
        # overflowing to inf.
        value = Decimal(raw.strip())
    except InvalidOperation:
        return None
    if not value.is_finite() or value < 0:
        return None
    # Compared before int(): converting "9e999999999" would build an enormous integer.
    return MAX_RESET_HINT_MS if value >= MAX_RESET_HINT_MS else int(value)


def error_from_response(response: httpx.Response, endpoint: str = "") -> ApiError:
    """The `ApiError` for a non-200 response.

    The class comes from the catalogue code when the body carries a known one, else from the
    HTTP status (any 5xx is a `ServerError`); a body that is not the error envelope (HTML from a
    proxy, empty, truncated) still gives an `ApiError` with the status in its message.
    """
    status = response.status_code
    if not endpoint:
        endpoint = f"{response.request.method} {response.request.url.path}"
    code, message = _error_body(response)
    cls = _BY_CODE.get(code) if code is not None else None
    if cls is None:
        cls = ServerError if status >= 500 else _BY_STATUS.get(status, ApiError)
    if message is None:
        reason = response.reason_phrase or "unexpected response"
        message = f"{reason} (no error details in the response)"
    message = message[:_MAX_MESSAGE]
    if cls is RateLimited:
        return RateLimited(
            message,
            status=status,
            code=code,
            endpoint=endpoint,
            resets_in_ms=_resets_in_ms(response),
        )
    # A known code decides the class but the status stays what the server said; with no
    # code the class's default code would be a guess, so the error carries None.
    return cls(message, status=status, code=code, endpoint=endpoint)


def transport_error(exc: httpx.TransportError, endpoint: str) -> ConnectionLost:
    """The `ConnectionLost`/`RequestTimeout` for an httpx transport failure.

    ``maybe_sent`` is False exactly when the request provably never left: no connection to the
    venue was ever open (refused, connect timeout, no pooled connection free, a proxy that
    refused, a scheme httpx cannot speak). Any failure on an open connection (a read or write
    error or timeout, a dropped connection, a protocol error) may come after the venue got the
    request, so a write must then be resolved by reading, never resent blindly.
    """
    import httpx  # loaded already: the failure is httpx's

    never_left = (  # failures before a connection to the venue was open
        httpx.ConnectError,
        httpx.ConnectTimeout,
        httpx.PoolTimeout,
        httpx.ProxyError,
        httpx.UnsupportedProtocol,
    )
    maybe_sent = not isinstance(exc, never_left)
    detail = type(exc).__name__
    text = str(exc).strip()
    if text:
        detail = f"{detail}: {text[:120]}"
    if isinstance(exc, httpx.TimeoutException):
        return RequestTimeout(
            f"no response in time ({detail})", endpoint=endpoint, maybe_sent=maybe_sent
        )
    return ConnectionLost(f"connection failed ({detail})", endpoint=endpoint, maybe_sent=maybe_sent)


def backoff_delay(
    attempt: int, *, base_s: float = 0.25, cap_s: float = 4.0, rng: random.Random | None = None
) -> float:
    """Seconds to wait before retry number ``attempt`` (1-based): jittered exponential backoff.

    The wait is drawn from [half, full] of ``min(cap, base * 2**(attempt-1))``, so clients that
    failed together do not all come back at the same instant.
    """
    full = min(cap_s, base_s * (2 ** max(0, attempt - 1)))
    draw = (rng or random).uniform(0.5, 1.0)
    return full * draw
