"""The retry rules as a table: what a failed attempt leads to, by method, count and outcome."""

from __future__ import annotations

import httpx
import pytest

from tui.api.client.retry import Action, Outcome, RetryPolicy, Tries, outcome_of
from tui.api.endpoints import Method
from tui.api.errors import (
    ApiError,
    AuthError,
    BadRequest,
    ConnectionLost,
    MalformedResponse,
    RateLimited,
    RequestTimeout,
    ServerError,
    TimestampSkew,
    transport_error,
)

GET, POST = Method.GET, Method.POST
POLICY = RetryPolicy(max_attempts=3, max_rate_limit_waits=2)
FIRST = Tries()
LAST = Tries(attempt=3)
WAITED_OUT = Tries(rate_limit_waits=2)
RESYNCED = Tries(resynced=True)

RULES = [
    # A GET goes again after a backoff on any failure that may be passing, until the last attempt.
    (GET, FIRST, Outcome.NEVER_SENT, Action.BACKOFF),
    (GET, FIRST, Outcome.LOST, Action.BACKOFF),
    (GET, FIRST, Outcome.SERVER_ERROR, Action.BACKOFF),
    (GET, Tries(attempt=2), Outcome.SERVER_ERROR, Action.BACKOFF),
    (GET, LAST, Outcome.NEVER_SENT, Action.RAISE),
    (GET, LAST, Outcome.LOST, Action.RAISE),
    (GET, LAST, Outcome.SERVER_ERROR, Action.RAISE),
    (GET, FIRST, Outcome.REFUSED, Action.RAISE),
    # A 429 on a GET is waited out by the budget, a bounded number of times, attempts aside.
    (GET, FIRST, Outcome.RATE_LIMITED, Action.RETRY_NOW),
    (GET, LAST, Outcome.RATE_LIMITED, Action.RETRY_NOW),
    (GET, Tries(rate_limit_waits=1), Outcome.RATE_LIMITED, Action.RETRY_NOW),
    (GET, WAITED_OUT, Outcome.RATE_LIMITED, Action.RAISE),
    # A POST goes again only when the server provably did not act on it.
    (POST, FIRST, Outcome.NEVER_SENT, Action.BACKOFF),
    (POST, LAST, Outcome.NEVER_SENT, Action.RAISE),
    (POST, FIRST, Outcome.LOST, Action.RAISE),
    (POST, FIRST, Outcome.SERVER_ERROR, Action.RAISE),
    (POST, FIRST, Outcome.RATE_LIMITED, Action.RAISE),
    (POST, FIRST, Outcome.REFUSED, Action.RAISE),
    # A skew refusal resynchronises the clock once per call, for either method.
    (POST, FIRST, Outcome.CLOCK_SKEW, Action.RESYNC_CLOCK),
    (GET, FIRST, Outcome.CLOCK_SKEW, Action.RESYNC_CLOCK),
    (POST, LAST, Outcome.CLOCK_SKEW, Action.RESYNC_CLOCK),
    (POST, RESYNCED, Outcome.CLOCK_SKEW, Action.RAISE),
    (GET, RESYNCED, Outcome.CLOCK_SKEW, Action.RAISE),
]


@pytest.mark.parametrize(("method", "tries", "outcome", "action"), RULES)
def test_the_policy_follows_the_rules(
    method: Method, tries: Tries, outcome: Outcome, action: Action
) -> None:
    assert POLICY.decide(method, tries, outcome) is action


def test_one_attempt_means_no_backoff() -> None:
    once = RetryPolicy(max_attempts=1, max_rate_limit_waits=0)
    assert once.decide(GET, FIRST, Outcome.SERVER_ERROR) is Action.RAISE
    assert once.decide(POST, FIRST, Outcome.NEVER_SENT) is Action.RAISE
    assert once.decide(GET, FIRST, Outcome.RATE_LIMITED) is Action.RAISE
    assert once.decide(POST, FIRST, Outcome.CLOCK_SKEW) is Action.RESYNC_CLOCK


def test_only_a_backoff_counts_as_an_attempt() -> None:
    assert FIRST.after(Action.BACKOFF) == Tries(attempt=2)
    assert FIRST.after(Action.RETRY_NOW) == Tries(attempt=1, rate_limit_waits=1)
    assert FIRST.after(Action.RESYNC_CLOCK) == Tries(attempt=1, resynced=True)
    assert FIRST.after(Action.RAISE) == FIRST


def _failed(exc_type: type[httpx.TransportError]) -> ConnectionLost:
    request = httpx.Request("GET", "http://venue.test/v1/quotes")
    return transport_error(exc_type("failed", request=request), "GET /v1/quotes")


@pytest.mark.parametrize(
    ("error", "signed", "outcome"),
    [
        (_failed(httpx.ConnectError), True, Outcome.NEVER_SENT),
        (_failed(httpx.ConnectTimeout), True, Outcome.NEVER_SENT),
        (_failed(httpx.PoolTimeout), True, Outcome.NEVER_SENT),
        (_failed(httpx.ReadTimeout), True, Outcome.LOST),
        (_failed(httpx.RemoteProtocolError), True, Outcome.LOST),
        (RequestTimeout("late", maybe_sent=True), True, Outcome.LOST),
        (ConnectionLost("gone", maybe_sent=False), True, Outcome.NEVER_SENT),
        (RateLimited("busy", status=429), True, Outcome.RATE_LIMITED),
        (TimestampSkew("skew", status=401), True, Outcome.CLOCK_SKEW),
        (TimestampSkew("skew", status=401), False, Outcome.REFUSED),
        (AuthError("bad signature", status=401), True, Outcome.REFUSED),
        (ServerError("boom", status=503), True, Outcome.SERVER_ERROR),
        (MalformedResponse("html", status=502), True, Outcome.SERVER_ERROR),
        (BadRequest("no", status=400), True, Outcome.REFUSED),
        (ApiError("teapot", status=418), True, Outcome.REFUSED),
    ],
)
def test_each_error_stands_for_an_outcome(error: ApiError, signed: bool, outcome: Outcome) -> None:
    assert outcome_of(error, signed=signed) is outcome
