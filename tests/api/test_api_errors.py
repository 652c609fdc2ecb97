"""Error responses map to the catalogue's classes, tolerantly, and never carry a secret."""

from __future__ import annotations

import random

import httpx
import pytest

from tui.api.errors import (
    ApiError,
    AuthError,
    BadRequest,
    Conflict,
    ConnectionLost,
    Forbidden,
    InvalidArgument,
    NotFound,
    OutOfRange,
    RateLimited,
    RequestTimeout,
    ServerError,
    TimestampSkew,
    backoff_delay,
    error_from_response,
    transport_error,
)
from tui.api.models import ErrorCode

REQUEST = httpx.Request("POST", "http://sandbox.test/v1/quotes/new?debug=1")


def _response(status: int, body: object = None, **kwargs: object) -> httpx.Response:
    if body is None:
        return httpx.Response(status, request=REQUEST, **kwargs)  # type: ignore[arg-type]
    return httpx.Response(status, json=body, request=REQUEST, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("code", "cls"),
    [
        (ErrorCode.BAD_REQUEST, BadRequest),
        (ErrorCode.OUT_OF_RANGE, OutOfRange),
        (ErrorCode.UNAUTHENTICATED, AuthError),
        (ErrorCode.TIMESTAMP_SKEW, TimestampSkew),
        (ErrorCode.FORBIDDEN, Forbidden),
        (ErrorCode.NOT_FOUND, NotFound),
        (ErrorCode.CONFLICT, Conflict),
        (ErrorCode.RATE_LIMITED, RateLimited),
        (ErrorCode.INTERNAL, ServerError),
    ],
)
def test_each_catalogue_row_has_its_class(code: ErrorCode, cls: type[ApiError]) -> None:
    body = {"error": {"code": int(code), "message": "qty: must be greater than 0"}}
    error = error_from_response(_response(code.http_status, body))
    assert type(error) is cls
    assert error.status == code.http_status
    assert error.code == code
    assert error.message == "qty: must be greater than 0"
    assert error.endpoint == "POST /v1/quotes/new"  # never the query string
    assert "qty: must be greater than 0" in str(error)
    assert str(code.http_status) in str(error)


def test_subclass_relations_let_the_desk_catch_broadly() -> None:
    assert issubclass(OutOfRange, BadRequest)
    assert issubclass(TimestampSkew, AuthError)
    assert issubclass(RequestTimeout, ConnectionLost)
    assert issubclass(InvalidArgument, ValueError)
    assert issubclass(InvalidArgument, ApiError)


def test_rate_limited_carries_the_reset_time() -> None:
    body = {"error": {"code": 5000, "message": "request-token budget exhausted"}}
    error = error_from_response(_response(429, body, headers={"X-Rate-Limit-Resets-In-Ms": "2500"}))
    assert isinstance(error, RateLimited)
    assert error.resets_in_ms == 2500
    missing = error_from_response(_response(429, body))
    assert isinstance(missing, RateLimited)
    assert missing.resets_in_ms is None


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, BadRequest),
        (401, AuthError),
        (403, Forbidden),
        (404, NotFound),
        (409, Conflict),
        (429, RateLimited),
        (500, ServerError),
        (502, ServerError),
        (503, ServerError),
        (418, ApiError),
    ],
)
def test_unknown_code_falls_back_to_the_status(status: int, cls: type[ApiError]) -> None:
    error = error_from_response(_response(status, {"error": {"code": 777777, "message": "new"}}))
    assert type(error) is cls
    assert error.status == status
    assert error.code == 777777
    assert error.message == "new"


def test_non_json_body_still_gives_an_api_error() -> None:
    html = httpx.Response(
        502,
        content=b"<html>Bad Gateway</html>",
        request=REQUEST,
        headers={"content-type": "text/html"},
    )
    error = error_from_response(html)
    assert type(error) is ServerError
    assert error.status == 502
    assert error.code is None
    assert "Bad Gateway" in error.message


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"null",
        b"[1,2]",
        b'{"error": "flat string"}',
        b'{"error": {"code": "x"}}',
        b'{"error": {"code": true, "message": 5}}',
        b"\xff\xfe",
    ],
)
def test_odd_bodies_are_tolerated(body: bytes) -> None:
    error = error_from_response(httpx.Response(404, content=body, request=REQUEST))
    assert type(error) is NotFound
    assert error.code is None
    assert error.message


def test_long_messages_are_cut() -> None:
    error = error_from_response(_response(400, {"error": {"code": 1000, "message": "x" * 5000}}))
    assert len(error.message) <= 300


def test_transport_errors_say_whether_the_request_may_have_been_sent() -> None:
    refused = transport_error(httpx.ConnectError("refused"), "POST /v1/quotes/new")
    assert type(refused) is ConnectionLost
    assert not refused.maybe_sent
    assert refused.status == 0
    read = transport_error(httpx.ReadTimeout("slow"), "POST /v1/quotes/new")
    assert type(read) is RequestTimeout
    assert read.maybe_sent
    pool = transport_error(httpx.PoolTimeout("busy"), "GET /v1/companies")
    assert type(pool) is RequestTimeout
    assert not pool.maybe_sent
    dropped = transport_error(httpx.RemoteProtocolError("gone"), "POST /v1/rfqs/new")
    assert type(dropped) is ConnectionLost
    assert dropped.maybe_sent
    assert str(dropped).startswith("POST /v1/rfqs/new: connection failed")


def test_invalid_argument_names_the_field() -> None:
    error = InvalidArgument("limit", "at most 1000", endpoint="GET /v1/rfqs/received")
    assert error.field == "limit"
    assert str(error) == "GET /v1/rfqs/received: limit: at most 1000"


def test_repr_shows_the_essentials() -> None:
    error = NotFound("no such quote", endpoint="POST /v1/quotes/cancel")
    assert repr(error) == (
        "NotFound(status=404, code=3000, message='no such quote', "
        "endpoint='POST /v1/quotes/cancel')"
    )


def test_backoff_grows_with_jitter_and_is_capped() -> None:
    rng = random.Random(7)
    delays = [backoff_delay(n, base_s=0.5, cap_s=3.0, rng=rng) for n in range(1, 7)]
    bounds = [0.5, 1.0, 2.0, 3.0, 3.0, 3.0]
    for delay, full in zip(delays, bounds, strict=True):
        assert full / 2 <= delay <= full
